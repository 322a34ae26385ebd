"""A pgRouting edge table (or any query returning its columns) as a map source.

``postgresql://...?table=ways`` (``maps.postgis.conn`` parses it) or ``--sql "SELECT ..."``
with pgRouting's columns (``&restrictions=NAME`` adds a ``pgr_trsp`` restrictions table's
turn bans: ``maps.postgis.restrictions``):

* ``id`` (``gid`` as osm2pgrouting writes it), ``source``, ``target``: integers; the
  vertex ids are the map's node ids (``node:ID``), the edge ids its arcs' source ids.
* ``cost`` and optional ``reverse_cost``; a negative value means no passage that way
  (pgRouting's rule). Without ``reverse_cost`` the edges are one-way (pgRouting's
  ``directed := true``). ``--weight COL`` takes the values from ``COL`` (and the reverse
  ones from ``reverse_COL`` when the table has it, e.g. osm2pgrouting's ``cost_s``);
  the directions still follow ``cost``/``reverse_cost``. Values become exact integers as
  for files (``maps.model.weights``: the smallest power-of-ten scale that keeps them).
* A table of plain lines (a line geometry, no ``source``/``target``) is noded where its
  lines share vertices, as a GIS file's (``maps.model.lines``): lengths in decimetres, or
  ``--weight COL`` (every line both ways).
* Coordinates (optional): a line geometry column (``the_geom``, ``geom``, ``geometry`` or
  the table's only one) in any SRID, else ``x1, y1, x2, y2``. The edge's first point is
  its source vertex, the last its target; the inner points draw it. SRID 0 or plain
  columns must be lon/lat unless ``--crs`` says otherwise (``maps.geo.crs``).

Reading: one READ ONLY, REPEATABLE READ transaction; one ``COPY ... TO STDOUT (FORMAT
BINARY)`` whose fixed-width part numpy decodes at once (NULLs arrive as sentinels, so
every row has the same layout), the geometry (WKB) last. ``--sql`` runs inside that
READ ONLY transaction as a subquery (one statement only).

Cache: a table's network is cached (``maps.cache``) under a key made of the cluster's
system identifier, host, port, database, user, table and options, and a fingerprint read
in the same snapshot as the data: the relation's oid and relfilenode (TRUNCATE, VACUUM
FULL, CLUSTER and column-type rewrites give a new one), its columns and types, and
``count(*)``, ``max(xmin)``, ``sum(xmin)`` of its rows. Every committed INSERT or UPDATE
writes row versions stamped with a transaction id newer than any before it (``max``
changes; past a 2^32 wraparound ``sum`` still does), and a DELETE changes ``count``.
``pg_stat_user_tables`` counters are not used: they are updated asynchronously, can be
reset, and are lost on a crash. Views, foreign tables and ``--sql`` (which may read
anything) are never cached. The key holds no password.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from ..model.weights import WeightSpec
from .conn import DatabaseError, DbUri, connect, describe, failure, parse_uri

log = logging.getLogger(__name__)
Progress = Callable[[float, str], None]

ID_COLUMNS = ("id", "gid")
GEOM_COLUMNS = ("the_geom", "geom", "geometry", "wkb_geometry")
_MISSING = np.iinfo(np.int64).min  # a NULL id, source or target
_CACHED_KINDS = ("r", "m", "p")  # tables, materialized views, partitioned tables


def load_postgis(
    path: str,
    contract: bool = False,
    progress: Progress | None = None,
    crs: str | None = None,
    weight: WeightSpec | None = None,
    sql: str | None = None,
    use_cache: bool = True,
) -> Any:
    """The network of the pgRouting edges ``path`` (a database URI) names (module doc)."""
    uri = parse_uri(path)
    if sql is None and not uri.table:
        raise DatabaseError(f"{describe(uri)}: name the edge table (?table=NAME) or give --sql")
    if sql is not None and uri.table:
        raise DatabaseError(f"{describe(uri)}: give either ?table= or --sql, not both")
    if uri.restrictions and contract:
        raise DatabaseError(f"{describe(uri)}: --contract does not combine with ?restrictions= "
                            "yet (merging chains would move the restricted vertices)")
    conn = connect(uri, read_only=True)
    try:
        from psycopg import IsolationLevel

        conn.isolation_level = IsolationLevel.REPEATABLE_READ  # fingerprint and rows: one snapshot
        with conn.transaction():
            source = _Source(uri, conn, sql)
            plan = _plan(uri, conn, source.columns(conn), weight)
            key = source.fingerprint(conn) if use_cache and sql is None else None
            options = {"contract": contract, "crs": crs, "weight": weight and
                       (weight.column, weight.dimension, weight.factor), "plan": plan.key()}

            def build():
                if progress:
                    progress(0.05, "reading the edges (COPY)")
                edges = _copy(uri, conn, source, plan)
                from .edges import edges_to_network, lines_to_network

                if plan.lines:
                    return lines_to_network(edges, shown=uri.shown, where=describe(uri, conn),
                                            contract=contract, crs=crs, weight=weight,
                                            progress=progress)
                return edges_to_network(edges, shown=uri.shown, where=describe(uri, conn),
                                        plan=plan, contract=contract, crs=crs, weight=weight,
                                        progress=progress)

            if key is None:
                net = build()
            else:
                from ..cache import cached_entry, source_key

                key.update(options)
                net = cached_entry(source_key(_digest(key)), build)
            if uri.restrictions:  # turn bans, in the same snapshot (issue 39)
                from .restrictions import with_restrictions

                net = with_restrictions(net, uri, conn)
    finally:
        conn.close()
    net.source_path = uri.shown
    return net


def _digest(key: dict) -> str:
    return hashlib.blake2b(json.dumps(key, sort_keys=True, default=str).encode(),
                           digest_size=16).hexdigest()


class _Source:
    """The relation (or ``--sql`` query) the edges come from."""

    def __init__(self, uri: DbUri, conn: Any, sql: str | None) -> None:
        from psycopg import sql as q

        self.uri, self.query = uri, sql
        if sql is not None:
            text = sql.strip().rstrip(";").strip()
            if not text:
                raise DatabaseError(f"{describe(uri, conn)}: --sql is empty")
            self.from_: q.Composable = q.SQL("({}) AS signpost_q").format(q.SQL(text))
            self.oid = None
            return
        ident = q.Identifier(*uri.table_ident())
        try:
            row = conn.execute("SELECT c.oid::int8, c.relkind::text, c.relfilenode::int8 "
                               "FROM pg_class c WHERE c.oid = to_regclass(%s)",
                               (ident.as_string(conn),)).fetchone()
        except Exception as exc:  # noqa: BLE001 (psycopg.Error; a malformed name)
            raise failure(uri, conn, exc) from None
        if row is None:
            raise DatabaseError(f"{describe(uri, conn)}: no such table")
        self.oid, self.kind, self.filenode = row
        self.from_ = ident

    def columns(self, conn: Any) -> dict[str, str]:
        """Column name → type name (``regtype``: "bigint", "geometry", ...)."""
        from psycopg import sql as q

        try:
            if self.oid is not None:
                rows = conn.execute(
                    "SELECT attname::text, atttypid::regtype::text FROM pg_attribute "
                    "WHERE attrelid = %s AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                    (self.oid,)).fetchall()
            else:
                cur = conn.execute(q.SQL("SELECT * FROM {} LIMIT 0").format(self.from_))
                rows = [(d.name, _type_name(conn, d.type_code)) for d in cur.description]
        except Exception as exc:  # noqa: BLE001 (psycopg.Error: the query fails)
            raise failure(self.uri, conn, exc, "--sql: " if self.query else "") from None
        self.cols = dict(rows)
        return self.cols

    def fingerprint(self, conn: Any) -> dict | None:
        """What changes whenever the table's rows do (module doc); None: not cacheable."""
        if self.oid is None or self.kind not in _CACHED_KINDS:
            return None
        from psycopg import sql as q

        try:
            count, top, total = conn.execute(q.SQL(
                "SELECT count(*), max(xmin::text::int8), sum(xmin::text::int8)::text FROM {}"
            ).format(self.from_)).fetchone()
            try:
                with conn.transaction():  # a savepoint: pg_control_system may be refused
                    system = conn.execute("SELECT system_identifier::text FROM "
                                          "pg_control_system()").fetchone()[0]
            except Exception:  # noqa: BLE001 (psycopg.Error: not allowed)
                system = None
        except Exception as exc:  # noqa: BLE001 (psycopg.Error)
            raise failure(self.uri, conn, exc) from None
        info = conn.info
        return {"source": "postgis", "system": system, "host": info.host, "port": info.port,
                "dbname": info.dbname, "user": info.user, "table": self.uri.table,
                "oid": self.oid, "filenode": self.filenode, "columns": self.cols,
                "rows": [count, top, total]}


def _type_name(conn: Any, oid: int) -> str:
    row = conn.execute("SELECT %s::regtype::text", (oid,)).fetchone()
    return row[0] if row else str(oid)


class _Plan:
    """Which columns to read and how (decided from the column list)."""

    def __init__(self, ident: str | None, source: str | None, target: str | None,
                 cost: str | None, rev: str | None, dirs: tuple[str | None, str | None],
                 geom: str | None, xy: bool, lines: bool = False) -> None:
        self.ident, self.source, self.target = ident, source, target
        self.cost, self.rev, self.dirs = cost, rev, dirs
        self.geom, self.xy, self.lines = geom, xy, lines

    def key(self) -> list:
        return [self.ident, self.source, self.target, self.cost, self.rev, list(self.dirs),
                self.geom, self.xy, self.lines]


def _plan(uri: DbUri, conn: Any, cols: dict[str, str], weight: WeightSpec | None) -> _Plan:
    where = describe(uri, conn)

    def need(name: str) -> str:
        if name not in cols:
            have = ", ".join(list(cols)[:12]) + (" ..." if len(cols) > 12 else "")
            raise DatabaseError(f"{where}: no column {name!r} (columns: {have})")
        return name

    ident = next((c for c in ID_COLUMNS if c in cols), None)
    geoms = [c for c, t in cols.items() if t in ("geometry", "geography")]
    geom = next((c for c in GEOM_COLUMNS if c in geoms), geoms[0] if geoms else None)
    if geom is not None and not ("source" in cols and "target" in cols):
        # plain lines: noded where they share vertices, as a GIS file's (maps.model.lines)
        cost = need(weight.column) if weight is not None else None
        return _Plan(ident, None, None, cost, None, (None, None), geom, False, lines=True)
    if ident is None:
        need("id")
    rev = "reverse_cost" if "reverse_cost" in cols else None
    dirs = (need("cost"), rev)
    cost, rcost = dirs
    if weight is not None:
        cost = need(weight.column)
        rcost = f"reverse_{weight.column}" if f"reverse_{weight.column}" in cols else (
            cost if rev else None)
    xy = geom is None and all(c in cols for c in ("x1", "y1", "x2", "y2"))
    return _Plan(ident, need("source"), need("target"), cost, rcost, dirs, geom, xy)


def _copy(uri: DbUri, conn: Any, source: _Source, plan: _Plan) -> dict[str, np.ndarray]:
    """Every edge's columns as arrays (module doc: one binary COPY)."""
    from psycopg import sql as q

    from .binary import decode

    def i8(c: str) -> q.Composable:
        return q.SQL("coalesce({}::int8, {})").format(q.Identifier(c), q.Literal(int(_MISSING)))

    def f8(c: str | None, default: str = "'NaN'") -> q.Composable:
        if c is None:
            return q.SQL("(-1)::float8")
        return q.SQL("coalesce({}::float8, " + default + ")").format(q.Identifier(c))

    row_no = q.SQL("(row_number() OVER ())::int8")  # a table without an id column
    fixed = [("id", "i8", i8(plan.ident) if plan.ident else row_no)]
    if plan.lines:
        fixed.append(("cost", "f8", f8(plan.cost)))
    else:
        assert plan.source and plan.target  # an edge table's plan names both (_plan)
        fixed += [("source", "i8", i8(plan.source)), ("target", "i8", i8(plan.target)),
                  ("cost", "f8", f8(plan.cost)), ("rev", "f8", f8(plan.rev)),
                  ("dir_f", "f8", f8(plan.dirs[0])), ("dir_b", "f8", f8(plan.dirs[1]))]
        # which values were NULL, apart from the sentinels (a real -2^63 id, a NaN cost)
        bits = [(c, b) for c, b in ((plan.ident, 1), (plan.source, 2), (plan.target, 4),
                                    (plan.cost, 8), (plan.rev, 16), (plan.dirs[0], 8),
                                    (plan.dirs[1], 16)) if c is not None]
        fixed.append(("nulls", "i4", q.SQL(" | ").join(
            q.SQL("(({} IS NULL)::int4 * {})").format(q.Identifier(c), q.Literal(b))
            for c, b in bits) if bits else q.SQL("0")))
    blob = None
    if plan.geom is not None:
        g = q.Identifier(plan.geom)
        gg = q.SQL("{}::geometry").format(g)
        fixed.append(("srid", "i4", q.SQL("coalesce(ST_SRID({}), -1)").format(gg)))
        blob = q.SQL("ST_AsBinary(ST_Force2D({}))").format(gg)
    elif plan.xy:
        fixed += [(c, "f8", f8(c)) for c in ("x1", "y1", "x2", "y2")]
    exprs = [e for _, _, e in fixed] + ([blob] if blob is not None else [])
    stmt = q.SQL("COPY (SELECT {} FROM {}) TO STDOUT (FORMAT BINARY)").format(
        q.SQL(", ").join(exprs), source.from_)
    chunks: list[bytes] = []
    try:
        with conn.cursor() as cur, cur.copy(stmt) as copy:
            for data in copy:
                chunks.append(bytes(data))
    except Exception as exc:  # noqa: BLE001 (psycopg.Error: a bad cast, a failing query)
        raise failure(uri, conn, exc, "--sql: " if source.query else "") from None
    return decode(b"".join(chunks), [(n, t) for n, t, _ in fixed], blob is not None,
                  where=describe(uri, conn))


def pgrouting_query(path: str, weight: WeightSpec | None = None) -> str:
    """The edge query pgRouting's functions take for the table ``path`` names, reading
    the columns Signpost reads (``id, source, target, cost, reverse_cost``; every
    identifier quoted by ``psycopg.sql``)."""
    from psycopg import sql as q

    uri = parse_uri(path)
    conn = connect(uri, read_only=True)
    try:
        with conn.transaction():
            src = _Source(uri, conn, None)
            plan = _plan(uri, conn, src.columns(conn), weight)
            if plan.lines:
                raise DatabaseError(f"{describe(uri, conn)}: pgRouting needs source and "
                                    "target columns")
            assert plan.ident and plan.source and plan.target and plan.cost  # (_plan)
            rev = q.Identifier(plan.rev) if plan.rev else q.SQL("-1")
            return q.SQL("SELECT {} AS id, {} AS source, {} AS target, {} AS cost, {} AS "
                         "reverse_cost FROM {}").format(
                q.Identifier(plan.ident), q.Identifier(plan.source), q.Identifier(plan.target),
                q.Identifier(plan.cost), rev, src.from_).as_string(conn)
    finally:
        conn.close()
