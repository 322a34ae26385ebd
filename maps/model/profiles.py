"""Weight profiles: which OSM ways a profile uses, in which directions, and at what cost.

Every profile turns an arc's length (metres, along its geometry) into a non-negative
integer weight in one unit:

==============  =====  ==================================================================
profile         unit   network and cost
==============  =====  ==================================================================
``length``      dm     the pedestrian network (as ``walk``), both directions, cost =
                       length in decimetres
``walk``        ds     on foot at 5 km/h, both directions, no motorways (seed 001's Kanto
                       map weighted roads by walking time); cost in deciseconds
``drive``       ds     car roads only, one-ways respected (``oneway``, roundabouts,
                       motorways), speed = ``maxspeed`` tag or the road class's default
``multimodal``  ds     ``walk`` + railways (rail, light_rail, subway, tram, monorail) at line
                       speed (``maxspeed`` or the type's default) + transfer arcs between
                       stations and the street network costing a 120 s penalty plus the
                       walk between them
==============  =====  ==================================================================

Rounding: ``weight = max(1, round(x))`` where ``x`` is the exact cost in the unit (round
half to even, numpy's rule). The floor of 1 means no arc is free: two OSM nodes at the
same position (it happens at mapped crossings) still cost one unit to cross, so every
route's cost grows with its arcs and least-cost routes never wander through chains of
zero arcs. The error this adds is at most 1 unit (0.1 m or 0.1 s) per arc.

Which ways: the walking profiles use WALK_HIGHWAYS (no motorways; cycleways only with
foot=yes/designated/permissive) unless foot/access = no/private; ``drive`` uses
DRIVE_HIGHWAYS minus parking aisles, driveways and emergency accesses, unless
access/vehicle/motor_vehicle/motorcar = no/private (motorcar/motor_vehicle = yes wins);
highway=construction/proposed/... and ``area=yes`` are never roads.

The tables and functions here are shared with the other vector loaders (GraphML,
GeoJSON), which is why they take plain ``Mapping[str, str]`` tags and class names rather
than osmium objects.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import overload

import numpy as np

from ..errors import ProfileError

PROFILES = ("length", "walk", "drive", "multimodal")
# Units a network's integer weights can be in.
WEIGHT_UNITS = {
    "dm": "decimetres (length)",
    "ds": "deciseconds (travel time)",
    "unit": "the source file's own integer weight",
    # Scales a --weight column may take (maps.model.weights; others are named like "1e-4 s").
    "s": "seconds", "cs": "centiseconds", "ms": "milliseconds", "us": "microseconds",
    "m": "metres", "cm": "centimetres", "mm": "millimetres", "um": "micrometres",
}  # fmt: skip

# The unit of each profile's weights (keys of WEIGHT_UNITS).
UNITS = {"length": "dm", "walk": "ds", "drive": "ds", "multimodal": "ds"}

WALK_SPEED_KMH = 5.0
# Boarding/alighting penalty on a transfer arc (station <-> street), seconds.
TRANSFER_PENALTY_S = 120.0

# Roads a pedestrian may use (OSM defaults; `foot=*` and `access=*` override per way).
# Motorways and their links are never walkable (DESIGN: "no motorways"); cycleways only
# with an explicit foot=yes/designated/permissive, as in OSMnx's walk network.
WALK_HIGHWAYS = frozenset(
    {
        "trunk", "trunk_link", "primary", "primary_link", "secondary", "secondary_link",
        "tertiary", "tertiary_link", "unclassified", "residential", "living_street",
        "service", "road", "pedestrian", "footway", "path", "steps", "track", "corridor",
        "bridleway", "platform", "elevator",
    }
)  # fmt: skip

# Default car speeds (km/h) per road class when the way has no usable maxspeed tag.
DRIVE_SPEED_KMH: dict[str, float] = {
    "motorway": 100.0,
    "motorway_link": 60.0,
    "trunk": 80.0,
    "trunk_link": 50.0,
    "primary": 60.0,
    "primary_link": 45.0,
    "secondary": 50.0,
    "secondary_link": 40.0,
    "tertiary": 40.0,
    "tertiary_link": 35.0,
    "unclassified": 30.0,
    "residential": 30.0,
    "road": 30.0,
    "living_street": 10.0,
    "service": 15.0,
}
DRIVE_HIGHWAYS = frozenset(DRIVE_SPEED_KMH)

# highway values that are not (yet, or any more) roads, whatever their access tags say.
NOT_ROADS = frozenset(
    {"construction", "proposed", "planned", "abandoned", "disused", "razed", "raceway",
     "bus_guideway", "services", "rest_area", "emergency_bay", "no"}
)  # fmt: skip

# Default line speeds (km/h) per railway type (an average including stops).
RAIL_SPEED_KMH: dict[str, float] = {
    "rail": 80.0,
    "light_rail": 50.0,
    "subway": 35.0,
    "monorail": 40.0,
    "tram": 20.0,
}
RAIL_TYPES = frozenset(RAIL_SPEED_KMH)

# Nodes that join rail to the street network in the multimodal profile.
STATION_RAILWAY = frozenset({"station", "halt", "stop", "tram_stop"})
STATION_PUBLIC_TRANSPORT = frozenset({"stop_position", "station"})

_NO = frozenset({"no", "private"})
_YES = frozenset({"yes", "designated", "permissive", "destination", "delivery", "customers"})
_ONEWAY_FWD = frozenset({"yes", "1", "true"})
_ONEWAY_REV = frozenset({"-1", "reverse"})
_ONEWAY_NONE = frozenset({"no", "0", "false"})
_ONEWAY_TIMED = frozenset({"reversible", "alternating"})
_LIFECYCLE = ("disused", "abandoned", "construction", "proposed", "razed")

# Implicit maxspeed values (country:zone) seen in the wild, km/h.
_ZONE_SPEED = {"urban": 50.0, "rural": 90.0, "motorway": 120.0, "trunk": 100.0,
               "living_street": 10.0, "walk": 5.0, "bicycle_road": 30.0, "zone30": 30.0,
               "zone20": 20.0}  # fmt: skip
_NUM = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(km/h|kmh|kph|mph|knots)?\s*$")


def check_profile(profile: str) -> str:
    """``profile`` itself, or ProfileError naming the valid ones."""
    if profile not in PROFILES:
        raise ProfileError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return profile


def unit_of(profile: str) -> str:
    """The weight unit of ``profile``: "dm" (decimetres) or "ds" (deciseconds)."""
    return UNITS[check_profile(profile)]


def parse_maxspeed(value: str | None) -> float | None:
    """km/h from an OSM ``maxspeed`` value ("50", "30 mph", "FI:urban", "walk"), else None.

    Several values ("50;30") take the first; "none"/"signals"/unparsable give None (the
    caller then uses the class default).
    """
    if value is None:
        return None
    v = str(value).strip().lower().split(";")[0].strip()
    if not v:
        return None
    m = _NUM.match(v)
    if m:
        speed = float(m.group(1))
        unit = m.group(2)
        if unit == "mph":
            speed *= 1.609344
        elif unit == "knots":
            speed *= 1.852
        return speed if 0.0 < speed < 1000.0 else None
    if v == "walk":
        return 5.0
    if ":" in v:
        return _ZONE_SPEED.get(v.split(":", 1)[1])
    return None


def _lifecycle(tags: Mapping[str, str]) -> bool:
    return any(tags.get(k) in ("yes", "true", "1") for k in _LIFECYCLE)


def way_kind(tags: Mapping[str, str]) -> str | None:
    """"road" for a highway, "rail" for a usable railway type, else None (ignored)."""
    if tags.get("highway"):
        return "road"
    if tags.get("railway") in RAIL_TYPES:
        return "rail"
    return None


def usable(profile: str, tags: Mapping[str, str]) -> bool:
    """Whether a way with these tags carries arcs in ``profile`` (in some direction)."""
    fwd, bwd = directions(profile, tags)
    return fwd or bwd


def directions(profile: str, tags: Mapping[str, str]) -> tuple[bool, bool]:
    """(forward, backward): may ``profile`` travel the way along / against its node order.

    Walking profiles ignore one-way tags (a pedestrian may walk against a one-way street);
    ``drive`` honours ``oneway`` yes/1/true and -1, roundabouts and motorways (implied
    oneway unless oneway=no) and leaves out reversible/alternating ways (their direction
    depends on the hour). Railways are used both ways, in ``multimodal`` only.
    """
    check_profile(profile)
    if tags.get("area") == "yes" or _lifecycle(tags):
        return (False, False)
    hw = tags.get("highway")
    rw = tags.get("railway")
    if not hw:
        if rw in RAIL_TYPES and profile == "multimodal":
            if tags.get("service") in ("yard", "siding", "spur") or tags.get("usage") == "tourism":
                return (False, False)  # not a passenger line
            return (True, True)
        return (False, False)
    if hw in NOT_ROADS:
        return (False, False)
    access = tags.get("access")
    if profile == "drive":
        if hw not in DRIVE_HIGHWAYS:
            return (False, False)
        override = tags.get("motorcar") or tags.get("motor_vehicle")
        if override in _YES:
            pass
        elif any(tags.get(k) in _NO for k in ("access", "vehicle", "motor_vehicle", "motorcar")):
            return (False, False)
        if tags.get("service") in ("parking_aisle", "driveway", "emergency_access"):
            return (False, False)
        ow = tags.get("oneway")
        if ow in _ONEWAY_TIMED:
            return (False, False)
        if ow in _ONEWAY_FWD:
            return (True, False)
        if ow in _ONEWAY_REV:
            return (False, True)
        if ow in _ONEWAY_NONE:
            return (True, True)
        implied = tags.get("junction") in ("roundabout", "circular") or hw in (
            "motorway",
            "motorway_link",
        )
        return (True, not implied)
    # length / walk / multimodal: the pedestrian network.
    foot = tags.get("foot")
    if foot in _NO:
        return (False, False)
    if hw in ("motorway", "motorway_link"):
        return (False, False)
    if foot in _YES:
        return (True, True)
    if access in _NO:
        return (False, False)
    if hw in WALK_HIGHWAYS:
        return (True, True)
    return (False, False)


def oneway_directions(tags: Mapping[str, str]) -> tuple[bool, bool]:
    """(forward, backward) of a line by its ``oneway`` tag alone (``--weight`` without a
    profile): yes/true/1 forward, -1/reverse backward, anything else both ways."""
    ow = tags.get("oneway")
    if ow in _ONEWAY_FWD:
        return (True, False)
    if ow in _ONEWAY_REV:
        return (False, True)
    return (True, True)


def speed_kmh(profile: str, cls: str, maxspeed: str | float | None = None) -> float:
    """Travel speed (km/h) on an arc of class ``cls`` (highway or railway value).

    Walking profiles: always 5 km/h on roads. ``drive``: ``maxspeed`` when it parses,
    else the class default (30 km/h for an unknown class). Rail (``multimodal``):
    ``maxspeed`` when it parses, else the railway type's default.
    """
    check_profile(profile)
    ms = float(maxspeed) if isinstance(maxspeed, (int, float)) else parse_maxspeed(maxspeed)
    if ms is not None and not (math.isfinite(ms) and ms > 0):
        ms = None
    if cls in RAIL_TYPES:
        if profile != "multimodal":
            raise ProfileError(f"railway {cls!r} arcs exist only in the multimodal profile")
        return float(ms) if ms else RAIL_SPEED_KMH[cls]
    if profile == "drive":
        return float(ms) if ms else DRIVE_SPEED_KMH.get(cls, 30.0)
    return WALK_SPEED_KMH


def cost_units(profile: str, length_m: float, speed: float) -> float:
    """The exact (unrounded) cost of ``length_m`` metres at ``speed`` km/h in the profile's unit."""
    if profile == "length":
        return length_m * 10.0  # decimetres
    return length_m * 36.0 / speed  # deciseconds: m / (km/h / 3.6) s * 10


@overload
def to_weight(x: float) -> int: ...
@overload
def to_weight(x: np.ndarray) -> np.ndarray: ...
def to_weight(x: float | np.ndarray) -> int | np.ndarray:
    """The rounding rule of every profile: max(1, round(x)), as int64 (a cost beyond 2^62,
    from an absurd length, stays 2^62: build_network then calls it too large, where the
    cast alone would wrap it to a negative weight)."""
    r = np.clip(np.rint(np.asarray(x, dtype=np.float64)), 1, 2.0**62).astype(np.int64)
    return int(r) if r.ndim == 0 else r


def arc_weight(profile: str, cls: str, length_m: float, maxspeed: str | float | None = None) -> int:
    """Integer weight of an arc of class ``cls`` (highway/railway value) and ``length_m`` metres.

    Units: decimetres for ``length``, deciseconds for the others (see :data:`UNITS`).
    """
    if not (length_m >= 0 and math.isfinite(length_m)):
        raise ProfileError(f"arc length {length_m!r} m is not a finite non-negative number")
    return int(to_weight(cost_units(profile, length_m, speed_kmh(profile, cls, maxspeed))))


def arc_weights(profile: str, lengths_m: np.ndarray, speeds_kmh: np.ndarray) -> np.ndarray:
    """Vectorised :func:`arc_weight` from per-arc lengths (m) and speeds (km/h): int64."""
    lengths_m = np.asarray(lengths_m, dtype=np.float64)
    if profile == "length":
        return to_weight(lengths_m * 10.0)
    return to_weight(lengths_m * 36.0 / np.asarray(speeds_kmh, dtype=np.float64))


def transfer_weight(profile: str, length_m: float | np.ndarray) -> int | np.ndarray:
    """Weight of a station <-> street transfer arc: 120 s penalty + the walk, in ds."""
    if profile != "multimodal":
        raise ProfileError(f"transfer arcs exist only in the multimodal profile, not {profile!r}")
    return to_weight(TRANSFER_PENALTY_S * 10.0 + np.asarray(length_m) * 36.0 / WALK_SPEED_KMH)


def is_station(tags: Mapping[str, str], *, on_rail: bool) -> bool:
    """A node where travellers board rail: railway=station|halt|stop|tram_stop, or a
    public_transport=stop_position|station lying on a rail way (bus stops are not)."""
    if tags.get("railway") in STATION_RAILWAY:
        return True
    if tags.get("public_transport") in STATION_PUBLIC_TRANSPORT:
        if on_rail:
            return True
        modes = ("train", "subway", "tram", "light_rail", "monorail")
        return any(tags.get(k) == "yes" for k in modes)
    return False


def describe(profile: str) -> str:
    """One line for CLI output: the profile and its unit."""
    return f"{profile} ({WEIGHT_UNITS[unit_of(profile)]})"
