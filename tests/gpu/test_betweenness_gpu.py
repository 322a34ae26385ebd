"""GPU billboard kernels equal the CPU (numba) round, kernel by kernel.

Distances and path counts are exact integers on both sides; the float sums (net gains,
SB) are added in a different order, so they are compared with a tight relative tolerance
(1e-9 of the largest magnitude) only. Site choices must agree (no near-ties here).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.core import families as fam

cp = pytest.importorskip("cupy")

from gpu_core.betweenness import place_billboards  # noqa: E402
from gpu_core.betweenness.api import cpu_engine  # noqa: E402
from gpu_core.betweenness.common import search_weights  # noqa: E402

pytestmark = pytest.mark.gpu

KERNELS = ["work_efficient", "edge", "vertex", "work_efficient:warp"]
GRAPHS = ["random_sparse", "grid_road", "rmat", "equal_weight_grid", "zero_weights",
          "duplicate_arcs", "disconnected", "self_loops", "isolated_source", "single_node"]


def engines(g, mode, kernel, a=None, b=None, cache=True):
    """CPU and GPU engines; 'work_efficient:warp' = one warp per source."""
    from gpu_core.betweenness.cuda import CudaEngine

    kernel, _, group = kernel.partition(":")
    n = g.num_nodes
    w = search_weights(g, mode)
    a = np.ones(n) if a is None else a
    b = np.ones(n) if b is None else b
    return (cpu_engine(g, w, mode == "hops", a, b),
            CudaEngine(g, w, mode == "hops", a, b, kernel, use_cache=cache,
                       we_group=group or "block"))


def check_round(ce, ge, in_r, srcs):
    n1, p1, s1, q1 = ce.run(in_r, srcs)
    n2, p2, s2, q2 = ge.run(in_r, srcs)
    scale = max(1.0, float(np.abs(n1).max(initial=0.0)))
    np.testing.assert_allclose(n2, n1, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(p2, p1, rtol=1e-12)
    assert s2 == pytest.approx(s1, rel=1e-9, abs=1e-9)
    assert q2 == pytest.approx(q1, rel=1e-12)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("mode", ["hops", "weighted"])
@pytest.mark.parametrize("name", GRAPHS)
def test_round_equals_cpu(name, mode, kernel):
    g = fam.make_graph(name, seed=4)
    n = g.num_nodes
    ce, ge = engines(g, mode, kernel)
    rng = np.random.default_rng(1)
    for size in (0, 3):
        in_r = np.zeros(n, dtype=bool)
        in_r[rng.choice(n, size=min(size, n), replace=False)] = True
        srcs = np.flatnonzero(~in_r).astype(np.int32)
        check_round(ce, ge, in_r, srcs)


@pytest.mark.parametrize("group", ["block", "warp"])
@pytest.mark.parametrize("name", ["grid_road", "zero_weights", "disconnected"])
def test_work_efficient_without_cache(name, group):
    """The per-block scratch path (cache off), used when per-source rows do not fit."""
    g = fam.make_graph(name, seed=5)
    n = g.num_nodes
    ce, ge = engines(g, "weighted", "work_efficient:" + group, cache=False)
    in_r = np.zeros(n, dtype=bool)
    for r in ([], [1, 2]):
        in_r[r] = True
        check_round(ce, ge, in_r, np.flatnonzero(~in_r).astype(np.int32))
    assert ge._cache is False


@pytest.mark.parametrize("kernel", KERNELS)
def test_round_demand_weights(kernel):
    g = fam.grid_road(seed=2)
    n = g.num_nodes
    rng = np.random.default_rng(3)
    a = rng.random(n) * (rng.random(n) < 0.5)
    b = rng.random(n)
    ce, ge = engines(g, "weighted", kernel, a, b)
    in_r = np.zeros(n, dtype=bool)
    in_r[[5, 50, 100]] = True
    srcs = np.flatnonzero((a > 0) & ~in_r).astype(np.int32)
    check_round(ce, ge, in_r, srcs)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("mode", ["hops", "weighted"])
def test_greedy_sites_equal_cpu(mode, kernel, monkeypatch):
    from gpu_core.betweenness import cuda as bcuda

    kernel, _, group = kernel.partition(":")
    monkeypatch.setattr(bcuda, "WE_GROUP", group or "block")
    g = fam.road_grid(20, 25, seed=5)
    r1 = place_billboards(g, 5, mode=mode, backend="cpu")
    r2 = place_billboards(g, 5, mode=mode, backend="cupy", kernel=kernel)
    assert list(r2.sites) == list(r1.sites)
    np.testing.assert_allclose(r2.gains, r1.gains, rtol=1e-9)
    np.testing.assert_allclose(r2.pairs, r1.pairs, rtol=1e-12)
    assert r2.kernel == kernel


def test_large_batch_many_blocks():
    """More sources than blocks / batch rows: every source handled exactly once."""
    g = fam.road_grid(72, 72, seed=6)  # 5184 vertices > N_SM * 4 blocks * 8 warps
    n = g.num_nodes
    for kernel in KERNELS:
        ce, ge = engines(g, "weighted", kernel)
        for r in ([7, 700], [5000, 3333]):  # second round: cached rows (work-efficient)
            in_r = np.zeros(n, dtype=bool)
            in_r[r] = True
            srcs = np.flatnonzero(~in_r).astype(np.int32)
            if kernel == KERNELS[0] or r[0] == 7:
                check_round(ce, ge, in_r, srcs)


def test_sampled_gpu_equals_cpu():
    g = fam.road_grid(30, 30, seed=7)
    r1 = place_billboards(g, 4, mode="weighted", backend="cpu", method="sampled",
                          epsilon=0.3, seed=11)
    r2 = place_billboards(g, 4, mode="weighted", backend="cupy", method="sampled",
                          epsilon=0.3, seed=11)
    assert r1.samples == r2.samples
    assert list(r2.sites) == list(r1.sites)


@pytest.mark.parametrize("name", ["grid_road", "zero_weights", "disconnected", "rmat",
                                  "equal_weight_grid"])
@pytest.mark.parametrize("mode", ["hops", "weighted"])
@pytest.mark.parametrize("T", [1, 3])
def test_sampled_paths_equal_cpu(name, mode, T):
    """The GPU's pruned searches draw exactly the CPU's random shortest paths."""
    from gpu_core.betweenness.cpu import sample_paths
    from gpu_core.betweenness.cuda import CudaSampler, reverse_arrays

    g = fam.make_graph(name, seed=2)
    n = g.num_nodes
    w = search_weights(g, mode)
    ri, rx, rw = reverse_arrays(g, w)
    rng = np.random.default_rng(5)
    srcs = rng.integers(0, n, 300).astype(np.int32)
    tgts = rng.integers(0, n, (300, T)).astype(np.int32)
    es1, ev1, r1 = sample_paths(g.indptr, g.indices, w, mode == "hops", ri, rx, rw, srcs, tgts,
                                np.uint64(99), 7)
    o1 = np.lexsort((ev1, es1))
    for host in (False, True):  # sorted on the device, or on the host (a small map's)
        es2, ev2, r2 = CudaSampler(g, w, ri, rx, rw, host=host).run(srcs, tgts, 99, 7)
        assert isinstance(es2, np.ndarray) == host and isinstance(r2, np.ndarray) == host
        np.testing.assert_array_equal(cp.asnumpy(r2), r1)
        np.testing.assert_array_equal(cp.asnumpy(es2), es1[o1])
        np.testing.assert_array_equal(cp.asnumpy(ev2), ev1[o1])


@pytest.mark.parametrize("factor", [0.0, 0.3, 1.0, 16.0])
@pytest.mark.parametrize("name", ["grid_road", "zero_weights", "random_sparse", "disconnected"])
def test_near_far_steps_equal_cpu(name, factor, monkeypatch):
    """Any near-far step (0 = Bellman-Ford) gives the same rounds and sampled paths."""
    from gpu_core.betweenness import cuda as bcuda
    from gpu_core.betweenness.cpu import sample_paths
    from gpu_core.betweenness.cuda import CudaSampler, reverse_arrays

    monkeypatch.setattr(bcuda, "NEAR_FAR_FACTOR", factor)
    g = fam.make_graph(name, seed=3)
    n = g.num_nodes
    ce, ge = engines(g, "weighted", "work_efficient")
    in_r = np.zeros(n, dtype=bool)
    for r in ([], [0, n // 2]):  # round 1 fills the cached rows, round 2 reuses them
        in_r[r] = True
        check_round(ce, ge, in_r, np.flatnonzero(~in_r).astype(np.int32))
    w = search_weights(g, "weighted")
    ri, rx, rw = reverse_arrays(g, w)
    rng = np.random.default_rng(2)
    srcs = rng.integers(0, n, 200).astype(np.int32)
    tgts = rng.integers(0, n, (200, 2)).astype(np.int32)
    es1, ev1, r1 = sample_paths(g.indptr, g.indices, w, False, ri, rx, rw, srcs, tgts,
                                np.uint64(5), 3)
    es2, ev2, r2 = CudaSampler(g, w, ri, rx, rw).run(srcs, tgts, 5, 3)
    np.testing.assert_array_equal(cp.asnumpy(r2), r1)
    o1 = np.lexsort((ev1, es1))
    np.testing.assert_array_equal(cp.asnumpy(es2), es1[o1])
    np.testing.assert_array_equal(cp.asnumpy(ev2), ev1[o1])
