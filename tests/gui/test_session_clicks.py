"""A click, a drag and a typed point snap to the same map (app.session's one rule): the
edited map while it has edits, so a click on a closed road never lands on it (issue 38)."""

from __future__ import annotations


def _pair(net, arc: int) -> set[int]:
    return {int(net.node_ids[net.arc_sources()[arc]]), int(net.node_ids[net.indices[arc]])}


def test_click_on_a_closed_road_lands_on_an_open_one(qtbot, window):
    win = window
    net = win.net
    edit, route = win.tools["edit"], win.tools["route"]
    t = net.arc_sources()
    arc = next(a for a in range(net.num_arcs) if t[a] != net.indices[a])
    x = net.x[t[arc]] + 0.3 * (net.x[net.indices[arc]] - net.x[t[arc]])
    y = net.y[t[arc]] + 0.3 * (net.y[net.indices[arc]] - net.y[t[arc]])
    win.canvas.click_at(x, y, "left")
    qtbot.waitUntil(lambda: route.src_point is not None, timeout=60000)
    assert _pair(win.search_net(), route.src_point.snap.arc) == _pair(net, arc)
    assert route.src_point.snap.distance_m < 1.0
    assert edit.toggle_road(arc)
    qtbot.waitUntil(lambda: win.scenario is not None and bool(win.scenario.edits), timeout=60000)
    win.canvas.click_at(x, y, "left")
    # the click lies on the closed road: it snaps away from it, to an open road
    qtbot.waitUntil(lambda: route.src_point.snap.distance_m > 1.0, timeout=60000)
    assert _pair(win.search_net(), route.src_point.snap.arc) != _pair(net, arc)
    typed = win.resolve(f"{route.src_point.snap.lon:.7f},{route.src_point.snap.lat:.7f}")
    assert typed.node == route.source
