"""Writing into GeoPackages others made (issue 40): what :mod:`maps.outputs.vector` needs
to add to a layer GDAL or QGIS wrote, and to files laid out by later GeoPackage versions.

* **SQL functions** GDAL's R-tree triggers call (``ST_IsEmpty``, ``ST_MinX`` ..
  ``ST_MaxY``; also ``ST_GeometryType``, ``ST_SRID`` and ``GPKG_IsAssignable`` of the
  geometry-type triggers) are registered on the connection, so appending to such a layer
  keeps its spatial index right instead of failing.
* **Spatial reference rows** are inserted by column name, any further NOT NULL column
  (``definition_12_063`` of the ``gpkg_crs_wkt`` extension) given ``'undefined'``.
* **Append target**: the layer's geometry column, ``srs_id`` and CRS; features are
  reprojected from lon/lat to that CRS, and the layer's columns must take this command's
  (a missing column or a narrower type is refused: nothing is added to someone's table).
* **Messages** say what went wrong with the file, never SQLite's wording.
"""

from __future__ import annotations

import sqlite3
import struct
from collections.abc import Sequence
from typing import Any

from ..errors import MapFormatError

_ENV_BYTES = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}


def _envelope(blob: Any) -> tuple[float, float, float, float] | None:
    """(minx, maxx, miny, maxy) of a GeoPackage geometry blob (None: empty or not one)."""
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        return None
    b = bytes(blob)
    if len(b) < 8 or b[:2] != b"GP" or b[3] & 0x10:
        return None
    env = (b[3] >> 1) & 7
    if env in _ENV_BYTES and env > 0 and len(b) >= 40:
        fmt = "<4d" if b[3] & 1 else ">4d"
        minx, maxx, miny, maxy = struct.unpack(fmt, b[8:40])
        return minx, maxx, miny, maxy
    import shapely

    try:
        g = shapely.from_wkb(b[8 + _ENV_BYTES.get(env, 0):])
    except Exception:  # a blob we cannot read: as empty (the trigger skips it)
        return None
    if g.is_empty:
        return None
    x0, y0, x1, y1 = g.bounds
    return x0, x1, y0, y1


def _part(i: int):
    def f(blob: Any) -> float | None:
        env = _envelope(blob)
        return None if env is None else env[i]

    return f


def _is_empty(blob: Any) -> int | None:
    if blob is None:
        return None
    return 1 if _envelope(blob) is None else 0


def _srid(blob: Any) -> int | None:
    b = bytes(blob) if isinstance(blob, (bytes, bytearray, memoryview)) else b""
    if len(b) < 8 or b[:2] != b"GP":
        return None
    return int(struct.unpack("<i" if b[3] & 1 else ">i", b[4:8])[0])


def _geometry_type(blob: Any) -> str | None:
    import shapely

    b = bytes(blob) if isinstance(blob, (bytes, bytearray, memoryview)) else b""
    if len(b) < 8 or b[:2] != b"GP":
        return None
    try:
        return str(shapely.from_wkb(b[8 + _ENV_BYTES.get((b[3] >> 1) & 7, 0):]).geom_type).upper()
    except Exception:
        return None


def _assignable(expected: Any, actual: Any) -> int:
    e, a = str(expected or "").upper(), str(actual or "").upper()
    return int(e in ("GEOMETRY", a) or (e == "MULTIPOLYGON" and a == "POLYGON"))


def register_functions(con: sqlite3.Connection) -> None:
    """The ST_* / GPKG_* functions GDAL's triggers call, on ``con`` (module doc)."""
    con.create_function("ST_IsEmpty", 1, _is_empty, deterministic=True)
    for i, name in enumerate(("ST_MinX", "ST_MaxX", "ST_MinY", "ST_MaxY")):
        con.create_function(name, 1, _part(i), deterministic=True)
    con.create_function("ST_SRID", 1, _srid, deterministic=True)
    con.create_function("ST_GeometryType", 1, _geometry_type, deterministic=True)
    con.create_function("GPKG_IsAssignable", 2, _assignable, deterministic=True)


def insert_srs_rows(con: sqlite3.Connection, rows: Sequence[tuple]) -> None:
    """``rows`` of the six GeoPackage 1.0 columns into ``gpkg_spatial_ref_sys`` (kept
    where the srs_id exists), whatever further columns the file's version added."""
    info = con.execute("PRAGMA table_info(gpkg_spatial_ref_sys)").fetchall()
    base = ["srs_name", "srs_id", "organization", "organization_coordsys_id", "definition",
            "description"]
    extra = [r[1] for r in info if r[1] not in base and r[3] and r[4] is None]
    names = ", ".join(base + extra)
    marks = ", ".join("?" * (len(base) + len(extra)))
    con.executemany(f"INSERT OR IGNORE INTO gpkg_spatial_ref_sys ({names}) VALUES ({marks})",
                    [(*r, *(["undefined"] * len(extra))) for r in rows])


def _affinity(decl: str) -> int:
    """0 integer, 1 real, 2 text (or anything): which of our values a column takes."""
    d = decl.upper()
    if "INT" in d:
        return 0
    if any(k in d for k in ("REAL", "FLOA", "DOUB")):
        return 1
    return 2


_OURS = {"INTEGER": 0, "REAL": 1, "TEXT": 2}


def append_target(con: sqlite3.Connection, table: str, types: dict[str, str]) -> tuple[str, int, Any]:
    """(geometry column, srs_id, pyproj CRS or None for lon/lat) of the existing layer
    ``table``; MapFormatError when its columns cannot take ``types`` (our column → SQL
    type) or its CRS is unknown."""
    from ..geo.crs import is_wgs84, parse_crs

    row = con.execute("SELECT column_name, srs_id FROM gpkg_geometry_columns "
                      "WHERE table_name = ?", (table,)).fetchone()
    if row is None:
        raise MapFormatError(f"--if-exists append: layer {table!r} has no geometry column")
    gcol, srs_id = str(row[0]), int(row[1])
    info = con.execute(f"PRAGMA table_info({_quote(table)})").fetchall()
    have = {str(r[1]): str(r[2] or "") for r in info}
    missing = [c for c in types if c not in have]
    narrow = [c for c in types if c in have and _affinity(have[c]) < _OURS[types[c]]]
    required = [str(r[1]) for r in info if r[3] and r[4] is None and not r[5]
                and r[1] != gcol and r[1] not in types]
    if missing or narrow or required:
        why = (f"it has no column {', '.join(map(repr, missing))}" if missing else
               f"column {', '.join(map(repr, narrow))} cannot hold this command's values"
               if narrow else f"it requires column {', '.join(map(repr, required))}")
        raise MapFormatError(f"--if-exists append: layer {table!r} does not match this "
                             f"command's columns ({', '.join(types)}): {why}; choose replace "
                             "or another file")
    if srs_id in (0, -1):
        raise MapFormatError(f"--if-exists append: layer {table!r} has an undefined "
                             "coordinate system; choose replace or another file")
    srs = con.execute("SELECT organization, organization_coordsys_id, definition FROM "
                      "gpkg_spatial_ref_sys WHERE srs_id = ?", (srs_id,)).fetchone()
    if srs is None or str(srs[0]).upper() == "EPSG" or str(srs[2]).lower() == "undefined":
        text = f"EPSG:{srs_id}" if srs is None else f"{srs[0]}:{srs[1]}"
    else:
        text = str(srs[2])
    crs = parse_crs(text, where=f"--if-exists append: layer {table!r}: ")
    return gcol, srs_id, None if is_wgs84(crs) else crs


def reproject(geoms: list, crs: Any) -> list:
    """``geoms`` (lon/lat) in ``crs`` (None: as they are)."""
    if crs is None:
        return geoms
    import shapely
    from pyproj import Transformer

    tr = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    return [shapely.transform(g, lambda xy: _stack(tr.transform(xy[:, 0], xy[:, 1])))
            for g in geoms]


def _stack(xy: tuple) -> Any:
    import numpy as np

    return np.column_stack(xy)


def friendly(exc: sqlite3.Error, table: str) -> str:
    """A one-line reason for a failed GeoPackage write, without SQLite's wording."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        why = "the file is in use by another program"
    elif "full" in text or "disk" in text:
        why = "the disk is full"
    elif "readonly" in text or "read-only" in text:
        why = "the file is read-only"
    else:
        why = "its GeoPackage tables are laid out in a way Signpost cannot write into"
    return f"cannot write the GeoPackage layer {table!r}: {why}; choose another file"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
