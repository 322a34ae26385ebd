"""GeoPackage line layers → :class:`RoadNetwork` (stdlib sqlite3 + numpy).

* **Layers**: every feature table of ``gpkg_contents`` (or only ``layer``), in name order.
  Line geometries are LineString/MultiLineString blobs ("GP" header + WKB, ``maps.wkb``);
  other geometries are counted in ``meta["skipped_features"]`` and ignored. Tags, nodes
  and lengths: ``maps.lines``.
* ``edge_source_id`` is the feature's fid (a ``fid``/``ogc_fid``/``id`` column), else its
  row number.
* **Coordinates** must be WGS84 lon/lat: a layer whose SRS is not EPSG:4326 raises
  MapFormatError.
"""

from __future__ import annotations

import os
import sqlite3
import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import profiles as P
from .errors import EmptyMapError, MapFormatError
from .lines import LineSet, Progress, check_lonlat, tags_of
from .network import RoadNetwork
from .wkb import line_wkb, wkb_lines

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
    return wkb_lines(blob, off)


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
    found = LineSet()
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
                found.skipped += 1
                continue
            try:
                got = gpkg_blob_lines(blob)
            except (ValueError, struct.error) as exc:
                raise MapFormatError(
                    f"layer {table!r} feature {fid}: bad geometry blob ({exc})", path=path
                ) from None
            if got is None:
                found.skipped += 1
                continue
            props = {nm: row[i] for i, nm in enumerate(names) if i != gi}
            tg = tags_of(props)
            for ln in got:
                where = f"layer {table!r} feature {fid}"
                check_lonlat(ln, path, where)
                if ln.shape[0] < 2:
                    raise MapFormatError(f"{where}: a LineString needs 2 points", path=path)
            found.add(got, tg, fid)
    return found.network(
        path=path, profile=profile, contract=contract, progress=progress,
        meta={"format": "gpkg", "layers": [t[0] for t in tables]},
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
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    header = b"GP" + bytes([0, 0b011]) + struct.pack("<i", srs_id)  # LE, envelope code 1
    header += struct.pack("<4d", lo[0], hi[0], lo[1], hi[1])
    return header + line_wkb(pts, multi=multi, z=z)
