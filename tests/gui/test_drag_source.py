"""Dragging the source (issue 27): the field follows the pointer, one search at a time;
while one runs only the latest dragged position waits, the others are dropped."""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import dijkstra

from tests.gui.helpers import mouse_click_map


def test_dragged_source_latest_position_wins(qtbot, window, fixture_net):
    net = fixture_net
    tool = window.tools["route"]
    a, b, c, d = 0, net.num_nodes // 3, net.num_nodes // 2, net.num_nodes - 1
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, float(net.x[a]), float(net.y[a]))
    started = []
    real = tool.run_search
    tool.run_search = lambda: started.append(tool.source) or real()
    canvas = window.canvas
    # three positions while the first search is in flight: b starts, c is dropped, d waits
    with qtbot.waitSignal(window.fieldChanged, timeout=20000):
        for v in (b, c, d):
            canvas.sourceDragged.emit(float(net.x[v]), float(net.y[v]))
    qtbot.waitUntil(lambda: not window.compute.busy() and tool._drag_next is None
                    and tool.result is not None and tool.source == d, timeout=20000)
    assert started[0] == b and started[-1] == d and c not in started
    ref = dijkstra(net.to_scipy(), indices=d)
    got = tool.result.dist.astype(float)
    got[got < 0] = np.inf
    assert np.array_equal(got, ref)
    assert canvas.field_items or canvas._field is not None  # the field of d is drawn
    # the drop sets the source as a click does (marker moved to the snapped point)
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        canvas.sourceDropped.emit(float(net.x[c]), float(net.y[c]))
    assert tool.source == c and tool._drag_job == -1
