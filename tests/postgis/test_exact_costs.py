"""Issue 24 item 1 on a PostgreSQL server: float costs become exact integers or the table
is refused, never rounded (a table of 0.4 costs used to route at "cost 0 unit" where
pgr_dijkstra says 0.8)."""

from __future__ import annotations

import json

from app.cli import main
from tests.postgis.conftest import sql, table

ROWS = "(1, 1, 2, 0.4, 0.4), (2, 2, 3, 0.4, 0.4), (3, 3, 4, 0.4, 0.4), (4, 1, 4, 1.0, 1.0)"


def _table(pg: str, name: str, rows: str) -> str:
    sql(pg, f"DROP TABLE IF EXISTS {name}; CREATE TABLE {name} (id int, source int, "
            f"target int, cost float8, reverse_cost float8); INSERT INTO {name} VALUES {rows}")
    return table(pg, name)


def test_float_costs_route_as_pgr_dijkstra(pg, capsys) -> None:
    uri = _table(pg, "tenths", ROWS)
    assert main(["route", uri, "--from", "node:1", "--to", "node:3", "--json",
                 "--backend", "cpu"]) == 0
    out = json.loads(capsys.readouterr().out)
    (theirs,) = sql(pg, "SELECT agg_cost FROM pgr_dijkstra('SELECT id, source, target, cost, "
                        "reverse_cost FROM tenths', 1, 3) WHERE edge = -1")
    assert out["unit"] == "1e-1 unit" and out["cost"] / 10 == theirs[0] == 0.8


def test_a_cost_range_int32_cannot_hold_is_refused(pg, capsys) -> None:
    uri = _table(pg, "wide", ROWS + ", (5, 4, 5, 3e8, 3e8)")
    assert main(["route", uri, "--from", "node:1", "--to", "node:3", "--backend", "cpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "table wide" in err[0], err
    assert "weight column 'cost' (values 0.4 to 3e+08)" in err[0]
