"""Which tables of a database look like road networks (the app's picker): those with
``source`` and ``target`` columns (pgRouting edges) or a line geometry column."""

from __future__ import annotations

from dataclasses import dataclass

from .conn import connect, failure, parse_uri

# Relations the user may read: tables, views, materialized views, partitioned and foreign
# tables, outside the system schemas; the row count is the planner's estimate (no scan).
_QUERY = """
SELECT n.nspname::text, c.relname::text, c.relkind::text, greatest(c.reltuples, 0)::int8,
       bool_or(a.attname = 'source') AND bool_or(a.attname = 'target'),
       bool_or(t.typname = 'geometry' AND ({line_test}))
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_type t ON t.oid = a.atttypid
WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'topology', 'tiger')
  AND n.nspname NOT LIKE 'pg\\_%'
  AND has_table_privilege(c.oid, 'SELECT')
GROUP BY n.nspname, c.relname, c.relkind, c.reltuples
HAVING (bool_or(a.attname = 'source') AND bool_or(a.attname = 'target'))
    OR bool_or(t.typname = 'geometry' AND ({line_test}))
"""
# A geometry column's declared type (PostGIS): lines, or any geometry (undeclared).
_LINE_TEST = ("upper(postgis_typmod_type(a.atttypmod)) IN ('LINESTRING', 'MULTILINESTRING', "
              "'GEOMETRY', 'LINESTRINGZ', 'MULTILINESTRINGZ') OR a.atttypmod = -1")


@dataclass(frozen=True)
class NetworkTable:
    """A table the picker offers."""

    schema: str
    name: str
    rows: int  # the planner's estimate
    edges: bool  # has source and target (pgRouting's edges)
    lines: bool  # has a line geometry column

    @property
    def qualified(self) -> str:
        """``name`` in ``public``, else ``schema.name`` (what ``?table=`` takes)."""
        return self.name if self.schema == "public" else f"{self.schema}.{self.name}"

    def describe(self) -> str:
        what = "pgRouting edges" if self.edges else "lines"
        if self.edges and self.lines:
            what += " with geometry"
        return f"{self.qualified} ({what}, ~{self.rows:,} rows)"


def network_tables(text: str) -> list[NetworkTable]:
    """The tables of the database ``text`` names that look like networks (module doc)."""
    uri = parse_uri(text)
    conn = connect(uri, read_only=True)
    try:
        with conn.transaction():
            postgis = conn.execute("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE "
                                   "extname = 'postgis')").fetchone()[0]
            query = _QUERY.format(line_test=_LINE_TEST if postgis else "false")
            rows = conn.execute(query).fetchall()
    except Exception as exc:  # noqa: BLE001 (psycopg.Error)
        import psycopg

        if isinstance(exc, psycopg.Error):
            raise failure(uri, conn, exc) from None
        raise
    finally:
        conn.close()
    rows.sort(key=lambda r: (r[0] != "public", r[0], r[1]))  # public first
    return [NetworkTable(s, n, int(r), bool(e), bool(g)) for s, n, _, r, e, g in rows]
