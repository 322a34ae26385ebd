"""Issue 40 item 13 on the GPU: the sampled billboards' entries live in device memory, so
the projection is checked against the device's free memory (refused in one typed error
before the long part), and the pilot leaves the answer as it was."""

from __future__ import annotations

import numpy as np
import pytest

from tests.core import families as fam

cp = pytest.importorskip("cupy")

from gpu_core.betweenness import place_billboards  # noqa: E402
from gpu_core.errors import MemoryLimitError  # noqa: E402

pytestmark = pytest.mark.gpu


def _graph():
    return fam.grid_road(seed=1, rows=20, cols=20)


def test_sampled_entries_checked_against_device_memory(monkeypatch):
    import gpu_core.device.memory as mem

    g = _graph()
    monkeypatch.setattr(mem, "free_memory", lambda: (1024, 1 << 30))
    with pytest.raises(MemoryLimitError, match="GPU memory"):
        place_billboards(g, 20, mode="weighted", backend="cupy", method="sampled",
                         epsilon=0.3)


def test_pilot_keeps_the_gpu_answer(monkeypatch):
    import gpu_core.betweenness.estimate as est

    g = _graph()
    a = place_billboards(g, 5, mode="weighted", backend="cupy", method="sampled", epsilon=0.3)
    monkeypatch.setattr(est, "PILOT_SAMPLES", 10**9)
    b = place_billboards(g, 5, mode="weighted", backend="cupy", method="sampled", epsilon=0.3)
    np.testing.assert_array_equal(a.sites, b.sites)
    assert a.samples == b.samples
