"""``--out postgresql://...?table=NAME``: every command's table holds the rows of its CSV
(or features), with geometry in the source's SRID; --if-exists; nothing half-written."""

from __future__ import annotations

import csv
import io
import json

import pytest

from app.cli import main
from tests.postgis.conftest import sql, table


def _csv_rows(path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text())))[1:]


def _table_rows(pg: str, name: str, columns: str) -> list[list[str]]:
    rows = sql(pg, f"SELECT {columns} FROM {name} ORDER BY 1, 2")
    return [["" if v is None else str(v) for v in r] for r in rows]


def _run(*argv) -> None:
    assert main([str(a) for a in argv]) == 0


def test_sssp_table_equals_csv_with_points_in_source_srid(pg, grid_table, tmp_path) -> None:
    uri, _ = grid_table
    _run("sssp", uri, "--source", "node:5", "--out", tmp_path / "s.csv")
    _run("sssp", uri, "--source", "node:5", "--out", table(pg, "ans_sssp"))
    want = sorted(_csv_rows(tmp_path / "s.csv"), key=lambda r: int(r[0]))
    assert _table_rows(pg, "ans_sssp", "node_id, cost") == want
    ((srid, kind, n),) = sql(pg, "SELECT DISTINCT ST_SRID(geom), GeometryType(geom), "
                                 "count(*) OVER () FROM ans_sssp")
    assert (srid, kind) == (32654, "POINT")
    # the points are the vertices' own: the source table's edges start at them
    (far,) = sql(pg, "SELECT max(ST_Distance(a.geom, ST_StartPoint(e.geom))) FROM ans_sssp a "
                     "JOIN grid_utm e ON e.source = a.node_id")[0]
    assert far < 1e-6


def test_matrix_table_equals_csv(pg, grid_table, tmp_path) -> None:
    uri, _ = grid_table
    pts = tmp_path / "p.csv"
    pts.write_text("node,name\n3,a\n500,b\n899,c\n")
    _run("matrix", uri, "--from", pts, "--to", pts, "--out", tmp_path / "m.csv")
    _run("matrix", uri, "--from", pts, "--to", pts, "--out", table(pg, "ans_matrix"))
    assert _table_rows(pg, "ans_matrix", '"from", "to", cost, from_id, to_id') == \
        _csv_rows(tmp_path / "m.csv")


def test_isochrones_table_equals_geojson(pg, grid_table, tmp_path) -> None:
    uri, _ = grid_table
    args = ["isochrones", uri, "--from", "node:450", "--cost", "3000,6000"]
    _run(*args, "--out", tmp_path / "i.geojson")
    _run(*args, "--out", table(pg, "ans_iso"))
    feats = json.loads((tmp_path / "i.geojson").read_text())["features"]
    rows = sql(pg, "SELECT cost, unit, ST_AsGeoJSON(ST_Transform(geom, 4326)), ST_SRID(geom) "
                   "FROM ans_iso ORDER BY cost")
    assert [(r[0], r[1]) for r in rows] == [(f["properties"]["cost"], f["properties"]["unit"])
                                            for f in feats]
    from shapely.geometry import shape

    for (_, _, gj, srid), f in zip(rows, feats, strict=True):
        a, b = shape(json.loads(gj)), shape(f["geometry"])
        # GeoJSON keeps 7 decimals, the table went through UTM and back
        assert srid == 32654 and a.symmetric_difference(b).area < 1e-5 * b.area


def test_billboards_and_route_tables_equal_csv(pg, grid_table, tmp_path) -> None:
    uri, _ = grid_table
    part = ["--sql", "SELECT * FROM grid_utm WHERE source <= 150 AND target <= 150"]
    _run("billboards", pg, *part, "-k", "3", "--out", tmp_path / "b.csv")
    _run("billboards", pg, *part, "-k", "3", "--out", table(pg, "ans_bb"))
    cols = "rank, node_id, lon, lat, gain, group_betweenness, coverage"
    got = sql(pg, f"SELECT {cols} FROM ans_bb ORDER BY rank")
    want = _csv_rows(tmp_path / "b.csv")
    assert [[str(v) for v in r[:2]] for r in got] == [r[:2] for r in want]
    assert all(abs(a - float(b)) < 1e-9 for r, w in zip(got, want, strict=True)
               for a, b in zip(r[2:], w[2:], strict=True))
    _run("route", uri, "--from", "node:1", "--to", "node:900", "--out", tmp_path / "r.csv")
    _run("route", uri, "--from", "node:1", "--to", "node:900", "--out", table(pg, "ans_route"))
    route = _table_rows(pg, "ans_route", "seq, node_id, edge_id, cost, agg_cost")
    assert route == _csv_rows(tmp_path / "r.csv")
    # pgr_dijkstra's own rows for the same pair
    theirs = sql(pg, "SELECT node, cost, agg_cost FROM pgr_dijkstra('SELECT id, source, "
                     "target, cost, reverse_cost FROM grid_utm', 1, 900) ORDER BY seq")
    assert [(int(r[1]), float(r[3]), float(r[4])) for r in route] == \
        [(n, c, a) for n, c, a in theirs]
    (joined,) = sql(pg, "SELECT count(*) FROM ans_route r JOIN grid_utm e ON e.id = r.edge_id "
                        "WHERE ST_HausdorffDistance(r.geom, e.geom) < 1e-6")[0]
    assert joined == len(route) - 1  # every edge's line is the table's own


def test_if_exists_fail_replace_append(pg, grid_table, tmp_path, capsys) -> None:
    uri, _ = grid_table
    out = table(pg, "ans_modes")
    sql(pg, "DROP TABLE IF EXISTS ans_modes")
    base = ["sssp", uri, "--source", "node:9", "--out", out]
    _run(*base)
    assert main(base) == 2
    assert "table ans_modes: the table exists" in capsys.readouterr().err
    _run(*base, "--if-exists", "append")
    assert sql(pg, "SELECT count(*) FROM ans_modes")[0][0] == 1800
    _run(*base, "--if-exists", "replace")
    assert sql(pg, "SELECT count(*) FROM ans_modes")[0][0] == 900


def test_a_failed_write_leaves_nothing(pg) -> None:
    from maps.postgis.write import answer_table

    sql(pg, "DROP TABLE IF EXISTS ans_fail")
    with pytest.raises(KeyboardInterrupt), answer_table(
            table(pg, "ans_fail"), [("a", "int")]) as sink:
        sink.write("a\n1\n2\n")
        raise KeyboardInterrupt
    left = sql(pg, "SELECT count(*) FROM pg_class WHERE relname LIKE 'signpost_%%' OR "
                   "relname = 'ans_fail'")[0][0]
    assert left == 0
    with pytest.raises(Exception, match="invalid input syntax"), answer_table(
            table(pg, "ans_fail"), [("a", "int")]) as sink:
        sink.write("a\n1\nnot a number\n")
    assert sql(pg, "SELECT to_regclass('ans_fail')")[0][0] is None


def test_out_without_postgis_keeps_lon_lat(pg, grid_table, capsys) -> None:
    """A database without PostGIS: the table has no geometry, a note says so."""
    sql(pg.replace("/signpost?", "/postgres?"), "DROP DATABASE IF EXISTS plain")
    sql(pg.replace("/signpost?", "/postgres?"), "CREATE DATABASE plain")
    uri, _ = grid_table
    plain = pg.replace("/signpost?", "/plain?")
    _run("sssp", uri, "--source", "node:1", "--out", table(plain, "costs"))
    assert "no PostGIS" in capsys.readouterr().err
    cols = [r[0] for r in sql(plain, "SELECT attname FROM pg_attribute WHERE attrelid = "
                                     "'costs'::regclass AND attnum > 0 ORDER BY attnum")]
    assert cols == ["node_id", "cost", "lon", "lat"]
