"""Work kept off the GUI thread on big maps (issue 27): the network parts of the route panel
come from the loader's warm-up, never from a first click; an automatic route index waits
for the snapping index."""

from __future__ import annotations

import threading

from app.gui.tools import route_tool
from tests.gui.helpers import mouse_click_map


def test_a_first_click_leaves_the_parts_to_the_warm_up(qtbot, make_window, fixture_net, monkeypatch):
    import app.jobs.nogil as nogil

    monkeypatch.setattr(route_tool, "PARTS_LATER_NODES", 1)  # the fixture counts as big
    on_gui = []
    real = nogil.weak_components

    def spy(*a):
        on_gui.append(threading.current_thread() is threading.main_thread())
        return real(*a)

    monkeypatch.setattr(nogil, "weak_components", spy)
    w = make_window(fixture_net)
    route = w.tools["route"]
    with qtbot.waitSignal(w.searchFinished, timeout=20000):
        mouse_click_map(qtbot, w, float(fixture_net.x[0]), float(fixture_net.y[0]))
    qtbot.waitUntil(lambda: "main network" in route.panel.lbl["part"].text(), timeout=30000)
    assert on_gui and not any(on_gui), "the network parts were found on the GUI thread"
    assert not route.parts_pending


def test_the_automatic_route_index_waits_for_the_snapping_index(qtbot, make_window, fixture_net,
                                                                 monkeypatch):
    import app.gui.route_index as route_index

    monkeypatch.setattr(route_index, "AUTO_MIN_NODES", 1)  # the fixture counts as big
    w = make_window()
    ri = w.route_index
    started = []
    ri.build = lambda auto=False: started.append(auto) or 0
    ri.auto = lambda: True
    ri._helps = lambda: True
    w.set_network(fixture_net, defer_snapper=True)  # as a big map opens
    assert started == [] and ri._deferred
    qtbot.waitUntil(lambda: w.snapper is not None, timeout=30000)
    assert started == [True]


def test_an_opened_map_is_validated_on_the_loader_thread(qtbot, make_window, monkeypatch):
    """CSRGraph.from_any (passes over every arc) runs on the loader, not in set_network."""
    from gpu_core.graph import CSRGraph
    from maps.samples import SAMPLE_MAP

    calls = []
    real = CSRGraph.from_any.__func__

    def spy(cls, g, **kw):
        calls.append(threading.current_thread() is threading.main_thread())
        return real(cls, g, **kw)

    monkeypatch.setattr(CSRGraph, "from_any", classmethod(spy))
    w = make_window()
    with qtbot.waitSignal(w.mapLoaded, timeout=60000):
        w.show_map(str(SAMPLE_MAP))
    assert calls and not any(calls), "the map's graph was validated on the GUI thread"
    assert w.graph.num_arcs == w.net.num_arcs and w.graph._checked
    assert (w.graph.indices == w.net.indices).all() and (w.graph.weights == w.net.weights).all()


def test_the_first_edits_modules_are_imported_by_the_warm_up(qtbot, make_window, fixture_net,
                                                              monkeypatch):
    """The modules the first click and the first closure import lazily come in on the
    loader thread after a map opens (on the window's thread they froze it 40-70 ms)."""
    import sys

    from app.gui import loading

    threads = []
    real = loading.preload_first_use

    def spy():
        threads.append(threading.current_thread() is threading.main_thread())
        real()

    monkeypatch.setattr(loading, "preload_first_use", spy)
    w = make_window(fixture_net)
    qtbot.waitUntil(lambda: bool(threads) and not w.loader.busy(), timeout=30000)
    assert threads == [False], "the first use's modules were imported on the GUI thread"
    assert all(name in sys.modules for name in loading.FIRST_USE_MODULES)


def test_the_window_takes_the_gil_back_within_a_millisecond(make_window):
    """Each event the window handles while a worker runs Python waits at most the switch
    interval for the GIL (app.gui.gil)."""
    import sys

    from app.gui.gil import GUI_SWITCH_S

    make_window()
    assert sys.getswitchinterval() <= GUI_SWITCH_S
