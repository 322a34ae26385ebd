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
