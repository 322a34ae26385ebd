"""Billboard candidates limited to a polygon (`signpost billboards --within AREA.geojson`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import main
from maps.errors import MapFormatError
from maps.model.build import build_network
from maps.points.areas import nodes_within, read_area
from maps.samples import SAMPLE_MAP

# A box over the south-west part of the Helsinki sample.
BOX = [[24.935, 60.164], [24.944, 60.164], [24.944, 60.170], [24.935, 60.170], [24.935, 60.164]]


def write_area(path, coords=BOX, kind="FeatureCollection"):
    poly = {"type": "Polygon", "coordinates": [coords]}
    if kind == "FeatureCollection":
        doc = {"type": "FeatureCollection",
               "features": [{"type": "Feature", "properties": {}, "geometry": poly},
                            {"type": "Feature", "properties": {},
                             "geometry": {"type": "Point", "coordinates": [0, 0]}}]}
    else:
        doc = poly
    path.write_text(json.dumps(doc))
    return path


def test_nodes_within_matches_a_direct_box_test():
    net = build_network(
        tails=np.array([0, 1, 2]), heads=np.array([1, 2, 3]), weights=np.array([5, 5, 5]),
        node_ids=np.array([10, 11, 12, 13]), unit="dm", profile="length",
        lon=np.array([24.936, 24.950, 24.940, 24.944]),
        lat=np.array([60.165, 60.165, 60.175, 60.168]),
    )
    mask = nodes_within(net, read_area_from(BOX))
    assert mask.tolist() == [True, False, False, True]  # the last lies on the boundary


def read_area_from(coords):
    from shapely.geometry import Polygon

    return Polygon(coords)


def test_billboard_sites_lie_inside_the_area(tmp_path, capsys):
    area = write_area(tmp_path / "box.geojson")
    rc = main(["billboards", str(SAMPLE_MAP), "-k", "3", "--within", str(area), "--json",
               "--quiet"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    d = json.loads(out)
    lon0, lat0 = np.min(BOX, axis=0)
    lon1, lat1 = np.max(BOX, axis=0)
    assert len(d["sites"]) == 3 and d["within"] == str(area)
    for lon, lat in d["lonlat"]:
        assert lon0 <= lon <= lon1 and lat0 <= lat <= lat1
    rc = main(["billboards", str(SAMPLE_MAP), "-k", "1", "--json", "--quiet"])
    free = json.loads(capsys.readouterr().out)
    assert free["gains"][0] >= d["gains"][0]  # a limit never finds a better first site


def test_bad_areas_exit_2_with_the_file_named(tmp_path, capsys):
    lines = tmp_path / "lines.geojson"
    lines.write_text(json.dumps({"type": "LineString", "coordinates": [[0, 0], [1, 1]]}))
    far = write_area(tmp_path / "far.geojson",
                     [[0, 0], [0.001, 0], [0.001, 0.001], [0, 0.001], [0, 0]], kind="Polygon")
    bad = tmp_path / "bad.geojson"
    bad.write_text("{not json")
    for path, msg in ((lines, "no Polygon"), (far, "no candidate node lies inside"),
                      (bad, "not GeoJSON")):
        rc = main(["billboards", str(SAMPLE_MAP), "-k", "2", "--within", str(path), "--quiet"])
        err = capsys.readouterr().err
        assert rc == 2 and msg in err and str(path) in err, err
        assert "Traceback" not in err


def test_read_area_unites_polygons(tmp_path):
    a = tmp_path / "two.geojson"
    sq = [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]
    sq2 = [[2, 0], [3, 0], [3, 1], [2, 1], [2, 0]]
    a.write_text(json.dumps({"type": "MultiPolygon", "coordinates": [[sq], [sq2]]}))
    assert read_area(a).area == pytest.approx(2.0)
    with pytest.raises(MapFormatError, match="cannot read"):
        read_area(tmp_path / "missing.geojson")
