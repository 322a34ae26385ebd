"""The customizable contraction hierarchy (CCH): order, topology, customization and
re-customization give exactly scipy's Dijkstra costs."""

from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

from gpu_core.errors import CancelledError, InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import build_hierarchy
from gpu_core.hierarchy.cch import Topology, build_topology, customize, fits
from gpu_core.hierarchy.chordal import eliminate
from gpu_core.hierarchy.order import nested_dissection_order, reduce_low_degree, undirected
from gpu_core.multi_source import multi_source_sssp
from tests.core.families import FAMILIES, FAMILY_NAMES

pytest.importorskip("pymetis")


def scipy_rows(g: CSRGraph, sources, targets=None) -> np.ndarray:
    """scipy's Dijkstra with parallel arcs at their minimum (csr_matrix would add them)."""
    n = g.num_nodes
    tails = g.arc_sources().astype(np.int64)
    heads = g.indices.astype(np.int64)
    w = g.weights.astype(np.float64)
    best: dict = {}
    for t, h, x in zip(tails.tolist(), heads.tolist(), w.tolist(), strict=True):
        if t != h and ((t, h) not in best or x < best[(t, h)]):
            best[(t, h)] = x
    keys = list(best)
    # zero weights must stay arcs: shift every weight by one part in 2^-20 and round back
    data = np.array([best[k] for k in keys]) + 2.0**-20
    m = sp.csr_matrix((data, ([k[0] for k in keys], [k[1] for k in keys])), shape=(n, n))
    d = dijkstra(m, indices=np.asarray(sources))
    if targets is not None:
        d = d[:, np.asarray(targets)]
    out = np.where(np.isinf(d), -1, np.floor(d)).astype(np.int64)
    return out


def phast_rows(g, h, sources, targets=None) -> np.ndarray:
    return multi_source_sssp(g, sources, targets=targets, backend="cpu", variant="phast",
                             hierarchy=h).dist


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_families_all_pairs(name, make):
    g = make(seed=7)
    h = build_hierarchy(g, method="cch")
    assert h.method == "cch" and h.cch_edges >= 0
    src = np.arange(g.num_nodes)
    np.testing.assert_array_equal(phast_rows(g, h, src), scipy_rows(g, src))


def _graph(n, data, max_w=30):
    m = data.draw(st.integers(0, 4 * n))
    t = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    hd = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = data.draw(st.lists(st.integers(0, max_w), min_size=m, max_size=m))
    return CSRGraph.from_edges(n, t, hd, w)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 40), data=st.data())
def test_random_multigraphs(n, data):
    # one-ways, parallel arcs, self-loops, zero weights, disconnected parts
    g = _graph(n, data)
    h = build_hierarchy(g, method="cch")
    src = np.arange(n)
    np.testing.assert_array_equal(phast_rows(g, h, src), scipy_rows(g, src))


def _brute_fill(n, ptr, adj, rank):
    """Simulated elimination with explicit cliques: the chordal edge set, brute force."""
    nb = [set(adj[ptr[v]:ptr[v + 1]].tolist()) for v in range(n)]
    order = np.argsort(rank)
    edges = set()
    for v in order.tolist():
        up = [u for u in nb[v] if rank[u] > rank[v]]
        for u in up:
            edges.add((int(rank[v]), int(rank[u])))
        for a in up:
            for b in up:
                if a != b:
                    nb[a].add(b)
    return edges


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 30), data=st.data())
def test_chordal_supergraph_is_the_elimination_fill(n, data):
    g = _graph(n, data)
    ptr, adj = undirected(n, g.indptr, g.indices)
    rank = nested_dissection_order(n, ptr, adj)
    assert sorted(rank.tolist()) == list(range(n))
    up_ptr, up_nb = eliminate(n, ptr, adj, rank, 1 << 40, np.zeros(2, np.int64))
    got = {(x, int(up_nb[e])) for x in range(n) for e in range(up_ptr[x], up_ptr[x + 1])}
    assert got == _brute_fill(n, ptr, adj, rank)


def test_degree_two_rounds_are_logarithmic():
    # a path of 4096 vertices: chains go in O(log n) rounds, not one vertex per round
    n = 4096
    g = CSRGraph.from_edges(n, list(range(n - 1)) + list(range(1, n)),
                            list(range(1, n)) + list(range(n - 1)), [1] * (2 * n - 2))
    ptr, adj = undirected(n, g.indptr, g.indices)
    elim, rounds, *_ = reduce_low_degree(n, ptr, adj, 1)
    assert elim.shape[0] == n and rounds <= 60
    h = build_hierarchy(g, method="cch")
    assert h.levels <= 80
    src = np.array([0, 17, n - 1])
    np.testing.assert_array_equal(phast_rows(g, h, src), scipy_rows(g, src))


def test_grid_and_sample_map():
    from maps.generate import generate
    from maps.load import load_map

    g = CSRGraph.from_any(generate("grid", 2500, seed=3))
    h = build_hierarchy(g, method="cch")
    r = np.random.default_rng(0)
    src, tgt = r.integers(0, g.num_nodes, 50), r.integers(0, g.num_nodes, 33)
    np.testing.assert_array_equal(phast_rows(g, h, src, tgt), scipy_rows(g, src, tgt))
    net = load_map(os.path.join(os.path.dirname(__file__), "../../maps/samples/helsinki.osm.pbf"))
    g = CSRGraph.from_any(net)
    h = build_hierarchy(g, method="cch")
    src = np.random.default_rng(2).integers(0, g.num_nodes, 40)
    np.testing.assert_array_equal(phast_rows(g, h, src), scipy_rows(g, src))


def _edit(g: CSRGraph, rng, steps: int) -> CSRGraph:
    """Random closures (arc removed), reopenings (a removed arc back) and new weights."""
    tails = g.arc_sources().astype(np.int64)
    heads = g.indices.astype(np.int64)
    w = g.weights.astype(np.int64).copy()
    live = np.ones(tails.shape[0], bool)
    for _ in range(steps):
        a = int(rng.integers(0, tails.shape[0]))
        kind = rng.integers(0, 3)
        if kind == 0:
            live[a] = False
        elif kind == 1:
            live[rng.choice(np.flatnonzero(~live)) if (~live).any() else a] = True
        else:
            w[a] = int(rng.integers(0, 50))
    return CSRGraph.from_edges(g.num_nodes, tails[live], heads[live], w[live])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(1, 12))
def test_recustomize_random_edit_sequences(seed, steps):
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 400, seed=seed % 5))
    t = build_topology(g)
    rng = np.random.default_rng(seed)
    src = np.arange(0, g.num_nodes, 7)
    for _ in range(3):  # a sequence: each edited map from the previous one's arcs
        g2 = _edit(g, rng, steps)
        assert fits(t, g2) == ""
        h = customize(t, g2)
        np.testing.assert_array_equal(phast_rows(g2, h, src), scipy_rows(g2, src))


def test_added_road_does_not_fit():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 400, seed=1))
    t = build_topology(g)
    tails = np.concatenate([g.arc_sources(), [0]])
    heads = np.concatenate([g.indices, [g.num_nodes - 1]])
    g2 = CSRGraph.from_edges(g.num_nodes, tails, heads, np.concatenate([g.weights, [1]]))
    assert "new road" in fits(t, g2)
    with pytest.raises(InvalidArgumentError, match="new road"):
        customize(t, g2)
    g3 = CSRGraph.from_edges(g.num_nodes + 1, g.arc_sources(), g.indices, g.weights)
    assert "vertices" in fits(t, g3)


def test_topology_save_load_damage(tmp_path):
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 900, seed=2))
    t = build_topology(g)
    p = tmp_path / "t.npz"
    t.save(p)
    t2 = Topology.load(p, key=t.key)
    np.testing.assert_array_equal(t2.up_nb, t.up_nb)
    with pytest.raises(InvalidArgumentError, match="another graph"):
        Topology.load(p, key="0" * 32)
    raw = p.read_bytes()
    (tmp_path / "short.npz").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError):
        Topology.load(tmp_path / "short.npz")
    for off in (len(raw) // 3, len(raw) // 2, len(raw) - 40):
        b = bytearray(raw)
        b[off] ^= 0x5A
        (tmp_path / "flip.npz").write_bytes(bytes(b))
        with pytest.raises(ValueError):
            Topology.load(tmp_path / "flip.npz")


def test_cancel_and_progress():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 10000, seed=1))
    with pytest.raises(CancelledError):
        build_hierarchy(g, method="cch", cancel=lambda: True)
    seen = []
    build_hierarchy(g, method="cch", progress=lambda f, m: seen.append((f, m)))
    fr = [f for f, _ in seen]
    assert fr == sorted(fr) and fr[-1] == 1.0 and len({m for _, m in seen}) >= 3


def test_unknown_method():
    with pytest.raises(InvalidArgumentError, match="index method"):
        build_hierarchy(CSRGraph.from_edges(2, [0], [1], [1]), method="fast")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 40), data=st.data())
def test_pruned_and_unpruned_hierarchies(n, data):
    # zero weights make ties: a witness needs two legs > 0 (test_cch_perfect.py)
    g = _graph(n, data, max_w=data.draw(st.sampled_from([0, 1, 3, 30])))
    t = build_topology(g)
    full, pruned = customize(t, g, prune=False), customize(t, g, prune=True)
    assert pruned.down_src.shape[0] <= t.edges and pruned.levels <= full.levels
    src = np.arange(n)
    want = scipy_rows(g, src)
    np.testing.assert_array_equal(phast_rows(g, full, src), want)
    np.testing.assert_array_equal(phast_rows(g, pruned, src), want)


def test_pruning_shrinks_a_road_map():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 3000, seed=9))
    t = build_topology(g)
    full, pruned = customize(t, g, prune=False), customize(t, g, prune=True)
    assert pruned.down_src.shape[0] < 0.7 * full.down_src.shape[0]
    assert pruned.levels < full.levels
    src = np.random.default_rng(1).integers(0, g.num_nodes, 60)
    np.testing.assert_array_equal(phast_rows(g, pruned, src), scipy_rows(g, src))


def test_without_pymetis(monkeypatch):
    import sys

    from gpu_core.hierarchy import MetisUnavailableError

    monkeypatch.setitem(sys.modules, "pymetis", None)  # import fails
    g = CSRGraph.from_edges(3, [0, 1, 2], [1, 2, 0], [1, 2, 3])
    with pytest.raises(MetisUnavailableError, match="pip install pymetis"):
        build_hierarchy(g, method="cch")
    h = build_hierarchy(g)  # auto: the witness-search CH
    assert h.method == "ch"
    np.testing.assert_array_equal(phast_rows(g, h, [0, 1, 2]), scipy_rows(g, [0, 1, 2]))
