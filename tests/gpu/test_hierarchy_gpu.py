"""GPHAST on the GPU equals the CPU sweep and Dijkstra bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import build_hierarchy
from gpu_core.multi_source import multi_source_sssp
from tests.core.families import FAMILIES, FAMILY_NAMES

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu

from gpu_core.hierarchy import cuda as hcuda  # noqa: E402  (needs CuPy)


def rows(g, h, backend, src, tgt=None, variant="phast"):
    return multi_source_sssp(g, src, targets=tgt, backend=backend, variant=variant,
                             hierarchy=h).dist


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_families(name, make):
    g = make(seed=7)
    h = build_hierarchy(g)
    src = np.arange(g.num_nodes)
    np.testing.assert_array_equal(rows(g, h, "cupy", src), rows(g, None, "cpu", src, None,
                                                                 "auto"))


def test_road_grid_many_batches(monkeypatch):
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 20000, seed=2))
    h = build_hierarchy(g)
    r = np.random.default_rng(4)
    src = r.integers(0, g.num_nodes, 300)
    tgt = r.integers(0, g.num_nodes, 77)
    monkeypatch.setattr(hcuda, "K_MAX", 64)  # several sweeps and a partial last one
    got = rows(g, h, "cupy", src, tgt)
    np.testing.assert_array_equal(got, rows(g, h, "cpu", src, tgt))
    np.testing.assert_array_equal(got[:20], rows(g, None, "cpu", src[:20], tgt, "auto"))


@pytest.mark.parametrize("query", ["phast", "rphast"])
def test_narrow_rows_made_on_the_device(query):
    """``narrow``: int32 blocks from the GPU sweep, the int64 costs exactly (-1 stays)."""
    from gpu_core.multi_source import iter_distance_rows
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 5000, seed=3))
    h = build_hierarchy(g)
    r = np.random.default_rng(6)
    src, tgt = r.integers(0, g.num_nodes, 90), r.integers(0, g.num_nodes, 40)
    kw = dict(targets=tgt, backend="cupy", hierarchy=h, query=query)
    wide = np.vstack([b for _, b in iter_distance_rows(g, src, **kw)])
    got = [b for _, b in iter_distance_rows(g, src, narrow=True, **kw)]
    assert all(b.dtype == np.int32 for b in got)
    np.testing.assert_array_equal(np.vstack(got), wide)


def _sampled(g, hierarchy, **kw):
    from gpu_core.betweenness import BillboardResult, billboards

    res = None
    for ev in billboards(g, 5, mode="weighted", backend="cupy", method="sampled",
                         epsilon=0.3, seed=3, hierarchy=hierarchy, **kw):
        if isinstance(ev, BillboardResult):
            res = ev
    return res


@pytest.mark.parametrize("max_weight", [1000, 3])  # few ties / many ties (fallback)
def test_indexed_sampling_equals_the_sampler(max_weight):
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 6000, seed=5, max_weight=max_weight))
    h = build_hierarchy(g)
    plain = _sampled(g, None)
    fast = _sampled(g, h)
    assert fast.kernel == "indexed" and plain.kernel == "work_efficient"
    np.testing.assert_array_equal(fast.sites, plain.sites)
    np.testing.assert_array_equal(fast.gains, plain.gains)
    np.testing.assert_array_equal(fast.coverage, plain.coverage)


@pytest.mark.parametrize("pinned", [512 << 20, 1, 3 * 3000 * 8])
def test_tied_pairs_drawn_from_their_columns_on_the_host(pinned, monkeypatch):
    """Pairs with several shortest paths are drawn from their sweep columns copied to the
    host (``indexed_cpu.tied_columns``), not by the per-source sampler: the entries are
    still the per-source sampler's (the CPU's ``_sample_cpu``), pair by pair; copied 64
    columns at a time, or as few as the page-locked budget holds (1, 3)."""
    from gpu_core.betweenness import indexed_sampling
    from gpu_core.betweenness.cuda import reverse_arrays
    from gpu_core.betweenness.indexed_sampling import IndexedSampler

    monkeypatch.setattr(indexed_sampling, "TIED_PINNED", pinned)
    from gpu_core.betweenness.sampling import _sample_cpu, draw_plan
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 3000, seed=7, max_weight=3))
    w = g.weights.astype(np.int64)
    h = build_hierarchy(g)
    n = g.num_nodes
    plan = draw_plan(n, 300, np.ones(n), np.ones(n), seed=2)
    rev = reverse_arrays(g, w)
    s = IndexedSampler(g, w, *rev, h)
    step = s.chunk_size(300)
    parts = [s.run(plan.srcs[lo:lo + step], plan.tgts[lo:lo + step], plan.hash_seed, 40 + lo)
             for lo in range(0, 300, step)]
    rest = s.flush(plan.hash_seed)
    es = cp.concatenate([p[0] for p in parts] + [rest[0]])
    ev = cp.concatenate([p[1] for p in parts] + [rest[1]])
    reach = cp.concatenate([p[2] for p in parts])
    assert s.tied > 10 and s.ambiguous == 0
    ref_s, ref_v, ref_reach = _sample_cpu(g, w, False, *rev, plan.srcs, plan.tgts,
                                          plan.hash_seed, 40)
    np.testing.assert_array_equal(cp.asnumpy(reach), ref_reach)
    got = np.lexsort((cp.asnumpy(ev), cp.asnumpy(es)))
    want = np.lexsort((ref_v, ref_s))
    np.testing.assert_array_equal(cp.asnumpy(es)[got], np.asarray(ref_s)[want])
    np.testing.assert_array_equal(cp.asnumpy(ev)[got], np.asarray(ref_v)[want])


@pytest.mark.parametrize("free_gib,total,want_k,sweeps", [
    (78, 1024, 256, 4), (76, 1024, 224, 5), (78, 10000, 256, 40), (70, 1100, 224, 5),
    (600, 1100, 576, 2), (600, 20, 32, 1)])
def test_batch_width_takes_what_fits_spread_evenly(monkeypatch, free_gib, total, want_k,
                                                   sweeps):
    """The sweep width is the widest multiple of 32 that fits (not a power of two: a few
    GB less free memory must not halve it), the sources spread evenly over the sweeps."""
    class NoPool:
        def free_bytes(self) -> int:
            return 0

    monkeypatch.setattr(hcuda.memory, "free_memory", lambda: (free_gib << 30, 80 << 30))
    monkeypatch.setattr(hcuda.cp, "get_default_memory_pool", lambda: NoPool())
    k = hcuda.batch_width(24_000_000, 10_000, total)
    assert k % 32 == 0 and k == want_k and -(-total // k) == sweeps
    assert (24_000_000 + 10_000) * k * 8 <= 0.6 * (free_gib << 30)


def test_batch_width_stays_within_the_pool_limit():
    """Under ``CUPY_GPU_MEMORY_LIMIT`` (a GPU shared with other programs) the sweep block
    is sized from the limit, not the card, and its allocation then succeeds."""
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    before = pool.get_limit()
    n = 2_000_000
    try:
        pool.set_limit(size=int(pool.total_bytes()) + (1 << 30))
        k = hcuda.batch_width(n, 0, 1 << 20)
        assert (n * k * 8) <= 0.6 * (1 << 30) and k >= 32
        block = cp.empty(n * k, dtype=cp.int64)  # within the limit: no OutOfMemoryError
        del block
    finally:
        pool.free_all_blocks()
        pool.set_limit(size=before)


def test_release_gives_the_device_copies_back_and_the_next_sweep_uploads_again(
        monkeypatch):
    """``release_device``: a process that hands its GPU to a Dask worker frees what its
    customization and sweeps kept (the topology's arrays, downward lists, upward walk,
    the kept restricted sweep's copies); the next sweep uploads them again and gives the
    same rows."""
    from gpu_core.hierarchy import build_topology, cch, customize
    from gpu_core.hierarchy.api import release_device
    from maps.generate import generate

    pytest.importorskip("pymetis")  # the topology's order (a GPU machine may lack it)
    g = CSRGraph.from_any(generate("grid", 20000, seed=5))
    t = build_topology(g)
    monkeypatch.setattr(cch, "DEVICE_MIN_EDGES", 0)  # customized on the device
    h = customize(t, g, backend="cupy")  # the topology keeps its device copies
    r = np.random.default_rng(8)
    src, tgt = r.integers(0, g.num_nodes, 64), r.integers(0, g.num_nodes, 30)

    def swept(query: str) -> np.ndarray:
        from gpu_core.multi_source import iter_distance_rows

        return np.vstack([b for _, b in iter_distance_rows(
            g, src, targets=tgt, backend="cupy", hierarchy=h, query=query)])

    phast, rphast = swept("phast"), swept("rphast")
    pool = cp.get_default_memory_pool()
    assert h._device is not None and h._restricted[1]._device is not None
    assert t._device is not None
    held = pool.used_bytes()
    release_device(h)
    assert h._device is None and getattr(h, "_walk", None) is None and t._device is None
    assert h._restricted[1]._device is None and not h._device_box
    assert pool.used_bytes() < held
    np.testing.assert_array_equal(swept("phast"), phast)
    np.testing.assert_array_equal(swept("rphast"), rphast)
    assert h._device is not None
