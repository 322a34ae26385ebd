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
    session.open(session.net)
    assert (session.source, session.target, session.result, session.scenario) == (None,) * 4
