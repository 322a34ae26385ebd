"""Database URIs without a database: parsing, Signpost's own parameters, passwords kept
out of everything shown."""

from __future__ import annotations

import pytest

from maps.postgis.conn import DatabaseError, is_db_uri, parse_uri, redact, scrub


def test_table_is_taken_out_and_libpq_parameters_pass_through() -> None:
    u = parse_uri("postgresql://me:p%40ss@db.example:6543/roads?sslmode=require&table=gis.ways"
                  "&host=/run/postgresql")
    assert u.table == "gis.ways" and u.table_ident() == ("gis", "ways")
    assert "table" not in u.conninfo and "sslmode=require" in u.conninfo
    assert "host=%2Frun%2Fpostgresql" in u.conninfo or "host=/run/postgresql" in u.conninfo
    assert u.password == "p@ss" and "p%40ss" not in u.shown and "p@ss" not in u.shown
    assert u.shown.startswith("postgresql://me@db.example:6543/roads?")


@pytest.mark.parametrize("uri, secret", [
    ("postgresql://u:hunter2@h/db?table=t", "hunter2"),
    ("postgres://u@h/db?password=hunter2&table=t", "hunter2"),
])
def test_redact_removes_the_password(uri: str, secret: str) -> None:
    assert secret not in redact(uri)
    assert is_db_uri(uri) and not is_db_uri("roads.gpkg")


def test_scrub_and_a_malformed_port() -> None:
    assert scrub("FATAL:  password hunter2\n wrong", "hunter2") == "FATAL: password *** wrong"
    with pytest.raises(DatabaseError) as exc:
        parse_uri("postgresql://u:hunter2@h:notaport/db")
    assert "hunter2" not in str(exc.value)
