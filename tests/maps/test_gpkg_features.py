"""GeoPackage point and polygon layers read with shapely (maps.points.gpkg_features), written by
maps.outputs.vector: areas for --within and points for matrix/--demand/the OD tool."""

from __future__ import annotations

import sqlite3

import pytest
import shapely

from maps.errors import MapFormatError, PointError
from maps.outputs.vector import write_gpkg_polygons
from maps.points.areas import read_area
from maps.points.gpkg_features import read_gpkg_features


def test_polygons_round_trip_and_union(tmp_path):
    a = shapely.box(24.0, 60.0, 24.01, 60.01)
    b = shapely.MultiPolygon([shapely.box(24.02, 60.0, 24.03, 60.01)])
    p = str(tmp_path / "area.gpkg")
    write_gpkg_polygons(p, [a, b], [{"name": "a"}, {"name": "b"}], table="zones")
    crs, feats = read_gpkg_features(p, ("POLYGON", "MULTIPOLYGON"), "polygon")
    assert crs == "EPSG:4326" and [f[1]["name"] for f in feats] == ["a", "b"]
    assert feats[0][0].equals(shapely.MultiPolygon([a])) and feats[1][0].equals(b)
    assert read_area(p).equals(shapely.union(a, b))


def test_no_such_layer_and_other_crs_are_one_line(tmp_path):
    p = str(tmp_path / "area.gpkg")
    write_gpkg_polygons(p, [shapely.box(0, 0, 1, 1)], [{}])
    with pytest.raises(PointError, match="no point layer"):
        read_gpkg_features(p, ("POINT",), "point")
    con = sqlite3.connect(p)
    con.execute("UPDATE gpkg_spatial_ref_sys SET organization_coordsys_id = 3857 "
                "WHERE srs_id = 4326")
    con.commit()
    con.close()
    with pytest.raises(MapFormatError, match="EPSG:3857"):
        read_area(p)
    bad = tmp_path / "x.gpkg"
    bad.write_bytes(b"not sqlite at all" * 10)
    with pytest.raises(MapFormatError, match="x.gpkg"):
        read_area(str(bad))


def test_billboards_within_a_gpkg_equals_the_geojson(tmp_path, capsys):
    import json

    from app.cli import main
    from maps.samples import SAMPLE_MAP

    box = shapely.box(24.93, 60.165, 24.95, 60.175)
    gj, gp = tmp_path / "a.geojson", tmp_path / "a.gpkg"
    gj.write_text(json.dumps({"type": "Feature", "properties": {},
                              "geometry": shapely.geometry.mapping(box)}))
    write_gpkg_polygons(str(gp), [box], [{}])
    outs = []
    for f in (gj, gp):
        assert main(["billboards", str(SAMPLE_MAP), "-k", "2", "--within", str(f), "--json",
                     "--backend", "cpu", "--quiet"]) == 0
        outs.append(json.loads(capsys.readouterr().out)["sites"])
    assert outs[0] == outs[1]
