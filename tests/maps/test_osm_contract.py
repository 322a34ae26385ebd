"""maps.model.chains: merging degree-2 chains keeps every cost between kept nodes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from maps.model.chains import Arcs, contract_chains


def make_arcs(edges: list[tuple[int, int, int]], cls: list[int] | None = None) -> Arcs:
    m = len(edges)
    t = np.array([e[0] for e in edges], dtype=np.int64)
    h = np.array([e[1] for e in edges], dtype=np.int64)
    w = np.array([e[2] for e in edges], dtype=np.int64)
    return Arcs(
        tails=t, heads=h, weights=w, lengths=w.astype(np.float64),
        kinds=np.zeros(m, np.uint8),
        classes=np.array(cls if cls is not None else [0] * m, dtype=np.uint8),
        source_ids=np.arange(m, dtype=np.int64), geometry=[None] * m,
    )  # fmt: skip


def dist(n: int, a: Arcs) -> np.ndarray:
    # scipy keeps the smallest of duplicate entries only via minimum: build it by hand
    d = np.full((n, n), np.inf)
    for u, v, w in zip(a.tails.tolist(), a.heads.tolist(), a.weights.tolist(), strict=True):
        d[u, v] = min(d[u, v], w)
    mat = csr_matrix(np.where(np.isinf(d), 0, d + 0.0))
    # zero-weight arcs do not occur (weights >= 1), so 0 means "no arc"
    return dijkstra(mat)


def triples(kept: np.ndarray, out: Arcs) -> list[tuple[int, int, int]]:
    """(old tail, old head, weight) of every contracted arc, sorted."""
    t, h, w = kept[out.tails].tolist(), kept[out.heads].tolist(), out.weights.tolist()
    return sorted(zip(t, h, w, strict=True))


def xy(n: int) -> np.ndarray:
    return np.column_stack([np.arange(n, dtype=float), np.zeros(n)])


def test_two_way_chain():
    # 0 - 1 - 2 - 3 with a branch 2 - 4: node 1 merges, 2 stays (3 neighbours)
    und = [(0, 1, 2), (1, 2, 3), (2, 3, 4), (2, 4, 5)]
    edges = und + [(v, u, w) for u, v, w in und]
    kept, out = contract_chains(5, make_arcs(edges), xy(5))
    assert kept.tolist() == [0, 2, 3, 4]
    pairs = {(u, v): w for u, v, w in triples(kept, out)}
    assert pairs[(0, 2)] == 5 and pairs[(2, 0)] == 5
    i = int(np.flatnonzero(kept[out.tails] == 0)[0])
    np.testing.assert_array_equal(out.geometry[i], [[1.0, 0.0]])  # node 1 became geometry


def test_one_way_chain_and_mixed_node():
    # 0 -> 1 -> 2 -> 3 one-way; 3 <-> 4 two-way; node 3 mixes both: kept
    edges = [(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 4, 1), (4, 3, 1)]
    kept, out = contract_chains(5, make_arcs(edges), xy(5))
    assert kept.tolist() == [0, 3, 4]
    assert triples(kept, out) == [(0, 3, 3), (3, 4, 1), (4, 3, 1)]


def test_class_change_stops_merging():
    und = [(0, 1, 1), (1, 2, 1)]
    edges = und + [(v, u, w) for u, v, w in und]
    kept, _ = contract_chains(3, make_arcs(edges, cls=[0, 1, 0, 1]), xy(3))
    assert kept.tolist() == [0, 1, 2]


def test_ring_keeps_one_node():
    edges = [(0, 1, 1), (1, 2, 1), (2, 0, 1)]
    kept, out = contract_chains(3, make_arcs(edges), xy(3))
    assert len(kept) == 1 and len(out.tails) == 1
    assert out.weights.tolist() == [3] and len(out.geometry[0]) == 2


def test_protected_nodes_stay():
    und = [(0, 1, 1), (1, 2, 1)]
    edges = und + [(v, u, w) for u, v, w in und]
    kept, _ = contract_chains(3, make_arcs(edges), xy(3), protected=[1])
    assert kept.tolist() == [0, 1, 2]


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 9).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(1, 9),
                          st.booleans(), st.integers(0, 1)),
                max_size=14,
            ),
        )
    )
)  # fmt: skip
def test_costs_between_kept_nodes_are_unchanged(case):
    n, spec = case
    edges, cls = [], []
    for u, v, w, both, c in spec:
        edges.append((u, v, w))
        cls.append(c)
        if both:
            edges.append((v, u, w))
            cls.append(c)
    a = make_arcs(edges, cls)
    kept, out = contract_chains(n, a, xy(n))
    assert len(out.tails) == len(out.geometry)
    before = dist(n, a)[np.ix_(kept, kept)]
    after = dist(len(kept), out)
    np.testing.assert_array_equal(before, after)
    # every arc is used exactly once: total weight is unchanged
    assert out.weights.sum() == a.weights.sum()
