"""GraphML road graphs as OSMnx ``save_graphml`` writes them (stdlib expat + numpy).
(Over 500 lines: the expat reader and the edge → arc rules of this one format, kept
together; load_graphml's steps are split into helpers to stay under complexity 20.)

OSMnx stores a MultiDiGraph: nodes with ``x`` (lon), ``y`` (lat), ``osmid``; edges with
``length`` (metres), ``highway``, ``oneway``, ``osmid``, ``maxspeed`` and ``geometry`` (WKT
``LINESTRING (lon lat, ...)``) and an edge key (the ``id`` attribute). Values written by
OSMnx are strings; merged attributes look like Python lists (``"['primary', 'secondary']"``):
the first element is used. networkx's ``write_graphml`` output (typed keys, ``edgedefault``
directed or undirected; missing means undirected, as networkx reads it) reads the same way.
The graph's ``crs`` attribute (OSMnx ``project_graph``: a PROJ string, WKT or ``epsg:N``)
says what ``x``/``y`` and the geometries are in; they are transformed to lon/lat on load
(``maps.geo.crs``), ``length`` stays as written (metres). ``weight`` (``--weight``) makes an
edge attribute the cost (``maps.model.weights``). No networkx or shapely at runtime.

Choices:

* **Arcs.** In a directed graph every edge is one arc source→target (OSMnx already writes
  both directions of a two-way street), used when ``maps.model.profiles`` lets the profile use
  the road at all. Walking profiles also walk one-way streets backwards: an edge with
  ``oneway`` true gets a reverse arc unless the file already has an edge target→source
  with the same ``osmid``. In an undirected graph each edge gives the directions
  ``maps.model.profiles.directions`` allows (``oneway`` respected by ``drive``). A one-way
  edge of an undirected graph (OSMnx ``to_undirected``, where source/target are swapped for
  about half the edges) runs the way OSMnx recorded it: its ``from``/``to`` attributes,
  else the end its geometry starts at, else source → target (:func:`_oneway_ends`).
* **Weights** by profile through ``maps.model.profiles`` (length → dm; walk/drive → ds from the
  class speed or ``maxspeed``). ``length`` comes from the edge, else from the geometry.
* **Nodes** keep the GraphML node id (an int when numeric; otherwise 1..N in file order,
  the names kept in ``meta["node_names"]``). Nodes without any usable arc are dropped.
* ``edge_source_id`` = the edge's ``osmid`` (first of a list), else its edge key.
"""

from __future__ import annotations

import ast
import math
import os
import re
from typing import Any
from xml.parsers import expat

import numpy as np

from ..errors import EmptyMapError, MapFormatError
from ..geo.crs import to_lonlat
from ..geo.projection import haversine_m
from ..model.lines import (
    LonLatArcs,
    Progress,
    assemble,
    class_table,
    haversine_length,
    line_directions,
    read_source,
    tag_value,
    tags_of,
)
from ..model.network import RoadNetwork
from ..model.weights import WeightSpec, scale_values

# Edge attributes kept while parsing (everything else is skipped to save memory).
_EDGE_KEYS = {
    "length", "geometry", "osmid", "highway", "railway", "oneway", "maxspeed", "access",
    "foot", "junction", "service", "motor_vehicle", "motorcar", "vehicle", "area", "reversed",
    "from", "to",
}  # fmt: skip
_NODE_KEYS = {"x", "y", "lon", "lat", "osmid"}
# Edge attributes read as tags ("oneway" is read apart: it also marks edges to walk back).
_TAG_KEYS = ("highway", "railway", "maxspeed", "access", "foot", "junction", "service",
             "motor_vehicle", "motorcar", "vehicle", "area")  # fmt: skip
_WKT = re.compile(r"^\s*LINESTRING\s*(?:ZM|Z|M)?\s*\((.*)\)\s*$", re.IGNORECASE | re.DOTALL)


def parse_wkt_linestring(text: str, lonlat: bool = True) -> np.ndarray:
    """(k, 2) x/y of a WKT ``LINESTRING [Z|M|ZM] (x y [z [m]], ...)``; ValueError if bad
    (with ``lonlat``, a point outside lon/lat too: a file that names no CRS)."""
    if text.strip().upper().endswith("EMPTY"):
        return np.zeros((0, 2))
    m = _WKT.match(text)
    if not m:
        raise ValueError("not a WKT LINESTRING")
    pts = []
    for part in m.group(1).split(","):
        nums = part.split()
        if len(nums) < 2:
            raise ValueError(f"bad WKT point {part.strip()!r}")
        pts.append((float(nums[0]), float(nums[1])))
    arr = np.array(pts, dtype=np.float64).reshape(-1, 2)
    if not np.isfinite(arr).all():
        raise ValueError("a WKT coordinate is not finite")
    if lonlat and arr.size and (np.abs(arr[:, 0]).max() > 180 or np.abs(arr[:, 1]).max() > 90):
        bad = arr[(np.abs(arr[:, 0]) > 180) | (np.abs(arr[:, 1]) > 90)][0]
        raise ValueError(f"WKT point ({bad[0]:g} {bad[1]:g}) is not a lon/lat position")
    return arr


def _first(value: str) -> str:
    """The first element of an OSMnx list-valued attribute, else the value itself."""
    v = value.strip()
    if v.startswith("[") and v.endswith("]"):
        try:
            lst = ast.literal_eval(v)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return v
        if isinstance(lst, list) and lst:
            return str(lst[0])
    return v


def _as_int(value: str | None) -> int | None:
    if value is None:
        return None
    v = _first(value)
    try:
        f = float(v) if not v.lstrip("-").isdigit() else int(v)
    except ValueError:
        return None
    if isinstance(f, float):
        if not f.is_integer():
            return None
        f = int(f)
    return f if -(2**63) <= f < 2**63 else None


_CANONICAL_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,18})")


def _canonical_int(text: str) -> int | None:
    """A node id as an integer only when the file wrote it as one (``"12"``, not ``"012"``,
    ``"12.0"`` or ``" 12"``): ids are strings, so "1" and "01" are two nodes."""
    if not _CANONICAL_INT.fullmatch(text):
        return None
    v = int(text)
    return v if -(2**63) <= v < 2**63 else None


def _tag(value: str) -> str | None:
    return tag_value(_first(value))


def _truthy(value: str | None) -> bool:
    return value is not None and _first(value).strip().lower() in ("true", "yes", "1")


class _Reader:
    """expat callbacks collecting keys, nodes and edges (with line numbers for errors)."""

    def __init__(self, path: str, edge_keys: frozenset[str] = frozenset()):
        self.path = path
        self.edge_keys = _EDGE_KEYS | edge_keys
        self.graph_data: dict[str, str] = {}  # <data> of the <graph> itself (OSMnx: crs)
        self._in_graph = False
        self.keys: dict[str, tuple[str, str]] = {}  # id -> (for, attr.name)
        self.defaults: dict[str, str] = {}
        self.directed = True
        self.nodes: list[tuple[str, dict[str, str], int]] = []
        self.edges: list[tuple[str, str, str | None, dict[str, str], int, bool | None]] = []
        self._cur: dict[str, str] | None = None
        self._cur_kind = ""
        self._cur_attrs: dict[str, str] = {}
        self._cur_line = 0
        self._data_key: str | None = None
        self._text: list[str] = []
        self._key_id: str | None = None
        self._in_default = False
        self.parser = expat.ParserCreate()
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.chars
        self.saw_graphml = False

    def error(self, msg: str) -> MapFormatError:
        return MapFormatError(msg, path=self.path, line=self.parser.CurrentLineNumber)

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        tag = tag.rsplit(":", 1)[-1]
        if tag == "graphml":
            self.saw_graphml = True
        elif tag == "key":
            kid = attrs.get("id")
            if kid is None:
                raise self.error("<key> without an id")
            self.keys[kid] = (attrs.get("for", "all"), attrs.get("attr.name", kid))
            self._key_id = kid
        elif tag == "default" and self._key_id is not None:
            self._in_default = True
            self._text = []
        elif tag == "graph":
            # As networkx reads it: directed only when it says so (a missing edgedefault,
            # which the GraphML schema requires, is taken as undirected).
            self.directed = attrs.get("edgedefault") == "directed"
            self._in_graph = True
        elif tag in ("node", "edge"):
            self._cur = {}
            self._cur_kind = tag
            self._cur_attrs = attrs
            self._cur_line = self.parser.CurrentLineNumber
            if tag == "node" and "id" not in attrs:
                raise self.error("<node> without an id")
            if tag == "edge" and ("source" not in attrs or "target" not in attrs):
                raise self.error("<edge> without source and target")
        elif tag == "data" and (self._cur is not None or self._in_graph):
            self._data_key = attrs.get("key")
            self._text = []

    def chars(self, text: str) -> None:
        if self._data_key is not None or self._in_default:
            self._text.append(text)

    def end(self, tag: str) -> None:
        tag = tag.rsplit(":", 1)[-1]
        if tag == "default" and self._in_default and self._key_id is not None:
            self.defaults[self._key_id] = "".join(self._text)
            self._in_default = False
        elif tag == "key":
            self._key_id = None
        elif tag == "data" and self._data_key is not None:
            name = self.keys.get(self._data_key, ("all", self._data_key))[1]
            if self._cur is None:
                self.graph_data[name] = "".join(self._text)
            elif name in (_NODE_KEYS if self._cur_kind == "node" else self.edge_keys):
                self._cur[name] = "".join(self._text)
            self._data_key = None
        elif tag == "graph":
            self._in_graph = False
        elif tag in ("node", "edge") and self._cur is not None:
            a = self._cur_attrs
            if tag == "node":
                self.nodes.append((a["id"], self._cur, self._cur_line))
            else:
                d = a.get("directed")
                directed = None if d is None else d.lower() == "true"
                self.edges.append((a["source"], a["target"], a.get("id"), self._cur,
                                   self._cur_line, directed))  # fmt: skip
            self._cur = None


def load_graphml(
    path: str | os.PathLike,
    profile: str = "length",
    contract: bool = False,
    progress: Progress | None = None,
    crs: str | None = None,
    weight: WeightSpec | None = None,
) -> RoadNetwork:
    """Load an OSMnx-style GraphML file (plain or .gz) with weights of ``profile`` (or of
    the ``weight`` column); ``crs`` (``--crs``) overrides the graph's ``crs``."""
    path, raw = read_source(path, profile, progress)
    rd = _parse(path, raw, weight)
    if progress:
        progress(0.5, f"{len(rd.nodes):,} nodes, {len(rd.edges):,} edges")
    node_defaults = {
        rd.keys[k][1]: v for k, v in rd.defaults.items() if rd.keys[k][0] in ("node", "all")
    }
    edge_defaults = {
        rd.keys[k][1]: v for k, v in rd.defaults.items() if rd.keys[k][0] in ("edge", "all")
    }

    n = len(rd.nodes)
    lon, lat, ids, numeric, index = _nodes(rd, node_defaults, path)
    file_crs = rd.graph_data.get("crs") or None
    meta: dict[str, Any] = {"format": "graphml", "directed": rd.directed}
    if not numeric or np.unique(ids).size != n:
        ids = np.arange(1, n + 1, dtype=np.int64)
        meta["node_names"] = [nid for nid, _, _ in rd.nodes]

    present, parsed = _edges(rd, index, edge_defaults, path)
    # a projected graph (OSMnx project_graph) has its geometries in the graph's CRS too
    geoms = _edge_geometries(parsed, path, lonlat=file_crs is None and crs is None)
    # Nodes and edge geometries to WGS84 together (one transform).
    counts = [0 if g is None else g.shape[0] for g in geoms]
    xy = np.concatenate([np.column_stack([lon, lat])] + [g for g in geoms if g is not None])
    lon_all, lat_all, meta["crs"] = to_lonlat(
        xy[:, 0], xy[:, 1], file_crs, override=crs, path=path
    )
    lon, lat = lon_all[:n], lat_all[:n]
    ends = n + np.cumsum(counts)
    geoms = [
        None if g is None else np.column_stack([lon_all[e - c : e], lat_all[e - c : e]])
        for g, c, e in zip(geoms, counts, ends.tolist(), strict=True)
    ]

    tails: list[int] = []
    heads: list[int] = []
    lengths: list[float] = []
    speeds: list[float] = []
    kinds: list[int] = []
    cls_names: list[str] = []
    sids: list[int] = []
    arc_geoms: list[np.ndarray | None] = []
    costs: list[float] = []
    node_of = _node_lookup(rd.nodes, index)
    by_profile = weight is None or weight.by_profile
    walking = profile != "drive" and by_profile
    for (u, v, key, d, line, directed), geom in zip(parsed, geoms, strict=True):
        tags = tags_of(d, _TAG_KEYS, _tag)
        oneway = _truthy(d.get("oneway"))
        if not directed and oneway:
            tags["oneway"] = "yes"
            u, v = _oneway_ends(u, v, d, geom, lon, lat, node_of)
        fwd, bwd, cls, arc_kind, speed = line_directions(profile, tags, by_profile)
        if directed:
            # The file gives this direction; the profile decides only whether the road is
            # usable (one-way rules are already in the edge list).
            use = fwd or bwd
            fwd, bwd = use, False
            if use and walking and oneway:
                osmid = d.get("osmid")
                bwd = (v, u, _first(osmid) if osmid else "") not in present
        if not (fwd or bwd):
            continue
        geom = _from_tail(geom, lon, lat, u)
        length = _edge_length(d, geom, (lon, lat), (u, v), path, line)
        if weight is not None:
            where = f"edge {rd.nodes[u][0]!r} -> {rd.nodes[v][0]!r}"
            cost = weight.value({k: _first(x) for k, x in d.items()}, path, where, line=line)
        inner = geom[1:-1] if geom is not None and geom.shape[0] > 2 else None
        sid = _source_id(d, key)
        back = None if inner is None else inner[::-1]
        for a, b, g, ok in ((u, v, inner, fwd), (v, u, back, bwd)):
            if ok:
                tails.append(a)
                heads.append(b)
                lengths.append(length)
                speeds.append(speed)
                kinds.append(arc_kind)
                cls_names.append(cls)
                sids.append(sid)
                arc_geoms.append(g)
                if weight is not None:
                    costs.append(cost)
    if not tails:
        raise EmptyMapError(
            f"no edge is usable by the {profile!r} profile ({len(parsed)} edges read)", path=path
        )
    names, cls_idx = class_table(cls_names)
    if progress:
        progress(0.8, "building the graph")
    arcs = LonLatArcs(
        np.array(tails, dtype=np.int64),
        np.array(heads, dtype=np.int64),
        np.array(lengths),
        np.array(speeds),
        np.array(kinds, dtype=np.uint8),
        cls_idx,
        np.array(sids, dtype=np.int64),
        arc_geoms,
    )
    weighted = None
    if weight is not None:
        ints, unit = scale_values(np.array(costs), weight.dimension, path, weight.column)
        weighted = (ints, unit, weight.profile_name)
    return assemble(
        (lon, lat, ids), arcs, path=path, profile=profile, contract=contract, class_names=names,
        meta=meta, weighted=weighted,
    )  # fmt: skip


def _parse(path: str, raw: bytes, weight: WeightSpec | None) -> _Reader:
    """The file parsed (keys, nodes, edges); MapFormatError/EmptyMapError naming the line."""
    rd = _Reader(path, frozenset({weight.column}) if weight else frozenset())
    try:
        rd.parser.Parse(raw, True)
    except expat.ExpatError as exc:
        raise MapFormatError(
            f"invalid XML: {expat.ErrorString(exc.code)}", path=path, line=exc.lineno
        ) from None
    except (LookupError, UnicodeError, ValueError) as exc:  # e.g. an unknown encoding=
        raise MapFormatError(
            f"unreadable XML: {exc}", path=path, line=rd.parser.CurrentLineNumber
        ) from None
    if not rd.saw_graphml:
        raise MapFormatError("not GraphML: no <graphml> element", path=path, line=1)
    if not rd.nodes:
        raise EmptyMapError("the graph has no nodes", path=path)
    return rd


def _nodes(rd: _Reader, node_defaults: dict[str, str], path: str):
    """(x, y, ids, all ids canonical integers, index by GraphML id) of the nodes."""
    n = len(rd.nodes)
    index: dict[str, int] = {}
    lon = np.empty(n)
    lat = np.empty(n)
    ids = np.empty(n, dtype=np.int64)
    numeric = True
    for i, (nid, data, line) in enumerate(rd.nodes):
        if nid in index:
            raise MapFormatError(f"node {nid!r} declared twice", path=path, line=line)
        index[nid] = i
        d = {**node_defaults, **data}
        xs, ys = d.get("x", d.get("lon")), d.get("y", d.get("lat"))
        if xs is None or ys is None:
            raise MapFormatError(f"node {nid!r} has no x/y coordinates", path=path, line=line)
        try:
            lon[i], lat[i] = float(xs), float(ys)
        except ValueError:
            raise MapFormatError(
                f"node {nid!r}: coordinates {xs!r}, {ys!r} are not numbers", path=path, line=line
            ) from None
        if not (math.isfinite(lon[i]) and math.isfinite(lat[i])):
            raise MapFormatError(
                f"node {nid!r}: ({xs}, {ys}) is not a finite position", path=path, line=line
            )
        v = _canonical_int(nid)
        if v is None:
            numeric = False
        else:
            ids[i] = v
    return lon, lat, ids, numeric, index


def _edges(rd: _Reader, index: dict[str, int], edge_defaults: dict[str, str], path: str):
    """(set of (u, v, osmid) present, per edge (u, v, key, data, line, directed))."""
    present: set[tuple[int, int, str]] = set()
    parsed = []
    for src, dst, key, data, line, edir in rd.edges:
        if src not in index or dst not in index:
            missing = src if src not in index else dst
            raise MapFormatError(
                f"edge refers to undeclared node {missing!r}", path=path, line=line
            )
        u, v = index[src], index[dst]
        d = {**edge_defaults, **data}
        if edir is not None and edir != rd.directed:  # networkx refuses mixed graphs too
            kind = "a directed" if rd.directed else "an undirected"
            raise MapFormatError(
                f"directed={str(edir).lower()} edge in {kind} graph", path=path, line=line
            )
        directed = rd.directed
        osmid = d.get("osmid")
        present.add((u, v, _first(osmid) if osmid else ""))
        parsed.append((u, v, key, d, line, directed))
    return present, parsed


def _from_tail(geom: np.ndarray | None, lon: np.ndarray, lat: np.ndarray,
               u: int) -> np.ndarray | None:
    """OSMnx geometries run source → target; one that runs the other way, flipped."""
    if geom is not None and geom.shape[0] >= 2:
        d_fwd = abs(geom[0, 0] - lon[u]) + abs(geom[0, 1] - lat[u])
        d_rev = abs(geom[-1, 0] - lon[u]) + abs(geom[-1, 1] - lat[u])
        if d_rev < d_fwd:
            return geom[::-1]
    return geom


def _edge_length(d: dict[str, str], geom: np.ndarray | None, lonlat: tuple, ends: tuple,
                 path: str, line: int) -> float:
    """The edge's ``length`` (m), else its geometry's, else the straight line's."""
    if d.get("length") not in (None, ""):
        try:
            length = float(_first(d["length"]))
        except ValueError:
            raise MapFormatError(
                f"edge length {d['length']!r} is not a number", path=path, line=line
            ) from None
        if not (math.isfinite(length) and length >= 0):
            raise MapFormatError(f"edge length {length} is not >= 0", path=path, line=line)
        return length
    if geom is not None and geom.shape[0] >= 2:
        return haversine_length(geom)
    (lon, lat), (u, v) = lonlat, ends
    return float(haversine_m(lon[u], lat[u], lon[v], lat[v]))


def _source_id(d: dict[str, str], key: str | None) -> int:
    """The edge's ``osmid`` (first of a list), else its key as an integer, else -1."""
    sid = _as_int(d.get("osmid"))
    if sid is None:
        sid = _as_int(key) if key is not None else -1
    return -1 if sid is None else sid


def _node_lookup(nodes: list, index: dict[str, int]) -> dict[str, int]:
    """Node index by GraphML id, and by ``osmid`` where that is not also an id (OSMnx's
    ``from``/``to`` name nodes by their OSM id)."""
    out = dict(index)
    for i, (_, data, _) in enumerate(nodes):
        osmid = data.get("osmid")
        if osmid is not None:
            out.setdefault(_first(osmid).strip(), i)
    return out


def _oneway_ends(
    u: int, v: int, d: dict[str, str], geom: np.ndarray | None,
    lon: np.ndarray, lat: np.ndarray, node_of: dict[str, int],
) -> tuple[int, int]:
    """The (tail, head) of a one-way edge u–v of an undirected graph: by its ``from``/``to``
    (OSMnx keeps the way's direction there), else by the end its geometry starts at (OSMnx
    geometries run from → to), else u → v as written."""
    f, t = d.get("from"), d.get("to")
    if f is not None and t is not None:
        a, b = node_of.get(_first(f).strip()), node_of.get(_first(t).strip())
        if (a, b) == (v, u):
            return v, u
        if (a, b) == (u, v):
            return u, v
    if geom is not None and geom.shape[0] >= 2 and u != v:
        def gap(k: int, node: int) -> float:
            return abs(geom[k, 0] - lon[node]) + abs(geom[k, 1] - lat[node])

        if gap(0, v) + gap(-1, u) < gap(0, u) + gap(-1, v):
            return v, u
    return u, v


def _edge_geometries(parsed: list, path: str, lonlat: bool) -> list[np.ndarray | None]:
    """Each edge's WKT ``geometry`` as (k, 2) in the file's CRS (None: none); ``lonlat``:
    no CRS is named, so they must be lon/lat."""
    out: list[np.ndarray | None] = []
    for _, _, _, d, line, _ in parsed:
        geom = None
        if d.get("geometry"):
            try:
                geom = parse_wkt_linestring(d["geometry"], lonlat)
            except ValueError as exc:
                raise MapFormatError(f"edge geometry: {exc}", path=path, line=line) from None
        out.append(geom)
    return out
