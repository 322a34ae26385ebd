"""Issue 27's defects of the desktop app, each driven as a user would (real mouse events
on the canvas where the defect is about clicks), with oracles from the jobs."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.gui.map_canvas import format_cost
from tests.gui.helpers import mouse_click_map


def _search(qtbot, window, x, y):
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, x, y)


def _near_px(window, x, y, dx_px, dy_px):
    """Map metres of the point dx, dy pixels from (x, y) on screen now."""
    canvas = window.canvas
    p = canvas.view_to_scene(x, y)
    v = canvas.vb.mapSceneToView(p + type(p)(dx_px, dy_px))
    return float(v.x()), float(v.y())


# ---- 1: a click near a billboard star is not swallowed ---------------------------------
def test_clicks_next_to_stars_reach_the_map(qtbot, window, fixture_net):
    net = fixture_net
    sites = [0, 45, 200, 321, 555]
    window.canvas.show_sites(net.x[sites], net.y[sites])  # five stars on the map
    od = window.tools["od"]
    canvas = window.canvas
    for i, v in enumerate(sites):  # shift+click a few pixels off each star: 5 points
        x, y = _near_px(window, float(net.x[v]), float(net.y[v]), 3, -2)
        pos = canvas.view_to_widget(x, y)
        qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ShiftModifier, pos=pos)
        qtbot.wait(30)
        assert len(od.panel.points) == i + 1
    assert [int(p.node) for p in od.panel.points] == sites  # each snapped to its star's node
    # a plain left click on a star sets the route source (a search runs)
    _search(qtbot, window, float(net.x[sites[2]]), float(net.y[sites[2]]))
    assert window.tools["route"].source == sites[2]


# ---- 2: isochrone bands: the smallest on top, and fewer bands than asked are explained -
def test_isochrone_bands_smallest_on_top_and_fewer_explained(qtbot, window, fixture_net):
    from app.gui.geometry import field_bins

    net = fixture_net
    _search(qtbot, window, float(net.x[0]), float(net.y[0]))
    dist = window.tools["route"].result.dist
    asked = next(b for b in range(3, 20) if len(field_bins(window.geo, dist, bands=b).colours) != b)
    got = len(field_bins(window.geo, dist, bands=asked).colours)
    ap = window.algo_panel
    ap.chk_polys.setChecked(True)
    with qtbot.waitSignal(window.searchFinished, timeout=30000):
        ap.sp_bands.setValue(asked)
    legend = window.canvas.field_legend
    assert len(legend.labels) == got and legend.note.startswith(f"{asked} asked: round steps of ")
    items = window.tools["route"]._iso_layer.items  # drawn largest cutoff first
    z = [it.zValue() for it in items]
    assert len(items) == got and z == sorted(z)  # each smaller band above the larger ones
    ap.sp_bands.setValue(got)  # as many as asked: no note
    assert legend.note == ""


# ---- 3: overlays stay above the roads, never over the attribution ----------------------
def test_overlays_drawn_over_roads_and_apart(qtbot, window, fixture_net):
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QImage, QPainter

    from app.gui.screens import canvas_problems

    net = fixture_net
    _search(qtbot, window, float(net.x[300]), float(net.y[300]))
    canvas = window.canvas
    canvas.set_attribution("© test data")
    cx, cy = float(np.median(net.x)), float(np.median(net.y))
    canvas.vb.setRange(xRange=(cx - 300, cx + 300), yRange=(cy - 300, cy + 300), padding=0)
    qtbot.wait(50)
    assert canvas_problems(window) == []
    bar = canvas.field_legend.gradient
    assert bar.isVisible()
    # the middle of the colour bar, rendered: its gradient colour, not a road's
    img = QImage(canvas.size(), QImage.Format.Format_ARGB32)
    img.fill(0)
    p = QPainter(img)
    canvas.render(p)
    p.end()
    top = 4 + bar._lh + 4 + bar._lh / 2  # title, gap, half a label line: where the bar starts
    at = canvas.mapFromScene(bar.mapToScene(QPointF(6 + bar.bar_w / 2, top + bar.bar_h / 2)))
    want = bar.stops[min(range(len(bar.stops)), key=lambda i: abs(bar.stops[i][0] - 0.5))][1]
    got = img.pixelColor(at)
    assert max(abs(got.red() - want.red()), abs(got.green() - want.green()),
               abs(got.blue() - want.blue())) < 40
    names = canvas.overlay_rects()
    assert "attribution" in names and "field colour bar" in names


# ---- 4: the class legend lists every class drawn and hides under a field ---------------
def test_class_legend_names_every_drawn_class_and_hides_under_field(qtbot, window, fixture_net):
    canvas = window.canvas
    text = " ".join(label.text for _s, label in canvas.legend.items)
    for name in canvas.road_styles:
        assert name in text, name
    assert canvas.legend.isVisible()
    _search(qtbot, window, float(fixture_net.x[0]), float(fixture_net.y[0]))
    assert not canvas.legend.isVisible()  # roads coloured by distance: not by class
    window.tools["route"].clear_route()
    assert canvas.legend.isVisible()


# ---- 6: the OD matrix in the map's numbers and human units -----------------------------
def test_od_table_uses_marker_numbers_and_units(qtbot, window, fixture_net):
    from app.jobs import matrix

    net = fixture_net
    nodes = [10, 250, 480, 599]
    for v in nodes:
        mouse_click_map(qtbot, window, float(net.x[v]), float(net.y[v]))  # modes: shift below
    od = window.tools["od"]
    od.panel.clear()
    canvas = window.canvas
    for v in nodes:
        qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ShiftModifier,
                         pos=canvas.view_to_widget(float(net.x[v]), float(net.y[v])))
        qtbot.wait(30)
    got = [int(p.node) for p in od.panel.points]
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        od.run()
    want = matrix.run(net, matrix.MatrixOptions(tuple(got), tuple(got), backend="cpu")).matrix
    t = od.panel.table
    heads = [t.horizontalHeaderItem(j).text() for j in range(t.columnCount())]
    assert heads == ["P1", "P2", "P3", "P4"]  # lettered apart from billboard sites (issue 42)
    assert [lbl.toPlainText() for lbl in canvas.od_labels] == heads  # the map's numbers
    for i in range(4):
        for j in range(4):
            c = int(want[i, j])
            assert t.item(i, j).text() == ("—" if c < 0 else format_cost(c, net.unit))
            assert f"{c:,} {net.unit}" in t.item(i, j).toolTip() or c < 0


# ---- 7: the edge under the pointer at this zoom; an edit that changes nothing says so --
def test_pick_prefers_the_routed_road_at_coarse_zoom():
    from app.gui.picking import pick_arc
    from maps.model.build import build_network
    from maps.points.snap import Snapper

    # a primary street (0-1) and a footway (2-3) drawn 3 m beside it
    x = np.array([0.0, 200.0, 0.0, 200.0])
    y = np.array([0.0, 0.0, 3.0, 3.0])
    from maps.geo.projection import to_lonlat

    lon, lat = to_lonlat(x, y, (24.9, 60.1))
    net = build_network(tails=np.array([0, 1, 2, 3]), heads=np.array([1, 0, 3, 2]),
                        weights=np.array([2000, 2000, 2000, 2000]), node_ids=np.arange(4) + 1,
                        unit="dm", profile="length", lon=lon, lat=lat, origin=(24.9, 60.1),
                        edge_class=np.array([0, 0, 1, 1]), class_names=["primary", "footway"])
    sn = Snapper(net)
    tail = np.searchsorted(net.indptr, np.arange(net.num_arcs), side="right") - 1
    primary = {a for a in range(net.num_arcs) if {int(tail[a]), int(net.indices[a])} == {0, 1}}
    footway = {a for a in range(net.num_arcs) if {int(tail[a]), int(net.indices[a])} == {2, 3}}
    # the pointer 2.5 m off the street, 0.5 m off the footway
    coarse = pick_arc(sn, net, 100.0, 2.5, m_per_px=5.0, route_arcs=np.array(sorted(primary)))
    assert coarse[0] in primary  # the routed road, drawn on top, wins at full-map zoom
    near = pick_arc(sn, net, 100.0, 2.5, m_per_px=5.0)
    assert near[0] in primary  # no route: the class drawn highest (primary over footway)
    fine = pick_arc(sn, net, 100.0, 2.5, m_per_px=0.05)  # zoomed in: 6 px = 0.3 m
    assert fine is None  # nothing within 6 pixels: no road under the pointer
    assert pick_arc(sn, net, 100.0, 2.9, m_per_px=0.05)[0] in footway


def test_close_by_click_and_an_edit_that_changes_nothing(qtbot, window, fixture_net):
    from maps.model.network import KIND_ROAD

    net = fixture_net
    _search(qtbot, window, float(net.x[0]), float(net.y[0]))
    res = window.tools["route"].result
    edit = window.tools["edit"]
    edit.panel.set_mode("close")
    tail = np.searchsorted(net.indptr, np.arange(net.num_arcs), side="right") - 1
    # an arc on no shortest route from the source: closing it changes no cost
    gi = net.geom_indptr

    def straight(a: int) -> bool:
        return gi is None or gi[a + 1] == gi[a]

    off = next(a for a in range(net.num_arcs)
               if net.edge_kind[a] == KIND_ROAD and straight(a) and res.reached[tail[a]]
               and res.pred[net.indices[a]] != tail[a] and res.pred[tail[a]] != net.indices[a])
    u, v = int(tail[off]), int(net.indices[off])
    mx, my = (net.x[u] + net.x[v]) / 2, (net.y[u] + net.y[v]) / 2
    edit.set_change_view(True)
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, float(mx), float(my))
    assert (min(u, v), max(u, v)) in edit.closed_pairs()
    qtbot.waitUntil(lambda: not window.compute.busy(), timeout=20000)
    qtbot.wait(50)
    msg = window.statusBar().currentMessage()
    assert "changes no cost" in msg or "nothing changed" in msg, msg
    assert edit.change is not None and edit.change.none
    assert "no change anywhere" in window.canvas.field_legend.gradient.labels
    # a click where no road is drawn within a few pixels closes nothing
    n_before = len(edit.scenario.edits)
    far = (float(net.x.max()) - 20.0, float(net.y.max()) + 40.0)  # beyond the last street
    mouse_click_map(qtbot, window, *far)
    assert len(edit.scenario.edits) == n_before
    assert "No road under the pointer" in window.statusBar().currentMessage()
    assert "distance" in edit.panel.chk_change.text()  # the map is in decimetres
    # the what-if run's chart: one mode legend entry per dot colour drawn
    chart = window.chart
    chart.redraw()
    _lf, sf, _lt, _st = chart._items["edit"]
    dots = {b.color().name() for b in sf.data["brush"]}
    named = [label.text for _s, label in chart.mode_legend.items]
    assert len(named) == len(dots) >= 1


# ---- 8: one definition of phases and times -------------------------------------------
def test_search_numbers_agree_between_panel_chart_and_status(qtbot, window, fixture_net):
    _search(qtbot, window, float(fixture_net.x[5]), float(fixture_net.y[5]))
    res = window.tools["route"].result
    from app.gui.phase_chart import ms_text

    ms = ms_text(res.elapsed_s * 1000)  # written the same way in all three
    panel = window.tools["route"].panel.lbl["search"].text()
    window.chart.redraw()
    chart = window.chart.summary()
    status = window.statusBar().currentMessage()
    phases = f"{len(res.phases):,} phases"
    assert f"{ms} search" in panel and phases in panel and "whole map" in panel
    assert f"search {ms}" in status and phases in status
    assert phases in chart and f"of {ms} search" in chart
    in_phases = ms_text(res.phases.total_time_us / 1000)
    assert f"{in_phases} in phases" in chart and f"({in_phases} in {phases})" in panel


# ---- 9: layers can be shown, hidden and cleared --------------------------------------
def test_layers_hide_show_and_clear(qtbot, window, fixture_net):
    net = fixture_net
    layers = window.layers
    canvas = window.canvas
    for v in (3, 300):
        qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ShiftModifier,
                         pos=canvas.view_to_widget(float(net.x[v]), float(net.y[v])))
        qtbot.wait(30)
    assert canvas.od_item.isVisible() and len(canvas.od_labels) == 2
    layers.set_visible("OD points", False)
    assert not canvas.od_item.isVisible() and not any(t.isVisible() for t in canvas.od_labels)
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.ShiftModifier,
                     pos=canvas.view_to_widget(float(net.x[500]), float(net.y[500])))
    assert canvas.od_item.isVisible() and layers.visible("OD points")  # a new point shows it
    layers.clear("OD points")
    assert window.tools["od"].panel.points == [] and len(canvas.od_labels) == 0
    _search(qtbot, window, float(net.x[0]), float(net.y[0]))
    layers.set_visible("Distance field", False)
    assert not window.algo_panel.chk_field.isChecked() and canvas.field_items == []
    layers.set_visible("Distance field", True)
    assert canvas.field_items
    layers.clear_all()
    assert window.tools["route"].result is None and canvas.field_items == []
    window.layers.fill_menu(window.m_layers)
    names = [a.text() for a in window.m_layers.actions() if a.isCheckable()]
    assert names == list(layers.layers)


# ---- 10: charts ------------------------------------------------------------------------
def test_chart_ticks_and_legends(qtbot, window, fixture_net):
    from app.gui.billboards import k_ticks
    from app.gui.phase_chart import MESSAGE_COLOUR

    assert [t for t, _ in k_ticks(5)] == [1, 2, 3, 4, 5]
    assert all(float(t).is_integer() for t, _ in k_ticks(37))
    chart = window.chart
    ticks = chart.p_frontier.getAxis("left")._tickLevels[0]
    assert [label for _v, label in ticks] == ["1", "10", "100"]  # the empty chart: 3 labels
    an = window.tools["analysis"]
    with qtbot.waitSignal(window.searchFinished, timeout=30000):
        an.run_pagerank()
    chart.redraw()
    rows = chart.runs["PageRank"]
    labels = chart.legend_labels()
    if np.array_equal(rows["active"], rows["messages"]):
        assert labels == ["PageRank: active = messages"]
    else:
        assert labels == ["PageRank: active", "PageRank: messages"]
    with qtbot.waitSignal(window.searchFinished, timeout=30000):
        an.run_mst()
    chart.redraw()
    a, m, _t = chart._step_items["MST"]
    assert a.opts["pen"].color().name() != m.opts["pen"].color().name() == MESSAGE_COLOUR.lower()
    assert an.layers.legend.title == "PageRank (× average)"


# ---- 11: a plain status phrase, the detail in a tooltip ------------------------------
def test_backend_status_is_a_plain_phrase(qtbot, make_window, monkeypatch):
    import gpu_core.backend as backend

    monkeypatch.setattr(backend, "describe_backend",
                        lambda name="auto": "CPU (CuPy is not installed (ModuleNotFoundError))")
    w = make_window()
    assert w.lbl_backend.text() == "CPU, no GPU found"
    assert "CuPy is not installed" in w.lbl_backend.toolTip()


@pytest.mark.parametrize("size", [(1024, 700)])
def test_checker_finds_clipped_and_overlapping_widgets(qtbot, size):
    from PySide6.QtWidgets import QLabel, QPushButton, QTabBar, QWidget

    from app.gui.layout_check import problems

    root = QWidget()
    qtbot.addWidget(root)
    root.resize(*size)
    b = QPushButton("A rather long button title", root)
    b.setGeometry(0, 0, 40, 30)
    lab = QLabel("overlapping label", root)
    lab.setGeometry(20, 10, 200, 30)
    bar = QTabBar(root)
    for t in ("Route", "Billboards", "Network analysis"):
        bar.addTab(t)
    bar.setUsesScrollButtons(False)
    bar.setElideMode(Qt.TextElideMode.ElideRight)  # as the dock tabs were: "Network anal…"
    bar.setGeometry(0, 100, 150, 30)
    root.show()
    qtbot.waitExposed(root)
    found = "\n".join(problems(root))
    assert "A rather long button title" in found and "overlaps" in found
    assert "tab 'Network analysis' is elided" in found


def test_phase_dock_keeps_its_height_through_a_compare(qtbot, window, fixture_net):
    """Issue 27: the phase chart dock grew with a long summary and never shrank back."""
    window.resize(1024, 700)
    window.default_layout()
    qtbot.wait(50)
    _search(qtbot, window, float(fixture_net.x[7]), float(fixture_net.y[7]))
    before = window.chart_dock.height()
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        window.tools["route"].compare_strategies()
    window.chart.redraw()
    qtbot.wait(50)
    assert len(window.chart.runs) == 4
    assert window.chart_dock.height() == before
    text = window.chart.totals.text()
    assert text.count("<br>") == 1  # four runs on two lines; all of it in the tooltip
    for name in window.chart.runs:
        assert name in window.chart.summary()
