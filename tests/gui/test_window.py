"""The main window driven offscreen: clicks, routes, charts, cancel, exports, loading."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
from PySide6.QtCore import Qt
from scipy.sparse.csgraph import dijkstra

from app.gui import export
from tests.gui.helpers import mouse_click_map, run_search_to

ISLAND = 606  # first island node of the fixture map (see fixture_map.py)


def node_xy(net, i):
    return float(net.x[i]), float(net.y[i])


def test_click_to_route_matches_dijkstra(qtbot, window, fixture_net):
    net = fixture_net
    a, b = 0, 30 * 15 + 22
    with qtbot.waitSignal(window.routeShown, timeout=20000) as sig:
        run_search_to(qtbot, window, node_xy(net, a), node_xy(net, b))
    route = sig.args[0]
    assert (window.tools["route"].source, window.tools["route"].target) == (a, b)
    ref = dijkstra(net.to_scipy(), indices=a)
    assert route.cost == int(ref[b])
    assert route.nodes[0] == a and route.nodes[-1] == b
    # The route follows arcs whose weights add up to its cost.
    assert int(net.weights[route.arcs].sum()) == route.cost
    assert window.canvas.route_items, "route not drawn"
    assert window.canvas.field_items, "distance field not drawn"
    assert window.tools["route"].panel.lbl["nodes"].text() == str(route.num_nodes)


def test_phase_chart_filled(qtbot, window, fixture_net):
    with qtbot.waitSignal(window.routeShown, timeout=20000):
        run_search_to(qtbot, window, node_xy(fixture_net, 5), node_xy(fixture_net, 400))
    res = window.tools["route"].result
    assert len(res.phases) > 0
    name = res.strategy
    assert window.chart.num_phases(name) == len(res.phases)

    def drawn() -> int:  # points on the frontier curve once the throttled redraw ran
        items = window.chart._items.get(name)
        return 0 if items is None else len(items[0].getData()[0])

    qtbot.waitUntil(lambda: drawn() == len(res.phases), timeout=3000)
    assert f"{len(res.phases)} phases" in window.chart.totals.text()


def test_moving_destination_reads_pred_without_searching(qtbot, window, fixture_net, monkeypatch):
    from gpu_core.sssp import PreparedSearch

    calls = []
    real = PreparedSearch.run  # what a click's search runs (app.jobs.sssp.SsspPlan)
    monkeypatch.setattr(PreparedSearch, "run", lambda *a, **k: calls.append(1) or real(*a, **k))
    net = fixture_net
    with qtbot.waitSignal(window.routeShown, timeout=20000):
        run_search_to(qtbot, window, node_xy(net, 0), node_xy(net, 100))
    assert len(calls) == 1
    ref = dijkstra(net.to_scipy(), indices=0)
    # A second right click, then a drag of the destination marker: routes at once.
    with qtbot.waitSignal(window.routeShown, timeout=1000) as sig:
        mouse_click_map(qtbot, window, *node_xy(net, 250), button=Qt.MouseButton.RightButton)
    assert sig.args[0].target == 250 and sig.args[0].cost == int(ref[250])
    with qtbot.waitSignal(window.routeShown, timeout=1000) as sig:
        window.canvas.dest_marker.setPos(*node_xy(net, 333))  # what a drag does
    assert sig.args[0].target == 333 and sig.args[0].cost == int(ref[333])
    assert len(calls) == 1, "moving the destination must not search again"


def test_far_click_and_unreachable(qtbot, window, fixture_net):
    net = fixture_net
    msgs = []
    window.message.connect(msgs.append)
    far = (float(net.x.max()) + 5000, float(net.y.min()) - 5000)
    window.canvas.vb.setRange(xRange=(far[0] - 10000, far[0] + 10000), yRange=(far[1] - 10000, far[1] + 10000))
    mouse_click_map(qtbot, window, *far)
    assert any("No road here" in m for m in msgs), msgs
    assert window.tools["route"].source is None and not window.compute.busy()
    window.fit_map()
    with qtbot.waitSignal(window.routeFailed, timeout=20000) as sig:
        run_search_to(qtbot, window, node_xy(net, 0), node_xy(net, ISLAND))
    assert "no route" in sig.args[0]
    assert window.tools["route"].route is None and not window.canvas.route_items
    cost = window.tools["route"].panel.lbl["cost"].text()  # and why: the island is cut off
    assert cost.startswith("unreachable") and "separate parts of the network" in cost


def slow_sssp_factory(started: threading.Event):
    """A stand-in for a click's search (``PreparedSearch.run``) that runs until cancelled
    (polls cancel like gpu_core does)."""
    from gpu_core.errors import CancelledError

    def slow(search, source, *, cancel=None, **kw):
        started.set()
        for _ in range(2000):
            if cancel is not None and cancel():
                raise CancelledError("cancelled")
            threading.Event().wait(0.005)
        raise AssertionError("never cancelled")

    return slow


def test_cancel_a_running_search(qtbot, window, fixture_net, monkeypatch):
    from gpu_core.sssp import PreparedSearch

    started = threading.Event()
    monkeypatch.setattr(PreparedSearch, "run", slow_sssp_factory(started))
    mouse_click_map(qtbot, window, *node_xy(fixture_net, 0))
    assert started.wait(5)
    assert window.btn_cancel.isVisible()
    with qtbot.waitSignal(window.searchCancelled, timeout=5000):
        qtbot.mouseClick(window.btn_cancel, Qt.MouseButton.LeftButton)
    assert window.tools["route"].result is None
    qtbot.waitUntil(lambda: not window.compute.busy(), timeout=5000)


def test_new_click_supersedes_running_search(qtbot, window, fixture_net, monkeypatch):
    from gpu_core.sssp import PreparedSearch

    started = threading.Event()
    real = PreparedSearch.run
    slow = slow_sssp_factory(started)
    monkeypatch.setattr(PreparedSearch, "run",
                        lambda p, s, **k: slow(p, s, **k) if s == 0 else real(p, s, **k))
    mouse_click_map(qtbot, window, *node_xy(fixture_net, 0))
    assert started.wait(5)
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, *node_xy(fixture_net, 77))
    assert window.tools["route"].source == 77 and list(window.tools["route"].result.sources) == [77]


def test_gpu_failure_falls_back_to_cpu(qtbot, window, fixture_net, monkeypatch):
    import app.jobs.sssp as mw
    import gpu_core.backend as gb

    class Flaky(mw.PreparedSearch):
        # the click's search, prepared once per map (issue 38): "auto" is the GPU here
        def __init__(self, graph, *, backend="auto", **k):
            super().__init__(graph, backend=backend, **k)
            self.on_gpu = backend != "cpu"

        def run(self, source, **k):
            if self.on_gpu:
                raise RuntimeError("cudaErrorIllegalAddress")
            return super().run(source, **k)

    monkeypatch.setattr(gb, "resolve_backend", lambda name="auto": "cupy")
    monkeypatch.setattr(mw, "PreparedSearch", Flaky)
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, *node_xy(fixture_net, 3))
    assert "cudaErrorIllegalAddress" in window.tools["route"].result.extra["fallback"]
    assert window.tools["route"].result.backend == "cpu"
    assert "GPU fallback" in window.last_error or "GPU" in window.last_error
    assert window.lbl_backend.text() == "CPU (GPU failed)"


def test_compare_strategies_overlays_runs(qtbot, window, fixture_net):
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, *node_xy(fixture_net, 0))
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        window.tools["route"].compare_strategies()
    runs = window.chart.runs
    assert set(runs) == {"conventional", "selection", "adaptive", "auto"}
    assert all(r.shape[0] > 0 for r in runs.values())


def test_export_route_and_read_back(qtbot, window, fixture_net, tmp_path):
    net = fixture_net
    with qtbot.waitSignal(window.routeShown, timeout=20000):
        run_search_to(qtbot, window, node_xy(net, 0), node_xy(net, 599))
    r = window.tools["route"].route
    gj, gpx = tmp_path / "r.geojson", tmp_path / "r.gpx"
    window.export("route", str(gj))
    window.export("route", str(gpx))
    feat = json.loads(gj.read_text())["features"][0]
    assert feat["properties"]["cost"] == r.cost
    coords = np.array(feat["geometry"]["coordinates"])
    assert np.allclose(coords[0], [net.lon[0], net.lat[0]])
    assert np.allclose(coords[-1], [net.lon[599], net.lat[599]])
    pts = np.array(export.read_gpx_points(gpx))
    assert np.allclose(pts, coords, atol=1e-6)
    csv = tmp_path / "f.csv"
    window.export("field", str(csv))
    rows = csv.read_text().splitlines()
    assert rows[0] == "node_id,lon,lat,cost" and len(rows) - 1 == int((window.tools["route"].result.dist >= 0).sum())
    ph = tmp_path / "p.csv"
    window.export("phases", str(ph))
    assert len(ph.read_text().splitlines()) == len(window.tools["route"].result.phases) + 1
    png = tmp_path / "v.png"
    window.export("view", str(png))
    assert png.stat().st_size > 1000
    svg = tmp_path / "v.svg"
    window.export("view", str(svg))
    assert "<svg" in svg.read_text()[:2000] and svg.stat().st_size > 5000


def test_failed_load_keeps_previous_map(qtbot, window, fixture_net, tmp_path):
    bad = tmp_path / "broken.gr"
    bad.write_text("p sp 3 2\na 1 2 x\n")
    title = window.windowTitle()
    with qtbot.waitSignal(window.mapLoadFailed, timeout=20000) as sig:
        window.show_map(str(bad))
    assert "broken.gr" in sig.args[0]
    assert window.net is fixture_net and window.windowTitle() == title
    assert "broken.gr" in window.last_error
    with qtbot.waitSignal(window.mapLoadFailed, timeout=20000):
        window.show_map(str(tmp_path / "map.unknownext"))
    assert window.net is fixture_net


def test_open_sample_map_in_worker(qtbot, make_window):
    from app.gui.main_window import sample_map_path

    path = sample_map_path()
    if path is None:
        pytest.skip("no sample map bundled")
    w = make_window()
    with qtbot.waitSignal(w.mapLoaded, timeout=60000):
        w.show_map(path)
    assert w.net.num_nodes > 100 and "helsinki" in w.windowTitle().lower()
    assert w.settings.recent_files()[0].endswith("helsinki.osm.pbf")
    assert w.canvas.road_items
    assert "OpenStreetMap" in w.canvas.attribution.toPlainText()


def test_settings_persist(qtbot, make_window, fixture_net):
    w = make_window(fixture_net)
    w.algo_panel.cb_strategy.setCurrentText("selection")
    w.algo_panel.sp_bands.setValue(6)
    w.chart_dock.setVisible(False)  # dock layout is saved too
    w.close()
    w2 = make_window(fixture_net)
    assert w2.algo_panel.strategy == "selection"
    assert w2.algo_panel.values()["isochrone_bands"] == 6
    assert not w2.chart_dock.isVisible() and w2.side_dock.isVisible()


def test_binding_does_not_leak_none():
    """PySide6 6.12.0 on Python 3.11 drops a reference to None per void call (a crash
    later); the installed binding must not (app/gui/_compat.py, pyproject's pin)."""
    import sys

    from PySide6.QtWidgets import QLabel

    label = QLabel()
    before = sys.getrefcount(None)
    for _ in range(1000):
        label.setText("x")
    assert sys.getrefcount(None) >= before - 50


def test_big_map_raster_level_of_detail(qtbot, make_window, fixture_net, monkeypatch):
    """Past RASTER_MIN_SEGMENTS the network is rasterised; clicks and fields still work."""
    from app.gui import raster

    monkeypatch.setattr(raster, "RASTER_MIN_SEGMENTS", 100)
    w = make_window(fixture_net)
    c = w.canvas
    assert c.raster_mode and not c.road_items and c.raster_item is not None
    qtbot.waitUntil(lambda: c._ids is not None and (c._ids > 0).sum() > 1000, timeout=3000)
    before = c.raster_item._buf.copy()
    with qtbot.waitSignal(w.routeShown, timeout=20000) as sig:
        run_search_to(qtbot, w, node_xy(fixture_net, 0), node_xy(fixture_net, 450))
    assert sig.args[0].cost == int(dijkstra(fixture_net.to_scipy(), indices=0)[450])
    after = c.raster_item._buf
    assert not np.array_equal(before, after), "the distance field did not recolour the raster"
    assert len(np.unique(after[c._ids > 0])) > 10  # a colour ramp, not one colour


def test_place_billboards_and_export(qtbot, window, fixture_net, tmp_path):
    from gpu_core.betweenness import place_billboards

    window.tools["billboards"].panel.sp_k.setValue(3)
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        qtbot.mouseClick(window.tools["billboards"].panel.btn_run, Qt.MouseButton.LeftButton)
    res = window.tools["billboards"].result
    ref = place_billboards(fixture_net, 3, mode="weighted", backend="cpu")  # the default, as the CLI
    assert list(res.sites) == list(ref.sites)
    assert window.tools["billboards"].panel.table.rowCount() == 3
    assert len(window.canvas.site_labels) == 3 and window.canvas.site_labels[0].toPlainText() == "1"
    assert "%" in window.tools["billboards"].panel.lbl.text()
    out = tmp_path / "sites.geojson"
    window.export("billboards", str(out))
    feats = json.loads(out.read_text())["features"]
    assert [f["properties"]["node_id"] for f in feats] == [int(fixture_net.node_ids[v]) for v in ref.sites]
    csv = tmp_path / "sites.csv"
    window.export("billboards", str(csv))
    assert len(csv.read_text().splitlines()) == 4


def test_replay_animates_the_finished_run(qtbot, window, fixture_net):
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, *node_xy(fixture_net, 0))
    n = len(window.tools["route"].result.phases)
    name = window.tools["route"].result.strategy
    qtbot.mouseClick(window.chart.btn_replay, Qt.MouseButton.LeftButton)
    assert window.chart.replaying()
    shown = []
    qtbot.waitUntil(lambda: shown.append(len(window.chart._items[name][0].getData()[0]))
                    or not window.chart.replaying(), timeout=10000)
    qtbot.waitUntil(lambda: len(window.chart._items[name][0].getData()[0]) == n, timeout=2000)
    if n > 2:
        assert min(shown) < n, "replay never showed a partial run"


def test_drop_a_map_file_and_cursor_readout(qtbot, make_window, fixture_net):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    from app.gui.main_window import sample_map_path

    w = make_window(fixture_net)
    w.canvas.cursorMoved.emit(float(fixture_net.x[0]), float(fixture_net.y[0]))
    assert w.lbl_cursor.text() == f"{fixture_net.lon[0]:.5f}, {fixture_net.lat[0]:.5f}"
    path = sample_map_path()
    if path is None:
        pytest.skip("no sample map bundled")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(path)])
    ev = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                    Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(w.mapLoaded, timeout=60000):
        w.dropEvent(ev)
    assert w.net is not fixture_net and w.net.num_nodes > 100


def test_od_matrix_from_shift_clicks_and_csv(qtbot, window, fixture_net, tmp_path):
    net = fixture_net
    for i in (0, 333):
        x, y = node_xy(net, i)
        qtbot.mouseClick(window.canvas.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ShiftModifier, window.canvas.view_to_widget(x, y))
    pts = tmp_path / "pts.csv"
    pts.write_text(f"name,node_id\nfar,{int(net.node_ids[599])}\n"
                   f"\"isle, east\",{int(net.node_ids[ISLAND])}\n")
    assert window.tools["od"].load_csv(str(pts)) == 2
    assert [p.node for p in window.tools["od"].panel.points] == [0, 333, 599, ISLAND]
    assert window.tools["route"].source is None  # shift+click does not start a route search
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        qtbot.mouseClick(window.tools["od"].panel.btn_compute, Qt.MouseButton.LeftButton)
    m = window.tools["od"].panel.matrix
    ref = dijkstra(net.to_scipy(), indices=[0, 333, 599, ISLAND])[:, [0, 333, 599, ISLAND]]
    assert np.array_equal(m, np.where(np.isinf(ref), -1, ref).astype(np.int64))
    assert window.tools["od"].panel.table.item(0, 3).text() == "—"
    out = tmp_path / "m.csv"
    window.export("od", str(out))
    import csv

    rows = list(csv.reader(out.read_text().splitlines()))
    assert len(rows) == 17 and rows[0] == ["from", "to", "cost", "from_id", "to_id"]
    ids = [str(int(net.node_ids[0])), str(int(net.node_ids[333])), "far", "isle, east"]
    assert [r[3] for r in rows[1::4]] == ids and [r[4] for r in rows[1:5]] == ids
    # `signpost matrix`'s format (issue 42): 0-based rows, an empty cost when unreachable
    assert [r[:2] for r in rows[1:3]] == [["0", "0"], ["0", "1"]] and rows[16][:2] == ["3", "3"]
    assert rows[4][2] == "" and rows[2][2] == str(int(m[0, 1]))
    # the map's marker number, and the name from the file's id column (issue 27)
    assert window.tools["od"].panel.table.horizontalHeaderItem(3).text() == "P4 isle, east"
    assert window.tools["od"].panel.table.horizontalHeaderItem(0).text() == "P1"
    bad = tmp_path / "bad.csv"
    bad.write_text("name\nfoo\n")
    assert window.tools["od"].load_csv(str(bad)) == 0 and "bad.csv:2" in window.last_error


def test_big_map_snapping_index_built_after_the_map_shows(qtbot, make_window, monkeypatch):
    import app.gui.loading as loading
    import app.gui.main_window as mw

    path = mw.sample_map_path()
    if path is None:
        pytest.skip("no sample map bundled")
    monkeypatch.setattr(loading, "BIG_MAP_ARCS", 10)
    w = make_window()
    with qtbot.waitSignal(w.mapLoaded, timeout=60000):
        w.show_map(path)
    assert w.net is not None  # drawn before the index exists
    qtbot.waitUntil(lambda: w.snapper is not None, timeout=30000)
    assert not w._snapper_pending
    i = int(w.net.arc_sources()[np.flatnonzero(w.net.edge_kind == 0)[0]])
    with qtbot.waitSignal(w.searchFinished, timeout=20000):
        mouse_click_map(qtbot, w, float(w.net.x[i]), float(w.net.y[i]))
    assert w.tools["route"].source is not None
