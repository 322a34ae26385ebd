"""The device copy of a partially re-customized route index (``patch_cuda.follow``)
equals the host Hierarchy array for array after closures, reopenings and new weights,
GPHAST over it equals the CPU sweep and scipy, and a Hierarchy handed out before a
patch still sweeps right (its device lists are never written)."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import partial
from gpu_core.hierarchy.cch import build_topology, customize
from gpu_core.multi_source import multi_source_sssp
from tests.core.test_cch import scipy_rows
from tests.core.test_cch_partial import _edit, arc_lists

cp = pytest.importorskip("cupy")
pytest.importorskip("pymetis")
pytestmark = pytest.mark.gpu


def _same_on_device(h):
    from gpu_core.hierarchy.cuda import _device

    dev = _device(h)
    np.testing.assert_array_equal(cp.asnumpy(dev["ptr"]), h.down_ptr)
    np.testing.assert_array_equal(cp.asnumpy(dev["src"]), h.down_src)
    np.testing.assert_array_equal(cp.asnumpy(dev["w"]), h.down_w)
    if dev["w32"] is not None:
        np.testing.assert_array_equal(cp.asnumpy(dev["w32"]), h.down_w.astype(np.int32))


def _rows(g, h, src, backend):
    return multi_source_sssp(g, src, backend=backend, variant="phast", hierarchy=h).dist


@pytest.mark.parametrize("family,weights_only", [("grid", False), ("kanto", False),
                                                 ("grid", True)])
def test_partial_on_the_device_equals_the_host(family, weights_only):
    from gpu_core.hierarchy.cuda import _device
    from maps.generate import generate

    g = CSRGraph.from_any(generate(family, 3000, seed=4))
    t = build_topology(g)
    customize(t, g, backend="cupy")
    assert partial.prepare(t, "cupy")  # unpruned lists made and uploaded ahead
    rng = np.random.default_rng(9)
    tails, heads, w, live = arc_lists(g)
    src = np.arange(0, g.num_nodes, 97)
    prev = None
    for step in range(8):
        if weights_only:  # longer roads only: the same arcs stay finite (in place)
            a = rng.integers(0, w.shape[0], 10)
            w[a] += rng.integers(1, 30, 10)
        else:
            _edit(tails, heads, w, live, rng, 10)
        g2 = CSRGraph.from_edges(g.num_nodes, tails[live], heads[live], w[live])
        h = customize(t, g2, backend="cupy")
        assert h.customized.startswith("partial"), step
        _same_on_device(h)
        want = scipy_rows(g2, src)
        np.testing.assert_array_equal(_rows(g2, h, src, "cupy"), want)
        np.testing.assert_array_equal(_rows(g2, h, src, "cpu"), want)
        if prev is not None:  # the one before: its lists untouched, right for its graph
            pg, ph, pdev = prev
            assert _device(ph) is pdev  # no upload again: nothing wrote its device copy
            _same_on_device(ph)
            np.testing.assert_array_equal(_rows(pg, ph, src, "cupy"), scipy_rows(pg, src))
        prev = (g2, h, _device(h))


@pytest.mark.parametrize("family,cap", [("grid", None), ("kanto", None), ("grid", 3)])
def test_update_on_the_device_equals_the_host_update(monkeypatch, family, cap):
    """``partial_cuda.update_device`` (forced on a small map) keeps the same metric as the
    host's worklist edit after edit, bit for bit, and reports the same changed edges;
    with ``cap`` the changes overflow the record and come back by comparison. A host
    update between two device ones makes the device copy stale: it is made again."""
    import copy

    from gpu_core.hierarchy import partial_cuda
    from maps.generate import generate

    monkeypatch.setattr(partial, "PARTIAL_DEVICE_MIN_EDGES", 0)
    if cap is not None:
        monkeypatch.setattr(partial_cuda, "CHANGES_CAP", cap)
    g = CSRGraph.from_any(generate(family, 3000, seed=5))
    t_dev = build_topology(g)
    t_host = copy.deepcopy(t_dev)
    customize(t_dev, g, backend="cupy")
    customize(t_host, g, backend="cpu")
    assert partial.prepare(t_dev, "cupy")
    assert t_dev._metric.device is not None  # uploaded ahead
    rng = np.random.default_rng(11)
    tails, heads, w, live = arc_lists(g)
    src = np.arange(0, g.num_nodes, 89)
    for step in range(10):
        _edit(tails, heads, w, live, rng, 12)
        g2 = CSRGraph.from_edges(g.num_nodes, tails[live], heads[live], w[live])
        backend = "cpu" if step == 4 else "cupy"  # step 4: the host updates t_dev
        h = customize(t_dev, g2, backend=backend)
        hh = customize(t_host, g2, backend="cpu")
        assert h.customized == hh.customized, step
        m = t_dev._metric
        np.testing.assert_array_equal(m.up, t_host._metric.up)
        np.testing.assert_array_equal(m.down, t_host._metric.down)
        dm = m.device
        if backend == "cupy" and h.customized != "partial (0 edges changed)":
            assert dm is not None and dm.version == m.version
            np.testing.assert_array_equal(cp.asnumpy(dm.up), m.up)
            np.testing.assert_array_equal(cp.asnumpy(dm.down), m.down)
            np.testing.assert_array_equal(cp.asnumpy(dm.base_up), m.base_up)
            assert not bool(dm.work["dirty"].any()) and not bool(dm.work["queued"].any())
        elif backend == "cpu":
            assert dm is None or dm.version != m.version  # stale: never trusted
        _same_on_device(h)
        np.testing.assert_array_equal(_rows(g2, h, src, "cupy"), scipy_rows(g2, src))
