"""Weight profiles: access, directions, speeds, rounding."""

from __future__ import annotations

import pytest

from maps.errors import ProfileError
from maps.model import profiles as P


def test_units():
    assert P.unit_of("length") == "dm"
    assert all(P.unit_of(p) == "ds" for p in ("walk", "drive", "multimodal"))
    with pytest.raises(ProfileError, match="'bike'"):
        P.unit_of("bike")


@pytest.mark.parametrize(
    "tags, walk, drive",
    [
        ({"highway": "residential"}, (True, True), (True, True)),
        ({"highway": "residential", "oneway": "yes"}, (True, True), (True, False)),
        ({"highway": "residential", "oneway": "1"}, (True, True), (True, False)),
        ({"highway": "residential", "oneway": "true"}, (True, True), (True, False)),
        ({"highway": "residential", "oneway": "-1"}, (True, True), (False, True)),
        ({"highway": "residential", "oneway": "reversible"}, (True, True), (False, False)),
        ({"highway": "primary", "junction": "roundabout"}, (True, True), (True, False)),
        ({"highway": "primary", "junction": "roundabout", "oneway": "no"}, (1, 1), (1, 1)),
        ({"highway": "motorway"}, (False, False), (True, False)),
        ({"highway": "footway"}, (True, True), (False, False)),
        ({"highway": "cycleway"}, (False, False), (False, False)),
        ({"highway": "cycleway", "foot": "designated"}, (True, True), (False, False)),
        ({"highway": "service", "access": "private"}, (False, False), (False, False)),
        ({"highway": "service", "access": "private", "foot": "yes"}, (True, True), (False, False)),
        ({"highway": "residential", "motor_vehicle": "no"}, (True, True), (False, False)),
        ({"highway": "residential", "vehicle": "private"}, (True, True), (False, False)),
        ({"highway": "residential", "access": "no", "motorcar": "yes"}, (0, 0), (1, 1)),
        ({"highway": "primary", "foot": "no"}, (False, False), (True, True)),
        ({"highway": "construction"}, (False, False), (False, False)),
        ({"highway": "steps", "area": "yes"}, (False, False), (False, False)),
        ({"railway": "rail"}, (False, False), (False, False)),
    ],
)
def test_directions(tags, walk, drive):
    walk, drive = tuple(map(bool, walk)), tuple(map(bool, drive))
    assert P.directions("walk", tags) == walk
    assert P.directions("length", tags) == walk
    assert P.directions("drive", tags) == drive
    assert P.usable("drive", tags) == any(drive)


def test_rail_only_in_multimodal():
    for t in ("rail", "subway", "light_rail", "tram", "monorail"):
        assert P.directions("multimodal", {"railway": t}) == (True, True)
        assert not P.usable("walk", {"railway": t})
        with pytest.raises(ProfileError):
            P.arc_weight("walk", t, 100.0)
    for bad in ({"railway": "abandoned"}, {"railway": "disused"}, {"railway": "construction"},
                {"railway": "rail", "disused": "yes"}, {"railway": "rail", "service": "yard"}):
        assert not P.usable("multimodal", bad)
    assert P.usable("multimodal", {"highway": "footway"})


@pytest.mark.parametrize(
    "value, kmh",
    [("50", 50.0), ("30 mph", 30 * 1.609344), ("80 km/h", 80.0), ("FI:urban", 50.0),
     ("walk", 5.0), ("50;30", 50.0), ("none", None), ("signals", None), ("", None),
     (None, None), ("-5", None), ("abc", None), ("0", None)],
)  # fmt: skip
def test_parse_maxspeed(value, kmh):
    got = P.parse_maxspeed(value)
    assert got == (pytest.approx(kmh) if kmh is not None else None)


def test_arc_weights_and_rounding():
    # 100 m: 1000 dm; on foot at 5 km/h 72 s = 720 ds
    assert P.arc_weight("length", "footway", 100.0) == 1000
    assert P.arc_weight("walk", "footway", 100.0) == 720
    assert P.arc_weight("multimodal", "primary", 100.0) == 720
    # drive: class default (residential 30 km/h -> 12 s) or maxspeed (60 km/h -> 6 s)
    assert P.arc_weight("drive", "residential", 100.0) == 120
    assert P.arc_weight("drive", "residential", 100.0, "60") == 60
    assert P.arc_weight("drive", "residential", 100.0, "bogus") == 120
    # rail at line speed: 1 km at 80 km/h = 45 s
    assert P.arc_weight("multimodal", "rail", 1000.0) == 450
    assert P.arc_weight("multimodal", "tram", 1000.0, "40") == 900
    # never zero: a zero-length arc still costs 1
    assert P.arc_weight("walk", "footway", 0.0) == 1
    assert P.arc_weight("length", "footway", 0.04) == 1
    assert P.arc_weight("length", "footway", 0.26) == 3
    with pytest.raises(ProfileError):
        P.arc_weight("walk", "footway", float("nan"))
    assert P.transfer_weight("multimodal", 100.0) == 1200 + 720
    with pytest.raises(ProfileError):
        P.transfer_weight("walk", 1.0)


def test_vectorised_weights_agree():
    import numpy as np

    lens = np.array([0.0, 1.3, 55.5, 1234.5])
    speeds = np.array([30.0, 50.0, 5.0, 80.0])
    pairs = zip(lens.tolist(), speeds.tolist(), strict=True)
    want = [P.arc_weight("drive", "x", ln, sp) for ln, sp in pairs]
    assert P.arc_weights("drive", lens, speeds).tolist() == want
    assert P.arc_weights("length", lens, speeds).tolist() == [
        P.arc_weight("length", "x", float(l)) for l in lens
    ]


def test_stations():
    assert P.is_station({"railway": "station"}, on_rail=False)
    assert P.is_station({"railway": "tram_stop"}, on_rail=False)
    assert P.is_station({"public_transport": "stop_position"}, on_rail=True)
    assert not P.is_station({"public_transport": "stop_position", "bus": "yes"}, on_rail=False)
    assert P.is_station({"public_transport": "station", "train": "yes"}, on_rail=False)
    assert not P.is_station({"railway": "signal"}, on_rail=True)
