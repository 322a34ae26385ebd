"""GeoPackage line layers → :class:`RoadNetwork` (stdlib sqlite3, shapely, numpy).

* **Layers**: the feature tables of ``gpkg_contents``; ``layer`` (``--layer``) names
  one, else the one line layer is read (``maps.geo.geometry.pick_layer``). A table declared
  GEOMETRY/GEOMETRYCOLLECTION counts as a line layer when it holds lines.
* **Geometry**: the "GP" header is stripped and the WKB decoded by ``shapely.from_wkb``
  (``maps.geo.geometry``); non-line features are counted in ``meta["skipped_features"]``.
  Tags, nodes and lengths: ``maps.model.lines``.
* **CRS**: the layer's ``srs_id`` and its row of ``gpkg_spatial_ref_sys`` (an EPSG code,
  else the WKT definition); srs_id 0/-1 (undefined) count as none. Coordinates are
  transformed to WGS84 on load (``maps.geo.crs``); ``crs`` (``--crs``) overrides.
* ``edge_source_id`` is the feature's fid (a ``fid``/``ogc_fid``/``id`` column), else its
  row number.
* The file is opened read-only through a percent-escaped SQLite URI, so names holding
  ``?``, ``#``, ``%`` or spaces open the file they name.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any
from urllib.parse import quote

import numpy as np

from ..errors import MapFormatError
from ..geo.geometry import pick_layer, wkb_lines
from ..model import profiles as P
from ..model.lines import LineSet, Progress
from ..model.network import RoadNetwork
from ..model.weights import WeightSpec

_ENVELOPE_BYTES = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}
_LINE_TYPES = {"LINESTRING", "MULTILINESTRING", "CURVE", "MULTICURVE", "COMPOUNDCURVE"}
_GENERIC_TYPES = {"GEOMETRY", "GEOMETRYCOLLECTION"}


def gpkg_wkb(blob: Any) -> bytes | None:
    """The WKB inside a GeoPackage geometry blob ("GP" header stripped); None for an
    empty geometry; ValueError for a malformed header (the caller names the feature)."""
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
    if off >= len(blob):
        raise ValueError("blob shorter than its header")
    return blob[off:]


def gpkg_blob_lines(blob: bytes) -> list[np.ndarray] | None:
    """The lines of one GeoPackage geometry blob ((k, 2) each; None: no lines)."""
    return wkb_lines([gpkg_wkb(blob)], path="", where=lambda i: "blob")[0]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def sqlite_uri(path: str) -> str:
    """A read-only SQLite URI naming exactly ``path`` (``?``, ``#``, ``%`` escaped)."""
    return "file:" + quote(os.fsencode(os.path.abspath(path))) + "?mode=ro"  # bytes: non-UTF-8 too


def _why(exc: sqlite3.Error) -> str:
    """Why SQLite failed, in words about the file rather than SQLite's own (issue 40)."""
    text = str(exc).lower()
    missing = "no such table" in text or "no such column" in text
    return ("the file is in use by another program" if "locked" in text or "busy" in text
            else "a table it lists is missing or lacks a column" if missing
            else "the file is damaged or not a database" if "not a database" in text
            or "malformed" in text or "corrupt" in text
            else "its tables are not laid out as a GeoPackage's")


def _srs(con: sqlite3.Connection, srs_id: Any) -> str | None:
    """The CRS of ``srs_id`` for ``maps.geo.crs`` (None: undefined)."""
    if srs_id in (0, -1, None):
        return None
    try:
        row = con.execute(
            "SELECT organization, organization_coordsys_id, definition "
            "FROM gpkg_spatial_ref_sys WHERE srs_id = ?",
            (srs_id,),
        ).fetchone()
    except sqlite3.Error:
        row = None
    if row is None:
        return f"EPSG:{srs_id}"  # not declared: GDAL and QGIS read srs_id as an EPSG code
    org, code, definition = row
    if str(org).upper() == "EPSG" or not definition or str(definition).lower() == "undefined":
        return f"{org}:{code}"
    return str(definition)


def load_gpkg(
    path: str | os.PathLike,
    profile: str = "length",
    contract: bool = False,
    progress: Progress | None = None,
    layer: str | None = None,
    crs: str | None = None,
    weight: WeightSpec | None = None,
    split_crossings: bool = False,
) -> RoadNetwork:
    """One line layer of a GeoPackage (``layer``, else the only one) as a network."""
    path = os.fspath(path)
    P.check_profile(profile)
    if not os.path.isfile(path):
        raise MapFormatError("no such file", path=path)
    if progress:
        progress(0.0, "reading")
    try:
        con = sqlite3.connect(sqlite_uri(path), uri=True)
    except sqlite3.Error as exc:
        raise MapFormatError(f"cannot open as SQLite: {_why(exc)}", path=path) from None
    try:
        found, table = _read_layer(con, path, layer, weight)
    except sqlite3.Error as exc:
        raise MapFormatError(f"not a readable GeoPackage: {_why(exc)}", path=path) from None
    finally:
        con.close()
    return found.network(
        profile=profile, contract=contract, progress=progress, crs=crs,
        split_crossings=split_crossings, meta={"format": "gpkg", "layers": [table]},
    )  # fmt: skip


def _layers(con: sqlite3.Connection, path: str) -> list[tuple[str, str, str, Any]]:
    """(table, geometry column, geometry type, srs_id) of every feature table."""
    try:
        return con.execute(
            "SELECT c.table_name, g.column_name, g.geometry_type_name, g.srs_id "
            "FROM gpkg_contents c JOIN gpkg_geometry_columns g ON g.table_name = c.table_name "
            "WHERE c.data_type = 'features' ORDER BY c.table_name"
        ).fetchall()
    except sqlite3.OperationalError as exc:
        raise MapFormatError(
            f"not a GeoPackage (no readable gpkg_contents/gpkg_geometry_columns: {_why(exc)})",
            path=path) from None


def _rows(con: sqlite3.Connection, path: str, table: str, column: str):
    """(column names, geometry index, fid index or None, cursor over the rows)."""
    cur = con.execute(f"SELECT * FROM {_quote(str(table))}")
    names = [d[0] for d in cur.description]
    if column not in names:
        raise MapFormatError(f"layer {table!r} has no column {column!r}", path=path)
    fid_i = next((i for i, nm in enumerate(names) if nm.lower() in ("fid", "ogc_fid", "id")), None)
    return names, names.index(column), fid_i, cur


def _decode(path: str, table: str, rows: list, gi: int, fids: list) -> list:
    """The lines of every row's geometry (None: not a line)."""
    def where(i: int) -> str:
        return f"layer {table!r} feature {fids[i]}"

    blobs = []
    for i, row in enumerate(rows):
        try:
            blobs.append(None if row[gi] is None else gpkg_wkb(row[gi]))
        except ValueError as exc:
            raise MapFormatError(f"{where(i)}: bad geometry blob ({exc})", path=path) from None
    return wkb_lines(blobs, path=path, where=where)


def _has_lines(con, path: str, table: str, column: str) -> bool:
    _, gi, _, cur = _rows(con, path, table, column)
    rows = cur.fetchall()
    got = _decode(path, table, rows, gi, list(range(len(rows))))
    return any(g is not None for g in got)


def _read_layer(con, path: str, layer: str | None, weight: WeightSpec | None):
    tables = _layers(con, path)
    kinds = []
    for table, column, gtype, _ in tables:
        g = str(gtype).upper()
        lines = g in _LINE_TYPES or (g in _GENERIC_TYPES and _has_lines(con, path, table, column))
        kinds.append((str(table), lines, g.title()))
    table = pick_layer(kinds, layer, path)
    _, column, _, srs_id = next(t for t in tables if t[0] == table)
    found = LineSet(path, weight, _srs(con, srs_id))
    names, gi, fid_i, cur = _rows(con, path, table, column)
    rows = cur.fetchall()
    fids = []
    for rowno, row in enumerate(rows):
        fid = row[fid_i] if fid_i is not None else rowno
        fids.append(fid if isinstance(fid, int) else rowno)
    for row, fid, got in zip(rows, fids, _decode(path, table, rows, gi, fids), strict=True):
        if got is None:
            found.skipped += 1
            continue
        props = {nm: row[i] for i, nm in enumerate(names) if i != gi}
        found.add(got, props, fid, f"layer {table!r} feature {fid}")
    return found, table
