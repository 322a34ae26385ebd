"""Isochrone polygons (app/jobs/isochrones.py, ``signpost isochrones``) against oracles:
scipy's Dijkstra for what is reached, plain geometry for where an arc is cut."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
import shapely
from scipy.sparse.csgraph import dijkstra

from app.cli import main
from app.jobs import isochrones as iso
from app.jobs.maps import open_map, resolve_texts
from maps.model.build import build_network

SAMPLE = str(Path(__file__).resolve().parents[2] / "maps" / "samples" / "helsinki.osm.pbf")
ORIGIN = (24.9, 60.2)


def _bent_arc():
    """A→B, drawn (0,0) → (300,0) → (300,400): 700 m of road weighing 7000 dm."""
    net = build_network(tails=np.array([0]), heads=np.array([1]), weights=np.array([7000]),
                        node_ids=np.array([1, 2]), unit="dm", profile="length",
                        x=np.array([0.0, 300.0]), y=np.array([0.0, 400.0]), origin=ORIGIN,
                        geometry=[np.array([[300.0, 0.0]])])
    return net


@pytest.mark.parametrize("by,cuts", [("cost", (5000,)), ("length", (5000,)),
                                     ("cost", (1000, 3500, 5000))])
def test_a_cutoff_mid_arc_cuts_along_the_drawn_geometry(by, cuts):
    """With smaller cutoffs first, the last polygon is built from the slices between
    them: the same cut must come out."""
    net = _bent_arc()
    b = 10.0
    res = iso.run(net, iso.IsochroneOptions(0, cuts, by=by, buffer_m=b, backend="cpu"))
    poly = res.polygons_xy[-1]
    # 500 m along the polyline is (300, 200): the cut point
    inside = [(150, 0), (300, 100), (300, 199), (300, 200 + b - 1), (300 + b - 1, 150)]
    outside = [(300, 200 + b + 1), (300, 400), (300 + b + 1, 150), (150, b + 1), (-b - 1, 0)]
    assert all(poly.contains(shapely.Point(p)) for p in inside)
    assert not any(poly.contains(shapely.Point(p)) for p in outside)
    # the same test in lon/lat as written
    from maps.geo.projection import to_lonlat

    lon, lat = to_lonlat(np.array([300.0, 300.0]), np.array([199.0, 200 + b + 1]), ORIGIN)
    assert res.polygons[-1].contains(shapely.Point(lon[0], lat[0]))
    assert not res.polygons[-1].contains(shapely.Point(lon[1], lat[1]))
    if len(cuts) == 3:  # 100 m and 350 m (the bend at 300 m) along the road
        assert res.polygons_xy[0].contains(shapely.Point(99, 0))
        assert not res.polygons_xy[0].contains(shapely.Point(100 + b + 1, 0))
        assert res.polygons_xy[1].contains(shapely.Point(300, 49))
        assert not res.polygons_xy[1].contains(shapely.Point(300, 50 + b + 1))


def test_an_unreached_tail_gives_only_the_source_disc():
    net = _bent_arc()
    res = iso.run(net, iso.IsochroneOptions(1, (100, 100_000), buffer_m=5.0, backend="cpu"))
    for poly in res.polygons_xy:  # B has no arc out: a disc of 5 m about B
        assert poly.area == pytest.approx(np.pi * 25, rel=0.05)
        assert poly.contains(shapely.Point(300, 400))


@pytest.fixture(scope="module")
def helsinki():
    net = open_map(SAMPLE, profile="walk")
    return net, resolve_texts(net, "24.94,60.17")[0].node


def _nested(polys, tol):
    return all(big.buffer(tol).contains(small) for small, big in zip(polys, polys[1:], strict=False))


@pytest.mark.parametrize("by,cuts", [("length", (1500, 3000, 4500)), ("cost", (1000, 2000))])
def test_polygons_hold_what_scipy_reaches_and_nothing_far_from_it(helsinki, by, cuts):
    net, src = helsinki
    b = 40.0
    res = iso.run(net, iso.IsochroneOptions(src, cuts, by=by, buffer_m=b, backend="cpu"))
    g, w = iso.length_graph(net) if by == "length" else (net, net.weights)
    d = dijkstra(g.to_scipy() if by == "cost" else _scipy(g), indices=src)
    assert np.array_equal(np.where(np.isinf(d), -1, d).astype(np.int64), res.dist)
    metres = dijkstra(_scipy(iso.length_graph(net)[0]), indices=src) / 10  # road metres
    # metres per unit of cost along each arc bound how far a partial arc reaches
    per_unit = 0.1 if by == "length" else float(np.max(net.edge_length / np.maximum(w, 1)))
    pts = shapely.points(np.column_stack([net.x, net.y]))
    for c, poly in zip(res.cutoffs, res.polygons_xy, strict=True):
        reached = d <= c
        assert reached.sum() > 10
        assert shapely.contains(poly, pts[reached]).all()
        # a node outside: farther (straight line) from every reached node than that node's
        # remaining budget of road plus the buffer can cover
        ru = np.nonzero(reached)[0]
        reach_m = (c - d[ru]) * per_unit
        gap = np.hypot(net.x[:, None] - net.x[ru][None, :], net.y[:, None] - net.y[ru][None, :])
        far = ((gap - reach_m[None, :]).min(axis=1) > 1.2 * b) & ~reached
        assert far.sum() > 10
        assert not shapely.contains(poly, pts[far]).any()
        assert np.isfinite(metres[reached]).all()
    assert _nested(res.polygons_xy, 1e-3) and _nested(res.polygons, 1e-7)
    assert [p.area for p in res.polygons_xy] == sorted(p.area for p in res.polygons_xy)


def _scipy(g):
    from scipy.sparse import csr_matrix

    n = g.num_nodes
    return csr_matrix((g.weights.astype(float), g.indices, g.indptr), shape=(n, n))


def _read_gpkg(path):
    con = sqlite3.connect(path)
    try:
        return (con.execute("SELECT table_name, column_name, geometry_type_name, srs_id FROM "
                            "gpkg_geometry_columns").fetchall(),
                con.execute("SELECT minutes, cost, geom FROM isochrones ORDER BY fid").fetchall())
    finally:
        con.close()


def test_cli_writes_geojson_and_gpkg_with_one_nested_feature_per_cutoff(tmp_path, capsys):
    gj, gp = str(tmp_path / "iso.geojson"), str(tmp_path / "iso.gpkg")
    args = [SAMPLE, "--profile", "walk", "--from", "24.94,60.17", "--minutes", "10,5",
            "--backend", "cpu", "--no-cache"]
    assert main(["isochrones", *args, "--out", gj, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [r["minutes"] for r in summary["isochrones"]] == [5, 10]
    assert [r["cost"] for r in summary["isochrones"]] == [3000, 6000]
    fc = json.loads(Path(gj).read_text())
    polys = [shapely.geometry.shape(f["geometry"]) for f in fc["features"]]
    assert [f["properties"]["minutes"] for f in fc["features"]] == [5, 10]
    assert all(p.geom_type in ("Polygon", "MultiPolygon") and p.is_valid for p in polys)
    assert _nested(polys, 1e-7)
    assert main(["isochrones", *args, "--out", gp]) == 0
    cols, rows = _read_gpkg(gp)
    assert cols == [("isochrones", "geom", "MULTIPOLYGON", 4326)]
    assert [r[:2] for r in rows] == [(5, 3000), (10, 6000)]
    wkb = [bytes(r[2])[8 + 32:] for r in rows]  # 'GP' header with an xy envelope
    got = shapely.from_wkb(wkb)
    assert all(a.equals(b) for a, b in zip(got, polys, strict=True))


def test_gpkg_opens_in_gdal(tmp_path):
    raw = pytest.importorskip("pyogrio.raw")
    gp = str(tmp_path / "iso.gpkg")
    assert main(["isochrones", SAMPLE, "--from", "24.94,60.17", "--metres", "300,600",
                 "--backend", "cpu", "--out", gp]) == 0
    meta, _, geom, fields = raw.read(gp)
    assert meta["crs"] == "EPSG:4326" and meta["geometry_type"] == "MultiPolygon"
    assert list(meta["fields"]) == ["metres", "cost", "unit"]
    assert fields[0].tolist() == [300, 600]
    assert all(g.is_valid for g in shapely.from_wkb(geom))


@pytest.mark.parametrize("extra,needle", [
    (["--minutes", "5"], "minutes need a time profile"),
    (["--metres", "5,x"], "'x' is not a number"),
    (["--metres", "-5"], "cutoffs must be numbers > 0"),
    (["--metres", "5", "--buffer", "0"], "--buffer 0"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, extra, needle):
    rc = main(["isochrones", SAMPLE, "--from", "24.94,60.17", "--backend", "cpu",
               "--out", str(tmp_path / "x.geojson"), *extra])
    err = capsys.readouterr().err
    assert rc == 2 and needle in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.geojson").exists()


def test_unknown_extension_exit_2(tmp_path, capsys):
    assert main(["isochrones", SAMPLE, "--from", "24.94,60.17", "--metres", "5",
                 "--out", str(tmp_path / "x.shp")]) == 2
    assert "unknown extension" in capsys.readouterr().err


def test_a_map_without_coordinates_is_one_line(tmp_path, capsys):
    tiny = str(tmp_path / "t.gr")  # DIMACS without a .co: no coordinates
    (tmp_path / "t.gr").write_text("p sp 2 1\na 1 2 5\n")
    assert main(["isochrones", tiny, "--from", "node:1", "--cost", "5", "--no-cache",
                 "--out", str(tmp_path / "x.geojson")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no coordinates" in err[0]
