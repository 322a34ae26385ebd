"""Snapping points to the nearest road arc."""

from __future__ import annotations

import numpy as np
import pytest

from maps.errors import PointError
from maps.formats.osm import load_osm
from maps.geo.projection import to_xy
from maps.model.build import build_network
from maps.model.network import KIND_ROAD
from maps.points.snap import Snapper
from tests.conftest import FIXTURES

SMALL = FIXTURES / "osm" / "small.osm"


@pytest.fixture(scope="module")
def walk():
    return load_osm(SMALL, profile="walk")


def brute_force(net, x: float, y: float) -> float:
    """Distance from (x, y) to the nearest road arc, segment by segment (no shapely)."""
    best = np.inf
    t = net.arc_sources()
    for a in np.flatnonzero(net.edge_kind == KIND_ROAD):
        inner = net.geom_xy[net.geom_indptr[a] : net.geom_indptr[a + 1]]
        h = net.indices[a]
        pts = [(net.x[t[a]], net.y[t[a]]), *map(tuple, inner), (net.x[h], net.y[h])]
        for (x1, y1), (x2, y2) in zip(pts[:-1], pts[1:], strict=True):
            dx, dy = x2 - x1, y2 - y1
            L = dx * dx + dy * dy
            s = 0.0 if L == 0 else min(1.0, max(0.0, ((x - x1) * dx + (y - y1) * dy) / L))
            best = min(best, float(np.hypot(x - (x1 + s * dx), y - (y1 + s * dy))))
    return best


def test_snaps_to_the_edge_not_the_node(walk):
    s = Snapper(walk).snap_lonlat(10.0015, 50.00002)  # middle of street 2-3, 2 m north
    assert s.distance_m == pytest.approx(2.2, abs=0.1)
    ends = {int(walk.node_ids[walk.arc_sources()[s.arc]]), int(walk.node_ids[walk.indices[s.arc]])}
    assert ends == {2, 3}
    assert s.lat == pytest.approx(50.0, abs=1e-7) and s.lon == pytest.approx(10.0015, abs=1e-6)
    assert 0.45 < s.fraction < 0.55


def test_nearer_endpoint(walk):
    s = Snapper(walk).snap_lonlat(10.0012, 50.00001)
    assert int(walk.node_ids[s.node]) == 2
    assert s.node in (walk.arc_sources()[s.arc], walk.indices[s.arc])


def test_inner_geometry_is_used(walk):
    # the footway 1-73-5 is straight north; a point beside its inner point 73
    s = Snapper(walk).snap_lonlat(10.00003, 50.0005)
    assert s.distance_m == pytest.approx(2.15, abs=0.1)


def test_matches_brute_force(walk):
    rng = np.random.default_rng(7)
    sn = Snapper(walk)
    for _ in range(40):
        lon = 9.9995 + rng.random() * 0.006
        lat = 49.999 + rng.random() * 0.004
        x, y = to_xy(np.array([lon]), np.array([lat]), walk.origin)
        s = sn.snap(float(x[0]), float(y[0]), max_distance_m=1e6)
        assert s.distance_m == pytest.approx(brute_force(walk, float(x[0]), float(y[0])), abs=1e-6)


def test_never_snaps_to_rail():
    mm = load_osm(SMALL, profile="multimodal")
    s = Snapper(mm).snap_lonlat(10.0015, 49.9995)  # on the track, 55 m from the street
    assert mm.edge_kind[s.arc] == KIND_ROAD
    assert s.distance_m == pytest.approx(55.6, abs=0.5)


def test_too_far(walk):
    sn = Snapper(walk)
    with pytest.raises(PointError, match=r"\d+\.\d km from the nearest road"):
        sn.snap_lonlat(10.7, 50.0)  # ~50 km east
    with pytest.raises(PointError, match="more than the 1 m allowed"):
        sn.snap_lonlat(10.0015, 50.00002, max_distance_m=1.0)
    with pytest.raises(PointError, match=r"-170.0,50.0 is \d+\.\d km"):
        sn.snap_lonlat(-170.0, 50.0)  # the far side of the globe
    with pytest.raises(PointError, match="latitude"):
        sn.snap_lonlat(10.0, 91.0)


def test_map_without_coordinates_is_refused():
    net = build_network(
        tails=np.array([0, 1]), heads=np.array([1, 0]), weights=np.array([3, 3]),
        node_ids=np.array([1, 2]), unit="unit", profile="file",
    )  # fmt: skip
    with pytest.raises(PointError, match="node:ID"):
        Snapper(net)


def test_sample_map_nodes_snap_onto_themselves():
    from maps.samples import SAMPLE_MAP

    net = load_osm(SAMPLE_MAP, profile="drive")
    sn = Snapper(net)
    road_nodes = np.unique(net.arc_sources()[net.edge_kind == KIND_ROAD])
    for i in road_nodes[:: max(1, len(road_nodes) // 50)]:
        s = sn.snap(float(net.x[i]), float(net.y[i]))
        assert s.distance_m < 1e-6
