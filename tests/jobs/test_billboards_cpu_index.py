"""Billboards' job on the CPU (issue 43): the sampled method builds and uses the route
index (same sites as without it), and the announced estimate counts the faster paths."""

from __future__ import annotations

import numpy as np

from app.jobs import billboards
from app.jobs.billboards import CPU_INDEX_SPEEDUP, BillboardsOptions, estimate
from tests.core import families as fam


def test_estimate_counts_the_index_on_the_cpu():
    with_index = estimate(1_400_000, 3_500_000, BillboardsOptions(k=5, backend="cpu"))
    without = estimate(1_400_000, 3_500_000, BillboardsOptions(k=5, backend="cpu", index="off"))
    assert with_index["method"] == without["method"] == "sampled"
    assert np.isclose(without["seconds"] / with_index["seconds"], CPU_INDEX_SPEEDUP)
    hops = estimate(1_400_000, 3_500_000, BillboardsOptions(k=5, backend="cpu", mode="hops"))
    assert hops["seconds"] == without["seconds"]  # hop counts: no index


def test_estimate_is_near_the_measured_cpu_time():
    """NE's fixed plan at K=10, eps=0.1 (29,074 pairs) at the ~14 ms CPU a pair measured
    through the index (docs/perf/billboards_cpu.md) is ~410 s: the estimate within 2x (it
    said ~1,400 s when ties went to the per-source sampler)."""
    ne = estimate(1_524_453, 3_868_020, BillboardsOptions(k=10, backend="cpu", epsilon=0.1,
                                                         method="sampled"))
    assert ne["searches"] == 29_074
    assert 205 < ne["seconds"] < 820, ne


def test_sampled_job_builds_the_index_on_the_cpu(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    g = fam.road_grid(16, 16, seed=2)
    opts = BillboardsOptions(k=3, backend="cpu", method="sampled", epsilon=0.3, seed=4,
                             index="on")
    on = billboards.run(g, opts)
    off = billboards.run(g, BillboardsOptions(**{**opts.__dict__, "index": "off"}))
    assert on.billboards.kernel == "indexed" and on.index
    assert off.billboards.kernel == "cpu" and not off.index
    assert on.billboards.sites.tolist() == off.billboards.sites.tolist()
