"""``signpost matrix``: CSV/NPY round trips, unreachable cells, bad rows, clean cancel."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from app.cli import main

# 5 nodes on a line of longitudes (~55 m apart at 60 N); arcs 1<->2 (10), 2<->3 (20),
# 3->4 (5), 5->4 (7): node 5 reaches only node 4.
GR = "p sp 5 6\na 1 2 10\na 2 1 10\na 2 3 20\na 3 2 20\na 3 4 5\na 5 4 7\n"
CO = "p aux sp co 5\n" + "".join(f"v {i + 1} {24000000 + 1000 * i} 60000000\n" for i in range(5))
# snapped nodes: rows of A -> 0, 2, 4, 0 (a duplicate); rows of B -> 3, 1
A = "lon,lat\n24.0,60.0\n24.002,60.0\n\n24.004,60.0\n24.0,60.0\n"
B = "lon,lat\n24.003,60.0\n24.001,60.0\n"
EXPECTED = np.array([[35, 10], [5, 20], [7, -1], [35, 10]])  # worked out by hand


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "g.gr").write_text(GR)
    (tmp_path / "g.co").write_text(CO)
    (tmp_path / "a.csv").write_text(A)
    (tmp_path / "b.csv").write_text(B)
    return tmp_path


def run(files, *extra, a="a.csv", b="b.csv", out="m.csv"):
    return main(["matrix", str(files / "g.gr"), "--no-cache", "--from", str(files / a),
                 "--to", str(files / b), "--out", str(files / out), "--backend", "cpu", *extra])


def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_csv_round_trip_and_unreachable_empty(files, capsys):
    assert run(files) == 0
    rows = read_csv(files / "m.csv")
    assert rows[0] == ["from", "to", "cost", "from_id", "to_id"]
    got = {(int(f), int(t)): c for f, t, c, _, _ in rows[1:]}
    # no id column: the ids are the map's node ids the rows snapped to (nodes 1, 3, 5, 1)
    assert [r[3] for r in rows[1::2]] == ["1", "3", "5", "1"]
    assert [r[4] for r in rows[1:3]] == ["4", "2"]
    assert len(got) == 8
    for (f, t), c in got.items():
        assert c == ("" if EXPECTED[f, t] < 0 else str(EXPECTED[f, t]))
    err = capsys.readouterr().err
    assert "duplicate" in err and "rows 0=3" in err


def test_npy_output_matches_library(files):
    from gpu_core.multi_source import distance_matrix
    from maps.load import load_map

    assert run(files, out="m.npy") == 0
    m = np.load(files / "m.npy")
    assert m.dtype == np.int32  # the map's arc weights sum below 2^31: every cost fits
    np.testing.assert_array_equal(m, EXPECTED)
    net = load_map(str(files / "g.gr"), use_cache=False)
    np.testing.assert_array_equal(m, distance_matrix(net, [0, 2, 4, 0], [3, 1], backend="cpu"))


def test_node_id_column(files):
    (files / "n.csv").write_text("node\n1\n5\n")
    assert run(files, a="n.csv", out="n.npy") == 0
    np.testing.assert_array_equal(np.load(files / "n.npy"), EXPECTED[[0, 2]])


@pytest.mark.parametrize(
    "content,needle",
    [
        ("lon,lat\n24.0,60.0\n25.0,61.0\n", "b.csv:3: row 1: point 25"),
        ("lon,lat\n24.0,60.0\nx,60\n", "b.csv:3: row 1: 'x,60' is not two numbers"),
        ("lon,lat\n24.0\n", "b.csv:2: row 0: expected lon and lat in column(s) 1, 2, got 1"),
        ("x,y\n24.0,60.0\n", "b.csv:1: header is 'x,y'"),
        ("", "b.csv: no header and no points"),
        ("lon,lat\n", "b.csv: no points after the header"),
        ("lon,lat\n200,60\n", "b.csv:2: row 0: longitude 200.0 is outside"),
    ],
)
def test_bad_rows_exit_2_naming_the_row(files, capsys, content, needle):
    (files / "b.csv").write_text(content)
    assert run(files) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 or "note:" in err[0]
    assert needle in err[-1]
    assert not (files / "m.csv").exists()


def test_bad_output_extension(files, capsys):
    assert run(files, out="m.txt") == 2
    assert "write .csv, .parquet or .npy" in capsys.readouterr().err


def test_interrupt_leaves_no_output(files, monkeypatch):
    import gpu_core.multi_source as ms

    real = ms.iter_distance_rows

    def interrupted(*args, **kwargs):
        for k, item in enumerate(real(*args, **kwargs)):
            if k == 1:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(ms, "iter_distance_rows", interrupted)
    for out in ("m.csv", "m.npy"):
        assert run(files, "--chunk", "1", out=out) == 130
        assert sorted(p.name for p in files.iterdir()) == ["a.csv", "b.csv", "g.co", "g.gr"]


def test_large_matrix_note_and_streaming(files, monkeypatch, capsys):
    import gpu_core.multi_source as ms

    monkeypatch.setattr(ms, "available_memory", lambda: 64)
    assert run(files, "--chunk", "1", out="m.npy") == 0
    err = capsys.readouterr().err
    assert "the 4 x 2 matrix is 64 bytes" in err and "streaming it to disk in chunks" in err
    np.testing.assert_array_equal(np.load(files / "m.npy"), EXPECTED)


@pytest.mark.parametrize(
    "content",
    [
        "id,lon,lat,name\n7,24.003,60.0,a\n8,24.001,60.0,b\n",  # extra columns
        "lat,lon\n60.0,24.003\n60.0,24.001\n",  # column order lat,lon
        " Lon , LAT \n 24.003 , 60.0 \n 24.001 ,60.0\n",  # spaces, capitals
        "\ufefflon,lat\r\n24.003,60.0\r\n24.001,60.0\r\n",  # BOM, CRLF
        "latitude;longitude\n60.0;24.003\n60.0;24.001\n",  # semicolons, long names
        "node,lon,lat\n4,24.003,60.0\n2,24.001,60.0\n",  # lon/lat used, node agrees (issue 40:
        # a node that disagrees is refused, tests/maps/test_issue40_points.py)
    ],
)
def test_odd_csv_layouts_read_by_header_name(files, content):
    (files / "b.csv").write_text(content, encoding="utf-8", newline="")
    assert run(files, out="m.npy") == 0
    np.testing.assert_array_equal(np.load(files / "m.npy"), EXPECTED)


def test_node_column_among_others(files):
    (files / "n.csv").write_text("name,node\nfirst,1\nlast,5\n")
    assert run(files, a="n.csv", out="n.npy") == 0
    np.testing.assert_array_equal(np.load(files / "n.npy"), EXPECTED[[0, 2]])


def test_binary_points_file_exit_2(files, capsys):
    (files / "b.csv").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    assert run(files) == 2
    assert "b.csv: not a UTF-8 text file" in capsys.readouterr().err
    assert not (files / "m.csv").exists()


def test_output_larger_than_free_disk_is_refused(files, monkeypatch, capsys):
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**6, 10**6 - 30, 30))
    for out in ("m.npy", "m.csv"):
        assert run(files, out=out) == 2
        err = capsys.readouterr().err
        assert "the 4 x 2 matrix needs" in err and "only 30 bytes" in err
        assert sorted(p.name for p in files.iterdir()) == ["a.csv", "b.csv", "g.co", "g.gr"]


def test_write_error_is_one_line_and_leaves_nothing(files, monkeypatch, capsys):
    import app.cli.matrix_out as mo

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(mo.CsvRows, "lines", full)
    assert run(files) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith("m.csv: No space left on device") and "Traceback" not in "".join(err)
    assert sorted(p.name for p in files.iterdir()) == ["a.csv", "b.csv", "g.co", "g.gr"]


# ---- ids and Parquet (issue 13 item 7, issue 12's Parquet output) ----------------------
def _points_geojson(rows):
    import json

    feats = [{"type": "Feature", "properties": {"name": n, "pop": p},
              "geometry": {"type": "Point", "coordinates": [lon, lat]}} for n, p, lon, lat in rows]
    return json.dumps({"type": "FeatureCollection", "features": feats})


def _points_gpkg(path, rows):
    """A GeoPackage point layer in EPSG:4326 (columns name, pop)."""
    import shapely

    from maps.outputs.vector import gpkg_blob, write_gpkg_polygons

    write_gpkg_polygons(str(path), [], [], table="unused")  # the gpkg_* tables
    import sqlite3

    con = sqlite3.connect(str(path))
    con.execute("INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) "
                "VALUES ('pts', 'features', 'pts', 4326)")
    con.execute("INSERT INTO gpkg_geometry_columns VALUES ('pts', 'geom', 'POINT', 4326, 0, 0)")
    con.execute("CREATE TABLE pts (fid INTEGER PRIMARY KEY, geom POINT, name TEXT, pop INTEGER)")
    for n, p, lon, lat in rows:
        con.execute("INSERT INTO pts (geom, name, pop) VALUES (?, ?, ?)",
                    (gpkg_blob(shapely.Point(lon, lat)), n, p))
    con.commit()
    con.close()


A_ROWS = [("Ann", 5, 24.0, 60.0), ("Bo, jr", 6, 24.002, 60.0), ("Cy", 7, 24.004, 60.0)]


def test_ids_follow_each_point_format(files):
    (files / "a.geojson").write_text(_points_geojson(A_ROWS))
    _points_gpkg(files / "a.gpkg", A_ROWS)
    (files / "a_named.csv").write_text("name,lon,lat,pop\n" + "".join(
        f'"{n}",{lon},{lat},{p}\n' for n, p, lon, lat in A_ROWS))
    want = None
    for a in ("a_named.csv", "a.geojson", "a.gpkg"):
        assert run(files, a=a, out=f"m_{a}.csv") == 0, a  # b.csv has no id column
        assert [r[2] for r in read_csv(files / f"m_{a}.csv")[1:]] == [
            "35", "10", "5", "20", "7", ""]
        assert run(files, "--id-column", "name", a=a, b=a, out=f"m_{a}.csv") == 0, a
        rows = read_csv(files / f"m_{a}.csv")
        assert rows[0] == ["from", "to", "cost", "from_id", "to_id"]
        assert [r[3] for r in rows[1::3]] == ["Ann", "Bo, jr", "Cy"]
        assert [r[4] for r in rows[1:4]] == ["Ann", "Bo, jr", "Cy"]
        want = want or rows
        assert rows == want
        assert run(files, "--id-column", "pop", a=a, b=a, out="p.csv") == 0
        assert [r[3] for r in read_csv(files / "p.csv")[1::3]] == ["5", "6", "7"]
        assert run(files, a=a, b=a, out="d.csv") == 0  # default: the first other column
        first = {"a_named.csv": "Ann", "a.geojson": "Ann", "a.gpkg": "1"}[a]  # gpkg: fid
        assert read_csv(files / "d.csv")[1][3] == first


def test_missing_id_column_is_one_line(files, capsys):
    assert run(files, "--id-column", "nosuch") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no column named 'nosuch'" in err[0] and "a.csv" in err[0]


def test_points_in_another_crs_are_transformed(files, capsys):
    """GeoJSON points in Web Mercator (legacy ``crs`` member) give the matrix of the same
    points in lon/lat; a CRS pyproj cannot read is refused naming it."""
    import json

    from pyproj import Transformer

    doc = json.loads(_points_geojson(A_ROWS))
    (files / "w.geojson").write_text(json.dumps(doc))
    assert run(files, a="w.geojson", out="w.csv") == 0
    tr = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
    for f in doc["features"]:
        f["geometry"]["coordinates"] = list(tr.transform(*f["geometry"]["coordinates"]))
    doc["crs"] = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::3857"}}
    (files / "m.geojson").write_text(json.dumps(doc))
    assert run(files, a="m.geojson", out="m.csv") == 0
    assert (files / "m.csv").read_text() == (files / "w.csv").read_text()
    doc["crs"]["properties"]["name"] = "EPSG:999999"
    (files / "m.geojson").write_text(json.dumps(doc))
    capsys.readouterr()
    assert run(files, a="m.geojson") == 2
    assert "999999" in capsys.readouterr().err


@pytest.mark.parametrize("rows_per_group,groups", [(1, 3), (4, 2), (1 << 20, 1)])
def test_parquet_equals_the_csv(files, monkeypatch, rows_per_group, groups):
    pq = pytest.importorskip("pyarrow.parquet")
    import app.cli.matrix_out as mo

    monkeypatch.setattr(mo, "ROWS_PER_GROUP", rows_per_group)
    (files / "a_named.csv").write_text("name,lon,lat\n" + "".join(
        f'"{n}",{lon},{lat}\n' for n, _, lon, lat in A_ROWS))
    assert run(files, "--chunk", "1", a="a_named.csv", out="m.csv") == 0
    assert run(files, a="a_named.csv", out="m.parquet") == 0  # one block: split by groups
    t = pq.read_table(files / "m.parquet")
    assert t.column_names == ["from", "to", "cost", "from_id", "to_id"]
    assert str(t.schema.field("cost").type) == "int32"
    assert str(t.schema.field("to_id").type) == "int64"  # the map's node ids
    got = [["" if v is None else str(v) for v in r.values()] for r in t.to_pylist()]
    assert got == read_csv(files / "m.csv")[1:]
    assert t.column("cost").null_count == 1
    f = pq.ParquetFile(files / "m.parquet")
    assert f.metadata.num_row_groups == groups
