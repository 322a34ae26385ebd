"""Line features → nodes and arcs: the noding shared by the GeoJSON, GeoPackage, GraphML
and OSM readers (stdlib + numpy only).

A reader hands over lines (lon/lat vertices) with properties; this module makes the
network. Choices:

* **Tags** are the properties ``highway``, ``railway``, ``oneway``, ``maxspeed`` and the
  access tags ``maps.model.profiles`` reads (``access``, ``foot``, ``junction``, ...); a line
  with neither ``highway`` nor ``railway`` counts as ``highway=road`` (walkable, drivable
  at 30 km/h), so an untagged line layer still makes a network. Directions and speeds
  follow ``maps.model.profiles`` exactly as for OSM ways.
* **Nodes** are line endpoints and vertices shared by two or more lines (or met twice by
  one line), matched exactly after rounding to 1e-7 degrees; the other vertices become the
  arcs' drawing geometry. Node ids are 1..N in order of coordinate key (sorted);
  ``edge_source_id`` is the id the reader gives each line.
* **Coordinates** come in the file's CRS and are transformed to WGS84 lon/lat once, all
  vertices together (``maps.geo.crs``), before noding; ``--split-crossings`` first adds the
  points where lines cross (``maps.geo.crossings``).
* **Lengths** are haversine sums along the vertices (metres on the ground, whatever the
  file's CRS).
* **Weights** come from the profile, or from a ``--weight`` column (``maps.model.weights``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..errors import EmptyMapError, MapFormatError
from ..geo.crs import to_lonlat
from ..geo.projection import centre_of, haversine_m, to_xy
from ..model import profiles as P
from ..source import read_bounded
from .build import network_from_arcs
from .chains import Arcs, contract_chains
from .network import KIND_RAIL, KIND_ROAD, RoadNetwork
from .weights import WeightSpec, apportion, scale_values

Progress = Callable[[float, str], None]

# Properties copied into the tag mapping maps.model.profiles reads.
TAG_KEYS = (
    "highway", "railway", "oneway", "maxspeed", "access", "foot", "vehicle", "motor_vehicle",
    "motorcar", "junction", "service", "area", "usage",
    "disused", "abandoned", "construction", "proposed", "razed",
)  # fmt: skip
_COORD_SCALE = 1e7  # vertices match after rounding to 1e-7 degrees


def read_source(
    path: str | os.PathLike, profile: str, progress: Progress | None
) -> tuple[str, bytes]:
    """(path as str, the file's bytes, decompressed when gzip/xz/bz2, within the limits of
    :mod:`maps.source`) after checking ``profile``: how a reader starts."""
    path = os.fspath(path)
    P.check_profile(profile)
    if progress:
        progress(0.0, "reading")
    return path, read_bounded(path)


# ---- tags and arc attributes ---------------------------------------------------------------
def tag_value(v: Any) -> str | None:
    """A property value as an OSM-style tag string (True → "yes"), or None."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        return str(v)
    if isinstance(v, str):
        s = v.strip()
        if s.lower() in ("true", "false"):
            return "yes" if s.lower() == "true" else "no"
        return s
    if isinstance(v, (list, tuple)) and v:
        return tag_value(v[0])  # OSMnx-style merged values: use the first
    return None


def tags_of(
    props: Mapping[str, Any] | None,
    keys: Sequence[str] = TAG_KEYS,
    value: Callable[[Any], str | None] = tag_value,
) -> dict[str, str]:
    """The tags of ``props`` (``keys`` only, each through ``value``), ``highway=road``
    when it has neither ``highway`` nor ``railway``."""
    tags: dict[str, str] = {}
    for k in keys:
        if props and k in props:
            v = value(props[k])
            if v:
                tags[k] = v
    if not tags.get("highway") and not tags.get("railway"):
        tags["highway"] = "road"
    return tags


def arc_attributes(profile: str, tags: Mapping[str, str]) -> tuple[bool, bool, str, int, float]:
    """(forward, backward, class name, kind, speed km/h) of a line with ``tags``."""
    fwd, bwd = P.directions(profile, tags)
    hw = tags.get("highway")
    cls = hw if hw else tags.get("railway", "road")
    kind = KIND_ROAD if hw else KIND_RAIL
    speed = 0.0
    if fwd or bwd:
        speed = P.speed_kmh(profile, cls, tags.get("maxspeed"))
    return fwd, bwd, cls, kind, speed


def class_table(names: Sequence[str], extra: Sequence[str] = ()) -> tuple[list[str], np.ndarray]:
    """Sorted class names (at most 255: the rarest fold into "other"), then ``extra``,
    and each of ``names``' index (edge_class is uint8)."""
    uniq = sorted(set(names))
    if len(uniq) > 254:
        from collections import Counter

        uniq = sorted(c for c, _ in Counter(names).most_common(253)) + ["other"]
    uniq += list(extra)
    index = {c: i for i, c in enumerate(uniq)}
    other = index.get("other", 0)
    return uniq, np.array([index.get(c, other) for c in names], dtype=np.uint8)


def haversine_length(coords: np.ndarray) -> float:
    """Length in metres of a lon/lat polyline."""
    if coords.shape[0] < 2:
        return 0.0
    return float(haversine_m(coords[:-1, 0], coords[:-1, 1], coords[1:, 0], coords[1:, 1]).sum())


# ---- noding: points of segments → pieces between graph nodes ------------------------------
@dataclass
class Pieces:
    """The parts of segments between consecutive graph nodes (one per future arc pair)."""

    node_pts: np.ndarray  # the points that are graph nodes, in order
    node_of: np.ndarray  # graph node index of each of them
    first_pt: np.ndarray  # per graph node: the first point that is it
    a_pt: np.ndarray  # per piece: its first and last point
    b_pt: np.ndarray
    a_node: np.ndarray  # per piece: its end nodes
    b_node: np.ndarray
    seg: np.ndarray  # per piece: its segment
    length: np.ndarray  # per piece: haversine metres along its points

    def per_piece(self, per_segment: Sequence[Any], dtype: Any) -> np.ndarray:
        """A per-segment value for every piece."""
        return np.asarray(per_segment, dtype=dtype)[self.seg]

    def inner(self, pts: np.ndarray) -> list[np.ndarray | None]:
        """Per piece, its points strictly between the ends (None: straight)."""
        return [
            pts[a + 1 : b] if b - a > 1 else None
            for a, b in zip(self.a_pt.tolist(), self.b_pt.tolist(), strict=True)
        ]


def split_pieces(
    key: np.ndarray,
    seg_of: np.ndarray,
    is_node: np.ndarray,
    lon: np.ndarray,
    lat: np.ndarray,
    seg_ok: np.ndarray | None = None,
) -> tuple[np.ndarray, Pieces]:
    """Cut segments at their node points. Points with equal ``key`` are one graph node
    (nodes numbered in key order); ``seg_ok`` drops the pieces of segments it marks False.
    Returns (the node keys, the pieces)."""
    node_pts = np.flatnonzero(is_node)
    ukeys, node_of = np.unique(key[node_pts], return_inverse=True)
    first_pt = np.zeros(ukeys.shape[0], dtype=np.int64)
    first_pt[node_of[::-1]] = node_pts[::-1]  # any point of the node gives its position
    same = seg_of[node_pts[:-1]] == seg_of[node_pts[1:]]
    a_pt, b_pt = node_pts[:-1][same], node_pts[1:][same]
    a_node, b_node = node_of[:-1][same], node_of[1:][same]
    seg = seg_of[a_pt]
    if seg_ok is not None:
        keep = seg_ok[seg]
        a_pt, b_pt, a_node, b_node, seg = (v[keep] for v in (a_pt, b_pt, a_node, b_node, seg))
    step = np.zeros(lon.shape[0], dtype=np.float64)
    if lon.shape[0] > 1:
        d = haversine_m(lon[:-1], lat[:-1], lon[1:], lat[1:])
        d[seg_of[:-1] != seg_of[1:]] = 0.0
        step[1:] = d
    cum = np.cumsum(step)
    length = cum[b_pt] - cum[a_pt]
    return ukeys, Pieces(node_pts, node_of, first_pt, a_pt, b_pt, a_node, b_node, seg, length)


def orient(
    fwd: np.ndarray, bwd: np.ndarray, pieces: Pieces, geom: list[np.ndarray | None]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray | None]]:
    """Arcs of the pieces: all forward ones (``fwd`` per piece), then all backward ones.
    Returns (piece of each arc, tails, heads, inner geometry per arc)."""
    f, b = np.flatnonzero(fwd), np.flatnonzero(bwd)
    tails = np.concatenate([pieces.a_node[f], pieces.b_node[b]])
    heads = np.concatenate([pieces.b_node[f], pieces.a_node[b]])
    geometry = [geom[i] for i in f.tolist()]
    geometry += [None if (g := geom[i]) is None else g[::-1] for i in b.tolist()]
    return np.concatenate([f, b]), tails, heads, geometry


# ---- lon/lat arcs → network ----------------------------------------------------------------
class LonLatArcs(NamedTuple):
    """Arcs between lon/lat nodes, before weighting (one entry per arc)."""

    tails: np.ndarray  # node indices
    heads: np.ndarray
    lengths: np.ndarray  # metres
    speeds: np.ndarray  # km/h
    kinds: np.ndarray  # uint8
    classes: np.ndarray  # uint8 index into the class names
    source_ids: np.ndarray  # int64
    geometry: list[np.ndarray | None]  # inner points (k, 2) lon/lat; None: straight


def assemble(
    nodes: tuple[np.ndarray, np.ndarray, np.ndarray],
    arcs: LonLatArcs,
    *,
    path: str,
    profile: str,
    contract: bool,
    class_names: list[str],
    meta: dict,
    weighted: tuple[np.ndarray, str, str] | None = None,
) -> RoadNetwork:
    """Weight the arcs, drop nodes no arc uses, contract if asked, build the network.

    ``nodes`` = (lon, lat, node ids) of every node the arcs' indices refer to;
    ``weighted`` = (int weight per arc, unit, profile name) of a ``--weight`` column
    (None: the profile weighs the arcs).
    """
    lon, lat, node_ids = nodes
    tails, heads, lengths, speeds, kinds, classes, source_ids, geom_lonlat = arcs
    tails = np.asarray(tails, dtype=np.int64)
    heads = np.asarray(heads, dtype=np.int64)
    if tails.size == 0:
        raise EmptyMapError(f"no line is usable by the {profile!r} profile", path=path)
    used = np.unique(np.concatenate([tails, heads]))
    remap = np.full(lon.shape[0], -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    tails, heads = remap[tails], remap[heads]
    lon, lat, node_ids = lon[used], lat[used], np.asarray(node_ids)[used]
    origin = centre_of(lon, lat)
    x, y = to_xy(lon, lat, origin)
    geometry: list[np.ndarray | None] = []
    for g in geom_lonlat:
        if g is None or len(g) == 0:
            geometry.append(None)
        else:
            gx, gy = to_xy(g[:, 0], g[:, 1], origin)
            geometry.append(np.column_stack([gx, gy]))
    if weighted is None:
        weights, unit = P.arc_weights(profile, np.asarray(lengths, dtype=np.float64), speeds), None
    else:
        weights, unit, profile = weighted
    xy_arcs = Arcs(
        tails=tails,
        heads=heads,
        weights=weights,
        lengths=np.asarray(lengths, dtype=np.float64),
        kinds=np.asarray(kinds, dtype=np.uint8),
        classes=np.asarray(classes, dtype=np.uint8),
        source_ids=np.asarray(source_ids, dtype=np.int64),
        geometry=geometry,
    )
    n = lon.shape[0]
    if contract:
        kept, xy_arcs = contract_chains(n, xy_arcs, np.column_stack([x, y]))
        lon, lat, node_ids = lon[kept], lat[kept], node_ids[kept]
    return network_from_arcs(
        xy_arcs, node_ids=node_ids, lon=lon, lat=lat, origin=origin, profile=profile,
        class_names=class_names, path=path, meta={**meta, "contracted": bool(contract)},
        unit=unit,
    )  # fmt: skip


class LineSet:
    """The lines a vector reader collects: vertices (k, 2) in the file's CRS, tags,
    source id and, under ``--weight``, each feature's cost. ``crs`` is the CRS the file
    names (None: none); :meth:`network` transforms every vertex to lon/lat at once."""

    def __init__(self, path: str, weight: WeightSpec | None = None, crs: Any = None) -> None:
        self.path = path
        self.weight = weight
        self.crs = crs
        self.lines: list[np.ndarray] = []
        self.tags: list[dict[str, str]] = []
        self.source_ids: list[int] = []
        self.feature: list[int] = []  # per line: its feature's index into costs
        self.costs: list[float] = []  # per feature with lines (only under --weight)
        self.skipped = 0  # features without line geometry
        self.notes: list[str] = []  # load warnings (meta["load_warnings"])

    def add(
        self, lines: list[np.ndarray], props: Mapping[str, Any] | None, source_id: int, where: str
    ) -> None:
        """A feature's lines (``where`` names it in error messages: layer, index, id)."""
        for ln in lines:
            if ln.shape[0] < 2:
                raise MapFormatError(f"{where}: a LineString needs at least 2 positions", path=self.path)
        if self.weight is not None:
            self.costs.append(self.weight.value(props, self.path, where))
        tags = tags_of(props)
        for ln in lines:
            self.lines.append(ln)
            self.tags.append(tags)
            self.source_ids.append(source_id)
            self.feature.append(len(self.costs) - 1)

    def network(
        self, *, profile: str, contract: bool, progress: Progress | None, meta: dict,
        crs: str | None = None, split_crossings: bool = False,
    ) -> RoadNetwork:
        """The network of the lines (``meta`` gains ``skipped_features`` and ``crs``);
        ``crs`` overrides the file's (``--crs``), ``split_crossings`` also nodes lines
        where they cross."""
        path = self.path
        if progress:
            progress(0.3, f"{len(self.lines):,} lines")
        lines = self.lines
        if split_crossings and lines:
            from ..geo.crossings import split_at_crossings

            lines = split_at_crossings(lines)
        pts = np.concatenate(lines) if lines else np.zeros((0, 2))
        lon, lat, label = to_lonlat(pts[:, 0], pts[:, 1], self.crs, override=crs, path=path)
        if not lines:
            raise EmptyMapError("the file has no line features", path=path)
        ends = np.cumsum([ln.shape[0] for ln in lines])[:-1]
        lonlat = np.split(np.column_stack([lon, lat]), ends)
        costs = None
        if self.weight is not None:
            feature = np.asarray(self.feature, dtype=np.int64)
            costs = (self.weight, np.asarray(self.costs, dtype=np.float64)[feature], feature)
        return lines_to_network(
            lonlat, self.tags, self.source_ids, path=path, profile=profile, contract=contract,
            progress=progress, costs=costs,
            by_profile=self.weight is None or self.weight.by_profile,
            meta={**meta, "skipped_features": self.skipped, "crs": label,
                  **({"load_warnings": list(self.notes)} if self.notes else {})},
        )  # fmt: skip


def line_directions(
    profile: str, tags: Mapping[str, str], by_profile: bool
) -> tuple[bool, bool, str, int, float]:
    """:func:`arc_attributes`, or under ``--weight`` alone (``by_profile`` False) every
    line in the directions of its ``oneway`` tag (speed 0: unused)."""
    if by_profile:
        return arc_attributes(profile, tags)
    hw = tags.get("highway")
    fwd, bwd = P.oneway_directions(tags)
    return fwd, bwd, hw if hw else tags.get("railway", "road"), KIND_ROAD if hw else KIND_RAIL, 0.0


def lines_to_network(
    lines: list[np.ndarray],
    tags: list[dict[str, str]],
    source_ids: list[int],
    *,
    path: str,
    profile: str,
    contract: bool,
    meta: dict,
    progress: Progress | None = None,
    costs: tuple[WeightSpec, np.ndarray, np.ndarray] | None = None,
    by_profile: bool = True,
) -> RoadNetwork:
    """Split ``lines`` (each (k, 2) lon/lat) at shared vertices and build the network.
    ``costs`` = (the --weight spec, per line its feature's cost, per line its feature
    index; lines of one feature are consecutive)."""
    P.check_profile(profile)
    keep = [i for i, ln in enumerate(lines) if ln.shape[0] >= 2]
    if not keep:
        raise EmptyMapError("the file has no line features", path=path)
    attrs = [line_directions(profile, tags[i], by_profile) for i in keep]
    usable = [j for j, a in enumerate(attrs) if a[0] or a[1]]
    if not usable:
        raise EmptyMapError(
            f"no line is usable by the {profile!r} profile ({len(keep)} lines read)", path=path
        )
    sel = [keep[j] for j in usable]
    attrs = [attrs[j] for j in usable]
    pts = np.concatenate([lines[i] for i in sel]).astype(np.float64)
    counts = np.array([lines[i].shape[0] for i in sel], dtype=np.int64)
    seg_of = np.repeat(np.arange(len(sel)), counts)
    qlon = np.rint(pts[:, 0] * _COORD_SCALE).astype(np.int64) + 1_800_000_000
    qlat = np.rint(pts[:, 1] * _COORD_SCALE).astype(np.int64) + 900_000_000
    key = (qlon.astype(np.uint64) << np.uint64(32)) | qlat.astype(np.uint64)
    # Consecutive repeats of a vertex within a line carry no information: drop them.
    dup = np.zeros(key.shape[0], dtype=bool)
    dup[1:] = (key[1:] == key[:-1]) & (seg_of[1:] == seg_of[:-1])
    pts, key, seg_of = pts[~dup], key[~dup], seg_of[~dup]
    counts = np.bincount(seg_of, minlength=len(sel))
    starts = np.concatenate([[0], np.cumsum(counts)])
    if progress:
        progress(0.5, "finding junctions")
    _, inv, kcount = np.unique(key, return_inverse=True, return_counts=True)
    is_node = kcount[inv] >= 2
    nonempty = counts > 0
    is_node[starts[:-1][nonempty]] = True
    is_node[starts[1:][nonempty] - 1] = True
    # A line of one repeated point has no arc.
    ukeys, pc = split_pieces(key, seg_of, is_node, pts[:, 0], pts[:, 1], seg_ok=counts >= 2)
    n = ukeys.shape[0]

    fwd, bwd, cls, kind, speed = zip(*attrs, strict=True)  # per line
    names, cls_idx = class_table(cls)
    arc_piece, tails, heads, geom = orient(
        pc.per_piece(fwd, bool), pc.per_piece(bwd, bool), pc, pc.inner(pts)
    )
    if progress:
        progress(0.8, "building the graph")
    weighted = None
    if costs is not None:
        spec, per_line, feature = costs
        fidx = np.asarray(feature, dtype=np.int64)[sel]
        _, first, inv = np.unique(fidx, return_index=True, return_inverse=True)
        ints, unit = scale_values(np.asarray(per_line, dtype=np.float64)[sel][first], spec.dimension, path,
                                  spec.column)
        group = inv[pc.seg]  # pieces of one feature share its cost, by length
        share = apportion(ints, group, pc.length)
        weighted = (share[arc_piece], unit, spec.profile_name)
    return assemble(
        (pts[pc.first_pt, 0], pts[pc.first_pt, 1], np.arange(1, n + 1, dtype=np.int64)),
        LonLatArcs(
            tails,
            heads,
            pc.length[arc_piece],
            pc.per_piece(speed, np.float64)[arc_piece],
            pc.per_piece(kind, np.uint8)[arc_piece],
            cls_idx[pc.seg][arc_piece],
            pc.per_piece([source_ids[i] for i in sel], np.int64)[arc_piece],
            geom,
        ),
        path=path,
        profile=profile,
        contract=contract,
        class_names=names,
        meta={**meta, "lines": len(sel)},
        weighted=weighted,
    )
