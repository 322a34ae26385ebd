"""Negative arc weights on the CPU backend: the label-correcting strategies against scipy's
Bellman-Ford and Johnson (graphs made negative by potentials, so without negative
cycles), negative-cycle detection against networkx, and the refusals."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import johnson

from gpu_core.errors import InvalidArgumentError, NegativeCycleError, NegativeWeightsError
from gpu_core.graph import CSRGraph
from gpu_core.keys import UNREACHABLE_NEG, key_space_for
from gpu_core.reference import reference_sssp
from gpu_core.sssp import sssp
from gpu_core.sssp.negative import find_negative_cycle
from gpu_core.sssp.registry import NEGATIVE_STRATEGIES, REGISTRY

DIJKSTRA_LIKE = tuple(s.name for s in REGISTRY if not s.negative_weights)


def test_registry_flags() -> None:
    assert set(NEGATIVE_STRATEGIES) == {"conventional", "selection", "adaptive",
                                        "bellman_ford_queue"}
    assert set(DIJKSTRA_LIKE) == {"eval_dijkstra", "delta", "auto"}


def _potential_graph(seed: int, n: int, m: int, wmax: int, pmax: int) -> tuple[CSRGraph, np.ndarray]:
    """A random multigraph with w'(u,v) = w(u,v) + p(u) - p(v) (w >= 0): negative arcs, no
    negative cycle (every cycle keeps its non-negative cost). Returns (graph, p)."""
    r = np.random.default_rng(seed)
    tails = r.integers(0, n, m)
    heads = r.integers(0, n, m)
    w = r.integers(0, wmax + 1, m)
    p = r.integers(-pmax, pmax + 1, n)
    return CSRGraph.from_edges(n, tails, heads, w + p[tails] - p[heads]), p


def _johnson(g: CSRGraph, s: int) -> np.ndarray:
    """Row s of scipy's Johnson (parallel arcs reduced to their minimum, zeros as 1e-9)."""
    n = g.num_nodes
    best: dict[tuple[int, int], int] = {}
    for u, v, w in zip(g.arc_sources().tolist(), g.indices.tolist(), g.weights.tolist(),
                       strict=True):
        best[(u, v)] = min(w, best.get((u, v), w))
    if not best:
        d = np.full(n, np.inf)
        d[s] = 0
        return d
    (uu, vv), ww = zip(*best.keys(), strict=True), np.array(list(best.values()), float)
    ww[ww == 0] = 1e-9
    return johnson(csr_matrix((ww, (uu, vv)), shape=(n, n)), indices=s)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 40), dens=st.integers(0, 5),
       wmax=st.integers(0, 50), pmax=st.integers(0, 60))
def test_potential_graphs_match_bellman_ford_and_johnson(seed, n, dens, wmax, pmax) -> None:
    g, p = _potential_graph(seed, n, n * dens, wmax, pmax)
    src = seed % n
    key, dist, pred = reference_sssp(g, src)  # scipy's Bellman-Ford when an arc is negative
    dj = _johnson(g, src)
    reached = np.isfinite(dj)
    np.testing.assert_array_equal(dist[reached], np.rint(dj[reached]).astype(np.int64))
    unreach = UNREACHABLE_NEG if (g.weights < 0).any() else -1
    assert (dist[~reached] == unreach).all()
    for s in NEGATIVE_STRATEGIES:
        r = sssp(g, src, strategy=s, backend="cpu")
        np.testing.assert_array_equal(r.dist, dist, err_msg=s)
        np.testing.assert_array_equal(r.pred, pred, err_msg=s)
        np.testing.assert_array_equal(r.key, key, err_msg=s)
        assert r.unreachable == unreach
        # the potentials give the same answer: d'(s,v) = d(s,v) + p(s) - p(v)
        base = CSRGraph(g.indptr, g.indices, (g.weights - p[g.arc_sources()] + p[g.indices])
                        .astype(np.int32))
        d0 = sssp(base, src, strategy="auto", backend="cpu").dist
        np.testing.assert_array_equal(r.reached, d0 >= 0)
        np.testing.assert_array_equal(r.dist[r.reached], (d0 + p[src] - p)[r.reached])


def test_multi_source_and_target() -> None:
    g, _ = _potential_graph(7, 60, 240, 20, 30)
    assert (g.weights < 0).any()
    _, dist, pred = reference_sssp(g, [0, 5, 9])
    for s in NEGATIVE_STRATEGIES:
        r = sssp(g, [0, 5, 9], strategy=s, backend="cpu")
        np.testing.assert_array_equal(r.dist, dist)
        np.testing.assert_array_equal(r.pred, pred)
        # a target stops nothing with negative arcs: the full answer comes back
        t = int(np.flatnonzero(dist != UNREACHABLE_NEG)[-1])
        rt = sssp(g, [0, 5, 9], strategy=s, backend="cpu", target=t)
        np.testing.assert_array_equal(rt.dist, dist)


def _random_signed(seed: int, n: int, m: int, lo: int, hi: int) -> CSRGraph:
    r = np.random.default_rng(seed)
    return CSRGraph.from_edges(n, r.integers(0, n, m), r.integers(0, n, m),
                               r.integers(lo, hi + 1, m))


def _check_cycle(g: CSRGraph, cycle: list[int]) -> None:
    """cycle is a closed walk along arcs whose lightest parallel arcs sum below zero."""
    tails = g.arc_sources()
    total = 0
    for i, u in enumerate(cycle):
        v = cycle[(i + 1) % len(cycle)]
        arcs = (tails == u) & (g.indices == v)
        assert arcs.any(), f"{u}->{v} is not an arc"
        total += int(g.weights[arcs].min())
    assert total < 0


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 25), dens=st.integers(1, 4),
       lo=st.integers(-30, 0), hi=st.integers(0, 60))
def test_negative_cycle_detection_matches_networkx(seed, n, dens, lo, hi) -> None:
    g = _random_signed(seed, n, n * dens, lo, hi)
    src = seed % n
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(g.arc_sources().tolist(), g.indices.tolist(),
                                  g.weights.tolist(), strict=True))
    reach = G.subgraph(nx.descendants(G, src) | {src}).copy()
    expect = nx.negative_edge_cycle(reach)
    assert (find_negative_cycle(g, src) is not None) == expect
    for s in NEGATIVE_STRATEGIES:
        if expect:
            with pytest.raises(NegativeCycleError) as info:
                sssp(g, src, strategy=s, backend="cpu")
            err = info.value
            assert err.cycle is not None
            assert err.arc == (err.cycle[0], err.cycle[1 % len(err.cycle)])
            _check_cycle(g, err.cycle)
            assert str(err) == f"negative cycle through arc {err.arc[0]}->{err.arc[1]}"
        else:
            _, dist, pred = reference_sssp(g, src)
            r = sssp(g, src, strategy=s, backend="cpu")
            np.testing.assert_array_equal(r.dist, dist)
            np.testing.assert_array_equal(r.pred, pred)
    # from every vertex, a negative cycle anywhere is reachable
    everywhere = nx.negative_edge_cycle(G)
    try:
        sssp(g, np.arange(n), strategy="bellman_ford_queue", backend="cpu")
        assert not everywhere
    except NegativeCycleError:
        assert everywhere


def test_self_loop_and_zero_cycle() -> None:
    g = CSRGraph.from_edges(2, [0, 1], [1, 1], [3, -1])
    with pytest.raises(NegativeCycleError, match=r"negative cycle through arc 1->1"):
        sssp(g, 0, strategy="conventional", backend="cpu")
    # a zero-cost cycle (+5, -5) is no negative cycle, and the predecessors stay a tree
    g = CSRGraph.from_edges(3, [0, 1, 2], [1, 2, 1], [1, 5, -5])
    for s in NEGATIVE_STRATEGIES:
        r = sssp(g, 0, strategy=s, backend="cpu")
        assert r.dist.tolist() == [0, 1, 6] and r.pred.tolist() == [-1, 0, 1]
        assert r.path_to(2).tolist() == [0, 1, 2]


@pytest.mark.parametrize("strategy", DIJKSTRA_LIKE)
def test_dijkstra_like_strategies_refuse(strategy: str) -> None:
    g = CSRGraph.from_edges(2, [0], [1], [-1])
    with pytest.raises(NegativeWeightsError, match="--strategy bellman_ford_queue"):
        sssp(g, 0, strategy=strategy, backend="cpu")
    assert issubclass(NegativeWeightsError, InvalidArgumentError)


def test_other_capabilities_refuse_negative_csr_input() -> None:
    class Raw:  # not a CSRGraph: validated by CSRGraph.from_any
        indptr = np.array([0, 1, 1], np.int32)
        indices = np.array([1], np.int32)
        weights = np.array([-4], np.int32)

    with pytest.raises(NegativeWeightsError, match="-4"):
        CSRGraph.from_any(Raw())
    assert CSRGraph.from_any(Raw(), allow_negative=True).weights[0] == -4


def test_key_space_bounds() -> None:
    ks = key_space_for(np.array([-5, 3], np.int32), 10)
    assert ks.negative and ks.hop_bits >= 4 and ks.unreachable == UNREACHABLE_NEG
    assert not key_space_for(np.array([5, 3], np.int32), 10).negative
    with pytest.raises(InvalidArgumentError, match="negative arcs"):
        key_space_for(np.array([-(2**31 - 1)], np.int32), 2**28)


def test_run_backend_ignores_a_target_with_negative_arcs() -> None:
    from gpu_core.sssp import SSSPOptions, prepare_graph, run_backend

    # 0 -> 1 (1), 0 -> 2 (5), 2 -> 1 (-10): vertex 1 is "settled" first at 1, yet costs -5
    g, ks = prepare_graph(CSRGraph.from_edges(3, [0, 0, 2], [1, 2, 1], [1, 5, -10]))
    for s in NEGATIVE_STRATEGIES:
        key, _, _ = run_backend("cpu", g, np.array([0], np.int32), s, SSSPOptions(target=1), ks)
        assert ks.split(key)[0].tolist() == [0, -5, 5]
