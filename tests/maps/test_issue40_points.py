"""Issue 40 item 16: points files say what is wrong with them — a ``--buffer`` past its
limit names the limit, a 40-digit id is out of range, a GeoJSON of lines holds lines, a
mixed file never loses a feature silently (GeoJSON and GeoPackage), a CSV with both
``node`` and ``lon,lat`` says which it used or refuses when they disagree, and ``true``
is no coordinate. Through the CLI (``signpost matrix``, ``isochrones``)."""

from __future__ import annotations

import json
import sqlite3
import struct

import pytest
import shapely

from app.cli import main
from maps.errors import PointError
from maps.outputs.vector import write_gpkg_polygons
from maps.points.files import read_table
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")  # with tiny.co: 5 nodes near 139.70,35.68


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def matrix(capsys, tmp_path, src, *, to="node\n2\n"):
    f = tmp_path / src[0]
    f.write_text(src[1])
    t = tmp_path / "to.csv"
    t.write_text(to)
    rc = main(["matrix", TINY, "--from", str(f), "--to", str(t), "--out",
               str(tmp_path / "m.csv"), "--backend", "cpu"])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    return rc, cap.err.strip()


def one_line(rc_err) -> str:
    rc, err = rc_err
    assert rc == 2 and len(err.splitlines()) == 1, (rc, err)
    return err


def fc(*geoms) -> str:
    return json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": g, "properties": {"id": i}} for i, g in enumerate(geoms)]})


PT = {"type": "Point", "coordinates": [139.7, 35.68]}
LINE = {"type": "LineString", "coordinates": [[139.7, 35.68], [139.701, 35.68]]}


def test_buffer_past_the_limit_names_the_limit(tmp_path, capsys):
    rc = main(["isochrones", TINY, "--from", "node:1", "--metres", "100", "--out",
               str(tmp_path / "i.geojson"), "--buffer", "1e9"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "--buffer 1e+09" in err and "at most 100,000" in err, err


def test_forty_digit_id_is_out_of_range(tmp_path, capsys):
    err = one_line(matrix(capsys, tmp_path, ("p.csv", "node\n" + "1" * 40 + "\n")))
    assert "p.csv:2: row 0: node id '" + "1" * 40 + "' is out of range" in err, err
    assert "not an integer" not in err


def test_geojson_of_lines_says_it_holds_lines(tmp_path, capsys):
    err = one_line(matrix(capsys, tmp_path, ("p.geojson", fc(LINE, LINE))))
    assert "holds no points: its 2 feature(s) are LineString" in err, err


def test_mixed_geojson_is_refused_naming_the_feature(tmp_path, capsys):
    err = one_line(matrix(capsys, tmp_path, ("p.geojson", fc(PT, LINE, PT, None))))
    assert "feature 1 is a LineString, not a point (2 of 4 features are not points" in err, err


@pytest.mark.parametrize("coords", [[True, 35.68], [139.7, False], ["139.7", 35.68],
                                    [None, 35.68]])
def test_booleans_and_strings_are_no_coordinates(tmp_path, capsys, coords):
    err = one_line(matrix(capsys, tmp_path,
                          ("p.geojson", fc({"type": "Point", "coordinates": coords}))))
    assert f"feature 0: coordinates {json.dumps(coords)} are not two numbers" in err, err


def test_csv_with_both_columns_says_which_it_used(tmp_path, capsys):
    rc, err = matrix(capsys, tmp_path, ("p.csv", "node,lon,lat\n1,139.7,35.68\n"
                                                 "3,139.701,35.681\n"))
    assert rc == 0 and "note: " in err and "used lon,lat (every row's node agrees)" in err


def test_csv_with_disagreeing_columns_is_refused(tmp_path, capsys):
    err = one_line(matrix(capsys, tmp_path, ("p.csv", "node,lon,lat\n1,139.7,35.68\n"
                                                      "3,139.7,35.68\n")))
    assert "p.csv:3: row 1: its node 3 and its lon,lat 139.7,35.68 (which snaps to " \
           "node 1) disagree" in err, err


def _point_blob(x: float, y: float) -> bytes:
    return b"GP\x00\x01" + struct.pack("<i", 4326) + shapely.to_wkb(shapely.Point(x, y))


def test_gpkg_point_layer_never_drops_a_feature(tmp_path):
    p = str(tmp_path / "pts.gpkg")
    write_gpkg_polygons(p, [shapely.box(0, 0, 1, 1)] * 3, [{"n": 1}, {"n": 2}, {"n": 3}],
                        table="pts")
    con = sqlite3.connect(p)
    con.execute("UPDATE gpkg_geometry_columns SET geometry_type_name = 'POINT'")
    rows = [r[0] for r in con.execute("SELECT fid FROM pts ORDER BY fid")]
    for fid in rows:
        con.execute("UPDATE pts SET geom = ? WHERE fid = ?", (_point_blob(139.7, 35.68), fid))
    con.commit()
    assert len(read_table(p).rows) == 3
    con.execute("UPDATE pts SET geom = NULL WHERE fid = ?", (rows[1],))
    con.commit()
    con.close()
    with pytest.raises(PointError, match=r"feature 1 has no geometry \(1 of 3 features "
                                         r"are not points: without geometry\)"):
        read_table(p)
