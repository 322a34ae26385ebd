"""``--out postgresql://.../db?table=NAME``: a command's CSV rows as a database table.

The commands keep one row producer: what they write to ``F.csv`` goes, header and all,
into ``maps.postgis.write.answer_table`` (one transaction, a temporary name renamed at commit),
plus a ``geom`` column in the map's SRID (a database map's, else 4326) where the rows
have a place. :func:`check` runs before the work, so a wrong URI or an existing table
(``--if-exists fail``) stops it at once.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator, Sequence

from app.cli._common import secret
from maps.postgis.write import IF_EXISTS, Geometry

IF_EXISTS_HELP = ("when --out exists: fail, replace it or append (a table: default fail; "
                  "a file: default replace, append adds rows under a .csv's same header or "
                  "features to a .gpkg layer; a .gpkg keeps its other layers)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--if-exists", default=None, choices=IF_EXISTS, help=IF_EXISTS_HELP)
    p.set_defaults(out_tables=True)  # the --out policy (app.cli._atomic) lets a URI through


def table_mode(args: argparse.Namespace) -> str:
    """``--if-exists`` for a database table: as given, else fail."""
    return getattr(args, "if_exists", None) or "fail"


def wanted(args: argparse.Namespace) -> bool:
    """Whether ``--out`` names a database table."""
    from maps.postgis.conn import is_db_uri

    out = getattr(args, "out", None)
    return out is not None and is_db_uri(secret(args, "out"))


def check(args: argparse.Namespace) -> None:
    """Before the work: the database answers and the table may be written."""
    from maps.postgis.write import check_target

    check_target(secret(args, "out"), table_mode(args))


def srid_of(net) -> int:
    """The SRID answers are written in: the database map's, else WGS84."""
    srid = net.meta.get("srid") if net is not None else None
    return int(srid) if srid and int(srid) > 0 else 4326


@contextlib.contextmanager
def table(args: argparse.Namespace, net, columns: Sequence[tuple[str, str]],
          geometry: Geometry | None = None) -> Iterator:
    """A sink for the CSV text (header first) that becomes ``--out``'s table."""
    from maps.postgis.write import answer_table

    notes: list[str] = []
    with answer_table(secret(args, "out"), columns, if_exists=table_mode(args),
                      geometry=geometry, srid=srid_of(net), notes=notes) as sink:
        yield sink
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def id_type(ids) -> str:
    """SQL type of an id column: bigint when every id is an integer, else text."""
    import numpy as np

    arr = np.asarray(ids)
    return "bigint" if arr.dtype.kind in "iu" or (
        arr.dtype == object and all(isinstance(v, (int, np.integer)) for v in arr.tolist())
    ) else "text"


def _sql_type(values: list) -> str:
    """SQL type of a column of plain Python values (None allowed)."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return "boolean"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "bigint"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "double precision"
    return "text"


def rows_csv(rows: Sequence[dict], columns: Sequence[str]) -> str:
    """CSV text of ``rows`` (dicts) in ``columns`` order, header first; None is empty."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow(["" if r.get(c) is None else r.get(c) for c in columns])
    return buf.getvalue()


def write_rows(args: argparse.Namespace, net, rows: Sequence[dict], geoms: Sequence | None = None,
               geom_type: str = "Geometry") -> None:
    """``--out``: ``rows`` as ``F.csv`` or, for a database URI, as a table with each
    row's shapely geometry (lon/lat; None: none) as ``geom``."""
    columns = list(rows[0]) if rows else []
    if not wanted(args):
        from app.cli._atomic import write_text_atomic

        text = rows_csv(rows, columns)
        write_text_atomic(args.out, lambda fh: fh.write(text))
        return
    cols = [(c, _sql_type([r.get(c) for r in rows])) for c in columns]
    geometry = None
    if geoms is not None and net is not None and net.has_coordinates:
        import shapely

        hexes = shapely.to_wkb(list(geoms), hex=True).tolist()
        rows = [{**r, "_wkb": h} for r, h in zip(rows, hexes, strict=True)]
        columns.append("_wkb")
        cols.append(("_wkb", "text"))
        geometry = Geometry("wkb", ("_wkb",), geom_type)
    with table(args, net, cols, geometry) as sink:
        sink.write(rows_csv(rows, columns))
