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
