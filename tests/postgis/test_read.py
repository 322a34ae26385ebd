"""pgRouting tables as maps, against pgRouting itself on the same table: pgr_dijkstra,
pgr_dijkstraCostMatrix and pgr_drivingDistance give the costs Signpost computes."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

from app.cli import main
from maps.load import load_map
from tests.postgis.conftest import sql, table


def _dist(net, node_id: int) -> np.ndarray:
    return dijkstra(net.to_scipy(), indices=net.index_of(node_id))


def test_grid_table_loads_as_the_network_it_came_from(grid_table) -> None:
    uri, net = grid_table
    back = load_map(uri)
    assert back.num_arcs == net.num_arcs and back.meta["srid"] == 32654
    assert back.meta["crs"] == "EPSG:32654"
    perm = np.array([back.index_of(i) for i in net.node_ids.tolist()])
    for s in (1, 450, 900):
        assert np.array_equal(_dist(net, s), _dist(back, s)[perm])
    # coordinates went through UTM and back
    assert np.abs(back.lon[perm] - net.lon).max() < 1e-9
    assert np.abs(back.lat[perm] - net.lat).max() < 1e-9


def test_costs_equal_pgr_dijkstra_and_driving_distance(grid_table, pg) -> None:
    uri, _ = grid_table
    net = load_map(uri)
    edges = "SELECT id, source, target, cost, reverse_cost FROM grid_utm"
    d = _dist(net, 7)
    targets = [1, 333, 650, 899]
    rows = sql(pg, "SELECT end_vid, agg_cost FROM pgr_dijkstra(%s, 7, %s::bigint[]) "
               "WHERE edge = -1", (edges, targets))
    assert {int(v): c for v, c in rows} == {t: d[net.index_of(t)] for t in targets}
    bound = float(np.median(d))
    rows = sql(pg, "SELECT node, agg_cost FROM pgr_drivingDistance(%s, 7, %s)",
               (edges, bound))
    ours = {int(net.node_ids[i]): d[i] for i in np.flatnonzero(d <= bound)}
    assert {int(v): c for v, c in rows} == ours


def test_matrix_equals_pgr_dijkstra_cost_matrix(grid_table, pg, tmp_path, capsys) -> None:
    uri, _ = grid_table
    ids = [3, 77, 401, 640, 898]
    pts = tmp_path / "p.csv"
    pts.write_text("node\n" + "".join(f"{i}\n" for i in ids))
    out = tmp_path / "m.csv"
    assert main(["matrix", uri, "--from", str(pts), "--to", str(pts), "--out", str(out)]) == 0
    ours = {}
    for line in out.read_text().splitlines()[1:]:
        _, _, cost, a, b = line.split(",")
        ours[int(a), int(b)] = float(cost)
    rows = sql(pg, "SELECT start_vid, end_vid, agg_cost FROM pgr_dijkstraCostMatrix("
               "'SELECT id, source, target, cost, reverse_cost FROM grid_utm', %s::bigint[])",
               (ids,))
    theirs = {(int(a), int(b)): c for a, b, c in rows}
    assert theirs == {k: v for k, v in ours.items() if k[0] != k[1]}
    assert all(ours[i, i] == 0 for i in ids)


def _pgr_costs(pg: str, edges: str, source: int, targets: list[int],
               hops: bool = False) -> dict[int, float]:
    """pgr_dijkstra's cost to each target (with ``hops``: (cost, arcs on its route))."""
    rows = sql(pg, "SELECT end_vid, max(agg_cost), count(*) - 1 FROM pgr_dijkstra(%s, "
               "%s::bigint, %s::bigint[]) GROUP BY end_vid", (edges, source, targets))
    return {int(v): (c, h) if hops else c for v, c, h in rows}


@pytest.mark.parametrize("weight", [None, "cost_s"])
def test_osm2pgrouting_helsinki_routes_as_pgrouting_does(helsinki, pg, weight) -> None:
    """osm2pgrouting's float costs (degrees; cost_s seconds) become integers at one
    scale: each arc is off by at most half a unit of it, so a route by at most half a
    unit per arc, and pgRouting's sum of floats agrees to that."""
    net = load_map(helsinki, weight=weight)
    assert net.has_coordinates and net.meta["srid"] == 4326
    col = weight or "cost"
    edges = f"SELECT gid AS id, source, target, {col} AS cost, reverse_{col} AS reverse_cost FROM ways"
    comp = net.components()[1]
    main_part = np.flatnonzero(comp == np.bincount(comp).argmax())
    rng = np.random.default_rng(3)
    src = int(net.node_ids[rng.choice(main_part)])
    targets = [int(net.node_ids[i]) for i in rng.choice(main_part, 25, replace=False)]
    from maps.model.weights import unit_scale

    scale = 10.0 ** -unit_scale(net.unit)[1]  # what one integer unit is
    d = _dist(net, src)
    theirs = _pgr_costs(pg, edges, src, targets, hops=True)
    assert set(theirs) == {t for t in targets if t != src}
    for t, (c, hops) in theirs.items():
        ours = d[net.index_of(t)] * scale
        assert abs(ours - c) <= 0.5 * scale * hops + 1e-12 * c  # half a unit per arc


def test_cli_route_on_osm2pgrouting_table(helsinki, pg, capsys) -> None:
    net = load_map(helsinki, weight="cost_s", weight_unit="s")
    a, b = (int(v) for v in net.node_ids[[10, 2000]])
    rc = main(["route", helsinki, "--weight", "cost_s", "--weight-unit", "s",
               "--from", f"node:{a}", "--to", f"node:{b}", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["unit"] == net.unit
    (theirs,) = _pgr_costs(pg, "SELECT gid AS id, source, target, cost_s AS cost, "
                           "reverse_cost_s AS reverse_cost FROM ways", a, [b]).values()
    assert abs(out["time_s"] - theirs) <= 1e-6 * theirs
    assert out["path"] and len(out["path"]) >= out["nodes"]  # drawn along the geometry


def test_sql_query_and_read_only(pg, grid_table) -> None:
    uri, net = grid_table
    whole = load_map(uri)
    part = load_map(pg, sql="SELECT id, source, target, cost, reverse_cost, geom "
                            "FROM grid_utm WHERE source <= 450;")
    assert 0 < part.num_arcs < whole.num_arcs and part.has_coordinates
    from maps.postgis.conn import DatabaseError

    sql(pg, "CREATE SEQUENCE IF NOT EXISTS ro_probe")
    with pytest.raises(DatabaseError, match="read-only transaction"):
        load_map(pg, sql="SELECT id, source, target, cost + nextval('ro_probe') AS cost "
                         "FROM grid_utm")
    with pytest.raises(DatabaseError, match="syntax error"):
        load_map(pg, sql="SELECT 1; DROP TABLE grid_utm")
    assert sql(pg, "SELECT count(*) FROM grid_utm")[0][0] > 0


def test_cache_sees_every_change_to_the_table(pg) -> None:
    sql(pg, "DROP TABLE IF EXISTS tiny; CREATE TABLE tiny (id int, source int, target int, "
            "cost float8, reverse_cost float8); INSERT INTO tiny VALUES "
            "(1, 1, 2, 1, 1), (2, 2, 3, 1, 1), (3, 1, 3, 5, 5)")
    uri = table(pg, "tiny")

    def cost13():
        net = load_map(uri)
        return net.meta["cache_hit"], _dist(net, 1)[net.index_of(3)]

    assert cost13() == (False, 2)
    assert cost13() == (True, 2)
    for change, after in [("UPDATE tiny SET cost = 7 WHERE id = 2", 5),
                          ("DELETE FROM tiny WHERE id = 3", 8),
                          ("INSERT INTO tiny VALUES (4, 1, 3, 3, 3)", 3),
                          ("UPDATE tiny SET cost = cost", 3),  # same values, new rows
                          ("TRUNCATE tiny; INSERT INTO tiny VALUES (1, 1, 3, 4, 4)", 4)]:
        sql(pg, change)
        assert cost13() == (False, after), change
        assert cost13() == (True, after), change
    entries = os.listdir(os.environ["SIGNPOST_CACHE_DIR"])
    assert entries and not any("tiny" in e for e in entries)
    # a view may read anything: never cached (nor is --sql)
    sql(pg, "CREATE OR REPLACE VIEW tiny_v AS SELECT * FROM tiny")
    for _ in range(2):
        assert load_map(table(pg, "tiny_v")).meta.get("cache_hit") is None
    assert len(os.listdir(os.environ["SIGNPOST_CACHE_DIR"])) == len(entries)


def test_password_never_in_messages_or_cache(pg, capsys) -> None:
    secret = "s3cr3t-pw"
    uri = pg.replace("postgres@", f"postgres:{secret}@") + "&table=grid_utm"
    cases = [
        (uri.replace("grid_utm", "no_such_table"), "table no_such_table: no such table"),
        (uri.replace("/signpost?", "/no_db?"), 'database "no_db" does not exist'),
        (uri.replace("host=", "host=/nonexistent"), "cannot connect"),
        (uri + "&password=" + secret, None),
    ]
    for bad, expect in cases:
        rc = main(["sssp", bad, "--source", "node:1", "--out", "/tmp/never-written.csv"]
                  if expect else ["info", bad])
        out, err = capsys.readouterr()
        assert secret not in out + err
        if expect:
            assert rc == 2 and expect in err and len(err.strip().splitlines()) == 1, err
            assert "host " in err and "database " in err
    for root, _, files in os.walk(os.environ["SIGNPOST_CACHE_DIR"]):
        for f in files:
            assert secret.encode() not in open(os.path.join(root, f), "rb").read()


def test_missing_column_and_null_cost_are_one_line(pg, capsys) -> None:
    sql(pg, "DROP TABLE IF EXISTS bad1; CREATE TABLE bad1 (id int, source int, target int, "
            "weight float8); DROP TABLE IF EXISTS bad2; CREATE TABLE bad2 (id int, source "
            "int, target int, cost float8); INSERT INTO bad2 VALUES (1, 1, 2, 1), (9, 2, 3, NULL)")
    rc = main(["info", table(pg, "bad1")])
    err = capsys.readouterr().err
    assert rc == 2 and "table bad1: no column 'cost'" in err and "weight" in err
    rc = main(["info", table(pg, "bad2")])
    err = capsys.readouterr().err
    assert rc == 2 and "edge id 9: cost or reverse_cost is NULL" in err
    assert len(err.strip().splitlines()) == 1


def test_plain_coordinate_columns_and_no_reverse_cost(pg) -> None:
    """x1, y1, x2, y2 in lon/lat; without reverse_cost every edge is one-way."""
    sql(pg, "DROP TABLE IF EXISTS xy; CREATE TABLE xy (id int, source int, target int, "
            "cost int, x1 float8, y1 float8, x2 float8, y2 float8); INSERT INTO xy VALUES "
            "(1, 10, 20, 4, 24.9, 60.1, 24.91, 60.1), (2, 20, 30, 6, 24.91, 60.1, 24.91, 60.11)")
    net = load_map(table(pg, "xy"))
    assert net.num_arcs == 2 and net.has_coordinates
    assert net.lon[net.index_of(20)] == pytest.approx(24.91)
    d = _dist(net, 10)
    assert d[net.index_of(30)] == 10 and np.isinf(_dist(net, 30)[net.index_of(10)])


def test_a_table_of_plain_lines_is_noded_like_a_gis_file(helsinki, pg) -> None:
    """osm2pgrouting's lines without source/target, in ETRS-TM35FIN: noded at shared
    vertices, they make pgRouting's graph again; lengths agree with pgr_dijkstra on
    length_m both ways."""
    sql(pg, "DROP TABLE IF EXISTS plain_lines; CREATE TABLE plain_lines AS SELECT length_m, "
            "ST_Transform(the_geom, 3067)::geometry(LineString, 3067) AS geom FROM ways")
    net = load_map(table(pg, "plain_lines"), weight="length_m", weight_unit="m")
    assert net.meta["srid"] == 3067 and net.meta["lines_table"]
    verts = sql(pg, "SELECT id, ST_X(the_geom), ST_Y(the_geom) FROM ways_vertices_pgr "
                    "ORDER BY id")
    assert net.num_nodes == len(verts)
    from scipy.spatial import cKDTree

    gap, near = cKDTree(np.column_stack([net.lon, net.lat])).query([(x, y) for _, x, y in verts])
    assert gap.max() < 1e-8  # every vertex is a node (through EPSG:3067 and back)
    node = {v: int(i) for (v, _, _), i in zip(verts, near, strict=True)}
    src, targets = verts[0][0], [v for v, _, _ in verts[1::500]]
    theirs = _pgr_costs(pg, "SELECT gid AS id, source, target, length_m AS cost, length_m AS "
                        "reverse_cost FROM ways", src, targets)
    from maps.model.weights import unit_scale

    scale = 10.0 ** -unit_scale(net.unit)[1]
    d = dijkstra(net.to_scipy(), indices=node[src])
    for t, c in theirs.items():
        assert abs(d[node[t]] * scale - c) <= 1e-6 * c


def test_connection_from_the_environment_and_a_service_file(pg, grid_table, tmp_path,
                                                            monkeypatch) -> None:
    """What the URI leaves out comes from libpq's environment or pg_service.conf."""
    host = pg.rsplit("host=", 1)[1]
    monkeypatch.setenv("PGHOST", host)
    monkeypatch.setenv("PGUSER", "postgres")
    monkeypatch.setenv("PGDATABASE", "signpost")
    assert load_map("postgresql://?table=grid_utm").num_nodes == 900
    for var in ("PGHOST", "PGUSER", "PGDATABASE"):
        monkeypatch.delenv(var)
    services = tmp_path / "pg_service.conf"
    services.write_text(f"[roads]\nhost={host}\nuser=postgres\ndbname=signpost\n")
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    net = load_map("postgresql://?service=roads&table=grid_utm")
    assert net.num_nodes == 900 and net.source_path == "postgresql://?service=roads&table=grid_utm"
