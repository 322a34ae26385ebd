"""Polygons that limit where something may go (billboard candidates, say).

An area file is GeoJSON in lon/lat (EPSG:4326): a Polygon or MultiPolygon geometry, a
Feature, or a FeatureCollection whose polygon features are united. shapely is imported
here, not at ``maps`` import time (the GPU machine has none).
"""

from __future__ import annotations

import json
import math
import os

import numpy as np

from ..errors import MapFormatError, PointError
from ..model.network import RoadNetwork
from ..source import load_json, read_bounded


def parse_geojson(text: str, path: str) -> dict:
    """A GeoJSON document (an object); MapFormatError naming ``path`` otherwise."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MapFormatError(f"not GeoJSON: {exc}", path=path) from None
    except (RecursionError, ValueError):  # nesting too deep, an integer of 5,000 digits
        return load_json(text, path, "GeoJSON")  # says which, in one line
    if not isinstance(doc, dict):
        raise MapFormatError("not a GeoJSON object", path=path)
    return doc


def geometries(doc: dict) -> list:
    """The geometry objects of a FeatureCollection, a Feature or a bare geometry."""
    if doc.get("type") == "FeatureCollection":
        return [f.get("geometry") for f in doc.get("features") or [] if isinstance(f, dict)]
    if doc.get("type") == "Feature":
        return [doc.get("geometry")]
    return [doc]


def read_area(path: str | os.PathLike):
    """The union of the polygons in a GeoJSON file or a GeoPackage's first polygon layer
    (a shapely geometry, lon/lat)."""
    import shapely
    from shapely.geometry import shape

    path = os.fspath(path)
    if path.lower().endswith(".gpkg"):
        return _gpkg_area(path)
    raw = read_bounded(path, text="GeoJSON")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MapFormatError(f"not GeoJSON: {exc}", path=path) from None
    geoms = geometries(parse_geojson(text, path))
    polys = []
    for i, gj in enumerate(geoms):
        if not isinstance(gj, dict) or gj.get("type") not in ("Polygon", "MultiPolygon"):
            continue  # points and lines say nothing about an area
        _check_rings(gj, path, f"feature {i}")
        try:
            polys.append(shapely.make_valid(shape(gj)))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError,
                shapely.errors.ShapelyError) as exc:
            raise MapFormatError(f"feature {i}: invalid polygon ({exc})", path=path) from None
    if not polys:
        raise MapFormatError("no Polygon or MultiPolygon in the file", path=path)
    area = shapely.union_all(polys)
    if area.is_empty:
        raise MapFormatError("the polygons are empty", path=path)
    return area


def _check_rings(gj: dict, path: str, where: str) -> None:
    """MapFormatError unless ``gj``'s coordinates are rings of finite lon/lat positions
    nested exactly as its type says (shapely would crash on NaN or deeper nesting)."""
    coords = gj.get("coordinates")
    polys = [coords] if gj["type"] == "Polygon" else coords
    if not isinstance(polys, list):
        raise MapFormatError(f"{where}: {gj['type']} coordinates must be a list", path=path)
    for poly in polys:
        if not isinstance(poly, list):
            raise MapFormatError(f"{where}: a polygon must be a list of rings", path=path)
        for ring in poly:
            if not isinstance(ring, list):
                raise MapFormatError(f"{where}: a ring must be a list of positions", path=path)
            for pos in ring:
                ok = isinstance(pos, list) and 2 <= len(pos) <= 4 and all(
                    isinstance(c, (int, float)) and not isinstance(c, bool) for c in pos)
                if ok:
                    try:
                        lon, lat = float(pos[0]), float(pos[1])
                    except OverflowError:
                        ok = False
                    else:
                        ok = math.isfinite(lon) and math.isfinite(lat) and abs(lon) <= 180 \
                            and abs(lat) <= 90
                if not ok:
                    raise MapFormatError(
                        f"{where}: position {str(pos)[:40]!r} is not a finite lon/lat pair",
                        path=path,
                    )


def _gpkg_area(path: str):
    import shapely

    from ..geo.crs import is_wgs84_name
    from .gpkg_features import read_gpkg_features

    crs, feats = read_gpkg_features(path, ("POLYGON", "MULTIPOLYGON"), "polygon",
                                    error=MapFormatError)
    if not is_wgs84_name(crs):  # the CRS hook of maps.points.resolve.to_wgs84, for areas
        raise MapFormatError(f"the polygons are in {crs}; give them in WGS84 lon/lat "
                             "(EPSG:4326)", path=path)
    polys = [shapely.make_valid(g) for g, _ in feats if not g.is_empty]
    area = shapely.union_all(polys) if polys else shapely.Polygon()
    if area.is_empty:
        raise MapFormatError("the polygons are empty", path=path)
    return area


def nodes_within(net: RoadNetwork, area, *, path: str | None = None) -> np.ndarray:
    """Bool mask of the nodes inside ``area`` (lon/lat polygon; boundary counts as inside)."""
    import shapely

    if not net.has_coordinates:
        raise PointError(
            "this map has no coordinates, so an area cannot select its nodes", path=path
        )
    pts = shapely.points(np.asarray(net.lon), np.asarray(net.lat))
    shapely.prepare(area)
    return np.asarray(shapely.covers(area, pts), dtype=bool)
