"""The window on a turn-restricted map (issue 39): the drawn route is the legal one, read
through whichever copy of the destination its search reached first."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gui


def _grid_maps(tmp_path):
    """(the generated grid with its bans, the same grid without them, the bans)."""
    from maps.formats.osm import load_osm
    from maps.formats.osm_turns import read_restrictions
    from tests.maps.test_turns import grid_osm

    path = str(tmp_path / "grid.osm")
    grid_osm(path)
    return (load_osm(path, profile="drive"),
            load_osm(path, profile="drive", turn_restrictions=False),
            read_restrictions(path).restrictions)


def test_drawn_route_obeys_the_bans(qtbot, make_window, tmp_path):
    from gpu_core.sssp import sssp
    from tests.turn_oracle import oracle_dist

    net, plain, rules = _grid_maps(tmp_path)
    copies = np.asarray(net.meta["turn_copies"])
    n0 = net.num_nodes - copies.size
    found = None
    for s in range(0, n0, 7):  # a destination whose copy is reached cheaper than itself
        res = sssp(net, s, backend="cpu")
        d = np.where(res.reached, res.dist, np.iinfo(np.int64).max)
        better = np.flatnonzero(d[n0:] < d[copies])
        if better.size:
            found = s, int(copies[better[0]])
            break
    assert found is not None
    s, t = found
    want = oracle_dist(plain, rules, plain.index_of(int(net.node_ids[s])))
    t_plain = plain.index_of(int(net.node_ids[t]))
    w = make_window(net)
    with qtbot.waitSignal(w.routeShown, timeout=30000) as sig:
        w.tools["route"].route_between(f"node:{int(net.node_ids[s])}",
                                       f"node:{int(net.node_ids[t])}")
    route = sig.args[0]
    assert route.cost == int(want[t_plain])
    assert int(net.node_ids[route.nodes[-1]]) == int(net.node_ids[t])


def test_restricted_junctions_layer(qtbot, make_window, tmp_path):
    """A Layers entry marks the restricted junctions, only when zoomed in."""
    from maps.formats.osm import load_osm
    from tests.maps.test_turns import grid_osm

    path = str(tmp_path / "grid.osm")
    grid_osm(path)
    net = load_osm(path, profile="drive")
    w = make_window(net)
    assert "Turn restrictions" in w.layers.layers
    lay = w.turn_layer
    assert lay.item is not None
    assert lay.junctions.size == np.unique(net.meta["turn_copies"]).size
    v = int(lay.junctions[0])
    w.canvas.vb.setRange(xRange=(net.x[v] - 200, net.x[v] + 200),
                         yRange=(net.y[v] - 200, net.y[v] + 200), padding=0)
    assert lay.item.isVisible()
    w.layers.set_visible("Turn restrictions", False)
    assert not lay.item.isVisible()
    w.layers.set_visible("Turn restrictions", True)
    w.canvas.vb.setRange(xRange=(net.x[v] - 5e4, net.x[v] + 5e4), padding=0)
    assert not lay.item.isVisible()
    # (the route panel's note is checked in test_route_panel_names_a_detour)


def test_route_panel_names_a_detour(qtbot, make_window, tmp_path):
    from tests.turn_oracle import detour_pair

    net, plain, rules = _grid_maps(tmp_path)
    s, t, _, _ = detour_pair(plain, rules, range(0, plain.num_nodes, 5))
    w = make_window(net)
    with qtbot.waitSignal(w.routeShown, timeout=30000):
        w.tools["route"].route_between(f"node:{int(plain.node_ids[s])}",
                                       f"node:{int(plain.node_ids[t])}")
    assert "detours around a turn ban" in w.tools["route"].panel.lbl["nodes"].text()
