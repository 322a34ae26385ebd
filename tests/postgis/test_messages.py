"""Issue 24 item 7, pgRouting tables through the real CLI: an empty table says it has no
rows, a NaN cost says NaN (not NULL), a source or target of -2^63 is an id like any
other (not NULL), all against a real PostgreSQL (``conftest.pg``)."""

from __future__ import annotations

import json

from app.cli import main
from tests.postgis.conftest import sql, table

LOW = -(2**63)


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("signpost info: error: "), err
    return err[0]


def test_empty_table_has_no_rows(pg, capsys) -> None:
    sql(pg, "DROP TABLE IF EXISTS empty24; CREATE TABLE empty24 (id int8, source int8, "
            "target int8, cost float8, reverse_cost float8)")
    assert main(["info", table(pg, "empty24")]) == 2
    line = one_line(capsys)
    assert "table empty24" in line and "the edge table has no rows" in line
    assert "< 0" not in line


def test_every_cost_negative_is_still_named(pg, capsys) -> None:
    sql(pg, "DROP TABLE IF EXISTS closed24; CREATE TABLE closed24 (id int8, source int8, "
            "target int8, cost float8, reverse_cost float8); "
            "INSERT INTO closed24 VALUES (1, 1, 2, -1, -1)")
    assert main(["info", table(pg, "closed24")]) == 2
    assert "no edge can be passed in either direction" in one_line(capsys)


def test_nan_cost_is_not_called_null(pg, capsys) -> None:
    sql(pg, "DROP TABLE IF EXISTS nan24; CREATE TABLE nan24 (id int8, source int8, target "
            "int8, cost float8, reverse_cost float8); INSERT INTO nan24 VALUES "
            "(1, 1, 2, 1, 1), (7, 2, 3, 'NaN', 1)")
    assert main(["info", table(pg, "nan24")]) == 2
    line = one_line(capsys)
    assert "edge id 7: cost or reverse_cost is NaN (not a number)" in line
    sql(pg, "UPDATE nan24 SET cost = NULL WHERE id = 7")
    assert main(["info", table(pg, "nan24"), "--no-cache"]) == 2
    assert "edge id 7: cost or reverse_cost is NULL" in one_line(capsys)


def test_lowest_int8_id_is_an_id_not_null(pg, capsys) -> None:
    sql(pg, "DROP TABLE IF EXISTS low24; CREATE TABLE low24 (id int8, source int8, target "
            "int8, cost float8, reverse_cost float8); INSERT INTO low24 VALUES "
            f"(1, 1, {LOW}, 2, 2), (2, {LOW}, 3, 5, -1)")
    assert main(["info", table(pg, "low24"), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["nodes"] == 3 and got["arcs"] == 3
    assert main(["route", table(pg, "low24"), "--from", "node:1", "--to", "node:3",
                 "--json"]) == 0
    route = json.loads(capsys.readouterr().out)
    (want,) = sql(pg, "SELECT max(agg_cost) FROM pgr_dijkstra('SELECT id, source, target, "
                      "cost, reverse_cost FROM low24', 1, 3)")
    assert route["node_ids"] == [1, LOW, 3] and route["cost"] == want[0] == 7
    sql(pg, "UPDATE low24 SET target = NULL WHERE id = 1")
    assert main(["info", table(pg, "low24"), "--no-cache"]) == 2
    assert "edge id 1: target is NULL" in one_line(capsys)
