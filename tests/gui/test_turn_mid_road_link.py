"""A link ending mid-road on a map with turn restrictions, added in the window with real
clicks (issue 39; refused there before): the window searches its edited graph, which
numbers the new node after the turn copies, and reads routes from ``Scenario.network()``,
which numbers it before them; the costs on screen, a route and a search from the new node
match the turn-expanded oracle over the map without restrictions with the same link."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.gui.helpers import mouse_click_map

pytestmark = pytest.mark.gui


def _mid_xy(net, arc: int, f: float = 0.4) -> tuple[float, float]:
    t, h = int(net.arc_sources()[arc]), int(net.indices[arc])
    return (float(net.x[t] + f * (net.x[h] - net.x[t])),
            float(net.y[t] + f * (net.y[h] - net.y[t])))


def _legal_on_screen(window) -> np.ndarray:
    """The costs on screen by node of the map routes are read from, copies folded."""
    from maps.model.turns import fold

    net = window.search_net()
    res = window.session.route_result(window.tools["route"].result)
    return fold(net, np.where(res.reached, res.dist, -1))


def test_mid_road_link_by_clicks_matches_the_oracle(qtbot, make_window, tmp_path):
    from app.jobs.edits import Scenario
    from maps.formats.osm import load_osm
    from maps.formats.osm_turns import read_restrictions
    from tests.maps.test_turns import grid_osm
    from tests.turn_oracle import oracle_dist

    path = str(tmp_path / "grid.osm")
    grid_osm(path, share=0.9)
    net = load_osm(path, profile="drive")
    plain = load_osm(path, profile="drive", turn_restrictions=False)
    rules = read_restrictions(path).restrictions
    n0 = plain.num_nodes
    assert net.num_nodes > n0  # turn copies
    src = plain.arc_sources()
    two = [e for e in range(plain.num_arcs)
           if np.any((src == plain.indices[e]) & (plain.indices == src[e]))]
    road = two[25]
    w = make_window(net)
    s = 10
    with qtbot.waitSignal(w.searchFinished, timeout=60000):
        mouse_click_map(qtbot, w, float(net.x[s]), float(net.y[s]))
    tool = w.tools["edit"]
    tool.panel.set_mode("link")
    far = n0 - 4
    mouse_click_map(qtbot, w, float(net.x[far]), float(net.y[far]))  # one end: a junction
    assert tool._link_start is not None
    with qtbot.waitSignal(w.searchFinished, timeout=60000):
        mouse_click_map(qtbot, w, *_mid_xy(plain, road))  # the other: mid-road
    sc = w.scenario
    assert [e.action for e in sc.edits] == ["add"]
    order = sc.network_order()
    assert order is not None and not np.array_equal(order, np.arange(order.shape[0]))
    pl = Scenario(plain, backend="cpu")  # the same link on the map without restrictions
    pl.apply(sc.edits[0])
    oracle_net = pl.network()
    news = np.flatnonzero(oracle_net.node_ids < 0)  # the split roads' nodes (a click lands
    assert news.size and news.min() == n0  # beside a junction's pixel: mid-road too)
    want = oracle_dist(oracle_net, rules, s)
    assert np.array_equal(_legal_on_screen(w), want)
    # routes to the new nodes and to the link's far end, read from network()
    tool.panel.set_mode("")
    route = w.tools["route"]
    targets = []
    for t in (*news.tolist(), far):
        with qtbot.waitSignal(w.routeShown, timeout=60000):
            mouse_click_map(qtbot, w, float(oracle_net.x[t]), float(oracle_net.y[t]),
                            button=Qt.MouseButton.RightButton)
        targets.append(route.target)
        assert route.route.cost == int(want[route.target])
    assert any(t >= n0 for t in targets)
    # a search from a new node (a vertex the graph numbers apart from network())
    new = int(news[-1])
    with qtbot.waitSignal(w.searchFinished, timeout=60000):
        mouse_click_map(qtbot, w, float(oracle_net.x[new]), float(oracle_net.y[new]))
    assert route.source >= n0
    assert np.array_equal(_legal_on_screen(w), oracle_dist(oracle_net, rules, route.source))
    # the field export speaks in the file's ids (new nodes: -1, -2, ...), costs as on screen
    from app.gui.tools.route_exports import export_route_tool

    out = tmp_path / "field.csv"
    export_route_tool(route, "field", str(out))
    got: dict[int, int] = {}
    for line in out.read_text().splitlines()[1:]:
        i, _, _, c = line.split(",")
        got[int(i)] = min(int(c), got.get(int(i), int(c)))
    want = oracle_dist(oracle_net, rules, route.source)
    assert got == {int(oracle_net.node_ids[k]): int(want[k]) for k in np.flatnonzero(want >= 0)}
