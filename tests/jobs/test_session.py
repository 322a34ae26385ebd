"""The Qt-free session (app/session.py, issue 38): one rule for which map a point snaps
to (the search map: the edited one while the map has edits), driven without a window."""

from __future__ import annotations

import numpy as np
import pytest

from app.jobs.edits import Edit, Scenario
from app.jobs.maps import open_map
from app.session import NoSnapping, Session
from maps.errors import PointError
from tests.conftest import FIXTURES

SMALL_OSM = str(FIXTURES / "osm" / "small.osm")


@pytest.fixture()
def session():
    s = Session(snap_max_m=500.0)
    s.open(open_map(SMALL_OSM, profile="drive", use_cache=False))
    return s


def _arc_middle(net, arc: int, at: float = 0.5) -> tuple[float, float]:
    t, h = int(net.arc_sources()[arc]), int(net.indices[arc])
    return net.x[t] + at * (net.x[h] - net.x[t]), net.y[t] + at * (net.y[h] - net.y[t])


def test_no_map_and_no_index_say_why():
    s = Session()
    with pytest.raises(NoSnapping, match="open a map first"):
        s.snap(0.0, 0.0)
    with pytest.raises(NoSnapping, match="open a map first"):
        s.resolve("node:1")


def test_a_click_and_a_typed_point_agree(session):
    net = session.net
    x, y = _arc_middle(net, 0, 0.25)  # near the tail: no tie between the ends
    p = session.snap(x, y)
    q = session.resolve(f"{p.snap.lon:.7f},{p.snap.lat:.7f}")
    assert (p.node, p.node_id) == (q.node, q.node_id)
    assert p.node == int(net.arc_sources()[0])


def test_points_snap_to_the_edited_map(session):
    """A closed road is never a route's end: after the close, the same click lands on
    another road of the edited map, and searches run on the edited graph."""
    net = session.net
    x, y = _arc_middle(net, 0)
    first = session.snap(x, y)
    tail, head = net.node_ids[net.arc_sources()[first.snap.arc]], net.node_ids[net.indices[first.snap.arc]]
    sc = Scenario(net, backend="cpu", max_snap_m=session.snap_max_m, snapper=session.snapper)
    sc.apply(Edit("close", nodes=(int(tail), int(head))))
    session.scenario = sc
    assert session.search_graph() is sc.graph and session.search_net() is sc.network()
    after = session.snap(x, y)
    edited = session.search_net()
    pair = {int(edited.node_ids[edited.arc_sources()[after.snap.arc]]),
            int(edited.node_ids[edited.indices[after.snap.arc]])}
    assert pair != {int(tail), int(head)}
    assert after.snap.distance_m >= first.snap.distance_m
    assert session.search_snapper() is session.search_snapper()  # built once per edit state


def test_too_far_is_a_point_error(session):
    x = float(np.nanmax(session.net.x)) + 10_000.0
    with pytest.raises(PointError):
        session.snap(x, float(np.nanmax(session.net.y)))


def test_a_new_map_forgets_the_old_state(session):
    session.source, session.target, session.result = 1, 2, object()
    session.parts.compute(session.net)
    session.open(session.net)
    assert (session.source, session.target, session.result, session.scenario) == (None,) * 4
    assert session.parts.labels is None  # the new map's parts are found anew


def test_the_map_parts_tell_where_each_point_is():
    """The session's parts (issue 38: the route tool is a view of them): the largest part
    is the main network, a smaller one a fragment cut off from it."""
    from tests.gui.fixture_map import fixture_network  # (Qt-free: numpy and maps only)

    s = Session()
    s.open(fixture_network())  # a street grid and a detached island of two nodes
    net = s.net
    s.parts.compute(net)
    labels, sizes = s.parts.labels, s.parts.sizes
    assert labels.shape[0] == net.num_nodes and int(sizes.sum()) == net.num_nodes
    assert sizes.shape[0] >= 2  # the grid and its island
    main = int(np.argmax(sizes))
    a = int(np.flatnonzero(labels == main)[0])
    other = int(np.flatnonzero(labels != main)[0])
    assert s.parts.describe(net, a, None) == f"from: main network ({int(sizes[main]):,} nodes)"
    assert s.parts.describe(net, None, other).startswith(
        f"to: a fragment of {int(sizes[labels[other]]):,} nodes, cut off from the main network")
    assert "separate parts" in s.parts.unreachable_reason(net, a, other)


def _same(a, b) -> None:
    np.testing.assert_array_equal(a.dist, b.dist)
    np.testing.assert_array_equal(a.pred, b.pred)


def test_clicks_reuse_one_plan_until_the_graph_or_options_change(session):
    """What a click resolves once per map and options (issue 38): the second click's plan
    is the first's; an edit (the edited graph's new compaction), other options or an index
    remembered on the graph's handle make a new one; every search equals a fresh one."""
    from app.jobs import sssp
    from app.jobs.index import IndexInfo, remember_key_index

    net, g = session.net, session.graph
    opts = sssp.SsspJobOptions(0, backend="cpu", cpu_fallback=True)
    first = session.sssp_plan(g, opts)
    for src in (0, 3, 7):
        o = sssp.SsspJobOptions(src, backend="cpu", cpu_fallback=True)
        assert session.sssp_plan(g, o) is first
        _same(first.run(src), sssp.run(g, o))
    other = sssp.SsspJobOptions(0, "delta", backend="cpu", cpu_fallback=True)
    assert session.sssp_plan(g, other) is not first

    plan = session.sssp_plan(g, opts)
    remember_key_index(g, (None, IndexInfo()))  # the handle changed: asked again
    assert session.sssp_plan(g, opts) is not plan

    sc = Scenario(net, backend="cpu", max_snap_m=session.snap_max_m, snapper=session.snapper)
    session.scenario = sc
    tails = net.arc_sources()
    for arc in (0, 5):  # two edits of one MutableGraph: a new compaction each time
        sc.apply(Edit("close", nodes=(int(net.node_ids[tails[arc]]),
                                      int(net.node_ids[net.indices[arc]]))))
        mg = session.search_graph()
        plan = session.sssp_plan(mg, opts)
        assert session.sssp_plan(mg, opts) is plan
        _same(plan.run(0), sssp.run(mg.graph(), opts))
    session.open(net)
    assert session.sssp_plan(session.graph, opts) is not plan


def test_a_shown_result_sets_the_edit_state(session):
    """Session.shown: no edit applied since the result on screen; on the unedited map it
    is also the change view's base (the Edit tool reads both from the session)."""
    session.source, session.applied_since = 4, None
    res = object()
    session.shown(res)
    assert session.result is res and session.applied_since == [] and session.base == (4, res)
    net = session.net
    sc = Scenario(net, backend="cpu", max_snap_m=session.snap_max_m, snapper=session.snapper)
    sc.apply(Edit("close", nodes=(int(net.node_ids[net.arc_sources()[0]]),
                                  int(net.node_ids[net.indices[0]]))))
    session.scenario = sc
    edited = object()
    session.shown(edited)
    assert session.result is edited and session.base == (4, res)  # still the unedited one


def test_a_click_on_a_turn_copy_is_its_file_node(tmp_path):
    """A click whose snapped end is a turn copy (issue 39) is the file node, as a typed
    point is; on a map without turn restrictions the node is taken as it is."""
    from maps.formats.osm import load_osm
    from tests.maps.test_turns import grid_osm

    path = str(tmp_path / "grid.osm")
    grid_osm(path)
    net = load_osm(path, profile="drive")
    copies = np.asarray(net.meta["turn_copies"])
    n0 = net.num_nodes - copies.size
    s = Session(snap_max_m=500.0)
    s.open(net)
    arc = int(np.flatnonzero((net.indices >= n0) & (net.edge_kind == 0))[0])  # an arc into a copy
    x, y = _arc_middle(net, arc, 0.9)  # near its head: the copy is the nearer end
    p = s.snap(x, y)
    assert p.snap is not None and p.snap.node >= n0  # snapped to the copy ...
    assert p.node < n0 and p.node == int(copies[p.snap.node - n0])  # ... read as its original
    assert p.node_id == int(net.node_ids[p.node])
    plain = Session(snap_max_m=500.0)
    plain.open(load_osm(path, profile="drive", turn_restrictions=False))
    q = plain.snap(x, y)
    assert q.snap is not None and q.node == q.snap.node
