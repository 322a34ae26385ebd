"""Features of one GeoPackage layer as shapely geometries + properties (sqlite3 + shapely):
what the point files (``maps.points.resolve``) and areas (``maps.points.areas``) read from a .gpkg.
The line layers of road maps are ``maps.formats.gpkg``'s."""

from __future__ import annotations

import os
import sqlite3
from urllib.parse import quote

from ..errors import PointError

_ENVELOPE = (0, 32, 48, 48, 64)  # bytes of the envelope by its code (GeoPackage 1.3)


def wkb_of_blob(blob: bytes) -> bytes:
    """The WKB inside a GeoPackage geometry blob (after the 'GP' header and envelope)."""
    if len(blob) < 8 or blob[:2] != b"GP":
        raise ValueError("not a GeoPackage geometry blob")
    env = (blob[3] >> 1) & 7
    if env >= len(_ENVELOPE):
        raise ValueError(f"bad envelope code {env}")
    return blob[8 + _ENVELOPE[env]:]


def read_gpkg_features(path: str, types: tuple[str, ...], what: str,
                       error=PointError, keep_null: bool = False) -> tuple[str | None, list]:
    """(CRS as 'ORG:CODE' or None, [(geometry, properties)]) of the first layer (by name)
    whose geometry type is one of ``types`` (upper case, e.g. ('POINT', 'MULTIPOINT')).
    ``error`` (a MapError type) names the file, the layer and the feature; ``what`` says
    what kind of layer was looked for; ``keep_null``: a feature without geometry comes as
    (None, properties) instead of being skipped."""
    import shapely

    from ..source import check_regular

    check_regular(path, "a GeoPackage is an SQLite database file", error)
    try:
        con = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise error(f"cannot open as SQLite ({exc})", path=path) from None
    try:
        marks = ", ".join("?" * len(types))
        layers = con.execute(
            "SELECT g.table_name, g.column_name, s.organization, s.organization_coordsys_id "
            "FROM gpkg_geometry_columns g LEFT JOIN gpkg_spatial_ref_sys s ON "
            f"s.srs_id = g.srs_id WHERE upper(g.geometry_type_name) IN ({marks}) "
            "ORDER BY g.table_name", types).fetchall()
        if not layers:
            raise error(f"the GeoPackage has no {what} layer", path=path)
        table, column, org, code = layers[0]
        crs = f"{org}:{code}" if org and str(org).upper() != "NONE" else None
        cur = con.execute('SELECT * FROM "{}"'.format(table.replace('"', '""')))
        names = [d[0] for d in cur.description]
        gi = names.index(column)
        out = []
        for k, row in enumerate(cur):
            props = {n: v for i, (n, v) in enumerate(zip(names, row, strict=True)) if i != gi}
            if row[gi] is None:
                if keep_null:
                    out.append((None, props))
                continue
            try:
                geom = shapely.from_wkb(wkb_of_blob(bytes(row[gi])))
            except Exception as exc:  # shapely/GEOS raise several types for bad WKB
                raise error(f"layer {table!r} feature {k}: bad geometry ({exc})",
                            path=path) from None
            out.append((geom, props))
    except sqlite3.Error as exc:
        raise error(f"not a readable GeoPackage ({exc})", path=path) from None
    finally:
        con.close()
    return crs, out
