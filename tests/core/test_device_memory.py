"""The free device memory that sizes the GPU's blocks stays within CuPy's pool limit."""

from __future__ import annotations

import pytest

from gpu_core.device.memory import pool_capped

GIB = 1 << 30


class Pool:
    """CuPy's MemoryPool as ``pool_capped`` reads it: a limit and the bytes it holds."""

    def __init__(self, limit: int, held: int):
        self.limit, self.held = limit, held

    def get_limit(self) -> int:
        return self.limit

    def total_bytes(self) -> int:
        return self.held


@pytest.mark.parametrize("free,total,limit,held,want", [
    (139 * GIB, 141 * GIB, 0, 5 * GIB, (139 * GIB, 141 * GIB)),   # no limit: the card's
    (139 * GIB, 141 * GIB, 80 * GIB, 0, (80 * GIB, 80 * GIB)),     # an H100's on an H200
    (139 * GIB, 141 * GIB, 80 * GIB, 30 * GIB, (50 * GIB, 80 * GIB)),  # less what it holds
    (20 * GIB, 141 * GIB, 80 * GIB, 30 * GIB, (20 * GIB, 80 * GIB)),   # others took the card
    (139 * GIB, 141 * GIB, 8 * GIB, 9 * GIB, (0, 8 * GIB)),            # past it: none left
])
def test_pool_limit_caps_free_and_total(free, total, limit, held, want):
    assert pool_capped(free, total, Pool(limit, held)) == want


def test_release_drops_every_device_copy_a_route_index_keeps():
    """``release_device`` reaches what GPU work leaves on a CCH index: the hierarchy's
    lists and walk (and the box its copies share), its kept restricted sweep's, its
    topology's arrays and the kept metric's device copy and hierarchies; the rest stays."""
    import numpy as np

    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import build_topology, customize
    from gpu_core.hierarchy.api import release_device
    from gpu_core.hierarchy.few import restrict
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 900, seed=5))
    t = build_topology(g)
    h = customize(t, g, backend="cpu")
    r = restrict(h, np.arange(10, dtype=np.int32))
    m = t._metric
    held = [h, r, t, m.pruned]  # as the device sides leave them (attributes only)
    for obj in held:
        obj._device = {"id": 0}
    h._walk = object()
    h._device_box.update(dev={"id": 0}, walk=object())
    m.device = object()
    release_device(h)
    assert all(obj._device is None for obj in held)
    assert h._walk is None and h._device_box == {} and m.device is None
    assert h._restricted[1] is r and t._metric is m  # the index itself is kept
    t._device, m.device = {"id": 0}, object()
    release_device(t)  # a topology alone (the ones the app keeps)
    assert t._device is None and m.device is None
