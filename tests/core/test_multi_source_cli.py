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
    assert rows[0] == ["from", "to", "cost"]
    got = {(int(f), int(t)): c for f, t, c in rows[1:]}
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
    assert m.dtype == np.int64
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
    assert "write .csv or .npy" in capsys.readouterr().err


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
        "node,lon,lat\n99,24.003,60.0\n98,24.001,60.0\n",  # lon/lat win on a map with coords
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
    import app.cli.matrix as mx

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(mx, "_csv_lines", full)
    assert run(files) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith("m.csv: No space left on device") and "Traceback" not in "".join(err)
    assert sorted(p.name for p in files.iterdir()) == ["a.csv", "b.csv", "g.co", "g.gr"]
