"""GeoJSON and GeoPackage line layers → :class:`RoadNetwork` (stdlib + numpy only).

Both formats give a list of lines (lon/lat vertices) with properties. Choices:

* **Lines** are ``LineString``/``MultiLineString`` features (GeometryCollections are
  searched); other geometries are counted in ``meta["skipped_features"]`` and ignored.
* **Tags** are the feature properties ``highway``, ``railway``, ``oneway``, ``maxspeed``
  and the access tags ``maps.profiles`` reads (``access``, ``foot``, ``junction``, ...);
  a line with neither ``highway`` nor ``railway`` counts as ``highway=road`` (walkable,
  drivable at 30 km/h), so an untagged line layer still makes a network. Directions and
  speeds follow ``maps.profiles`` exactly as for OSM ways.
* **Nodes** are line endpoints and vertices shared by two or more lines (or met twice by
  one line), matched exactly after rounding to 1e-7 degrees; the other vertices become the
  arcs' drawing geometry. Node ids are 1..N in order of first appearance by coordinate
  key (sorted); ``edge_source_id`` is the feature id (GeoJSON integer ``id``, GeoPackage
  fid) or the feature's index.
* **Coordinates** must be WGS84 lon/lat: a GeoJSON ``crs`` member or a GeoPackage SRS
  other than EPSG:4326 raises MapFormatError.
* **Lengths** are haversine sums along the vertices (metres).

GeoPackage geometry blobs ("GP" header + WKB) are decoded here: LineString and
MultiLineString in 2D, Z, M and ZM (ISO and EWKB type codes), either byte order.
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from . import profiles as P
from .build import build_network
from .contract import Arcs, contract_chains
from .errors import EmptyMapError, MapFormatError
from .network import KIND_RAIL, KIND_ROAD, RoadNetwork
from .projection import centre_of, haversine_m, to_xy

Progress = Callable[[float, str], None]

# Properties copied into the tag mapping maps.profiles reads.
TAG_KEYS = (
    "highway", "railway", "oneway", "maxspeed", "access", "foot", "vehicle", "motor_vehicle",
    "motorcar", "junction", "service", "area", "usage",
    "disused", "abandoned", "construction", "proposed", "razed",
)  # fmt: skip
_COORD_SCALE = 1e7  # vertices match after rounding to 1e-7 degrees


# ---- shared: lines -> network --------------------------------------------------------------
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


def tags_of(props: Mapping[str, Any] | None) -> dict[str, str]:
    tags: dict[str, str] = {}
    for k in TAG_KEYS:
        if props and k in props:
            v = tag_value(props[k])
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


def class_table(names: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Sorted class names (at most 255: the rarest fold into "other") and each one's index."""
    uniq = sorted(set(names))
    if len(uniq) > 254:
        from collections import Counter

        uniq = sorted(c for c, _ in Counter(names).most_common(253)) + ["other"]
    index = {c: i for i, c in enumerate(uniq)}
    other = index.get("other", 0)
    return uniq, np.array([index.get(c, other) for c in names], dtype=np.uint8)


def assemble(
    *,
    path: str,
    profile: str,
    contract: bool,
    lon: np.ndarray,
    lat: np.ndarray,
    node_ids: np.ndarray,
    tails: np.ndarray,
    heads: np.ndarray,
    lengths: np.ndarray,
    speeds: np.ndarray,
    kinds: np.ndarray,
    class_names: list[str],
    classes: np.ndarray,
    source_ids: np.ndarray,
    geom_lonlat: list[np.ndarray | None],
    meta: dict,
) -> RoadNetwork:
    """Weight the arcs, drop nodes no arc uses, contract if asked, build the network.

    ``geom_lonlat`` holds per arc the inner points (k, 2) in lon/lat (None: straight).
    """
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
    weights = P.arc_weights(profile, np.asarray(lengths, dtype=np.float64), speeds)
    arcs = Arcs(
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
        kept, arcs = contract_chains(n, arcs, np.column_stack([x, y]))
        lon, lat, node_ids = lon[kept], lat[kept], node_ids[kept]
    return build_network(
        tails=arcs.tails,
        heads=arcs.heads,
        weights=arcs.weights,
        node_ids=node_ids,
        unit=P.UNITS[profile],
        profile=profile,
        lon=lon,
        lat=lat,
        origin=origin,
        edge_kind=arcs.kinds,
        edge_class=arcs.classes,
        class_names=class_names,
        edge_length=arcs.lengths,
        edge_source_id=arcs.source_ids,
        geometry=arcs.geometry,
        name=os.path.basename(path),
        source_path=path,
        meta={**meta, "contracted": bool(contract)},
    )


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
) -> RoadNetwork:
    """Split ``lines`` (each (k, 2) lon/lat) at shared vertices and build the network."""
    P.check_profile(profile)
    keep = [i for i, ln in enumerate(lines) if ln.shape[0] >= 2]
    if not keep:
        raise EmptyMapError("the file has no line features", path=path)
    attrs = [arc_attributes(profile, tags[i]) for i in keep]
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
    ok_seg = counts >= 2  # a line of one repeated point has no arc
    starts = np.concatenate([[0], np.cumsum(counts)])
    if progress:
        progress(0.5, "finding junctions")
    _, inv, kcount = np.unique(key, return_inverse=True, return_counts=True)
    is_node = kcount[inv] >= 2
    nonempty = counts > 0
    is_node[starts[:-1][nonempty]] = True
    is_node[starts[1:][nonempty] - 1] = True
    node_pts = np.flatnonzero(is_node)
    ukeys, node_of = np.unique(key[node_pts], return_inverse=True)
    n = ukeys.shape[0]
    first_pt = np.zeros(n, dtype=np.int64)
    first_pt[node_of[::-1]] = node_pts[::-1]
    same = seg_of[node_pts[:-1]] == seg_of[node_pts[1:]]
    a_pt, b_pt = node_pts[:-1][same], node_pts[1:][same]
    a_node, b_node = node_of[:-1][same], node_of[1:][same]
    piece_seg = seg_of[a_pt]
    keep_piece = ok_seg[piece_seg]
    a_pt, b_pt, a_node, b_node, piece_seg = (
        a_pt[keep_piece], b_pt[keep_piece], a_node[keep_piece], b_node[keep_piece],
        piece_seg[keep_piece],
    )  # fmt: skip
    step = np.zeros(pts.shape[0])
    if pts.shape[0] > 1:
        d = haversine_m(pts[:-1, 0], pts[:-1, 1], pts[1:, 0], pts[1:, 1])
        d[seg_of[:-1] != seg_of[1:]] = 0.0
        step[1:] = d
    cum = np.cumsum(step)
    plen = cum[b_pt] - cum[a_pt]
    pgeom = [
        pts[a + 1 : b] if b - a > 1 else None
        for a, b in zip(a_pt.tolist(), b_pt.tolist(), strict=True)
    ]

    fwd = np.array([a[0] for a in attrs], dtype=bool)[piece_seg]
    bwd = np.array([a[1] for a in attrs], dtype=bool)[piece_seg]
    names, cls_idx = class_table([a[2] for a in attrs])
    kind = np.array([a[3] for a in attrs], dtype=np.uint8)[piece_seg]
    speed = np.array([a[4] for a in attrs], dtype=np.float64)[piece_seg]
    cls = cls_idx[piece_seg]
    sid = np.array([source_ids[i] for i in sel], dtype=np.int64)[piece_seg]
    f, b = np.flatnonzero(fwd), np.flatnonzero(bwd)
    both = np.concatenate([f, b])
    geom = [pgeom[i] for i in f.tolist()]
    geom += [None if pgeom[i] is None else pgeom[i][::-1] for i in b.tolist()]
    if progress:
        progress(0.8, "building the graph")
    return assemble(
        path=path,
        profile=profile,
        contract=contract,
        lon=pts[first_pt, 0],
        lat=pts[first_pt, 1],
        node_ids=np.arange(1, n + 1, dtype=np.int64),
        tails=np.concatenate([a_node[f], b_node[b]]),
        heads=np.concatenate([b_node[f], a_node[b]]),
        lengths=plen[both],
        speeds=speed[both],
        kinds=kind[both],
        class_names=names,
        classes=cls[both],
        source_ids=sid[both],
        geom_lonlat=geom,
        meta={**meta, "lines": len(sel)},
    )


def _check_lonlat(arr: np.ndarray, path: str, where: str) -> None:
    if not np.isfinite(arr).all():
        raise MapFormatError(f"{where}: a coordinate is not a finite number", path=path)
    if arr.size and (np.abs(arr[:, 0]).max() > 180.0 or np.abs(arr[:, 1]).max() > 90.0):
        raise MapFormatError(
            f"{where}: coordinates outside lon -180..180 / lat -90..90 (not WGS84 degrees?)",
            path=path,
        )


# ---- GeoJSON -------------------------------------------------------------------------------
def _positions(coords: Any, path: str, where: str) -> np.ndarray:
    if not isinstance(coords, list):
        raise MapFormatError(f"{where}: coordinates must be a list of positions", path=path)
    out = []
    for p in coords:
        if (
            not isinstance(p, list)
            or len(p) < 2
            or not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in p[:2])
        ):
            raise MapFormatError(f"{where}: bad position {str(p)[:40]!r}", path=path)
        try:
            out.append((float(p[0]), float(p[1])))
        except OverflowError:
            raise MapFormatError(f"{where}: coordinate out of range", path=path) from None
    arr = np.array(out, dtype=np.float64).reshape(-1, 2)
    _check_lonlat(arr, path, where)
    if arr.shape[0] < 2:
        raise MapFormatError(f"{where}: a LineString needs at least 2 positions", path=path)
    return arr


def _geojson_lines(geom: Any, path: str, where: str, depth: int = 0) -> list[np.ndarray] | None:
    """Lines of a geometry object; None for a non-line geometry (ignored)."""
    if geom is None:
        return None
    if not isinstance(geom, dict):
        raise MapFormatError(f"{where}: geometry is not an object", path=path)
    t = geom.get("type")
    if t == "LineString":
        return [_positions(geom.get("coordinates"), path, where)]
    if t == "MultiLineString":
        parts = geom.get("coordinates")
        if not isinstance(parts, list):
            raise MapFormatError(f"{where}: MultiLineString coordinates must be a list", path=path)
        return [_positions(p, path, where) for p in parts]
    if t == "GeometryCollection" and depth < 8:
        gs = geom.get("geometries")
        if not isinstance(gs, list):
            raise MapFormatError(f"{where}: GeometryCollection without geometries", path=path)
        out: list[np.ndarray] = []
        for g in gs:
            out += _geojson_lines(g, path, where, depth + 1) or []
        return out
    if not isinstance(t, str):
        raise MapFormatError(f"{where}: geometry without a type", path=path)
    return None


def _check_geojson_crs(doc: dict, path: str) -> None:
    crs = doc.get("crs")
    if crs is None:
        return
    name = ""
    if isinstance(crs, dict) and isinstance(crs.get("properties"), dict):
        name = str(crs["properties"].get("name", ""))
    ok = name.upper().replace("::", ":")
    if not (ok.endswith("CRS84") or ok.endswith("EPSG:4326") or ok.endswith(":4326")):
        raise MapFormatError(
            f"coordinate reference system {name or crs!r} is not WGS84 lon/lat (EPSG:4326); "
            "reproject the layer to EPSG:4326",
            path=path,
        )


def load_geojson(
    path: str | os.PathLike,
    profile: str = "length",
    contract: bool = False,
    progress: Progress | None = None,
) -> RoadNetwork:
    """A GeoJSON line layer (FeatureCollection, Feature or bare geometry) as a network."""
    path = os.fspath(path)
    P.check_profile(profile)
    if progress:
        progress(0.0, "reading")
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise MapFormatError(f"cannot read: {exc.strerror or exc}", path=path) from None
    try:
        doc = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise MapFormatError(f"not UTF-8 text (byte {exc.start})", path=path) from None
    except json.JSONDecodeError as exc:
        raise MapFormatError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno) from None
    except RecursionError:
        raise MapFormatError("JSON nested too deeply", path=path) from None
    if not isinstance(doc, dict):
        raise MapFormatError("the top level is not a GeoJSON object", path=path)
    _check_geojson_crs(doc, path)
    t = doc.get("type")
    if t == "FeatureCollection":
        feats = doc.get("features")
        if not isinstance(feats, list):
            raise MapFormatError("FeatureCollection without a features list", path=path)
    elif t == "Feature":
        feats = [doc]
    elif isinstance(t, str):
        feats = [{"type": "Feature", "geometry": doc, "properties": {}}]
    else:
        raise MapFormatError("not GeoJSON: no 'type' member", path=path)
    lines: list[np.ndarray] = []
    tags: list[dict[str, str]] = []
    sids: list[int] = []
    skipped = 0
    for i, f in enumerate(feats):
        where = f"feature {i}"
        if not isinstance(f, dict):
            raise MapFormatError(f"{where} is not an object", path=path)
        props = f.get("properties")
        if props is not None and not isinstance(props, dict):
            raise MapFormatError(f"{where}: properties is not an object", path=path)
        got = _geojson_lines(f.get("geometry"), path, where)
        if got is None:
            skipped += 1
            continue
        fid = f.get("id")
        sid = fid if isinstance(fid, int) and not isinstance(fid, bool) and abs(fid) < 2**63 else i
        tg = tags_of(props)
        for ln in got:
            lines.append(ln)
            tags.append(tg)
            sids.append(sid)
    if progress:
        progress(0.3, f"{len(lines):,} lines")
    return lines_to_network(
        lines, tags, sids, path=path, profile=profile, contract=contract, progress=progress,
        meta={"format": "geojson", "skipped_features": skipped},
    )  # fmt: skip


# ---- GeoPackage ----------------------------------------------------------------------------
_ENVELOPE_BYTES = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}


def gpkg_blob_lines(blob: bytes) -> list[np.ndarray] | None:
    """The lines of a GeoPackage geometry blob (GP header + WKB), lon/lat (k, 2) each.

    None for an empty or non-line geometry. ValueError for a malformed blob (the caller
    names the table and row).
    """
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        raise ValueError("geometry is not a blob")
    blob = bytes(blob)
    if len(blob) < 8 or blob[:2] != b"GP":
        raise ValueError("not a GeoPackage geometry blob (no 'GP' magic)")
    flags = blob[3]
    env = (flags >> 1) & 7
    if env not in _ENVELOPE_BYTES:
        raise ValueError(f"bad envelope code {env}")
    if flags & 0x10:
        return None  # empty geometry
    off = 8 + _ENVELOPE_BYTES[env]
    if off > len(blob):
        raise ValueError("blob shorter than its header")
    lines, _ = _wkb(blob, off, 0)
    return lines


def _wkb(buf: bytes, off: int, depth: int) -> tuple[list[np.ndarray] | None, int]:
    """Parse one WKB geometry at ``off``: (lines or None, offset after it)."""
    if depth > 4:
        raise ValueError("WKB nested too deeply")
    if off + 5 > len(buf):
        raise ValueError("truncated WKB header")
    order = buf[off]
    if order not in (0, 1):
        raise ValueError(f"bad WKB byte order {order}")
    end = "<" if order == 1 else ">"
    (code,) = struct.unpack_from(end + "I", buf, off + 1)
    off += 5
    has_z = bool(code & 0x80000000)
    has_m = bool(code & 0x40000000)
    if code & 0x20000000:  # EWKB SRID
        off += 4
    base = code & 0x0FFFFFFF
    iso, gtype = divmod(base, 1000)
    if iso > 3:
        raise ValueError(f"unknown WKB geometry type {code}")
    has_z |= iso in (1, 3)
    has_m |= iso in (2, 3)
    dims = 2 + has_z + has_m
    if gtype == 2:  # LineString
        if off + 4 > len(buf):
            raise ValueError("truncated LineString")
        (npts,) = struct.unpack_from(end + "I", buf, off)
        off += 4
        nbytes = npts * dims * 8
        if off + nbytes > len(buf):
            raise ValueError(f"LineString of {npts} points overruns the blob")
        arr = np.frombuffer(buf, dtype=end + "f8", count=npts * dims, offset=off)
        xy = arr.reshape(npts, dims)[:, :2].astype(np.float64)
        return [xy], off + nbytes
    if gtype in (5, 7):  # MultiLineString, GeometryCollection
        if off + 4 > len(buf):
            raise ValueError("truncated collection")
        (count,) = struct.unpack_from(end + "I", buf, off)
        off += 4
        if count > len(buf):
            raise ValueError(f"collection of {count} parts overruns the blob")
        out: list[np.ndarray] = []
        for _ in range(count):
            part, off = _wkb(buf, off, depth + 1)
            if part:
                out += part
            elif gtype == 5:
                raise ValueError("a MultiLineString part is not a LineString")
        return out, off
    if gtype in (1, 3, 4, 6):  # point/polygon types: not lines
        return None, len(buf)
    raise ValueError(f"unknown WKB geometry type {code}")


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _srs_is_wgs84(con: sqlite3.Connection, srs_id: Any) -> tuple[bool, str]:
    if srs_id == 4326:
        return True, "EPSG:4326"
    try:
        row = con.execute(
            "SELECT organization, organization_coordsys_id, srs_name FROM gpkg_spatial_ref_sys "
            "WHERE srs_id = ?",
            (srs_id,),
        ).fetchone()
    except sqlite3.Error:
        row = None
    if row is None:
        return False, f"srs_id {srs_id}"
    org, code, name = row
    label = f"{org}:{code}" + (f" ({name})" if name else "")
    return (str(org).upper() == "EPSG" and code == 4326), label


def load_gpkg(
    path: str | os.PathLike,
    profile: str = "length",
    contract: bool = False,
    progress: Progress | None = None,
    layer: str | None = None,
) -> RoadNetwork:
    """The line layers of a GeoPackage (all feature tables, or only ``layer``) as a network."""
    path = os.fspath(path)
    P.check_profile(profile)
    if not os.path.isfile(path):
        raise MapFormatError("no such file", path=path)
    if progress:
        progress(0.0, "reading")
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise MapFormatError(f"cannot open as SQLite: {exc}", path=path) from None
    try:
        return _load_gpkg(con, path, profile, contract, progress, layer)
    except sqlite3.Error as exc:
        raise MapFormatError(f"not a readable GeoPackage: {exc}", path=path) from None
    finally:
        con.close()


def _load_gpkg(con, path, profile, contract, progress, layer) -> RoadNetwork:
    try:
        tables = con.execute(
            "SELECT c.table_name, g.column_name, g.srs_id FROM gpkg_contents c "
            "JOIN gpkg_geometry_columns g ON g.table_name = c.table_name "
            "WHERE c.data_type = 'features' ORDER BY c.table_name"
        ).fetchall()
    except sqlite3.OperationalError as exc:
        raise MapFormatError(
            f"not a GeoPackage (no gpkg_contents/gpkg_geometry_columns: {exc})", path=path
        ) from None
    if layer is not None:
        tables = [t for t in tables if t[0] == layer]
        if not tables:
            raise MapFormatError(f"no feature layer named {layer!r}", path=path)
    if not tables:
        raise EmptyMapError("the GeoPackage has no feature layers", path=path)
    lines: list[np.ndarray] = []
    tags: list[dict[str, str]] = []
    sids: list[int] = []
    skipped = 0
    for table, column, srs_id in tables:
        ok, label = _srs_is_wgs84(con, srs_id)
        if not ok:
            raise MapFormatError(
                f"layer {table!r} uses {label}; Signpost reads WGS84 lon/lat (EPSG:4326): "
                "reproject it first",
                path=path,
            )
        cur = con.execute(f"SELECT * FROM {_quote(str(table))}")
        names = [d[0] for d in cur.description]
        if column not in names:
            raise MapFormatError(f"layer {table!r} has no column {column!r}", path=path)
        gi = names.index(column)
        fid_i = next(
            (i for i, nm in enumerate(names) if nm.lower() in ("fid", "ogc_fid", "id")), None
        )
        for rowno, row in enumerate(cur):
            fid = row[fid_i] if fid_i is not None else rowno
            if not isinstance(fid, int):
                fid = rowno
            blob = row[gi]
            if blob is None:
                skipped += 1
                continue
            try:
                got = gpkg_blob_lines(blob)
            except (ValueError, struct.error) as exc:
                raise MapFormatError(
                    f"layer {table!r} feature {fid}: bad geometry blob ({exc})", path=path
                ) from None
            if got is None:
                skipped += 1
                continue
            props = {nm: row[i] for i, nm in enumerate(names) if i != gi}
            tg = tags_of(props)
            for ln in got:
                where = f"layer {table!r} feature {fid}"
                _check_lonlat(ln, path, where)
                if ln.shape[0] < 2:
                    raise MapFormatError(f"{where}: a LineString needs 2 points", path=path)
                lines.append(ln)
                tags.append(tg)
                sids.append(fid)
    if progress:
        progress(0.3, f"{len(lines):,} lines")
    return lines_to_network(
        lines, tags, sids, path=path, profile=profile, contract=contract, progress=progress,
        meta={"format": "gpkg", "layers": [t[0] for t in tables], "skipped_features": skipped},
    )  # fmt: skip


def write_gpkg(
    path: str | os.PathLike,
    features: Sequence[tuple[Sequence[Sequence[float]], Mapping[str, Any]]],
    *,
    table: str = "roads",
    srs_id: int = 4326,
    multi: bool = False,
    z: bool = False,
) -> None:
    """Write a minimal GeoPackage line layer (for tests and examples).

    ``features`` = [(lon/lat vertex list, properties)]; property columns are the union of
    the keys (TEXT). ``multi`` writes MultiLineStrings, ``z`` adds a zero Z coordinate.
    """
    path = os.fspath(path)
    if os.path.exists(path):
        os.unlink(path)
    cols = sorted({k for _, props in features for k in props})
    con = sqlite3.connect(path)
    try:
        con.executescript(
            """
            CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,
              organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL,
              definition TEXT NOT NULL, description TEXT);
            CREATE TABLE gpkg_contents (table_name TEXT PRIMARY KEY, data_type TEXT NOT NULL,
              identifier TEXT, description TEXT DEFAULT '', last_change DATETIME,
              min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
            CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
              geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL,
              m TINYINT NOT NULL);
            """
        )
        con.execute("PRAGMA application_id = 1196444487")  # 'GPKG'
        org = ("EPSG", srs_id) if srs_id > 0 else ("NONE", srs_id)
        con.execute(
            "INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, 'undefined', '')",
            (f"srs {srs_id}", srs_id, org[0], org[1]),
        )
        gtype = "MULTILINESTRING" if multi else "LINESTRING"
        con.execute(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) "
            "VALUES (?, 'features', ?, ?)",
            (table, table, srs_id),
        )
        con.execute(
            "INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, ?, ?, 0)",
            (table, gtype, srs_id, int(z)),
        )
        coldefs = "".join(f", {_quote(c)} TEXT" for c in cols)
        con.execute(f"CREATE TABLE {_quote(table)} (fid INTEGER PRIMARY KEY, geom BLOB{coldefs})")
        for coords, props in features:
            blob = _gpkg_blob(coords, srs_id, multi=multi, z=z)
            vals = [None if props.get(c) is None else str(props.get(c)) for c in cols]
            qs = ", ?" * len(cols)
            con.execute(
                f"INSERT INTO {_quote(table)} (geom{''.join(', ' + _quote(c) for c in cols)}) "
                f"VALUES (?{qs})",
                [blob, *vals],
            )
        con.commit()
    finally:
        con.close()


def _gpkg_blob(coords, srs_id: int, *, multi: bool, z: bool) -> bytes:
    pts = np.asarray(coords, dtype="<f8").reshape(-1, 2)
    if z:
        pts = np.column_stack([pts, np.zeros(pts.shape[0])])
    line = struct.pack("<BII", 1, 1002 if z else 2, pts.shape[0]) + pts.astype("<f8").tobytes()
    wkb = struct.pack("<BII", 1, 1005 if z else 5, 1) + line if multi else line
    lo, hi = pts[:, :2].min(axis=0), pts[:, :2].max(axis=0)
    header = b"GP" + bytes([0, 0b011]) + struct.pack("<i", srs_id)  # LE, envelope code 1
    header += struct.pack("<4d", lo[0], hi[0], lo[1], hi[1])
    return header + wkb


def haversine_length(coords: np.ndarray) -> float:
    """Length in metres of a lon/lat polyline."""
    if coords.shape[0] < 2:
        return 0.0
    return float(
        haversine_m(coords[:-1, 0], coords[:-1, 1], coords[1:, 0], coords[1:, 1]).sum()
    )


__all__ = [
    "assemble",
    "gpkg_blob_lines",
    "haversine_length",
    "lines_to_network",
    "load_geojson",
    "load_gpkg",
    "tags_of",
    "write_gpkg",
]
