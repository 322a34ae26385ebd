"""GeoJSON line layers → :class:`RoadNetwork` (stdlib json + numpy).

* **Lines** are ``LineString``/``MultiLineString`` features (GeometryCollections are
  searched); other geometries are counted in ``meta["skipped_features"]`` and ignored.
  Tags, nodes and lengths: ``maps.lines``.
* ``edge_source_id`` is the feature's integer ``id``, else its index.
* **Coordinates** must be WGS84 lon/lat: a ``crs`` member naming anything other than
  CRS84/EPSG:4326 raises MapFormatError.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .errors import MapFormatError
from .lines import LineSet, Progress, check_lonlat, read_source, tags_of
from .network import RoadNetwork
from .source import load_json


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
    check_lonlat(arr, path, where)
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
    path, raw = read_source(path, profile, progress)
    doc = load_json(raw, path)
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
    found = LineSet()
    for i, f in enumerate(feats):
        where = f"feature {i}"
        if not isinstance(f, dict):
            raise MapFormatError(f"{where} is not an object", path=path)
        props = f.get("properties")
        if props is not None and not isinstance(props, dict):
            raise MapFormatError(f"{where}: properties is not an object", path=path)
        got = _geojson_lines(f.get("geometry"), path, where)
        if got is None:
            found.skipped += 1
            continue
        fid = f.get("id")
        sid = fid if isinstance(fid, int) and not isinstance(fid, bool) and abs(fid) < 2**63 else i
        found.add(got, tags_of(props), sid)
    return found.network(
        path=path, profile=profile, contract=contract, progress=progress,
        meta={"format": "geojson"},
    )  # fmt: skip
