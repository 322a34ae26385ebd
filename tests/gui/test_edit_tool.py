"""The Edit tool driven through the real window: close a road by a click, undo / redo,
add a link, scenario files, the unsaved-edits prompt, the change view."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtWidgets import QMessageBox

from app.jobs.edits import Edit
from gpu_core.sssp import sssp
from maps.model.network import KIND_TRANSFER
from tests.gui.helpers import mouse_click_map, run_search_to

ISLAND = 606  # first node of the fixture's detached island (fixture_map.py)
RAIL0 = 600  # first rail node; stations at 600 and 605, joined to the grid by transfers


def node_xy(net, i):
    return float(net.x[i]), float(net.y[i])


def routed(qtbot, window, net, a, b):
    with qtbot.waitSignal(window.routeShown, timeout=60000):
        run_search_to(qtbot, window, node_xy(net, a), node_xy(net, b))
    return window.tools["route"]


def straight_route_arc(net, route) -> int:
    """An arc of the route in its middle whose road is drawn straight (a click at the
    middle of its ends lands on it)."""
    arcs = route.route.arcs.tolist()
    for a in arcs[len(arcs) // 3:] + arcs:
        if net.geom_indptr is None or net.geom_indptr[a + 1] == net.geom_indptr[a]:
            return int(a)
    raise AssertionError("no straight arc on the route")


def click_road(qtbot, window, net, arc) -> None:
    t, h = int(net.arc_sources()[arc]), int(net.indices[arc])
    x = (net.x[t] + net.x[h]) / 2
    y = (net.y[t] + net.y[h]) / 2
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        mouse_click_map(qtbot, window, float(x), float(y))


def fresh(window, source):
    """A fresh search on the edited network, as the CLI would run it."""
    return sssp(window.scenario.network(), source, backend="cpu")


def close_route_road(qtbot, window, net):
    route = routed(qtbot, window, net, 0, 30 * 15 + 22)
    before = route.result
    arc = straight_route_arc(net, route)
    tool = window.tools["edit"]
    tool.panel.set_mode("close")
    assert window.canvas.click_mode == "close"
    click_road(qtbot, window, net, arc)
    return route, tool, before, arc


def test_click_closes_road_and_route_follows(qtbot, window, fixture_net):
    net = fixture_net
    route, tool, before, arc = close_route_road(qtbot, window, net)
    t, h = int(net.arc_sources()[arc]), int(net.indices[arc])
    sc = window.scenario
    assert len(sc.edits) == 1 and sc.edits[0].action == "close"
    closed = set(sc.closed_arcs().tolist())
    src, idx = net.arc_sources(), net.indices
    pair = set(np.nonzero(((src == t) & (idx == h)) | ((src == h) & (idx == t)))[0].tolist())
    assert pair and pair <= closed
    res = route.result
    assert res is not before and res.extra["whatif"] == "repair"
    ref = fresh(window, 0)
    np.testing.assert_array_equal(res.dist, ref.dist)
    np.testing.assert_array_equal(res.pred, ref.pred)
    # The route no longer uses the closed road and costs what the fresh search says.
    target = 30 * 15 + 22
    assert route.route.cost == int(ref.dist[target]) >= int(before.dist[target])
    hops = set(zip(route.route.nodes[:-1].tolist(), route.route.nodes[1:].tolist(), strict=True))
    assert (t, h) not in hops and (h, t) not in hops
    assert tool.layers.closed_item is not None, "closed road not drawn"
    assert tool.stack.count() == 1 and tool.panel.view.stack() is tool.stack
    # the summary counts in words (issue 42: it said "1 roads closed, 0 links added")
    assert tool.panel._summary.startswith("1 edit: 1 road closed, 0 links added;")
    # A second click on the closed road reopens it: the unedited answer again.
    click_road(qtbot, window, net, arc)
    assert [e.action for e in sc.edits] == ["close", "open"]
    assert sc.closed_arcs().size == 0 and tool.layers.closed_item is None
    np.testing.assert_array_equal(route.result.dist, before.dist)


def test_first_closure_takes_the_after_load_scenario(qtbot, window, fixture_net):
    """The after-load job makes the unedited scenario and the closed roads' key index off
    the window's thread; the first edit takes them (issue 41) and answers as before."""
    from app.gui.edit_panel import EditLayers

    tool = window.tools["edit"]
    qtbot.waitUntil(lambda: tool._spare is not None and not window.loader.busy(), timeout=60000)
    spare = tool._spare[0]
    assert not spare.edits and spare.base is fixture_net
    keys, order = EditLayers.key_index(fixture_net, window.geo)
    np.testing.assert_array_equal(tool.layers._keys, keys)
    np.testing.assert_array_equal(tool.layers._order, order)
    route, tool, before, _arc = close_route_road(qtbot, window, fixture_net)
    assert window.scenario is spare and tool._spare is None and len(spare.edits) == 1
    ref = fresh(window, 0)
    np.testing.assert_array_equal(route.result.dist, ref.dist)
    np.testing.assert_array_equal(route.result.pred, ref.pred)
    assert tool.layers.closed_item is not None


def test_undo_restores_exact_earlier_result(qtbot, window, fixture_net):
    net = fixture_net
    route, tool, before, _ = close_route_road(qtbot, window, net)
    after = route.result
    assert not np.array_equal(after.dist, before.dist)
    assert window.a_undo.isEnabled() and not window.a_redo.isEnabled()
    window.a_undo.trigger()  # Edit > Undo edit (Ctrl+Z)
    np.testing.assert_array_equal(route.result.dist, before.dist)
    np.testing.assert_array_equal(route.result.pred, before.pred)
    assert window.scenario.edits == [] and window.search_graph() is window.graph
    tool.stack.redo()
    np.testing.assert_array_equal(route.result.dist, after.dist)
    # Redo after the source moved: no result to put back, the repair is exact too.
    tool.stack.undo()
    tool.panel.set_mode("")
    assert window.canvas.click_mode == "source"
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        mouse_click_map(qtbot, window, *node_xy(net, 77))
    assert route.source == 77
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        tool.stack.redo()
    ref = fresh(window, 77)
    np.testing.assert_array_equal(route.result.dist, ref.dist)
    np.testing.assert_array_equal(route.result.pred, ref.pred)


def test_add_link_reaches_island(qtbot, window, fixture_net):
    net = fixture_net
    with qtbot.waitSignal(window.routeFailed, timeout=60000):  # unreachable
        run_search_to(qtbot, window, node_xy(net, 0), node_xy(net, ISLAND))
    route = window.tools["route"]
    assert route.result.dist[ISLAND] < 0
    tool = window.tools["edit"]
    tool.panel.set_mode("link")
    tool.panel.cb_class.setCurrentText("primary")
    east = 5 * 30 + 29  # the grid's east edge, same row as the island
    mouse_click_map(qtbot, window, *node_xy(net, east))
    assert tool._link_start is not None
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        mouse_click_map(qtbot, window, *node_xy(net, ISLAND))
    sc = window.scenario
    assert [e.action for e in sc.edits] == ["add"] and sc.edits[0].road_class == "primary"
    res = route.result
    assert res.dist[ISLAND] > 0
    ref = fresh(window, 0)
    np.testing.assert_array_equal(res.dist, ref.dist)
    assert tool.layers.link_item is not None, "new link not drawn"
    with qtbot.waitSignal(window.routeShown, timeout=5000):
        route.update_route()
    assert route.route.cost == int(ref.dist[ISLAND])


def test_save_open_round_trip_and_bad_file(qtbot, window, fixture_net, tmp_path):
    net = fixture_net
    route, tool, _, _ = close_route_road(qtbot, window, net)
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        assert tool.apply(Edit("set_cost", nodes=(1000, 1001), value=50000))
    edited = route.result
    edits = list(window.scenario.edits)
    closed = window.scenario.closed_arcs()
    path = tmp_path / "s.geojson"
    assert not tool.stack.isClean()
    tool.save(str(path))
    assert tool.stack.isClean()
    assert len(json.loads(path.read_text())["features"]) == 2
    tool.stack.setIndex(0)  # back to the unedited map
    assert window.scenario.edits == []
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        assert tool.open_scenario(str(path))
    sc = window.scenario
    assert [(e.action, e.nodes) for e in sc.edits] == [(e.action, e.nodes) for e in edits]
    np.testing.assert_array_equal(sc.closed_arcs(), closed)
    assert tool.stack.count() == 2 and tool.stack.isClean()
    np.testing.assert_array_equal(route.result.dist, edited.dist)
    # A file with a bad feature: one message naming it, the edits on screen stay.
    bad = tmp_path / "bad.geojson"
    bad.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": None, "properties": {"action": "close", "nodes": [1000, 99999]}}]}))
    assert not tool.open_scenario(str(bad))
    assert "99999" in window.last_error
    assert len(window.scenario.edits) == 2 and tool.stack.count() == 2


@pytest.mark.parametrize("answer", ["cancel", "discard", "save"])
def test_unsaved_edits_prompt(qtbot, window, fixture_net, tmp_path, monkeypatch, answer):
    monkeypatch.delenv("SIGNPOST_NO_DIALOGS")
    tool = window.tools["edit"]
    tool.apply(Edit("close", nodes=(1000, 1001)))
    qtbot.waitUntil(lambda: not window.compute.busy(), timeout=60000)
    asked = []
    buttons = {"cancel": QMessageBox.StandardButton.Cancel,
               "discard": QMessageBox.StandardButton.Discard,
               "save": QMessageBox.StandardButton.Save}
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a) or buttons[answer])
    path = tmp_path / "saved.geojson"
    monkeypatch.setattr("app.gui.tools.edit_tool.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(path), ""))
    closed = window.close()
    assert len(asked) == 1
    assert closed == (answer != "cancel")
    assert path.exists() == (answer == "save")
    if answer == "cancel":
        assert window.isVisible()
        tool.stack.setClean()  # the fixture closes it again


def test_change_view_is_edited_minus_base(qtbot, window, fixture_net):
    net = fixture_net
    route, tool, before, _ = close_route_road(qtbot, window, net)
    # Cut the rail line off: both transfer arcs closed.
    src = net.arc_sources()
    transfers = np.nonzero(net.edge_kind == KIND_TRANSFER)[0]
    ends = [sorted((int(net.node_ids[src[a]]), int(net.node_ids[net.indices[a]]))) for a in transfers]
    pairs = sorted({tuple(e) for e in ends})
    assert len(pairs) == 2
    for a, b in pairs:
        with qtbot.waitSignal(window.searchFinished, timeout=60000):
            tool.apply(Edit("close", nodes=(a, b)))
    tool.panel.chk_change.setChecked(True)
    ch = tool.change
    assert ch is not None
    base = sssp(net, 0, backend="cpu")
    res = route.result
    both = (base.dist >= 0) & (res.dist[: net.num_nodes] >= 0)
    np.testing.assert_array_equal(ch.delta[both], res.dist[both] - base.dist[both])
    assert (ch.delta[~both] == 0).all()
    lost = np.nonzero((base.dist >= 0) & (res.dist[: net.num_nodes] < 0))[0]
    np.testing.assert_array_equal(ch.lost_nodes, lost)
    assert set(range(RAIL0, RAIL0 + 6)) <= set(lost.tolist())
    assert tool.panel.list_lost.count() == lost.size
    assert window.canvas.field_legend.gradient.isVisible()
    tool.panel.list_lost.itemClicked.emit(tool.panel.list_lost.item(0))  # zooms there
    x, y = node_xy(net, int(lost[0]))
    (x0, x1), (y0, y1) = window.canvas.vb.viewRange()
    assert x0 <= x <= x1 and y0 <= y <= y1
    tool.panel.chk_change.setChecked(False)
    assert window.field_painter is None and tool.change is None


def test_od_and_billboards_before_after(qtbot, window, fixture_net):
    from app.gui.map_canvas import format_cost
    from app.jobs import billboards, matrix

    net = fixture_net
    tool = window.tools["edit"]
    assert tool.apply(Edit("close", nodes=(1000, 1001)))  # no source yet: nothing to search
    edited = window.scenario.network()
    od = window.tools["od"]
    for text in ("node:1000", "node:1001", "node:1250"):
        od.panel.add_point(window.resolve(text))
    with qtbot.waitSignal(window.searchFinished, timeout=30000):
        assert od.compare()
    nodes = (0, 1, 250)
    want_b = matrix.run(net, matrix.MatrixOptions(nodes, nodes, backend="cpu")).matrix
    want_a = matrix.run(edited, matrix.MatrixOptions(nodes, nodes, backend="cpu")).matrix
    rows = od.panel.compare.rows
    assert len(rows) == 6 and od.panel.compare.isVisible()
    for (f, t, b, a, _), (i, j) in zip(rows, [(i, j) for i in range(3) for j in range(3) if i != j],
                                       strict=True):
        # the map's marker numbers and costs in a human unit (issue 27)
        assert (f, t) == (f"P{i + 1}", f"P{j + 1}")  # lettered as on the map (issue 42)
        assert b == format_cost(int(want_b[i, j]), net.unit)
        assert a == format_cost(int(want_a[i, j]), net.unit)
    assert int(want_a[0, 1]) > int(want_b[0, 1])  # the closed road made 0 -> 1 longer
    bb = window.tools["billboards"]
    bb.panel.sp_k.setValue(2)
    bb.panel.cb_method.setCurrentText("exact")
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        assert bb.compare()
    opts = billboards.BillboardsOptions(2, mode=bb.panel.values()["mode"], method="exact")
    after = billboards.run(edited, opts).billboards
    rows = bb.panel.compare.rows
    assert len(rows) == 2
    assert [r[3] for r in rows] == [str(int(edited.node_ids[v])) for v in after.sites.tolist()]


def test_profile_reload_keeps_the_edits(qtbot, make_window):
    from app.gui.main_window import sample_map_path

    sample = sample_map_path()
    if sample is None:
        pytest.skip("no sample map bundled")
    w = make_window()
    w.algo_panel.cb_profile.blockSignals(True)
    w.algo_panel.cb_profile.setCurrentText("walk")
    w.algo_panel.cb_profile.blockSignals(False)
    with qtbot.waitSignal(w.mapLoaded, timeout=60000):
        w.show_map(sample, "walk")
    net = w.net
    tool = w.tools["edit"]
    t, h = int(net.arc_sources()[0]), int(net.indices[0])
    assert tool.apply(Edit("close", nodes=(int(net.node_ids[t]), int(net.node_ids[h]))))
    closed = w.scenario.closed_arcs().size
    with qtbot.waitSignal(w.mapLoaded, timeout=60000):
        w.algo_panel.cb_profile.setCurrentText("length")  # reloads the same file
    qtbot.waitUntil(lambda: w.scenario is not None, timeout=10000)
    assert w.net is not net and len(w.scenario.edits) == 1
    assert w.scenario.closed_arcs().size == closed and tool.layers.closed_item is not None
    assert not tool.stack.isClean()  # still unsaved
    tool.stack.setClean()


def test_cancelled_repair_then_next_edit_repairs_both(qtbot, window, fixture_net, monkeypatch):
    import time

    from app.jobs import whatif
    from gpu_core.errors import CancelledError

    net = fixture_net
    route = routed(qtbot, window, net, 0, 30 * 15 + 22)
    before = route.result
    real = whatif._repair_fn()

    def slow(graph, previous, summaries, *, backend, on_phase, cancel):
        while not cancel():
            time.sleep(0.01)
        raise CancelledError("cancelled")

    monkeypatch.setattr(whatif, "_repair_fn", lambda: slow)
    tool = window.tools["edit"]
    with qtbot.waitSignal(window.compute.started_job, timeout=10000):
        assert tool.apply(Edit("close", nodes=(1000, 1001)))
    assert window.btn_cancel.isVisible()
    with qtbot.waitSignal(window.searchCancelled, timeout=10000):
        window.cancel_all()  # the status bar's Cancel
    assert route.result is before and len(tool._since) == 1
    monkeypatch.setattr(whatif, "_repair_fn", lambda: real)
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        assert tool.apply(Edit("close", nodes=(1001, 1002)))
    res = route.result
    assert res.extra["whatif"] == "repair"  # from the result on screen, both edits at once
    ref = fresh(window, 0)
    np.testing.assert_array_equal(res.dist, ref.dist)
    np.testing.assert_array_equal(res.pred, ref.pred)


def test_drag_adds_a_link(qtbot, window, fixture_net):
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    net = fixture_net
    tool = window.tools["edit"]
    tool.panel.set_mode("link")
    vp = window.canvas.viewport()
    east = 5 * 30 + 29
    p0 = window.canvas.view_to_widget(*node_xy(net, east))
    p1 = window.canvas.view_to_widget(*node_xy(net, ISLAND))
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton

    def send(kind, pos, button, buttons):
        ev = QMouseEvent(kind, QPointF(pos), QPointF(vp.mapToGlobal(pos)), button, buttons,
                         Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(vp, ev)
        qtbot.wait(40)  # the scene drops move events closer together than a frame

    view_before = window.canvas.vb.viewRange()
    send(QEvent.Type.MouseButtonPress, p0, left, left)
    for k in (0.25, 0.5, 1.0):
        send(QEvent.Type.MouseMove, p0 + (p1 - p0) * k, none, left)
    send(QEvent.Type.MouseButtonRelease, p1, left, none)
    qtbot.waitUntil(lambda: window.scenario is not None and len(window.scenario.edits) == 1, timeout=5000)
    assert window.scenario.edits[0].action == "add"
    assert window.canvas.vb.viewRange() == view_before  # the drag drew a link, it did not pan
    assert window.scenario.network().num_arcs > net.num_arcs
