"""What typing app/gui (mypy, check_untyped_defs; issue 38) found: values the annotations
allow that the code did not take. Each test failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from app.gui import raster
from app.gui.phase_chart import PhaseChart
from app.gui.status_bar import StatusBar
from gpu_core.errors import InvalidArgumentError
from gpu_core.telemetry import PHASE_DTYPE


def test_segment_set_without_class_index_has_z_max_0():
    """``z_first`` is optional (None): z_max was a TypeError there (np.diff of None)."""
    seg = raster.SegmentSet(
        x0=np.zeros(2, np.float32), y0=np.zeros(2, np.float32),
        x1=np.ones(2, np.float32), y1=np.ones(2, np.float32),
        arc=np.arange(2, dtype=np.int32), thick=np.ones(2, np.uint8),
        road_colour=np.zeros(2, np.uint32), dim_colour=np.zeros(2, np.uint32))
    assert seg.z_first is None and seg.z_max == 0


def test_phase_chart_takes_phase_rows_as_an_array(qtbot):
    """``set_run(name, log)`` is typed PhaseLog | ndarray: an array of phase rows (not
    superstep telemetry) raised AttributeError ('ndarray' has no 'rows')."""
    chart = PhaseChart()
    qtbot.addWidget(chart)
    rows = np.zeros(3, dtype=PHASE_DTYPE)
    rows["phase"] = np.arange(3)
    rows["frontier"] = [1, 5, 2]
    chart.set_run("auto", rows, "cpu", search_s=0.002)
    assert chart.runs["auto"].dtype == PHASE_DTYPE
    assert chart.runs["auto"]["frontier"].tolist() == [1, 5, 2]
    assert chart.runs["auto"] is not rows  # a copy


def test_status_bar_message_timeout_none_means_until_replaced(qtbot):
    """QStatusBar.showMessage's timeout may be None (PySide6's signature); the override
    compared None > 0 (TypeError)."""
    bar = StatusBar()
    qtbot.addWidget(bar)
    bar.showMessage("kept", None)
    assert bar.currentMessage() == "kept" and not bar._timer.isActive()
    bar.showMessage("for a while", 5000)
    assert bar._timer.isActive()


def test_lonlat_to_xy_without_a_map_says_so(make_window):
    """Before a map is open: one clear error, not AttributeError on None.origin."""
    win = make_window()
    with pytest.raises(InvalidArgumentError, match="no map is open"):
        win.lonlat_to_xy(24.9, 60.2)


def test_tools_by_class_and_the_open_map(make_window, fixture_net):
    """``MainWindow.tool(cls)``: a tool typed as its class; ``Tool.map_net()`` says when no
    map is open instead of failing on None."""
    from app.gui.tools import EditTool, RouteTool

    win = make_window()
    route = win.tool(RouteTool)
    assert route is win.tools["route"] and win.tool(EditTool) is win.tools["edit"]
    with pytest.raises(InvalidArgumentError, match="no map is open"):
        route.map_net()
    with pytest.raises(InvalidArgumentError, match="no map is open"):
        route.search_map()
    win.set_network(fixture_net)
    assert route.map_net() is fixture_net and route.search_map() is fixture_net
