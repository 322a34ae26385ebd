"""Answers written into PostgreSQL as tables: the CSV a command writes, COPYed whole or
not at all.

:func:`answer_table` is a context manager yielding a text sink (``write(str)``) that
takes exactly the CSV text ``--out F.csv`` would hold (header line first), so every
command keeps one row producer for both. In one transaction: the CSV goes by ``COPY ...
FROM STDIN (FORMAT csv, HEADER)`` into a temporary staging table, a new table with a
temporary name is created from it (geometry built there, in the SRID asked for, when
PostGIS is installed), and renamed to the target at the end (``--if-exists replace``
drops the old one first, ``append`` inserts into it, ``fail`` refuses an existing one).
A failure or Ctrl-C rolls everything back: nothing half-written stays.

Geometry: ``Geometry("point", ("lon", "lat"))`` makes points from two CSV columns,
``Geometry("wkb", ("wkb",))`` reads hex WKB in lon/lat; either is transformed to
``srid`` (``ST_Transform``) and the helper columns are left out of the table. Without
PostGIS the table keeps ``lon``/``lat`` (points) or no geometry (a note says so).
Every identifier goes through ``psycopg.sql``.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .conn import DatabaseError, DbUri, connect, describe, failure, parse_uri

IF_EXISTS = ("fail", "replace", "append")


@dataclass(frozen=True)
class Geometry:
    """How the table's ``geom`` column is made from helper CSV columns (module doc)."""

    kind: str  # "point" (x, y columns in lon/lat) or "wkb" (one hex WKB column, lon/lat)
    columns: tuple[str, ...]
    geom_type: str = "Geometry"  # the column's type: Point, LineString, MultiPolygon, ...
    keep: bool = False  # the helper columns stay in the table (they are the CSV's own)


def target(text: str) -> DbUri:
    """The parsed ``--out`` URI; DatabaseError without ``?table=``."""
    uri = parse_uri(text)
    if not uri.table:
        raise DatabaseError(f"{describe(uri)}: --out needs ?table=NAME")
    return uri


def _exists(conn: Any, uri: DbUri) -> bool:
    from psycopg import sql as q

    name = q.Identifier(*uri.table_ident()).as_string(conn)
    return conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()[0]


def has_postgis(conn: Any) -> bool:
    return conn.execute("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = "
                        "'postgis')").fetchone()[0]


def check_target(text: str, if_exists: str) -> None:
    """Before the work: the database answers, and under ``fail`` the table is absent."""
    uri = target(text)
    if if_exists not in IF_EXISTS:
        raise DatabaseError(f"--if-exists {if_exists!r}: choose {', '.join(IF_EXISTS)}")
    conn = connect(uri)
    try:
        if if_exists == "fail" and _exists(conn, uri):
            raise DatabaseError(f"{describe(uri, conn)}: the table exists "
                                "(--if-exists replace or append)")
    except DatabaseError:
        raise
    except Exception as exc:  # noqa: BLE001 (psycopg.Error)
        raise failure(uri, conn, exc) from None
    finally:
        conn.close()


class _Sink:
    """A text sink feeding a COPY (``write(str)``)."""

    def __init__(self, copy: Any) -> None:
        self.copy = copy
        self.rows = 0

    def write(self, text: str) -> int:
        self.copy.write(text)
        return len(text)


@contextlib.contextmanager
def answer_table(
    text: str, columns: Sequence[tuple[str, str]], *, if_exists: str = "fail",
    geometry: Geometry | None = None, srid: int = 4326, notes: list[str] | None = None,
) -> Iterator[_Sink]:
    """Write the CSV text written to the yielded sink into the table ``text`` names.

    ``columns`` = [(name, SQL type)] of the CSV, in order (the helper columns of
    ``geometry`` among them). ``notes`` gets a line when geometry had to be left out."""
    from psycopg import sql as q

    uri = target(text)
    conn = connect(uri)
    ident = uri.table_ident()
    schema, name = (ident[0], ident[1]) if len(ident) == 2 else (None, ident[0])
    final = q.Identifier(*ident)
    temp_name = f"signpost_new_{secrets.token_hex(6)}"
    temp = q.Identifier(schema, temp_name) if schema else q.Identifier(temp_name)
    stage = q.Identifier("signpost_stage")
    try:
        with conn.transaction():
            conn.execute(q.SQL("CREATE TEMP TABLE {} ({}) ON COMMIT DROP").format(
                stage, q.SQL(", ").join(q.SQL("{} {}").format(q.Identifier(c), q.SQL(t))
                                        for c, t in columns)))
            with conn.cursor() as cur, cur.copy(q.SQL(
                    "COPY {} FROM STDIN (FORMAT csv, HEADER true)").format(stage)) as copy:
                yield _Sink(copy)
            select = _select(conn, columns, geometry, srid, notes)
            conn.execute(q.SQL("CREATE TABLE {} AS SELECT {} FROM {}").format(
                temp, select, stage))
            exists = _exists(conn, uri)
            if exists and if_exists == "fail":
                raise DatabaseError(f"{describe(uri, conn)}: the table exists "
                                    "(--if-exists replace or append)")
            if exists and if_exists == "append":
                conn.execute(q.SQL("INSERT INTO {} SELECT * FROM {}").format(final, temp))
                conn.execute(q.SQL("DROP TABLE {}").format(temp))
            else:
                if exists:
                    conn.execute(q.SQL("DROP TABLE {}").format(final))
                conn.execute(q.SQL("ALTER TABLE {} RENAME TO {}").format(
                    temp, q.Identifier(name)))
    except DatabaseError:
        raise
    except Exception as exc:
        import psycopg

        if isinstance(exc, psycopg.Error):
            raise failure(uri, conn, exc, "cannot write: ") from None
        raise
    finally:
        conn.close()


def _select(conn: Any, columns: Sequence[tuple[str, str]], geometry: Geometry | None,
            srid: int, notes: list[str] | None) -> Any:
    """The staging table's columns as the answer table has them (geometry built)."""
    from psycopg import sql as q

    names = [c for c, _ in columns]
    if geometry is None:
        return q.SQL(", ").join(map(q.Identifier, names))
    if not has_postgis(conn):
        if notes is not None:
            notes.append("the database has no PostGIS: the table has no geometry column")
        keep = names if geometry.kind == "point" or geometry.keep else [
            c for c in names if c not in geometry.columns]
        return q.SQL(", ").join(map(q.Identifier, keep))
    keep = [c for c in names if geometry.keep or c not in geometry.columns]
    if geometry.kind == "point":
        x, y = map(q.Identifier, geometry.columns)
        made = q.SQL("ST_SetSRID(ST_MakePoint({}, {}), 4326)").format(x, y)
    else:
        made = q.SQL("ST_GeomFromWKB(decode({}, 'hex'), 4326)").format(
            q.Identifier(geometry.columns[0]))
    if srid != 4326:
        made = q.SQL("ST_Transform({}, {})").format(made, q.Literal(int(srid)))
    if geometry.geom_type.startswith("Multi"):
        made = q.SQL("ST_Multi({})").format(made)
    geom = q.SQL("{}::geometry({}, {}) AS geom").format(
        made, q.SQL(geometry.geom_type), q.Literal(int(srid)))
    return q.SQL(", ").join([*map(q.Identifier, keep), geom])


# ---- a network as a pgRouting edge table ---------------------------------------------------
def pgrouting_edges(net: Any) -> dict[str, Any]:
    """The arcs of ``net`` as pgRouting edges: arc pairs u→v, v→u of one source id and
    weight become one edge with ``cost`` and ``reverse_cost``, other arcs one-way edges
    (``reverse_cost`` -1). Returns arrays id (1..E), source, target (node ids), cost,
    reverse_cost and ``arc`` (the forward arc of each edge)."""
    import numpy as np

    tails = net.arc_sources().astype(np.int64)
    heads = net.indices.astype(np.int64)
    w = net.weights.astype(np.int64)
    sid = net.edge_source_id.astype(np.int64)
    lo, hi = np.minimum(tails, heads), np.maximum(tails, heads)
    order = np.lexsort((tails > heads, w, sid, hi, lo))
    key = np.column_stack([lo, hi, sid, w])[order]
    same = np.all(key[1:] == key[:-1], axis=1) & (tails[order][1:] != tails[order][:-1])
    # pair i with i+1 only when the group is exactly that pair (no 3-arc groups)
    before = np.r_[False, same[:-1]]
    after = np.r_[same[1:], False]
    pair = same & ~before & ~after
    first = np.flatnonzero(pair)
    paired = np.zeros(order.shape[0], dtype=bool)
    paired[first] = paired[first + 1] = True
    single = order[~paired]
    fwd = np.concatenate([order[first], single])
    rev = np.concatenate([w[order[first + 1]], np.full(single.shape[0], -1, dtype=np.int64)])
    fwd_sorted = np.argsort(fwd, kind="stable")
    fwd, rev = fwd[fwd_sorted], rev[fwd_sorted]
    ids = net.node_ids.astype(np.int64)
    return {"id": np.arange(1, fwd.shape[0] + 1, dtype=np.int64), "source": ids[tails[fwd]],
            "target": ids[heads[fwd]], "cost": w[fwd], "reverse_cost": rev, "arc": fwd}


def write_network(net: Any, text: str, *, srid: int = 4326, if_exists: str = "fail",
                  geometry: bool = True) -> int:
    """Write ``net`` as a pgRouting edge table (``id, source, target, cost,
    reverse_cost`` + a LineString ``geom`` in ``srid`` when the map has coordinates and
    ``geometry``); returns the number of edges."""
    import numpy as np

    e = pgrouting_edges(net)
    cols = [("id", "bigint"), ("source", "bigint"), ("target", "bigint"),
            ("cost", "double precision"), ("reverse_cost", "double precision")]
    geom = None
    wkb = None
    if geometry and net.has_coordinates:
        wkb = _arc_wkb(net, e["arc"])
        cols.append(("wkb", "text"))
        geom = Geometry("wkb", ("wkb",), "LineString")
    with answer_table(text, cols, if_exists=if_exists, geometry=geom, srid=srid) as sink:
        sink.write(",".join(c for c, _ in cols) + "\n")
        step = 200_000
        for a in range(0, e["id"].shape[0], step):
            part = [e[k][a:a + step].tolist() for k in ("id", "source", "target", "cost",
                                                        "reverse_cost")]
            if wkb is not None:
                part.append(wkb[a:a + step])
            sink.write("".join(",".join(map(str, row)) + "\n" for row in zip(*part,
                                                                               strict=True)))
    return int(np.asarray(e["id"]).shape[0])


def _arc_wkb(net: Any, arcs: Any) -> list[str]:
    """Hex WKB of each arc's line in lon/lat: tail, inner points, head."""
    import numpy as np
    import shapely

    from ..geo.projection import to_lonlat

    tails = net.arc_sources()[arcs]
    heads = net.indices[arcs]
    if net.geom_indptr is None:
        inner = np.zeros(arcs.shape[0], dtype=np.int64)
        pts_in = np.zeros((0, 2))
        starts = np.zeros(arcs.shape[0], dtype=np.int64)
    else:
        starts, ends = net.geom_indptr[arcs], net.geom_indptr[arcs + 1]
        inner = (ends - starts).astype(np.int64)
        idx = np.repeat(starts, inner) + (np.arange(int(inner.sum())) -
                                          np.repeat(np.cumsum(inner) - inner, inner))
        lon, lat = to_lonlat(net.geom_xy[idx, 0], net.geom_xy[idx, 1], net.origin)
        pts_in = np.column_stack([lon, lat])
    count = inner + 2
    total = int(count.sum())
    coords = np.empty((total, 2))
    begin = np.cumsum(count) - count
    coords[begin] = np.column_stack([net.lon[tails], net.lat[tails]])
    coords[begin + count - 1] = np.column_stack([net.lon[heads], net.lat[heads]])
    if pts_in.shape[0]:
        pos = np.repeat(begin + 1, inner) + (np.arange(int(inner.sum())) -
                                             np.repeat(np.cumsum(inner) - inner, inner))
        coords[pos] = pts_in
    lines = shapely.linestrings(coords, indices=np.repeat(np.arange(arcs.shape[0]), count))
    return shapely.to_wkb(lines, hex=True).tolist()
