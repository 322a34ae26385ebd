"""Progressive sampling (issue 43) on the GPU: the same samples, sites, sample count and
certified error as the CPU from the same seed (every draw keyed by its sample number)."""

from __future__ import annotations

import pytest

from tests.core import families as fam

cp = pytest.importorskip("cupy")

from gpu_core.betweenness import place_billboards  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("mode", ["weighted", "hops"])
@pytest.mark.parametrize("sort_on", ["host", "device"])
def test_progressive_gpu_equals_cpu(mode, sort_on, monkeypatch):
    """The rounds' greedy runs on the host (``cover_cpu``); a small map's per-source
    sampler sorts its entries there too (``sampling.HOST_SELECT_NODES``): 0 forces the
    device's sort, as on big maps."""
    from gpu_core.betweenness import sampling

    if sort_on == "device":
        monkeypatch.setattr(sampling, "HOST_SELECT_NODES", 0)
    g = fam.road_grid(40, 40, seed=2)
    kw = dict(mode=mode, method="sampled", epsilon=0.05, delta=0.1, seed=4,
              sampling="progressive")
    cpu = place_billboards(g, 6, backend="cpu", **kw)
    gpu = place_billboards(g, 6, backend="cupy", **kw)
    assert gpu.backend == "cupy" and cpu.stopped_by == "bound"
    assert gpu.sites.tolist() == cpu.sites.tolist()
    assert (gpu.samples, gpu.stopped_by) == (cpu.samples, cpu.stopped_by)
    assert gpu.epsilon_at_stop == cpu.epsilon_at_stop
    assert gpu.group_betweenness.tolist() == cpu.group_betweenness.tolist()
