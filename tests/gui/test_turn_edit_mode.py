"""The Edit tool's "Ban a turn" mode (issue 39), driven by real clicks: the road you come
from, then the road you turn onto; the search on screen follows (the oracle's legal costs
with the ban), the same two clicks again lift it, undo takes it back."""

from __future__ import annotations

import numpy as np
import pytest

from tests.gui.helpers import mouse_click_map

pytestmark = pytest.mark.gui


def _mid(net, arc: int) -> tuple[float, float]:
    t, h = int(net.arc_sources()[arc]), int(net.indices[arc])
    return float((net.x[t] + net.x[h]) / 2), float((net.y[t] + net.y[h]) / 2)


def _arc(net, way: int, node: int, into: bool) -> int:
    """A map arc of ``way`` entering (``into``) or leaving file node index ``node``."""
    ends = net.indices if into else net.arc_sources()
    return int(np.flatnonzero((net.edge_source_id == way) & (ends == node))[0])


def _legal(window, source: int) -> np.ndarray:
    from app.jobs.edits.turn_edits import copies_array
    from maps.model.turns import fold

    res = window.tools["route"].result
    sc = window.scenario
    n = window.net.num_nodes - len(window.net.meta["turn_copies"]) + len(copies_array(sc))
    carrier = type("Net", (), {"meta": {"turn_copies": copies_array(sc).tolist()},
                               "num_nodes": n})()
    return fold(carrier, np.where(res.reached, res.dist, -1)[:n])


def test_two_clicks_ban_then_lift_a_turn(qtbot, make_window, tmp_path):
    from maps.formats.osm import load_osm
    from maps.formats.osm_turns import read_restrictions
    from tests.jobs.test_turn_edits import _biting_ban
    from tests.maps.test_turns import grid_osm
    from tests.turn_oracle import oracle_dist

    path = str(tmp_path / "grid.osm")
    grid_osm(path)
    net = load_osm(path, profile="drive")
    plain = load_osm(path, profile="drive", turn_restrictions=False)
    rules = read_restrictions(path).restrictions
    (f, v, t), more, base = _biting_ban(plain, rules)
    s = next(s for s in base if not np.array_equal(oracle_dist(plain, more, s), base[s]))
    w = make_window(net)
    with qtbot.waitSignal(w.routeShown, timeout=60000):
        w.tools["route"].route_between(f"node:{int(net.node_ids[s])}",
                                       f"node:{int(net.node_ids[(s + 40) % 81])}")
    tool = w.tools["edit"]
    tool.panel.set_mode("turn")
    assert w.canvas.click_mode == "turn"
    vi = net.index_of(v)
    a, b = _arc(net, f, vi, True), _arc(net, t, vi, False)
    mouse_click_map(qtbot, w, *_mid(net, a))
    assert w.scenario is None or not w.scenario.edits  # one click: nothing yet
    with qtbot.waitSignal(w.searchFinished, timeout=60000):
        mouse_click_map(qtbot, w, *_mid(net, b))
    sc = w.scenario
    assert [e.action for e in sc.edits] == ["ban_turn"] and sc.edits[0].turn == (f, v, t)
    assert np.array_equal(_legal(w, s), oracle_dist(plain, more, s))
    assert "1 turn banned or lifted" in tool.panel.lbl.text()
    assert vi in w.turn_layer.junctions.tolist()  # the Turn restrictions layer marks it
    mouse_click_map(qtbot, w, *_mid(net, a))
    with qtbot.waitSignal(w.searchFinished, timeout=60000):
        mouse_click_map(qtbot, w, *_mid(net, b))
    assert [e.action for e in sc.edits] == ["ban_turn", "lift_turn"]
    assert np.array_equal(_legal(w, s), base[s])
    tool.stack.undo()  # the result before the lift comes back (or is searched again)
    want = oracle_dist(plain, more, s)
    qtbot.waitUntil(lambda: [e.action for e in sc.edits] == ["ban_turn"]
                    and np.array_equal(_legal(w, s), want), timeout=60000)
