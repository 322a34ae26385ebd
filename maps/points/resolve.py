"""Points typed by users: ``LON,LAT`` (degrees) or ``node:ID`` (an id of the source file).
(Over 500 lines: every way a user names a point, parsed and checked in one place.)

:func:`resolve_point` turns either into a node index of the network. A ``LON,LAT`` is
snapped to the nearest road *arc* (:mod:`maps.points.snap`) and the route starts/ends at that
arc's endpoint nearer along the arc (``Snap.node``); the snap is kept so the CLI's JSON
and the GUI can show where the click landed. ``node:ID`` uses ``net.index_of``: the OSM
node id for OSM maps, the vertex number for DIMACS, the node id for GraphML. Maps without
coordinates (DIMACS without .co) accept only ``node:ID``.

Files of points have one reader (:func:`maps.points.files.read_table`): :func:`read_points`
(``signpost matrix``: lon/lat or node columns, snapped), :func:`read_point_texts` (the
GUI's OD tool: typed points per row) and :func:`read_demand` (``billboards --demand``).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

import numpy as np

from ..errors import NodeNotFoundError, PointError
from ..model.network import RoadNetwork
from ..model.turns import to_original
from .files import (  # noqa: F401  (re-exported: the names callers import from here)
    GEOJSON_EXT,
    GPKG_EXT,
    LAT_NAMES,
    LON_NAMES,
    NODE_NAMES,
    POINT_NAMES,
    PointTable,
    TableRow,
    geojson_crs,
    read_table,
    to_wgs84,
)
from .snap import DEFAULT_MAX_DISTANCE_M, Snap, Snapper, check_lonlat

# re.ASCII: int() and float() read digits of any script (node:١٥); ids are typed in ASCII
_NODE = re.compile(r"^\s*node\s*:\s*([+-]?\d{1,20})\s*$", re.IGNORECASE | re.ASCII)
_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_LONLAT = re.compile(rf"^\s*({_NUM})\s*,\s*({_NUM})\s*$", re.ASCII)
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


_NUMBER_LIKE = re.compile(rf"^\s*node\s*:\s*({_NUM})\s*$", re.IGNORECASE)
ID_MIN, ID_MAX = -(2**63), 2**63 - 1  # node ids are 64-bit integers everywhere


def parse_point(text: str, *, names: bool = True) -> ParsedPoint:
    """Parse ``LON,LAT`` or ``node:ID``; PointError (naming the text) for anything else:
    a node id that is not a whole number (``node:1.7``) or not a 64-bit integer, and
    ``node:NAME`` unless ``names`` (only GraphML maps have named nodes)."""
    if not isinstance(text, str):
        raise PointError(f"point {text!r} is not text")
    m = _NODE.match(text)
    if m:
        v = int(m.group(1))
        if not ID_MIN <= v <= ID_MAX and names:
            return ParsedPoint(text=text, node_name=m.group(1))  # a GraphML name, maybe
        if not ID_MIN <= v <= ID_MAX:
            raise PointError(f"point {text!r}: node id {m.group(1)} is out of range "
                             "(ids are 64-bit integers)")
        return ParsedPoint(text=text, node_id=v)
    m = _NUMBER_LIKE.match(text)
    if m and not names:
        raise PointError(f"point {text!r}: node id {m.group(1)!r} is not an integer"
                         if len(m.group(1)) <= 24 else
                         f"point {text[:40]!r}...: node id is out of range (ids are 64-bit integers)")
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
        if not names:
            raise PointError(f"point {_shown(text)}: node id {_shown(m.group(1))} is not an "
                             "integer (only GraphML maps have named nodes)")
        return ParsedPoint(text=text, node_name=m.group(1))
    raise PointError(
        f"cannot read point {_shown(text)}: write LON,LAT in degrees (e.g. 24.94,60.17) or node:ID"
    )


def _typed_id(text: str) -> str:
    """The id of ``node:ID`` as typed ("01" stays "01": GraphML ids are strings)."""
    return text.split(":", 1)[1].strip()


def _shown(text: str) -> str:
    """``repr(text)``, cut to 60 characters: error lines stay short."""
    return repr(text) if len(text) <= 60 else repr(text[:57]) + "..."


def check_points(names: bool, *texts: str) -> None:
    """Parse every typed point before any work (a map load, a search): PointError naming
    the first bad one. ``names``: the map's format may have named nodes (GraphML)."""
    for t in texts:
        try:
            parse_point(t, names=names)
        except PointError as exc:  # the map is not loaded yet: only the numbers can tell
            m = _LONLAT.match(t) if isinstance(t, str) else None
            if m is None or not (abs(float(m.group(1))) <= 90 < abs(float(m.group(2))) <= 180):
                raise
            raise PointError(f"{exc.detail}; did you swap them? points are written LON,LAT "
                             f"(try {m.group(2)},{m.group(1)})", path=exc.path,
                             line=exc.line) from None


def resolve_point(
    net: RoadNetwork,
    text: str,
    *,
    snapper: Snapper | None = None,
    max_distance_m: float = DEFAULT_MAX_DISTANCE_M,
) -> ResolvedPoint:
    """The network node for a typed point (module doc). Raises PointError (garbage, too
    far from any road, LON,LAT on a map without coordinates) or NodeNotFoundError."""
    try:
        p = parse_point(text, names=bool(net.meta.get("node_names"))
                        or net.meta.get("format") == "graphml")
    except PointError as exc:  # e.g. latitude 139.7 out of range: LAT,LON typed?
        raise _with_swap_hint(net, text, exc) from None
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
    assert p.lon is not None and p.lat is not None  # parse_point: not a node, so lon/lat
    try:
        s = snapper.snap_lonlat(p.lon, p.lat, max_distance_m=max_distance_m)
    except PointError as exc:
        raise _with_swap_hint(net, text, exc) from None
    i = int(to_original(net, [s.node])[0])  # a turn copy's file node (maps.model.turns)
    return ResolvedPoint(text, i, _label(net, i), float(net.lon[i]), float(net.lat[i]), s)


def swapped_hint(net: RoadNetwork, text: str) -> str:
    """A hint when the typed ``LON,LAT`` point lies outside the map but the same two
    numbers read as ``LAT,LON`` fall inside its bounding box (a common slip: most web maps
    write latitude first); "" otherwise."""
    m = _LONLAT.match(text) if isinstance(text, str) else None
    if m is None or not net.has_coordinates:
        return ""
    lon, lat = float(m.group(1)), float(m.group(2))
    lo0, lo1 = float(np.min(net.lon)), float(np.max(net.lon))
    la0, la1 = float(np.min(net.lat)), float(np.max(net.lat))
    # a margin of a quarter of the map (at least ~2 km): clicks near its edge count
    pad_lo, pad_la = max(0.25 * (lo1 - lo0), 0.02), max(0.25 * (la1 - la0), 0.02)

    def inside(lon: float, lat: float) -> bool:
        return lo0 - pad_lo <= lon <= lo1 + pad_lo and la0 - pad_la <= lat <= la1 + pad_la

    if inside(lon, lat) or not inside(lat, lon):
        return ""
    return (f"did you swap latitude and longitude? Points are LON,LAT; "
            f"{_short(lat)},{_short(lon)} lies inside this map")


def _with_swap_hint(net: RoadNetwork, text: str, exc: PointError) -> PointError:
    """``exc``, or the same error with :func:`swapped_hint` appended when there is one."""
    hint = swapped_hint(net, text)
    if not hint:
        return exc
    return PointError(f"{exc.detail}; {hint}", path=exc.path, line=exc.line)


def _short(v: float) -> str:
    return f"{v:.7f}".rstrip("0").rstrip(".")


def _named_node(net: RoadNetwork, p: ParsedPoint) -> int | None:
    """The node id (1..N) of a GraphML node named as typed, for files whose ids are not all
    distinct integers (their names are kept in ``meta["node_names"]``, ids are 1..N in file
    order); None when the map keeps no names or has no node of that name."""
    names = net.meta.get("node_names")
    if not names:
        return None
    key = p.node_name if p.node_name is not None else _typed_id(p.text)
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

    path = net.source_path
    if net.meta.get("format") != "osm" or not path or not os.path.exists(path):
        return None
    if not net.has_coordinates or net.num_arcs == 0:
        return None
    from ..formats.osm import node_location

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
    i = int(to_original(net, [s.node])[0])  # a turn copy's file node (maps.model.turns)
    return ResolvedPoint(text, i, _label(net, i), float(net.lon[i]), float(net.lat[i]), s)


def _num(v: float) -> float | None:
    """JSON-safe float: None for NaN/inf."""
    return float(v) if math.isfinite(v) else None


def _label(net: RoadNetwork, i: int) -> int | str:
    """Node ``i``'s id as written in the source file (see RoadNetwork.node_labels)."""
    v = net.node_labels()[i]
    return v if isinstance(v, str) else int(v)


# ---- point files ----------------------------------------------------------------------
# One reader for every file of points: `signpost matrix --from/--to`, the GUI's OD tool
# and `signpost billboards --demand`. CSV (columns found by header name, any order,
# others ignored; UTF-8 with or without BOM; ',' or, when the header has none, ';' or a
# tab), GeoJSON or a GeoPackage's point layer (Point / MultiPoint geometries, read as
# lon,lat rows with the features' properties as further columns). An id column
# (``id_column``, default the first that is neither lon/lat nor node) names each row in
# outputs (:func:`id_column_of`).


@dataclass
class PointsRead:
    """Node indices of a points file's rows and the key of each row (lon, lat) or node id;
    ``ids``: each row's value in the id column (None when the file has no such column)."""

    nodes: np.ndarray  # int32, one per row
    keys: list
    ids: list | None = None
    id_name: str | None = None
    note: str | None = None  # which of a file's 'node' and 'lon,lat' columns was used

    def row_ids(self, net: RoadNetwork) -> list:
        """Each row's id: the id column's value, else the node id as written (a ``node``
        column), else the map's id of the node a lon/lat row snapped to."""
        if self.ids is not None:
            return self.ids
        at = net.source_ids(self.nodes)
        return [k if not isinstance(k, tuple) else a for k, a in zip(self.keys, at, strict=True)]


def id_column_of(t: PointTable, id_column: str | None) -> int | None:
    """The id column of a table: ``id_column`` by (case-insensitive) name, PointError when
    no column has it; by default the first column that is neither lon/lat, node nor point
    (None when every column is one of those)."""
    if id_column is not None:
        j = t.column((id_column.strip().lower(),))
        if j is None:
            raise PointError(f"no column named {id_column!r}; the columns are "
                             f"{t.header_text!r}", path=t.path, line=t.header_line or None)
        return j
    known = LON_NAMES + LAT_NAMES + NODE_NAMES + POINT_NAMES
    return next((j for j, h in enumerate(t.names) if h not in known and h), None)


def _id_value(text: str):
    """An id cell as output: an integer when it is one, else the text."""
    v = text.strip()
    try:
        return int(v)
    except ValueError:
        return v


def read_points(
    path: str, net: RoadNetwork, *, max_distance_m: float = DEFAULT_MAX_DISTANCE_M,
    snapper_box: list | None = None, id_column: str | None = None,
) -> PointsRead:
    """The nodes of the points in ``path`` (a ``lon,lat`` pair or a ``node`` id per row;
    lon/lat win on a map with coordinates) and their ids (:func:`id_column_of`).
    PointError names the file, line and row for anything unreadable or off the map.
    ``snapper_box``: a list that keeps one Snapper across calls (built on first need)."""
    from ..errors import MapError

    box = snapper_box if snapper_box is not None else []
    t = read_table(path)
    if t.header is None:
        raise PointError("no header and no points: expected a 'lon,lat' header", path=path)
    kind, idx = _pick_columns(t, net)
    if kind is None:
        raise PointError(
            f"header is {t.header_text!r}: expected 'lon,lat' columns (any order, "
            "others ignored) or a 'node' column of node ids",
            path=path, line=t.header_line,
        )
    width = max(idx) + 1
    both = t.column(NODE_NAMES) if kind == "lonlat" else None  # checked against lon,lat
    nodes: list[int] = []
    keys: list = []
    idc = id_column_of(t, id_column)
    ids = None if idc is None else [
        _id_value(r.cells[idc]) if idc < len(r.cells) else "" for r in t.rows]
    for row in t.rows:
        where = f"row {row.index}"
        try:
            if len(row.cells) < width:
                what = "a node id" if kind == "node" else "lon and lat"
                raise PointError(f"{where}: expected {what} in column(s) "
                                 f"{', '.join(str(j + 1) for j in idx)}, got {len(row.cells)} "
                                 f"field(s) ({t.delimiter.join(row.cells)!r})")
            if kind == "node":
                nid = _node_key(net, row.cells[idx[0]].strip(), where)
                node = _file_node(net, nid, box)
                keys.append(nid)
            else:
                lon, lat = _lonlat_cells(row.cells[idx[0]], row.cells[idx[1]], where)
                node = _snap_lonlat(net, lon, lat, max_distance_m, box)
                keys.append((lon, lat))
                if both is not None and both < len(row.cells) and row.cells[both].strip():
                    _agrees(net, row.cells[both].strip(), node, box,
                            f"{where}: its node {row.cells[both].strip()} and its lon,lat "
                            f"{lon:g},{lat:g}")
        except MapError as exc:
            detail = exc.detail if exc.detail.startswith("row ") else f"{where}: {exc.detail}"
            raise PointError(detail, path=path, line=row.line or None) from None
        nodes.append(int(node))
    if not nodes:
        raise PointError("no points after the header", path=path)
    return PointsRead(np.asarray(nodes, dtype=np.int32), keys, ids,
                      None if idc is None else t.header[idc].strip(), t.both_note(kind))


def _agrees(net: RoadNetwork, text: str, node: int, box: list, what: str) -> None:
    """A row with both a node id and lon,lat: PointError unless both name one node."""
    if _file_node(net, _node_key(net, text, what.split(":")[0]), box) != node:
        raise PointError(f"{what} (which snaps to node {_label(net, node)}) disagree; keep "
                         "one of the columns")


def read_point_texts(path: str) -> list[tuple[int, str]]:
    """(line, typed point) of each row, for :func:`resolve_point`: a ``point`` column
    (LON,LAT / node:ID), ``lon``+``lat`` columns or a ``node_id`` column, looked up per
    row in that order. PointError names the file and line otherwise (also for an empty
    file, a header without rows, a file that is not UTF-8 text)."""
    return [(line, text) for line, text, _ in read_point_rows(path)]


def read_point_rows(path: str, id_column: str | None = None) -> list[tuple[int, str, object]]:
    """As :func:`read_point_texts`, each row with its id (:func:`id_column_of`; None when
    the file has no id column)."""
    t = read_table(path)
    if t.header is None:
        raise PointError("empty file: expected a point, lon+lat or node_id header", path=path)
    cols = [t.column(names) for names in (POINT_NAMES, LON_NAMES, LAT_NAMES, NODE_NAMES)]
    idc = id_column_of(t, id_column)
    out = []
    for row in t.rows:
        pt, lon, lat, node = (
            row.cells[j].strip() if j is not None and j < len(row.cells) else "" for j in cols
        )
        rid = _id_value(row.cells[idc]) if idc is not None and idc < len(row.cells) else None
        if pt:
            out.append((row.line, pt, rid))
        elif lon and lat:
            out.append((row.line, f"{lon},{lat}", rid))
        elif node:
            out.append((row.line, f"node:{node}", rid))
        else:
            raise PointError("expected a point, lon+lat or node_id column", path=path,
                             line=row.line or None)
    if not out:
        raise PointError("no points after the header", path=path)
    return out


DEMAND_MAX = 1e12  # one origin/destination weight of a demand file


def read_demand(path: str, net: RoadNetwork, *,
                max_distance_m: float = DEFAULT_MAX_DISTANCE_M) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) per-node origin / destination weights from a points file (any format of
    :func:`read_table`) whose rows are a ``node`` id or ``lon,lat`` (snapped) with
    ``weight`` (or ``origin``/``destination``) columns; nodes not listed weigh 0."""
    t = read_table(path)
    if t.header is None:
        raise PointError("empty file: expected a 'node,weight' header", path=path)
    kind, idx = _pick_columns(t, net)
    cw = t.column(("weight",))
    co, cd = t.column(("origin",)), t.column(("destination",))
    if kind is None or (cw is None and co is None and cd is None):
        raise PointError(f"header is {t.header_text!r}: expected a 'node' (or lon,lat) column "
                         "and 'weight' (or 'origin'/'destination') columns",
                         path=path, line=t.header_line)
    ca = co if co is not None else cw
    cb = cd if cd is not None else cw
    a, b = np.zeros(net.num_nodes), np.zeros(net.num_nodes)
    box: list = []
    for row in t.rows:
        r = row.cells
        try:
            if kind == "node":
                v = node_index(net, r[idx[0]], "node")
            else:
                lon, lat = _lonlat_cells(r[idx[0]], r[idx[1]], f"row {row.index}")
                v = _snap_lonlat(net, lon, lat, max_distance_m, box)
            wa = float(r[ca]) if ca is not None else 0.0
            wb = float(r[cb]) if cb is not None else 0.0
        except (IndexError, ValueError):
            raise PointError(f"expected a point and numbers, got {t.delimiter.join(r)!r}"
                             if kind != "node" else
                             f"expected a node id and numbers, got {t.delimiter.join(r)!r}",
                             path=path, line=row.line or None) from None
        except PointError as exc:
            raise PointError(exc.detail, path=path, line=row.line or None) from None
        if not (math.isfinite(wa) and math.isfinite(wb)) or wa < 0 or wb < 0:
            raise PointError("weights must be finite numbers >= 0", path=path,
                             line=row.line or None)
        if max(wa, wb) > DEMAND_MAX:  # products of two weights must stay finite and exact-ish
            raise PointError(f"weight {max(wa, wb):g} is too large (at most {DEMAND_MAX:g})",
                             path=path, line=row.line or None)
        a[v] += wa
        b[v] += wb
    if a.sum() <= 0 or b.sum() <= 0:
        raise PointError("no demand: origin and destination weights are all 0", path=path)
    return a, b


def node_index(net: RoadNetwork, text: str, what: str) -> int:
    """The node of an id as written in the file (``ID`` or ``node:ID``); PointError
    "WHAT 'ID': why" when the map has no such node."""
    from ..errors import MapError

    t = text.strip()
    try:
        return int(resolve_point(net, t if t.startswith("node:") else f"node:{t}").node)
    except MapError as exc:  # not in the map, not an id
        raise PointError(f"{what} {t!r}: {exc.detail}") from None


def _pick_columns(t: PointTable, net: RoadNetwork) -> tuple[str | None, tuple[int, ...]]:
    """('lonlat', (lon col, lat col)) or ('node', (col,)) by header name; (None, ()).
    With both kinds present, lon/lat is used on a map with coordinates."""
    lon, lat, node = t.column(LON_NAMES), t.column(LAT_NAMES), t.column(NODE_NAMES)
    has_ll = lon is not None and lat is not None
    if node is not None and (not has_ll or not net.has_coordinates):
        return "node", (node,)
    if lon is not None and lat is not None:
        return "lonlat", (lon, lat)
    return None, ()


def _node_key(net: RoadNetwork, text: str, where: str) -> int | str:
    if net.meta.get("node_names"):  # GraphML ids are strings as written ("01" is not "1")
        return text.strip()
    try:
        v = int(text) if len(text) <= 24 else None
    except ValueError:
        v = None
    if v is None and re.fullmatch(r"[+-]?[0-9]+", text):  # 40 digits: a number, too large
        raise PointError(f"{where}: node id {_shown(text)} is out of range (ids are 64-bit "
                         "integers)")
    if v is not None and not ID_MIN <= v <= ID_MAX:
        raise PointError(f"{where}: node id {text!r} is out of range (ids are 64-bit integers)")
    if v is not None:
        return v
    if not net.meta.get("node_names"):  # GraphML keeps non-integer ids
        raise PointError(f"{where}: node id {text[:40]!r} is not an integer")
    return text


def _lonlat_cells(lon_text: str, lat_text: str, where: str) -> tuple[float, float]:
    cells = f"{lon_text.strip()},{lat_text.strip()}"
    try:
        lon, lat = float(lon_text), float(lat_text)
    except ValueError:
        raise PointError(f"{where}: {cells!r} is not two numbers (lon,lat)") from None
    if not (math.isfinite(lon) and math.isfinite(lat)):
        raise PointError(f"{where}: {cells!r} is not finite (lon,lat)")
    return lon, lat


def _box_snapper(net: RoadNetwork, box: list) -> Snapper:
    if not box:
        box.append(Snapper(net))
    return box[0]


def _file_node(net: RoadNetwork, nid: int | str, box: list) -> int:
    """As route's node:ID: GraphML names, and OSM nodes inside a way (snapped to the arc
    through them) resolve too."""
    snapper = None
    if net.meta.get("format") == "osm" and net.has_coordinates:
        try:
            return net.index_of(int(nid))
        except Exception:  # an OSM node inside a way: resolve_point snaps it
            snapper = _box_snapper(net, box)
    return resolve_point(net, f"node:{nid}", snapper=snapper).node


def _snap_lonlat(net: RoadNetwork, lon: float, lat: float, max_m: float, box: list) -> int:
    if not net.has_coordinates:
        raise PointError("this map has no coordinates: give points as a 'node' column of ids")
    return _box_snapper(net, box).snap_lonlat(lon, lat, max_distance_m=max_m).node
