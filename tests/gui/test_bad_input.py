"""Bad input through the window: OD point files, billboards that cannot run, closing
the window while a long billboard search runs."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "name,data,needle",
    [
        ("empty.csv", b"", "empty.csv: empty file"),
        ("header.csv", b"lon,lat\n", "header.csv: no points after the header"),
        ("binary.csv", b"\x89PNG\r\n\x1a\n\xff\xfe\x00", "binary.csv: not a UTF-8 text file"),
        ("nonnum.csv", b"lon,lat\nabc,def\n", "nonnum.csv:2: cannot read point"),
    ],
)
def test_bad_od_csv_reports_file_and_line(make_window, fixture_net, tmp_path, name, data, needle):
    w = make_window(fixture_net)
    (tmp_path / name).write_bytes(data)
    assert w.tools["od"].load_csv(str(tmp_path / name)) == 0
    assert needle in (w.last_error or "")
    assert w.tools["od"].panel.points == []


def test_od_csv_with_bom_crlf_and_semicolons(make_window, fixture_net, tmp_path):
    w = make_window(fixture_net)
    lon, lat = float(fixture_net.lon[5]), float(fixture_net.lat[5])
    (tmp_path / "bom.csv").write_bytes(f"\ufefflon,lat\r\n{lon},{lat}\r\n".encode())
    (tmp_path / "semi.csv").write_text(f"lat;lon\n{lat};{lon}\n")
    assert w.tools["od"].load_csv(str(tmp_path / "bom.csv")) == 1
    assert w.tools["od"].load_csv(str(tmp_path / "semi.csv")) == 1
    assert w.tools["od"].panel.points[0].node == w.tools["od"].panel.points[1].node


def test_billboards_k_too_large_says_so_in_the_panel(qtbot, make_window, fixture_net):
    w = make_window(fixture_net)
    w.tools["billboards"].panel.sp_k.setValue(200)
    w.tools["billboards"].panel.cb_cand.setCurrentText("nodes in view")
    x, y = float(fixture_net.x[0]), float(fixture_net.y[0])
    w.canvas.vb.setRange(xRange=(x, x + 1), yRange=(y, y + 1), padding=0)
    w.tools["billboards"].run()
    qtbot.waitUntil(lambda: "larger than" in (w.last_error or ""), timeout=30000)
    assert "K=200" in w.tools["billboards"].panel.lbl.text() and "larger than" in w.tools["billboards"].panel.lbl.text()


def test_close_during_exact_billboards_ends_cleanly(qtbot, make_window):
    """The conftest fails the test when a worker thread outlives the window."""
    from maps.generate import generate

    net = generate("grid", n=40000, seed=1)
    w = make_window(net)
    w.tools["billboards"].panel.sp_k.setValue(3)
    w.tools["billboards"].panel.cb_method.setCurrentText("exact")
    with qtbot.waitSignal(w.compute.progress, timeout=60000):
        w.tools["billboards"].run(confirmed=True)  # a long one: announced first (issue 42)
    qtbot.wait(200)
    w.close()
    assert w.compute.wait(10000)


def test_od_points_from_geojson(make_window, fixture_net, tmp_path):
    import json

    w = make_window(fixture_net)
    pts = [[float(fixture_net.lon[i]), float(fixture_net.lat[i])] for i in (5, 77)]
    doc = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": p}} for p in pts]}
    (tmp_path / "pts.geojson").write_text(json.dumps(doc))
    assert w.tools["od"].load_csv(str(tmp_path / "pts.geojson")) == 2
    assert [p.node for p in w.tools["od"].panel.points] == [5, 77]
