"""Points typed by users: ``LON,LAT`` (degrees) or ``node:ID`` (an id of the source file).

:func:`resolve_point` turns either into a node index of the network. A ``LON,LAT`` is
snapped to the nearest road *arc* (:mod:`maps.snap`) and the route starts/ends at that
arc's endpoint nearer along the arc (``Snap.node``); the snap is kept so the CLI's JSON
and the GUI can show where the click landed. ``node:ID`` uses ``net.index_of``: the OSM
node id for OSM maps, the vertex number for DIMACS, the node id for GraphML. Maps without
coordinates (DIMACS without .co) accept only ``node:ID``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .errors import NodeNotFoundError, PointError
from .network import RoadNetwork
from .snap import DEFAULT_MAX_DISTANCE_M, Snap, Snapper, check_lonlat

_NODE = re.compile(r"^\s*node\s*:\s*([+-]?\d{1,20})\s*$", re.IGNORECASE)
_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_LONLAT = re.compile(rf"^\s*({_NUM})\s*,\s*({_NUM})\s*$")
# node:NAME for GraphML files whose node ids are not all integers (meta["node_names"]).
_NODE_NAME = re.compile(r"^\s*node\s*:\s*(\S(?:.*\S)?)\s*$", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ParsedPoint:
    """A point as written: either ``node_id`` or (``lon``, ``lat``)."""

    text: str
    node_id: int | None = None
    lon: float | None = None
    lat: float | None = None
    node_name: str | None = None  # node:NAME with a non-integer NAME (GraphML ids)

    @property
    def is_node(self) -> bool:
        return self.node_id is not None or self.node_name is not None


@dataclass(frozen=True)
class ResolvedPoint:
    """A point on the network: the node index routes use, plus how it was found."""

    text: str
    node: int  # node index in the network
    node_id: int | str  # its id in the source file (a GraphML name when ids are not integers)
    lon: float  # the node's coordinates (NaN when the map has none)
    lat: float
    snap: Snap | None = None  # set for LON,LAT input

    def as_dict(self) -> dict:
        return {
            "input": self.text,
            "node": self.node,
            "node_id": self.node_id,
            "lon": _num(self.lon),
            "lat": _num(self.lat),
            "snap": None if self.snap is None else self.snap.as_dict(),
        }


def parse_point(text: str) -> ParsedPoint:
    """Parse ``LON,LAT`` or ``node:ID``; PointError (naming the text) for anything else."""
    if not isinstance(text, str):
        raise PointError(f"point {text!r} is not text")
    m = _NODE.match(text)
    if m:
        return ParsedPoint(text=text, node_id=int(m.group(1)))
    m = _LONLAT.match(text)
    if m:
        lon, lat = float(m.group(1)), float(m.group(2))
        if not (math.isfinite(lon) and math.isfinite(lat)):
            raise PointError(f"point {text!r}: coordinates are not finite numbers")
        try:
            check_lonlat(lon, lat)
        except PointError as exc:
            raise PointError(f"point {text!r}: {exc.detail}") from None
        return ParsedPoint(text=text, lon=lon, lat=lat)
    m = _NODE_NAME.match(text)
    if m and not _LONLAT.match(m.group(1)):
        return ParsedPoint(text=text, node_name=m.group(1))
    raise PointError(
        f"cannot read point {text!r}: write LON,LAT in degrees (e.g. 24.94,60.17) or node:ID"
    )


def resolve_point(
    net: RoadNetwork,
    text: str,
    *,
    snapper: Snapper | None = None,
    max_distance_m: float = DEFAULT_MAX_DISTANCE_M,
) -> ResolvedPoint:
    """The network node for a typed point (module doc). Raises PointError (garbage, too
    far from any road, LON,LAT on a map without coordinates) or NodeNotFoundError."""
    p = parse_point(text)
    if p.is_node:
        named = _named_node(net, p)
        if named is not None:
            i = net.index_of(named)
            return ResolvedPoint(text, i, _label(net, i), float(net.lon[i]), float(net.lat[i]))
        if p.node_id is None:
            raise NodeNotFoundError(
                f"node id {p.node_name!r} is not in the map", path=net.source_path or None
            )
        try:
            i = net.index_of(p.node_id)
        except NodeNotFoundError:
            inner = _inner_osm_node(net, text, p.node_id, snapper)
            if inner is not None:
                return inner
            if net.meta.get("contracted"):
                raise NodeNotFoundError(
                    f"node id {p.node_id} is not a node of the contracted map (--contract "
                    "merged it into a chain); route without --contract",
                    path=net.source_path or None,
                ) from None
            raise
        return ResolvedPoint(text, i, _label(net, i), float(net.lon[i]), float(net.lat[i]))
    if not net.has_coordinates:
        raise PointError(
            f"point {text!r}: this map has no coordinates (a DIMACS graph without its .co "
            "file?), so points must be given as node:ID",
            path=net.source_path or None,
        )
    snapper = snapper or Snapper(net)
    s = snapper.snap_lonlat(p.lon, p.lat, max_distance_m=max_distance_m)
    i = s.node
    return ResolvedPoint(text, i, _label(net, i), float(net.lon[i]), float(net.lat[i]), s)


def _named_node(net: RoadNetwork, p: ParsedPoint) -> int | None:
    """The node id (1..N) of a GraphML node named as typed, for files whose ids are not all
    distinct integers (their names are kept in ``meta["node_names"]``, ids are 1..N in file
    order); None when the map keeps no names or has no node of that name."""
    names = net.meta.get("node_names")
    if not names:
        return None
    key = p.node_name if p.node_name is not None else str(p.node_id)
    for k, name in enumerate(names):
        if str(name) == key:
            return k + 1
    return None


# How far an OSM node may lie from the arc drawn through it (rounding of the projection).
_INNER_NODE_TOLERANCE_M = 0.5


def _inner_osm_node(
    net: RoadNetwork, text: str, node_id: int, snapper: Snapper | None
) -> ResolvedPoint | None:
    """``node:ID`` of an OSM node that is not a graph node: graph nodes are only junctions
    and way ends, every other node of a way is inner geometry of an arc. Such a node is
    looked up in the source file and snapped to the arc through it, like a LON,LAT point
    (the route starts at that arc's nearer endpoint). None when the map is not an OSM file
    still on disk; NodeNotFoundError naming the file when the file has no such node or no
    road of this profile passes through it."""
    import os

    path = net.source_path
    if net.meta.get("format") != "osm" or not path or not os.path.exists(path):
        return None
    if not net.has_coordinates or net.num_arcs == 0:
        return None
    from .osm import node_location

    loc = node_location(path, node_id)
    if loc is None:
        raise NodeNotFoundError(f"node id {node_id} is not in the map", path=path)
    snapper = snapper or Snapper(net)
    try:
        s = snapper.snap_lonlat(loc[0], loc[1], max_distance_m=_INNER_NODE_TOLERANCE_M)
    except PointError:
        raise NodeNotFoundError(
            f"node id {node_id} is in the file but not on a road of the {net.profile!r} "
            "profile (points snap to roads: not to railways, buildings or roads closed to "
            "this profile)",
            path=path,
        ) from None
    i = s.node
    return ResolvedPoint(text, i, _label(net, i), float(net.lon[i]), float(net.lat[i]), s)


def _num(v: float) -> float | None:
    """JSON-safe float: None for NaN/inf."""
    return float(v) if math.isfinite(v) else None


def _label(net: RoadNetwork, i: int) -> int | str:
    """Node ``i``'s id as written in the source file (see RoadNetwork.node_labels)."""
    v = net.node_labels()[i]
    return v if isinstance(v, str) else int(v)
