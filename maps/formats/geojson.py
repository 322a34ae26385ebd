"""GeoJSON line layers → :class:`RoadNetwork` (stdlib json + numpy).

* **Lines** are ``LineString``/``MultiLineString`` features (GeometryCollections are
  searched); other geometries are counted in ``meta["skipped_features"]`` and ignored.
  Tags, nodes and lengths: ``maps.model.lines``.
* ``edge_source_id`` is the feature's integer ``id``, else its index.
* **Coordinates** are WGS84 lon/lat (RFC 7946); a legacy ``crs`` member (``name`` type,
  e.g. ``urn:ogc:def:crs:EPSG::3857``) is honoured, and ``--crs`` overrides both
  (``maps.geo.crs``).
* ``--weight COLUMN`` reads a property as the cost (``maps.model.weights``).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import MapFormatError
from ..model.lines import LineSet, Progress, read_source
from ..model.network import RoadNetwork
from ..model.weights import WeightSpec
from ..source import load_json


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
    return np.array(out, dtype=np.float64).reshape(-1, 2)


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


def _geojson_crs(doc: dict, path: str) -> str | None:
    """The CRS a legacy ``crs`` member names (None: none, RFC 7946's WGS84)."""
    crs = doc.get("crs")
    if crs is None:
        return None
    props = crs.get("properties") if isinstance(crs, dict) else None
    name = props.get("name") if isinstance(props, dict) else None
    if not isinstance(name, str) or not name:
        raise MapFormatError(
            f"unsupported crs member {str(crs)[:60]!r} (only the 'name' form is read); "
            "give the coordinate system with --crs",
            path=path,
        )
    return name


def load_geojson(
    path: str | os.PathLike,
    profile: str = "length",
    contract: bool = False,
    progress: Progress | None = None,
    crs: str | None = None,
    weight: WeightSpec | None = None,
    split_crossings: bool = False,
) -> RoadNetwork:
    """A GeoJSON line layer (FeatureCollection, Feature or bare geometry) as a network
    (``crs``: ``--crs``, overriding the file's)."""
    path, raw = read_source(path, profile, progress)
    doc = load_json(raw, path)
    if not isinstance(doc, dict):
        raise MapFormatError("the top level is not a GeoJSON object", path=path)
    file_crs = None if crs is not None else _geojson_crs(doc, path)
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
    found = LineSet(path, weight, file_crs)
    for i, f in enumerate(feats):
        where = f"feature {i}"
        if isinstance(f, dict) and isinstance(f.get("id"), (int, str)):
            where += f" (id {str(f['id'])[:40]!r})"
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
        found.add(got, props, sid, where)
    return found.network(
        profile=profile, contract=contract, progress=progress, meta={"format": "geojson"},
        crs=crs, split_crossings=split_crossings,
    )  # fmt: skip
