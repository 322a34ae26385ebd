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
    from gpu_core.programs.cuda_programs import boruvka_cuda

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
    from gpu_core.device.csr import device_graph
    from gpu_core.programs.direct_cuda import _pagerank_launches, _PageRankGraph

    g = _random_graph(200 + seed)
    want = pagerank_csr(g, 0.85, 1e-8, 300)
    pg = device_graph(g).derived("pagerank_transpose", lambda: _PageRankGraph(g))
    x, it, delta, conv = _pagerank_launches(pg, g.num_nodes, 0.85, g.num_nodes * 1e-8, 300)
    assert (it, conv) == (want[1], want[3])
    assert np.abs(x - want[0]).max(initial=0.0) <= 1e-12


def _persistent_equals_scipy(g: CSRGraph, override, defines=(), tol=1e-8, max_iter=300,
                             hub_min=None):
    """The persistent kernel with a forced (block, blocks per SM, shared-memory mode),
    PRD_* switches and hub threshold equals the CPU's power iteration."""
    from gpu_core.device.csr import device_graph
    from gpu_core.programs.direct_cuda import HUB_MIN, _pagerank_persistent, _PageRankGraph

    want = pagerank_csr(g, 0.85, tol, max_iter)
    pg = device_graph(g).derived("pagerank_transpose", lambda: _PageRankGraph(g))
    x, it, delta, conv = _pagerank_persistent(pg, g.num_nodes, 0.85, g.num_nodes * tol,
                                              max_iter, override, defines,
                                              HUB_MIN if hub_min is None else hub_min)
    assert (it, conv) == (want[1], want[3])
    assert np.abs(x - want[0]).max(initial=0.0) <= 1e-12
    assert abs(delta - want[2]) <= 1e-12


# (threads a block, blocks per SM, shared-memory mode): every mode of direct.cu, large
# and small blocks, y gathered through L2 (no switch; mode 0 adds PRD_X2 itself); 32-thread blocks make ~100 blocks of the random graphs, so the
# last-block-done barrier's reducer changes from iteration to iteration
PERSISTENT_SHAPES = [(1024, 2, 2), (256, 8, 1), (256, 4, 0), (32, 8, 2), (64, 8, 0)]


@pytest.mark.parametrize("shape", PERSISTENT_SHAPES, ids=str)
@pytest.mark.parametrize("seed", range(4))
def test_direct_pagerank_persistent_shapes(shape, seed):
    _persistent_equals_scipy(_random_graph(300 + seed), shape)


@pytest.mark.parametrize("defines", [("PRD_Y_CACHED",), ("PRD_X2",),
                                     ("PRD_Y_CACHED", "PRD_X2")], ids=str)
@pytest.mark.parametrize("shape", [(256, 4, 2), (64, 8, 0), (32, 8, 1)], ids=str)
def test_direct_pagerank_persistent_switches(defines, shape):
    """direct.cu's switches (y gathered through L1: on by default, off in the shape tests
    above; two rank buffers in global memory: always in mode 0) give the same."""
    for seed in range(3):
        _persistent_equals_scipy(_random_graph(310 + seed), shape, defines)


@pytest.mark.parametrize("n,arcs", [(1, 0), (1, 1), (700, 0), (5, 20)])
def test_direct_pagerank_persistent_corner_graphs(n, arcs):
    """One vertex, a self-loop, all vertices dangling, a tiny dense graph; every shape."""
    rng = np.random.default_rng(n + arcs)
    g = CSRGraph.from_edges(n, rng.integers(0, n, arcs), rng.integers(0, n, arcs),
                            np.ones(arcs, np.int64))
    for shape in PERSISTENT_SHAPES:
        _persistent_equals_scipy(g, shape, tol=1e-10, max_iter=200)
        _persistent_equals_scipy(g, shape, ("PRD_Y_CACHED", "PRD_X2"), 1e-10, 200)


def test_direct_pagerank_persistent_many_blocks():
    """~940 blocks of 64 threads with the vertex state in global memory, ~470 of 128
    with the rank in shared memory, ~60 of 1024 with all of it, on 60,000 vertices."""
    rng = np.random.default_rng(7)
    n, m = 60_000, 240_000
    g = CSRGraph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m),
                            np.ones(m, np.int64))
    for shape in [(64, 8, 0), (1024, 2, 2), (128, 8, 1)]:
        for defines in [(), ("PRD_Y_CACHED", "PRD_X2")]:
            _persistent_equals_scipy(g, shape, defines, tol=1e-9, max_iter=100)


@pytest.mark.parametrize("hub_min", [0, 3, 10])
@pytest.mark.parametrize("shape", PERSISTENT_SHAPES, ids=str)
def test_direct_pagerank_persistent_hub_rows(hub_min, shape):
    """Rows of more than ``hub_min`` in-arcs summed by a warp (0: every row with an arc;
    3: many; 10: a few or none), mixed with rows of one thread, in every shape."""
    for seed in range(2):
        _persistent_equals_scipy(_random_graph(320 + seed), shape, hub_min=hub_min)


def test_direct_pagerank_skewed_hubs():
    """Two vertices with 30,000 and 5,000 in-arcs (rev-WikiTalk's shape, smaller) beside
    sparse random arcs, through the API's path (default threshold, default plan)."""
    rng = np.random.default_rng(11)
    n = 40_000
    tails = np.concatenate([rng.integers(0, n, 30_000), rng.integers(0, n, 5_000),
                            rng.integers(0, n, 80_000)])
    heads = np.concatenate([np.full(30_000, 17), np.full(5_000, n - 3),
                            rng.integers(0, n, 80_000)])
    g = CSRGraph.from_edges(n, tails, heads, np.ones(tails.size, np.int64))
    _check_pagerank(g, 1e-10, 200)
    _check_pagerank(g, 0.0, 100)
