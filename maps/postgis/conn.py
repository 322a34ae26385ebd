"""PostgreSQL connections for map sources and answer tables: the ``postgresql://`` URI,
its password kept out of every message, and one connect that fails in one line.

A database map is ``postgresql://[user[:password]@][host][:port]/[db]?table=NAME`` (or
``postgres://``). libpq's own parameters pass through untouched (``host=/run/postgresql``
for a Unix socket, ``sslmode``, ``service=NAME`` for a ``pg_service.conf`` entry); what
the URI leaves out comes from the environment (``PGHOST``, ``PGDATABASE``, ``PGUSER``,
``PGPASSWORD``, ...) and libpq's files (``~/.pgpass``, ``pg_service.conf``), as for
``psql``. Signpost's own parameters ``table`` (``schema.name`` allowed) and
``restrictions`` (a pgRouting restrictions table in ``pgr_trsp``'s form, applied as turn
bans: ``maps.postgis.restrictions``) are taken out before libpq sees the rest.

Passwords: :func:`redact` gives the URI without them (what messages, logs, the load
cache's file names, ``RoadNetwork.source_path`` and the app's recent-files list hold);
:func:`scrub` removes a password from any text (a driver message that echoes it).
psycopg is imported only when a database is opened (the ``postgis`` extra).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from osutil.secrets import redact as redact_text

from ..errors import MapError
from ..formats.registry import is_db_uri

OWN_PARAMS = ("table", "restrictions")  # Signpost's; every other parameter is libpq's
_SECRET_PARAMS = ("password",)


class DatabaseError(MapError):
    """A database could not be reached, or lacks the table or a column it should have.
    The message names host, database and table, never a password."""


@dataclass(frozen=True)
class DbUri:
    """A parsed database URI: what libpq gets, Signpost's ``table``, and the password
    (only to scrub it from messages)."""

    conninfo: str  # the URI without Signpost's parameters, for libpq
    table: str | None
    shown: str  # the URI without any password
    password: str | None
    restrictions: str | None = None  # a pgr_trsp restrictions table (issue 39)

    def table_ident(self) -> tuple[str, ...]:
        """``table`` as (schema, name) or (name,) for ``psycopg.sql.Identifier``."""
        if not self.table:
            return ()
        return tuple(self.table.split(".", 1))


def parse_uri(uri: str) -> DbUri:
    """Split ``uri`` (module doc); DatabaseError for a malformed one."""
    if not is_db_uri(uri):
        raise DatabaseError(f"not a postgresql:// URI: {redact(uri)!r}")
    try:
        parts = urlsplit(uri)
        _ = parts.port  # a non-numeric port raises here
    except ValueError as exc:
        raise DatabaseError(f"malformed database URI {redact(uri)!r} ({exc})") from None
    params = parse_qsl(parts.query, keep_blank_values=True)
    own = {k: v for k, v in params if k in OWN_PARAMS}
    rest = [(k, v) for k, v in params if k not in OWN_PARAMS]
    password = parts.password
    password = unquote(password) if password is not None else None
    for k, v in rest:
        if k in _SECRET_PARAMS:
            password = v
    conninfo = _unsplit(parts.scheme, parts.netloc, parts.path, urlencode(rest, quote_via=quote))
    table = own.get("table") or None
    return DbUri(conninfo, table, redact(uri), password or None,
                 own.get("restrictions") or None)


def redact(uri: str) -> str:
    """``uri`` without a password (in the user part or a ``password=`` parameter); any
    other text (a malformed address, a libpq ``key=value`` string) through
    ``osutil.secrets.redact``."""
    if not is_db_uri(uri):
        return redact_text(uri)
    try:
        parts = urlsplit(uri)
    except ValueError:
        return redact_text(re.sub(r"//[^/@]*@", "//***@", uri))
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        netloc = f"{user.split(':', 1)[0]}@{host}"
    params = [(k, "***" if k in _SECRET_PARAMS else v)
              for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    return redact_text(_unsplit(parts.scheme, netloc, parts.path,
                                urlencode(params, quote_via=quote, safe="/*")))


def _unsplit(scheme: str, netloc: str, path: str, query: str) -> str:
    """A URI again; unlike urlunsplit it keeps ``//`` when there is no host
    (``postgresql:///db``, ``postgresql://?service=roads``), which libpq needs."""
    return f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "")


def scrub(text: str, password: str | None) -> str:
    """``text`` on one line, without ``password`` in it (raw or URI-quoted) nor any
    other password form (``osutil.secrets.redact``)."""
    out = redact_text(" ".join(str(text).split()))
    if password:
        for form in {password, quote(password, safe="")}:
            out = out.replace(form, "***")
    return out


def describe(uri: DbUri, conn: Any = None) -> str:
    """``host H, database D, table T`` of ``uri`` (after connecting: what libpq used)."""
    if conn is not None:
        host, db = conn.info.host, conn.info.dbname
    else:
        host, db = _guess(uri.conninfo)
    shown = f"host {host or 'default'}, database {db or 'default'}"
    return shown + (f", table {uri.table}" if uri.table else "")


def _guess(conninfo: str) -> tuple[str | None, str | None]:
    """Host and database a URI names, else the environment's (before connecting)."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        d = conninfo_to_dict(conninfo)
    except Exception:  # noqa: BLE001 (psycopg missing or a malformed URI: show what we can)
        d = {}
    host = d.get("host") or d.get("service") and f"service {d['service']}" or os.environ.get("PGHOST")
    db = d.get("dbname") or os.environ.get("PGDATABASE")
    return (None if host is None else str(host)), (None if db is None else str(db))


def need_psycopg() -> Any:
    """The psycopg module, or DatabaseError saying how to install it."""
    try:
        import psycopg
    except ImportError:
        raise DatabaseError(
            "reading or writing PostgreSQL needs psycopg 3: pip install 'signpost[postgis]'"
        ) from None
    return psycopg


def connect(uri: DbUri, *, read_only: bool = False, timeout_s: int = 10) -> Any:
    """An open psycopg connection (autocommit off); DatabaseError in one line naming
    host, database and table when it cannot be made."""
    psycopg = need_psycopg()
    try:
        conn = psycopg.connect(uri.conninfo, connect_timeout=timeout_s,
                               application_name="signpost")
    except psycopg.Error as exc:
        raise DatabaseError(f"{describe(uri)}: cannot connect: {scrub(exc, uri.password)}") \
            from None
    conn.read_only = read_only
    return conn


def failure(uri: DbUri, conn: Any, exc: BaseException, what: str = "") -> DatabaseError:
    """The one-line DatabaseError of a failed statement (password scrubbed)."""
    first = scrub(str(exc).split("\n", 1)[0], uri.password)
    return DatabaseError(f"{describe(uri, conn)}: {what}{first}")
