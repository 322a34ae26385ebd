"""The sampled greedy through a route index on the CPU (issue 43): the same entries, sites
and values as the per-source sampler, on maps with unique paths and with many ties."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.betweenness import place_billboards
from gpu_core.betweenness.cuda import reverse_arrays
from gpu_core.betweenness.indexed_cpu import CpuIndexedSampler
from gpu_core.betweenness.sampling import _sample_cpu, draw_plan
from gpu_core.hierarchy import build_hierarchy
from tests.core import families as fam

MAPS = {
    "road_grid": lambda: fam.road_grid(20, 20, seed=3),  # varied lengths: most paths unique
    "equal_weight_grid": lambda: fam.equal_weight_grid(0, 9, 9),  # ties almost everywhere
    "duplicate_arcs": lambda: fam.duplicate_arcs(1),  # parallel arcs of equal cost
    "disconnected": lambda: fam.disconnected(2),  # unreachable pairs
    "random_sparse": lambda: fam.random_sparse(4, n=150),  # directed, one-way arcs
}
# (zero-cost arcs: the search weights are tie-breaking keys, not the index's weights, so
# ``place_billboards`` draws without the index; ``test_zero_cost_arcs_draw_without_it``)


def _pairs(s, v):
    order = np.lexsort((v, s))
    return np.asarray(s)[order], np.asarray(v)[order]


def _setup(name: str, pairs: int, seed: int):
    """(graph, weights, reverse arrays, plan, the CPU indexed sampler) of map ``name``."""
    g = MAPS[name]()
    w = g.weights.astype(np.int64)
    h = build_hierarchy(g, method="cch")
    n = g.num_nodes
    plan = draw_plan(n, pairs, np.ones(n), np.ones(n), seed=seed)
    rev = reverse_arrays(g, w)
    return g, w, rev, plan, CpuIndexedSampler(g, w, False, *rev, h)


@pytest.mark.parametrize("name", sorted(MAPS))
def test_entries_equal_the_per_source_sampler(name):
    g, w, rev, plan, sampler = _setup(name, 400, 11)
    ref_s, ref_v, ref_reach = _sample_cpu(g, w, False, *rev, plan.srcs, plan.tgts,
                                          plan.hash_seed, 1000)
    got_s, got_v, got_reach = sampler.run(plan.srcs, plan.tgts, plan.hash_seed, 1000)
    np.testing.assert_array_equal(got_reach, ref_reach)
    for a, b in zip(_pairs(got_s, got_v), _pairs(ref_s, ref_v), strict=True):
        np.testing.assert_array_equal(a, b)
    # pairs with several shortest paths are drawn from the sweep's column (their s-t DAG's
    # sigma), not by the per-source sampler (1.65 s a pair on NE): none left to it
    assert sampler.ambiguous == 0
    if name in ("equal_weight_grid", "duplicate_arcs"):
        assert sampler.tied > 0  # the tied walk was exercised


@pytest.mark.parametrize("sampling", ["fixed", "progressive"])
def test_sites_equal_without_the_index(sampling):
    g = fam.road_grid(24, 24, seed=9)
    h = build_hierarchy(g, method="cch")
    kw = dict(mode="weighted", backend="cpu", method="sampled", epsilon=0.2, delta=0.1,
              seed=3, sampling=sampling)
    plain = place_billboards(g, 5, **kw)
    indexed = place_billboards(g, 5, hierarchy=h, **kw)
    assert indexed.sites.tolist() == plain.sites.tolist()
    np.testing.assert_array_equal(indexed.group_betweenness, plain.group_betweenness)
    assert indexed.samples == plain.samples
    assert indexed.kernel == "indexed" and plain.kernel == "cpu"


def test_zero_cost_arcs_draw_without_it():
    g = fam.zero_weights(4)
    h = build_hierarchy(g, method="cch")
    r = place_billboards(g, 3, mode="weighted", backend="cpu", method="sampled",
                         epsilon=0.3, seed=1, sampling="fixed", hierarchy=h)
    assert r.kernel == "cpu"


def test_blocks_of_any_width_reuse_the_buffer():
    """Blocks of different widths share one buffer whose stale costs the sweep overwrites
    (no fill pass): each block's entries are still the per-source sampler's."""
    g = fam.road_grid(16, 16, seed=5)
    w = g.weights.astype(np.int64)
    h = build_hierarchy(g, method="cch")
    n = g.num_nodes
    plan = draw_plan(n, 300, np.ones(n), np.ones(n), seed=4)
    rev = reverse_arrays(g, w)
    sampler = CpuIndexedSampler(g, w, False, *rev, h)
    for lo, hi in [(0, 200), (200, 230), (230, 300)]:  # wide, then narrower on stale costs
        ref_s, ref_v, _ = _sample_cpu(g, w, False, *rev, plan.srcs[lo:hi], plan.tgts[lo:hi],
                                      plan.hash_seed, lo)
        got_s, got_v, _ = sampler.run(plan.srcs[lo:hi], plan.tgts[lo:hi], plan.hash_seed, lo)
        for a, b in zip(_pairs(got_s, got_v), _pairs(ref_s, ref_v), strict=True):
            np.testing.assert_array_equal(a, b)
    assert not sampler._seeded.any()  # the scratch is left clear


def test_fresh_sweep_equals_fill_then_sweep():
    """The parallel kernel (lanes narrower than the block) on a block of garbage equals the
    INF fill and the plain sweep."""
    from gpu_core.hierarchy.contract import INF
    from gpu_core.hierarchy.cpu import _sweep, _sweep_fresh, upward_searches

    g = fam.road_grid(12, 12, seed=2)
    h = build_hierarchy(g, method="cch")
    srcs = np.asarray(h.rank_of, np.int32)[[0, 7, 50, 99, 143]]
    off, verts, dists = upward_searches(h, srcs)
    k = srcs.size
    want = np.full((h.n, k), INF, np.int64)
    want[verts, np.repeat(np.arange(k), np.diff(off))] = dists
    _sweep(want, h.down_ptr, h.down_src, h.down_w, 2)
    got = np.random.default_rng(0).integers(0, 1 << 40, (h.n, k))
    got[verts] = INF
    got[verts, np.repeat(np.arange(k), np.diff(off))] = dists
    seeded = np.zeros(h.n, np.bool_)
    seeded[verts] = True
    assert _sweep_fresh(got, h.down_ptr, h.down_src, h.down_w, 2, seeded, INF, INF) == 0
    np.testing.assert_array_equal(got, want)


def test_blocks_are_even():
    g = fam.road_grid(8, 8, seed=1)
    h = build_hierarchy(g, method="cch")
    sampler = CpuIndexedSampler(g, g.weights.astype(np.int64), False,
                                *reverse_arrays(g, g.weights.astype(np.int64)), h)
    assert sampler.chunk_size(512) == 256 and sampler.chunk_size(600) == 200
    assert sampler.chunk_size(30) == 30


@pytest.mark.parametrize("wmax", [1 << 27, (1 << 30) + 5])
def test_long_costs_sweep_in_64_bits(wmax):
    """Costs past 2^30 (a block of 32-bit costs overflows: swept again in 64 bits, in
    halves) or arcs past it (64 bits from the start): the sampler's entries all the same."""
    g = fam.road_grid(12, 12, seed=6, wmin=wmax // 2, wmax=wmax)
    w = g.weights.astype(np.int64)
    h = build_hierarchy(g, method="cch")
    n = g.num_nodes
    plan = draw_plan(n, 120, np.ones(n), np.ones(n), seed=2)
    rev = reverse_arrays(g, w)
    sampler = CpuIndexedSampler(g, w, False, *rev, h)
    assert sampler.wide == (wmax >= 1 << 30)
    ref = _sample_cpu(g, w, False, *rev, plan.srcs, plan.tgts, plan.hash_seed, 7)
    got = sampler.run(plan.srcs, plan.tgts, plan.hash_seed, 7)
    np.testing.assert_array_equal(got[2], ref[2])
    for a, b in zip(_pairs(got[0], got[1]), _pairs(ref[0], ref[1]), strict=True):
        np.testing.assert_array_equal(a, b)
    assert sampler.wide  # the 32-bit block met costs of 2^30 and more


@pytest.mark.parametrize("name", ["equal_weight_grid", "duplicate_arcs"])
def test_tied_columns_copied_out_equal_the_per_source_sampler(name):
    """The GPU sampler's tied pairs are drawn on the host from their columns copied out of
    the sweep block (``tied_columns``, ``indexed_sampling``): for every pair with several
    shortest paths, the entries are the per-source sampler's, under its sample number."""
    from gpu_core.betweenness.indexed_cpu import tied_columns, walk_back
    from gpu_core.hierarchy.cpu import INF32

    g, w, rev, plan, sampler = _setup(name, 300, 5)
    d = sampler._costs(plan.srcs)
    assert d is not None
    inf = INF32 if d.dtype == np.int32 else np.int64(1 << 62)
    t0 = np.ascontiguousarray(plan.tgts[:, 0])
    *_, tied = walk_back(d, sampler.rank_of, *rev, plan.srcs, t0, np.int64(0),
                         np.uint64(plan.hash_seed), inf)
    idx = np.flatnonzero(tied)
    assert idx.size > 5  # ties exercised
    cols = np.ascontiguousarray(d[:, idx])  # what the GPU copies back
    got_s, got_v, left = tied_columns(cols, sampler.rank_of, *rev,
                                      plan.srcs[idx].astype(np.int32), t0[idx].astype(np.int32),
                                      (700 + idx).astype(np.int64), np.uint64(plan.hash_seed),
                                      inf)
    assert not left.any()
    # the per-source sampler, each pair under its own sample number 700 + j
    refs = [_sample_cpu(g, w, False, *rev, plan.srcs[j:j + 1], plan.tgts[j:j + 1],
                        plan.hash_seed, 700 + int(j))[:2] for j in idx]
    ref_s = np.concatenate([r[0] for r in refs])
    ref_v = np.concatenate([r[1] for r in refs])
    for a, b in zip(_pairs(got_s, got_v), _pairs(ref_s, ref_v), strict=True):
        np.testing.assert_array_equal(a, b)
