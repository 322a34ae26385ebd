"""Writing WGS84 features (shapely geometries + properties) as GeoJSON or a GeoPackage,
the files QGIS and GeoPandas open. Stdlib (json, sqlite3) + shapely: no GDAL needed.

* GeoJSON (RFC 7946): a FeatureCollection; coordinates as given, written so that they
  read back as the same floats (callers snap them to a grid first).
* GeoPackage 1.3: one feature table, geometry column ``geom`` in EPSG:4326 declared
  ``MULTIPOLYGON`` (a Polygon is written as a one-part MultiPolygon so the layer has one
  type), integer/real/text property columns by the values' type. Written into an
  existing GeoPackage, only that layer changes (replaced, or appended to): the other
  layers stay as they were, as GDAL does. Appending writes in the layer's own CRS and
  columns, or refuses; layers GDAL wrote (R-tree triggers) and later GeoPackage layouts
  are handled by :mod:`maps.outputs.gpkg_layer`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import struct
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

import numpy as np

from ..errors import MapFormatError
from .gpkg_layer import append_target, friendly, insert_srs_rows, register_functions, reproject

VECTOR_EXT = (".geojson", ".json", ".gpkg")
_WGS84_WKT = (
    'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,'
    'AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,'
    'AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],'
    'AUTHORITY["EPSG","4326"]]'
)


def write_features(path: str, geoms: Sequence, props: Sequence[Mapping[str, Any]], *,
                   layer: str = "features", if_exists: str = "replace") -> None:
    """Write to ``path`` by its extension (.geojson/.json or .gpkg); ValueError otherwise.
    ``if_exists``: what becomes of a GeoPackage layer of that name (replace or append)."""
    low = os.fspath(path).lower()
    if low.endswith(".gpkg"):
        write_gpkg_polygons(path, geoms, props, table=layer, if_exists=if_exists)
    elif low.endswith((".geojson", ".json")):
        write_geojson(path, geoms, props)
    else:
        raise ValueError(f"{path!r}: write .geojson or .gpkg")


def geojson_dict(geoms: Sequence, props: Sequence[Mapping[str, Any]]) -> dict:
    """A GeoJSON FeatureCollection of the geometries (lon/lat) and their properties."""
    from shapely.geometry import mapping

    feats = [{"type": "Feature", "properties": dict(p), "geometry": mapping(g)}
             for g, p in zip(geoms, props, strict=True)]
    return {"type": "FeatureCollection", "features": feats}


def write_geojson(path: str, geoms: Sequence, props: Sequence[Mapping[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(geojson_dict(geoms, props), fh, separators=(",", ":"))
        fh.write("\n")


def _sql_type(values: list) -> str:
    vals = [v for v in values if v is not None]
    if vals and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
        return "INTEGER"
    if vals and all(isinstance(v, (int, float, np.integer, np.floating)) for v in vals):
        return "REAL"
    return "TEXT"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def gpkg_blob(geom, srs_id: int = 4326) -> bytes:
    """GeoPackage geometry blob: 'GP' header (little-endian, xy envelope) + ISO WKB."""
    import shapely

    if geom.is_empty:
        return b"GP" + bytes([0, 0b10001]) + struct.pack("<i", srs_id) + shapely.to_wkb(
            geom, byte_order=1)
    x0, y0, x1, y1 = geom.bounds
    header = b"GP" + bytes([0, 0b011]) + struct.pack("<i", srs_id)
    header += struct.pack("<4d", x0, x1, y0, y1)
    return header + shapely.to_wkb(geom, byte_order=1, flavor="iso")


def gpkg_geometry(path: str, table: str) -> tuple[str, str] | None:
    """(geometry column, geometry type) of layer ``table`` of the GeoPackage ``path``;
    None when it has no such layer."""
    con = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
    try:
        row = con.execute("SELECT column_name, upper(geometry_type_name) FROM "
                          "gpkg_geometry_columns WHERE table_name = ?", (table,)).fetchone()
        return None if row is None else (row[0], row[1])
    except sqlite3.Error:
        return None
    finally:
        con.close()


_LINE_OR_ANY = ("LINESTRING", "MULTILINESTRING", "CURVE", "MULTICURVE", "COMPOUNDCURVE",
                "GEOMETRY", "GEOMETRYCOLLECTION")


def gpkg_line_layers(path: str) -> list[str]:
    """The layers of the GeoPackage ``path`` that may hold lines (declared a line type or
    any geometry): those a map can be read from. [] when it is not a GeoPackage."""
    try:
        con = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        rows = con.execute("SELECT table_name, upper(geometry_type_name) "
                           "FROM gpkg_geometry_columns").fetchall()
    except sqlite3.Error:
        return []
    finally:
        con.close()
    return [str(t) for t, g in rows if str(g) in _LINE_OR_ANY]


def gpkg_layers(path: str) -> list[str] | None:
    """The feature/tile tables of the GeoPackage ``path``; None when it is not one (not
    SQLite, or no ``gpkg_contents``)."""
    try:
        with open(path, "rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                return None
        con = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
    except (OSError, sqlite3.Error):
        return None
    try:
        return [r[0] for r in con.execute("SELECT table_name FROM gpkg_contents")]
    except sqlite3.Error:
        return None
    finally:
        con.close()


_META = """
CREATE TABLE IF NOT EXISTS gpkg_spatial_ref_sys (srs_name TEXT NOT NULL,
  srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL,
  description TEXT);
CREATE TABLE IF NOT EXISTS gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY,
  data_type TEXT NOT NULL, identifier TEXT UNIQUE, description TEXT DEFAULT '',
  last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
CREATE TABLE IF NOT EXISTS gpkg_geometry_columns (table_name TEXT NOT NULL,
  column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name));
"""


def _drop_layer(con: sqlite3.Connection, table: str) -> None:
    """Remove layer ``table`` with its metadata rows and GDAL's R-tree index, if any."""
    cols = [r[0] for r in con.execute(
        "SELECT column_name FROM gpkg_geometry_columns WHERE table_name = ?", (table,))]
    for c in cols:
        con.execute(f"DROP TABLE IF EXISTS {_quote(f'rtree_{table}_{c}')}")
    for optional in ("gpkg_extensions", "gpkg_ogr_contents"):  # GDAL's feature counts too
        with contextlib.suppress(sqlite3.Error):
            con.execute(f"DELETE FROM {optional} WHERE table_name = ?", (table,))
    con.execute("DELETE FROM gpkg_geometry_columns WHERE table_name = ?", (table,))
    con.execute("DELETE FROM gpkg_contents WHERE table_name = ?", (table,))
    con.execute(f"DROP TABLE IF EXISTS {_quote(table)}")


def write_gpkg_polygons(path: str, geoms: Sequence, props: Sequence[Mapping[str, Any]], *,
                        table: str = "features", if_exists: str = "replace") -> None:
    """A MULTIPOLYGON layer ``table`` in EPSG:4326 (module doc): a new GeoPackage, or in
    the existing GeoPackage ``path`` (other layers kept) replacing or (``if_exists``
    "append") adding to a layer of that name; MapFormatError under "fail" when it exists
    or when SQLite fails."""
    import shapely

    existing = gpkg_layers(path) if os.path.exists(path) else None
    if existing is None and os.path.exists(path):
        os.unlink(path)
    cols = list(dict.fromkeys(k for p in props for k in p))
    types = {c: _sql_type([p.get(c) for p in props]) for c in cols}
    multi = [g if g.geom_type != "Polygon" else shapely.MultiPolygon([g]) for g in geoms]
    env = shapely.total_bounds(np.asarray(multi, dtype=object)) if multi else [0, 0, 0, 0]
    con = sqlite3.connect(path)
    register_functions(con)  # GDAL's R-tree triggers call ST_* functions
    try:
        _write_layer(con, existing, table, cols, types, multi, env, props, if_exists)
        con.commit()
    except sqlite3.Error as exc:  # a last resort: the CLI checks the layer before the work
        raise MapFormatError(friendly(exc, table), path=path) from None
    finally:
        con.close()


def _write_layer(con: sqlite3.Connection, existing: list[str] | None, table: str,
                 cols: list[str], types: dict, multi: list, env, props, if_exists: str) -> None:
    """The body of :func:`write_gpkg_polygons` on an open connection."""
    if existing is None:
        con.execute("PRAGMA application_id = 1196444487")  # 'GPKG'
        con.execute("PRAGMA user_version = 10300")  # GeoPackage 1.3
    con.executescript(_META)
    insert_srs_rows(con, [
        ("Undefined cartesian SRS", -1, "NONE", -1, "undefined", ""),
        ("Undefined geographic SRS", 0, "NONE", 0, "undefined", ""),
        ("WGS 84 geodetic", 4326, "EPSG", 4326, _WGS84_WKT, "longitude/latitude"),
    ])
    have = table in (existing or ())
    if have and if_exists == "fail":
        raise MapFormatError(f"layer {table!r} exists (--if-exists fail)")
    if have and if_exists != "append":
        _drop_layer(con, table)
        have = False
    gcol, srs_id = "geom", 4326
    if have:  # append: in the layer's CRS and columns (else refused), the envelope grows
        gcol, srs_id, crs = append_target(con, table, types)
        multi = reproject(multi, crs)
        if multi and crs is not None:
            import shapely

            env = shapely.total_bounds(np.asarray(multi, dtype=object))
        con.execute(
            "UPDATE gpkg_contents SET min_x = min(coalesce(min_x, ?), ?), "
            "min_y = min(coalesce(min_y, ?), ?), max_x = max(coalesce(max_x, ?), ?), "
            "max_y = max(coalesce(max_y, ?), ?), last_change = "
            "strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE table_name = ?",
            (*[float(v) for v in env for _ in range(2)], table))
    else:
        con.execute(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, min_x, min_y, "
            "max_x, max_y, srs_id) VALUES (?, 'features', ?, ?, ?, ?, ?, 4326)",
            (table, table, *map(float, env)),
        )
        con.execute("INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', 'MULTIPOLYGON', "
                    "4326, 0, 0)", (table,))
        coldefs = "".join(f", {_quote(c)} {types[c]}" for c in cols)
        con.execute(f"CREATE TABLE {_quote(table)} (fid INTEGER PRIMARY KEY AUTOINCREMENT, "
                    f"geom MULTIPOLYGON{coldefs})")
    names = "".join(", " + _quote(c) for c in cols)
    sql = f"INSERT INTO {_quote(table)} ({_quote(gcol)}{names}) VALUES (?{', ?' * len(cols)})"
    for g, p in zip(multi, props, strict=True):
        vals = [_sql_value(p.get(c)) for c in cols]
        con.execute(sql, [gpkg_blob(g, srs_id), *vals])


def _sql_value(v: Any) -> Any:
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if v is None or isinstance(v, (int, float, str)):
        return v
    return str(v)
