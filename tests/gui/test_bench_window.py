"""The instruments of ``signpost bench gui``'s window part (app/bench/gui_window.py): the
heartbeat sees a block of the GUI thread, and the Qt-free drag frame times its search and
its colouring apart and together."""

from __future__ import annotations

import time

import numpy as np

from app.bench.gui_window import Heartbeat, _wait, drag_frames
from maps.generate import grid


def test_heartbeat_reports_a_blocked_gui_thread(qtbot):
    hb = Heartbeat()
    try:
        _wait(lambda: False, 0.05)  # ticks run
        hb.reset()
        time.sleep(0.15)  # the GUI thread blocked: no tick for 150 ms
        _wait(lambda: False, 0.03)
        assert hb.stall_ms() >= 140 - 10
    finally:
        hb.stop()


def test_drag_frames_measure_search_and_colouring():
    out = drag_frames(grid(900, seed=2), "cpu", frames=3, size=(320, 200))
    assert out["backend"] == "cpu"
    assert out["search_ms"] > 0 and out["colour_ms"] > 0
    assert np.isclose(out["frame_ms"], out["search_ms"] + out["colour_ms"])
    assert np.isclose(out["fps"], 1e3 / out["frame_ms"])


def test_drag_frames_through_the_route_index(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    out = drag_frames(grid(900, seed=2), "cpu", frames=3, size=(320, 200), index=True)
    assert out["index"].startswith("phast (built")  # searched through the index built first
    assert out["search_ms"] > 0 and np.isclose(out["frame_ms"], out["search_ms"] + out["colour_ms"])


def test_bench_rows_for_polygons_and_exports(qtbot, settings_file, fixture_net):
    """Issue 42: ``signpost bench gui`` has rows for isochrone polygons and exports (GUI
    stall, memory); here on the small fixture map."""
    from app.bench.gui_states import measure_states, states_table

    rows = measure_states(fixture_net, "fixture", timeout_s=60)
    assert [r["state"] for r in rows] == ["isochrone polygons (5 bands)", "export field.geojson",
                                          "export view.svg"]
    for r in rows:
        assert r["total_s"] > 0 and r["gui_stall_ms"] >= 0 and "not done" not in r["note"], r
    assert rows[1]["note"].endswith("MB written")
    assert "GUI thread silent (ms)" in states_table(rows)
