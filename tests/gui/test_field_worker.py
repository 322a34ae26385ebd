"""A vector map's distance field is laid out in the worker (issue 41): the colour bands'
paths come with the search (a click) and with an edit's update, and the window draws
exactly what it drew when it made them itself."""

from __future__ import annotations

import threading

from app.gui import map_canvas
from tests.gui.helpers import mouse_click_map
from tests.gui.test_edit_tool import close_route_road, node_xy


def _drawn(canvas) -> list:
    """The field's items as drawn: path, colour, width, z (PathItem)."""
    return [(it.path(), it.pen().color().name(), it.pen().widthF(), it.zValue())
            for it in canvas.field_items]


def _redrawn_here(window) -> list:
    """The field on screen drawn again with the paths made on the window's thread."""
    route = window.tools["route"]
    v = window.algo_panel.values()
    window.canvas.show_field(route.result.dist, v["colormap"], window.net.unit,
                             v["isochrone_bands"])
    return _drawn(window.canvas)


def _spy(monkeypatch) -> list[bool]:
    on_gui: list[bool] = []
    real = map_canvas.field_paths

    def spy(*a, **kw):
        on_gui.append(threading.current_thread() is threading.main_thread())
        return real(*a, **kw)

    monkeypatch.setattr(map_canvas, "field_paths", spy)
    return on_gui


def test_a_clicks_field_is_laid_out_in_the_worker(qtbot, window, fixture_net, monkeypatch):
    on_gui = _spy(monkeypatch)
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        mouse_click_map(qtbot, window, *node_xy(fixture_net, 0))
    assert not window.canvas.raster_mode and window.canvas.field_items
    assert on_gui == [False], "the field's paths were made on the GUI thread"
    drawn = _drawn(window.canvas)
    assert _redrawn_here(window) == drawn
    assert on_gui == [False, True]


def test_an_edits_field_is_laid_out_in_the_worker(qtbot, window, fixture_net, monkeypatch):
    on_gui = _spy(monkeypatch)
    route, _, before, _ = close_route_road(qtbot, window, fixture_net)
    assert route.result is not before
    assert on_gui and not any(on_gui), "an edit's field was laid out on the GUI thread"
    n = len(on_gui)
    drawn = _drawn(window.canvas)
    assert _redrawn_here(window) == drawn
    assert on_gui[n:] == [True]


def test_paths_made_for_other_colours_are_not_drawn(qtbot, window, fixture_net):
    """A worker's paths for a colormap the user changed since are redrawn here."""
    with qtbot.waitSignal(window.searchFinished, timeout=60000):
        mouse_click_map(qtbot, window, *node_xy(fixture_net, 0))
    canvas, dist = window.canvas, window.tools["route"].result.dist
    made = map_canvas.field_paths(canvas.geo, dist, "turbo", 0)
    assert made.fits(canvas.geo, dist, "turbo", 0)
    assert not made.fits(canvas.geo, dist, "viridis", 0)
    assert not made.fits(canvas.geo, dist.copy(), "turbo", 0)
    canvas.show_field(dist, "viridis", "", 0, image=made)
    here = _drawn(canvas)
    canvas.show_field(dist, "viridis", "", 0)
    assert _drawn(canvas) == here
    canvas.show_field(dist, "turbo", "", 0, image=made)
    assert [d[1] for d in _drawn(canvas)] != [d[1] for d in here]
