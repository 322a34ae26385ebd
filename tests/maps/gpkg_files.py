"""A minimal GeoPackage line-layer writer for tests (issue 38: it sat among the readers in
``maps/formats/gpkg.py``; the app writes GeoPackages through ``maps.outputs.vector``)."""

from __future__ import annotations

import os
import sqlite3
import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


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


def line_wkb(coords: Sequence[Sequence[float]] | np.ndarray, *, multi: bool = False, z: bool = False) -> bytes:
    """Little-endian ISO WKB of one line (a MultiLineString of it when ``multi``; a zero Z
    coordinate when ``z``)."""
    import shapely

    pts = np.asarray(coords, dtype=np.float64).reshape(-1, 2)
    if z:
        pts = np.column_stack([pts, np.zeros(pts.shape[0])])
    geom = shapely.linestrings(pts)
    if multi:
        geom = shapely.multilinestrings([geom])
    return shapely.to_wkb(geom, byte_order=1, flavor="iso", output_dimension=3 if z else 2)
