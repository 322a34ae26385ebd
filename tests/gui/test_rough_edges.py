"""Issue 14's rough edges of the app, each as a new user found it: small and 4K layouts,
long and compared phase charts, maps without coordinates, isochrone legends, the
billboards default, a stale OD label, off-screen routes, snapping and fragments, swapped
lat/lon, PNG/SVG export sizes."""

from __future__ import annotations

import numpy as np
import pytest

from app.gui.geometry import FIELD_MIN_LUMA
from app.gui.phase_chart import DECIMATE_AT, ENVELOPE_BUCKETS, PhaseChart, envelope
from gpu_core.telemetry import PHASE_DTYPE


def _luma(rgb) -> float:
    r, g, b = (float(v) for v in rgb[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255.0


def test_envelope_keeps_every_extreme_in_order():
    rng = np.random.default_rng(1)
    y = rng.random(50_000)
    y[12_345], y[40_000] = 9.0, -3.0
    x = np.arange(y.size, dtype=float)
    ex, ey = envelope(x, y, 1000)
    assert ex.size == 2000 and np.all(np.diff(ex) >= 0)
    assert ey.max() == 9.0 and ey.min() == -3.0
    # each bucket's min and max are the true ones (brute force)
    edges = np.linspace(0, y.size, 1001).astype(int)
    for k in (0, 123, 999):
        part = y[edges[k]:edges[k + 1]]
        assert sorted(ey[2 * k:2 * k + 2]) == [part.min(), part.max()]
    short = np.arange(10.0)
    assert envelope(short, short, 1000)[1] is short


def _phase_rows(n: int, mode: int = 0) -> np.ndarray:
    rows = np.zeros(n, dtype=PHASE_DTYPE)
    rows["phase"] = np.arange(n)
    rows["frontier"] = 1 + (np.arange(n) % 97)
    rows["time_us"] = 1.0 + (np.arange(n) % 13)
    rows["time_us"][n // 2] = 5000.0  # one slow phase must stay visible
    rows["mode"] = mode
    return rows


def test_long_run_drawn_as_envelope_with_summary_and_log_axis(qtbot):
    chart = PhaseChart()
    qtbot.addWidget(chart)
    n = 50 * DECIMATE_AT
    chart.begin_run("auto")
    chart.append("auto", _phase_rows(n))
    chart.redraw()
    lf, sf, lt, st = chart._items["auto"]
    xs, ys = lt.getData()
    assert len(xs) <= 2 * ENVELOPE_BUCKETS and ys.max() == 5000.0
    assert len(sf.data) == 0  # no dots smeared over a long run
    text = chart.summary()  # the whole summary: the line under the plots is its short form
    assert f"{n:,} phases" in text and "median" in text and "min/max" in text
    assert chart.totals.toolTip() == text and f"{n:,} phases" in chart.totals.text()
    chart.cb_log_time.setChecked(True)
    chart.redraw()
    assert chart.p_time.ctrl.logYCheck.isChecked()
    assert lt.getData()[1].max() == pytest.approx(np.log10(5000.0))


def test_compare_legend_names_each_run(qtbot):
    chart = PhaseChart()
    qtbot.addWidget(chart)
    for i, name in enumerate(("conventional", "selection", "adaptive", "auto")):
        chart.begin_run(name)
        chart.append(name, _phase_rows(50, mode=i % 2))
        chart.redraw()  # items exist while the rows stream in, before the run's meta
    for name in ("conventional", "selection", "adaptive", "auto"):
        rows = chart.runs[name]
        chart.set_run(name, _Log(rows), "cpu")
    chart.redraw()
    assert chart.legend_labels() == ["conventional · cpu", "selection · cpu",
                                     "adaptive · cpu", "auto · cpu"]
    assert chart.mode_legend.items == []  # launch modes are not what is compared


class _Log:  # the PhaseLog face set_run reads
    def __init__(self, rows):
        self.rows = rows


def test_map_without_coordinates_says_so(qtbot, make_window, tmp_path):
    import shutil

    from maps.formats.dimacs import load_dimacs

    gr = tmp_path / "tiny.gr"
    shutil.copy("tests/fixtures/dimacs/tiny.gr", gr)  # no .co: no coordinates
    net = load_dimacs(str(gr))
    w = make_window(net)
    assert "no coordinates" in w.canvas.notice.text()
    route = w.tools["route"]
    with qtbot.waitSignal(w.routeShown, timeout=20000):
        route.route_between(f"node:{int(net.node_ids[0])}", f"node:{int(net.node_ids[-1])}")
    assert not w.canvas.source_marker.isVisible() and not w.canvas.dest_marker.isVisible()
    assert "no coordinates" in route.panel.lbl["length"].text()
    assert "0.0" not in route.panel.lbl["length"].text()


def test_pace_weights_are_not_presented_as_the_files(qtbot, make_window):
    from maps.formats.dimacs import load_pace

    net = load_pace("tests/fixtures/dimacs/tiny.gr.xz")
    w = make_window(net)
    assert "no coordinates" in w.canvas.notice.text()
    with qtbot.waitSignal(w.routeShown, timeout=20000):
        w.tools["route"].route_between(f"node:{int(net.node_ids[0])}", f"node:{int(net.node_ids[-1])}")
    assert "generated" in w.tools["route"].panel.lbl["time"].text()


def test_isochrone_bands_get_a_discrete_legend_and_a_visible_first_band(qtbot, window, fixture_net):
    from tests.gui.helpers import mouse_click_map

    ap = window.algo_panel
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, float(fixture_net.x[0]), float(fixture_net.y[0]))
    legend = window.canvas.field_legend
    assert legend.gradient.isVisible() and not legend.bands.isVisible()
    ap.sp_bands.setValue(5)  # redraws through displayChanged
    assert legend.bands.isVisible() and not legend.gradient.isVisible()
    assert 3 <= len(legend.labels) <= 12 and legend.labels[0].startswith("0 ")
    swatches = [sample.item.opts["brush"].color().getRgb()[:3] for sample, _ in legend.bands.items]
    assert len(set(swatches)) == len(swatches)  # each band its own colour, drawn as such
    first = [it for it in window.canvas.field_items if it.zValue() == 20][1]  # after unreached
    assert _luma(first.pen().color().getRgb()) >= FIELD_MIN_LUMA


def test_billboards_default_to_weighted_as_the_cli(window):
    from app.cli import build_parser

    cli = build_parser().parse_args(["billboards", "map.osm.pbf", "-k", "3"])
    assert window.tools["billboards"].panel.values()["mode"] == cli.mode == "weighted"


def test_od_label_refreshes_after_a_profile_reload(window, fixture_net):
    from app.gui.od import OD_PROMPT

    od = window.tools["od"]
    od.clicked("od", window.resolve(f"node:{int(fixture_net.node_ids[3])}"), ())
    assert od.panel.lbl.text() != OD_PROMPT
    window.set_network(fixture_net)  # what a profile reload ends in
    assert od.panel.lbl.text() == OD_PROMPT and od.panel.points == []


def test_route_off_screen_is_zoomed_to(qtbot, window, fixture_net):
    from PySide6.QtCore import QRectF

    net = fixture_net
    vb = window.canvas.vb
    vb.setRange(QRectF(float(net.x[0]) - 50, float(net.y[0]) - 50, 100, 100), padding=0)
    a, b = f"node:{int(net.node_ids[0])}", f"node:{int(net.node_ids[599])}"  # far corners
    with qtbot.waitSignal(window.routeShown, timeout=20000):
        window.tools["route"].route_between(a, b)
    r = window.tools["route"].route
    (x0, x1), (y0, y1) = vb.viewRange()
    assert x0 <= r.xs.min() and r.xs.max() <= x1 and y0 <= r.ys.min() and r.ys.max() <= y1


def test_snap_distance_and_fragment_shown(qtbot, window, fixture_net):
    net = fixture_net
    route = window.tools["route"]
    from app.session import Fragments

    fr = Fragments()
    sizes = np.array([fr.size_of(net, i) for i in range(net.num_nodes)])
    island = int(np.argmin(sizes))
    assert sizes[island] < sizes.max()  # the fixture's detached island
    with qtbot.waitSignal(window.routeFailed, timeout=20000):
        route.route_between(f"node:{int(net.node_ids[0])}", f"node:{int(net.node_ids[island])}")
    part = route.panel.lbl["part"].text()
    assert f"a fragment of {int(sizes[island]):,} nodes" in part
    assert "separate parts" in route.panel.lbl["cost"].text()
    lon, lat = float(net.lon[5]), float(net.lat[5])
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        route.route_between(f"{lon + 0.004},{lat}", "")  # ~220 m east of a node
    assert " m" in route.panel.lbl["snap"].text()


def test_swapped_lat_lon_gets_a_hint(qtbot, window, fixture_net):
    lon, lat = float(fixture_net.lon[5]), float(fixture_net.lat[5])
    with qtbot.waitSignal(window.routeFailed, timeout=10000) as blocker:
        window.tools["route"].route_between(f"{lat},{lon}", "")
    assert "LAT,LON" in blocker.args[0] and f"{lon},{lat}" in blocker.args[0]
    assert "LAT,LON" in window.tools["route"].panel.lbl["snap"].text()


@pytest.mark.parametrize("scale", [1, 2, 4])
def test_view_png_at_scale_and_svg(window, tmp_path, scale):
    from PySide6.QtGui import QImage

    size = window.canvas.size()
    window.export("view", str(tmp_path / "v.png"), scale)
    img = QImage(str(tmp_path / "v.png"))
    assert (img.width(), img.height()) == (size.width() * scale, size.height() * scale)
    window.export("view", str(tmp_path / f"n@{scale}x.png"))  # the scale from the name
    assert QImage(str(tmp_path / f"n@{scale}x.png")).width() == size.width() * scale
    if scale == 1:
        window.export("view", str(tmp_path / "v.svg"))
        assert b"<svg" in (tmp_path / "v.svg").read_bytes()[:2000]


@pytest.mark.parametrize("size", [(1024, 700), (3840, 2160)])
def test_layout_readable_at_small_and_4k_sizes(qtbot, window, size):
    w, h = size
    window.resize(w, h)
    window.default_layout()
    qtbot.waitUntil(lambda: window.size().width() == w and window.size().height() == h, timeout=3000)
    assert window.chart.glw.height() >= 170  # the phase dock does not fold the charts flat
    assert window.canvas.height() >= 250 and window.canvas.width() >= 500
    side = window.side_dock.widget()
    assert side.width() >= 300
    tabs = [t for t in window.findChildren(__import__("PySide6.QtWidgets").QtWidgets.QTabBar)
            if t.count() >= 4]
    for bar in tabs:  # every tool's tab title shown whole, not elided
        for i in range(bar.count()):
            fm = bar.fontMetrics()
            assert bar.tabRect(i).width() >= fm.horizontalAdvance(bar.tabText(i)), bar.tabText(i)
