"""The route index in the window (issues 26 + 27): built in the background on its own
worker, clicks then search through it with the plain search's exact answer; the build
can be cancelled; a what-if edit re-customizes it and the edited map's searches equal a
fresh search."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

from gpu_core.sssp import sssp
from gpu_core.telemetry import MODE_CODE


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch, road_net):
    """An empty cache folder and no index kept in memory from an earlier test."""
    from collections import OrderedDict

    import app.jobs.edit_index as edit_index
    import app.jobs.index as index
    from gpu_core.graph import forget_prepared

    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    forget_prepared(road_net)
    monkeypatch.setattr(index, "_RECENT", OrderedDict())
    monkeypatch.setattr(edit_index, "_recent", OrderedDict())


def _search(qtbot, win, node: int):
    """Set the source at ``node`` as a click does; the search result drawn."""
    from app.jobs.maps import resolve_texts

    tool = win.tools["route"]
    point = resolve_texts(win.search_net(), f"node:{int(win.net.node_ids[node])}")[0]
    with qtbot.waitSignal(win.searchFinished, timeout=60000):
        tool.set_point("source", point)
    return tool.result


def _plain(graph, node: int):
    """The same search without an index (the reference)."""
    return sssp(graph, node, strategy="auto", backend="cpu")


def _same(a, b) -> None:
    assert np.array_equal(a.dist, b.dist)
    assert np.array_equal(a.pred, b.pred)
    assert np.array_equal(a.hops, b.hops)


def test_background_build_then_clicks_use_the_index(qtbot, make_window, road_net, monkeypatch):
    import app.gui.route_index as ri_mod

    monkeypatch.setattr(ri_mod, "AUTO_MIN_NODES", 1000)  # the sample map counts as big here
    win = make_window(road_net)
    ri = win.route_index
    assert win.a_auto_index.isChecked()
    # opening the map started the build on the index worker, not the compute worker
    assert ri.state in ("building", "ready") and not win.compute.busy()
    qtbot.waitUntil(lambda: ri.state == "ready", timeout=180000)
    assert ri.label.text() == "route index ready" and not ri.bar.isVisible()
    # the after-load warm-up also found the map's fragments (not the first click)
    qtbot.waitUntil(lambda: win.tools["route"].fragments.labels is not None, timeout=60000)
    assert win.tools["route"].fragments.labels.shape[0] == road_net.num_nodes
    net = road_net
    for node in (0, net.num_nodes // 2, net.num_nodes - 1):
        res = _search(qtbot, win, node)
        assert res.extra.get("index") == "phast"
        modes = set(np.unique(res.phases.rows["mode"]).tolist())
        assert MODE_CODE["phast"] in modes  # the chart shows the sweep's levels
        _same(res, _plain(win.graph, node))
        ref = dijkstra(net.to_scipy(), indices=node)
        got = res.dist.astype(float)
        got[got < 0] = np.inf
        assert np.array_equal(got, ref)
    # turned off: the next map opens without a build
    win.a_auto_index.setChecked(False)
    assert not ri.auto()
    win.set_network(road_net)
    assert ri.state == "none" and not ri.runner.busy()


def test_cancel_stops_the_build_cleanly(qtbot, make_window, road_net, monkeypatch, tmp_path):
    from PySide6.QtCore import Qt

    from app.gui.workers import JobContext
    from app.jobs.index import key_hierarchy_for

    win = make_window(road_net)
    ri = win.route_index
    assert ri.state == "none"  # 5.5K nodes: not built automatically
    gate = threading.Event()
    real = JobContext.progress

    def held(self, fraction, message=""):  # the build waits at its first step until cancelled
        real(self, fraction, message)
        if self.runner is ri.runner:
            gate.wait(30)

    monkeypatch.setattr(JobContext, "progress", held)
    win.a_build_index.trigger()
    assert ri.state == "building" and ri.btn.isVisible()
    qtbot.waitUntil(lambda: ri.label.text().startswith("route index 0%"), timeout=30000)
    qtbot.mouseClick(ri.btn, Qt.MouseButton.LeftButton)
    gate.set()
    qtbot.waitUntil(lambda: ri.state == "cancelled", timeout=60000)
    qtbot.waitUntil(lambda: not ri.runner.busy(), timeout=30000)
    assert ri.label.text() == "route index cancelled" and not ri.bar.isVisible()
    assert not list((tmp_path / "cache").glob("ch-*.npz"))  # nothing half-built was kept
    assert key_hierarchy_for(win.graph, policy="auto")[0] is None
    res = _search(qtbot, win, 7)  # clicks work, without the index
    assert "index" not in res.extra
    _same(res, _plain(win.graph, 7))
    monkeypatch.setattr(JobContext, "progress", real)
    win.a_build_index.trigger()  # and a later build completes
    qtbot.waitUntil(lambda: ri.state == "ready", timeout=180000)
    assert _search(qtbot, win, 7).extra.get("index") == "phast"


def test_edit_recustomizes_and_equals_a_fresh_search(qtbot, make_window, road_net):
    win = make_window(road_net)
    ri, edit = win.route_index, win.tools["edit"]
    win.a_build_index.trigger()
    qtbot.waitUntil(lambda: ri.state == "ready", timeout=180000)
    src = 0
    res = _search(qtbot, win, src)
    assert res.extra.get("index") == "phast"
    # close the road into the node of the map's median cost from the source
    reach = np.flatnonzero(res.dist >= 0)
    far = int(reach[np.argsort(res.dist[reach])[reach.size // 2]])
    u = int(res.pred[far])
    arc = int(np.flatnonzero((road_net.arc_sources() == u) & (road_net.indices == far))[0])
    with qtbot.waitSignal(ri.editIndexed, timeout=120000) as sig:
        assert edit.toggle_road(arc)
    assert sig.args[0].source == "customized", sig.args[0].reason
    sc = win.scenario
    assert sc.edits and ri.label.text() == "route index ready (edited map)"
    for node in (src, far):
        res = _search(qtbot, win, node)
        assert res.extra.get("index") == "phast"  # the edited map searches through it
        fresh = _plain(sc.graph, node)
        assert "index" not in fresh.extra
        _same(res, fresh)
    # undo: the map's own index again; redo: the edited one back without customizing
    with qtbot.waitSignal(win.fieldChanged, timeout=60000):
        edit.stack.undo()
    res = _search(qtbot, win, far)
    assert not sc.edits and res.extra.get("index") == "phast"
    _same(res, _plain(win.graph, far))
    got = []
    ri.editIndexed.connect(got.append)
    edit.stack.redo()
    qtbot.waitUntil(lambda: not win.compute.busy() and not ri.runner.busy(), timeout=60000)
    if not got:  # redo restored the earlier result without a search: the next one indexes
        _search(qtbot, win, src)
    qtbot.waitUntil(lambda: bool(got), timeout=120000)
    assert got[-1].source == "recent"
    res = _search(qtbot, win, far)
    assert res.extra.get("index") == "phast"
    _same(res, _plain(sc.graph, far))


def test_index_bar_moves_while_a_step_has_no_fraction(qtbot, make_window, road_net, monkeypatch):
    """Issue 42 item 13: the bar sat at 0 % for 10 s and at 80 % for 34 s."""
    from PySide6.QtCore import Qt

    from app.gui import route_index
    from app.gui.workers import JobContext

    monkeypatch.setattr(route_index, "STALL_S", 0.3)
    win = make_window(road_net)
    ri = win.route_index
    gate = threading.Event()
    real = JobContext.progress

    def held(self, fraction, message=""):  # the build holds at its first fraction
        real(self, fraction, message)
        if self.runner is ri.runner and fraction is not None:
            gate.wait(30)

    monkeypatch.setattr(JobContext, "progress", held)
    win.a_build_index.trigger()
    qtbot.waitUntil(lambda: ri.label.text().startswith("route index 0%"), timeout=30000)
    assert ri.bar.maximum() == 1000  # a fraction came: the bar shows it
    qtbot.waitUntil(lambda: ri.bar.maximum() == 0, timeout=5000)  # then moves on its own
    qtbot.mouseClick(ri.btn, Qt.MouseButton.LeftButton)
    gate.set()
    qtbot.waitUntil(lambda: ri.state == "cancelled", timeout=60000)
    qtbot.waitUntil(lambda: not ri.runner.busy(), timeout=30000)
