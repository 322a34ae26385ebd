"""The direct GPU kernels of ``programs/direct.cu`` against the CPU oracles: Borůvka's
forest equals Kruskal's edge set under the tie rule; the direct PageRank equals scipy's
power iteration (same iteration count, ranks within 1e-12), repeated calls reuse the
per-graph cache and give the same answer."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.programs.direct import kruskal_mask, pagerank_csr, undirected_edges
from tests.core.families import FAMILIES, FAMILY_NAMES

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu


def _random_graph(seed: int) -> CSRGraph:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    m = int(rng.integers(0, 5 * n + 1))
    wmax = int(rng.choice([0, 1, 3, 1000]))
    return CSRGraph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m),
                               rng.integers(0, wmax + 1, m))


def _check_boruvka(g: CSRGraph) -> None:
    from gpu_core.programs.direct_cuda import boruvka_direct_cuda

    a, b, _ = undirected_edges(g)
    want = kruskal_mask(g.num_nodes, a, b).astype(bool) if a.size else np.zeros(0, bool)
    for _ in range(2):  # the second call runs on the cached device edges
        keep, _rounds = boruvka_direct_cuda(g)
        np.testing.assert_array_equal(keep, want)


def _check_pagerank(g: CSRGraph, tol: float, max_iter: int) -> None:
    from gpu_core.programs.direct_cuda import pagerank_direct_cuda

    want = pagerank_csr(g, 0.85, tol, max_iter)
    for _ in range(2):
        x, it, delta, conv = pagerank_direct_cuda(g, 0.85, tol, max_iter)
        assert (it, conv) == (want[1], want[3])
        assert np.abs(x - want[0]).max(initial=0.0) <= 1e-12
        assert abs(delta - want[2]) <= 1e-12


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_direct_boruvka_equals_kruskal(name, make):
    _check_boruvka(make(seed=4))


@pytest.mark.parametrize("seed", range(30))
def test_direct_boruvka_random_sweep(seed):
    _check_boruvka(_random_graph(seed))


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
@pytest.mark.parametrize("tol,max_iter", [(1e-10, 1000), (0.0, 100), (1e-3, 7)])
def test_direct_pagerank_equals_scipy(name, make, tol, max_iter):
    if make(seed=5).num_nodes == 0:
        pytest.skip("empty graph")
    _check_pagerank(make(seed=5), tol, max_iter)


@pytest.mark.parametrize("seed", range(20))
def test_direct_pagerank_random_sweep(seed):
    _check_pagerank(_random_graph(seed), 1e-8, 300)


@pytest.mark.parametrize("seed", range(6))
def test_framework_repeats_on_the_cached_graph(seed):
    """The engine starts each run from a device copy of the per-graph arc lists: Borůvka's
    topology edits of one run must not leak into the next (every mode)."""
    from gpu_core.programs import bellman_ford, minimum_spanning_forest, pagerank
    from gpu_core.programs.cuda import boruvka_cuda

    g = _random_graph(100 + seed)
    cpu = minimum_spanning_forest(g, backend="cpu")
    a, b, _ = undirected_edges(g)
    for _ in range(2):
        gpu = minimum_spanning_forest(g, backend="cupy")
        np.testing.assert_array_equal(np.c_[gpu.tails, gpu.heads], np.c_[cpu.tails, cpu.heads])
        for mode in ("list", "collision", "copy"):
            keep = boruvka_cuda(g.num_nodes, a, b, mode=mode, graph=g)[0]
            np.testing.assert_array_equal(np.c_[a[keep], b[keep]], np.c_[cpu.tails, cpu.heads])
        np.testing.assert_array_equal(bellman_ford(g, 0, backend="cupy").dist,
                                      bellman_ford(g, 0, backend="cpu").dist)
        p = pagerank(g, backend="cupy", tol=1e-10, max_iter=1000)
        q = pagerank(g, backend="cpu", tol=1e-10, max_iter=1000)
        assert p.iterations == q.iterations
        assert np.abs(p.rank - q.rank).max(initial=0.0) <= 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_direct_pagerank_launch_fallback(seed):
    """The launch-per-iteration path (used where cooperative launches are refused) gives
    what the persistent launch gives: scipy's ranks and iterations."""
    from gpu_core.device.graph import device_graph
    from gpu_core.programs.direct_cuda import _pagerank_launches, _PageRankGraph

    g = _random_graph(200 + seed)
    want = pagerank_csr(g, 0.85, 1e-8, 300)
    pg = device_graph(g).derived("pagerank_transpose", lambda: _PageRankGraph(g))
    x, it, delta, conv = _pagerank_launches(pg, g.num_nodes, 0.85, g.num_nodes * 1e-8, 300)
    assert (it, conv) == (want[1], want[3])
    assert np.abs(x - want[0]).max(initial=0.0) <= 1e-12
