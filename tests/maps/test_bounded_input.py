"""Issue 14 item 2: bounded input. Each case once crashed, ran unbounded or read garbage;
now it ends with exit status 2 and one line naming the value (or works)."""

from __future__ import annotations

import gzip
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from maps.errors import MapFormatError

FIX = Path(__file__).resolve().parents[1] / "fixtures"
TINY = FIX / "dimacs" / "tiny.gr"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def cli(capsys, *argv) -> tuple[int, str]:
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


def one_error(capsys, *argv) -> str:
    rc, err = cli(capsys, *argv)
    assert rc == 2 and err.count("\n") == 1 and " error: " in err, err
    return err


# ---- compressed input, line length, binary content ----------------------------------------
def bomb_gr() -> bytes:
    return b"p sp 2 1\na 1 2 3\n" + (b"c " + b"x" * 1000 + b"\n") * 3000


@pytest.mark.parametrize("name,pack", [("b.gr.gz", gzip.compress), ("b.gr.xz", lzma.compress),
                                       ("b.graphml.gz", gzip.compress)])
def test_decompression_stops_at_the_limit(tmp_path, monkeypatch, capsys, name, pack):
    monkeypatch.setenv("SIGNPOST_MAX_INPUT_MB", "1")
    p = tmp_path / name
    p.write_bytes(pack(bomb_gr()))
    assert len(p.read_bytes()) < 100_000
    err = one_error(capsys, "info", p, "--no-cache")
    assert "decompresses to more than 1 MB" in err and "SIGNPOST_MAX_INPUT_MB" in err


def test_limit_is_configurable(tmp_path, monkeypatch):
    from maps.formats.dimacs import load_dimacs

    p = tmp_path / "b.gr.gz"
    p.write_bytes(gzip.compress(bomb_gr()))
    monkeypatch.setenv("SIGNPOST_MAX_INPUT_MB", "8")
    assert load_dimacs(p).num_arcs == 1
    monkeypatch.setenv("SIGNPOST_MAX_INPUT_MB", "banana")
    with pytest.raises(MapFormatError, match="SIGNPOST_MAX_INPUT_MB='banana'"):
        load_dimacs(p)


def test_long_line_and_binary_content(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SIGNPOST_MAX_LINE_KB", "1")
    p = tmp_path / "long.gr"
    p.write_bytes(b"p sp 2 1\na 1 2 " + b"9" * 4000 + b"\n")
    err = one_error(capsys, "info", p, "--no-cache")
    assert "long.gr:2: a line longer than 1 KB" in err and "SIGNPOST_MAX_LINE_KB" in err
    b = tmp_path / "bin.gr"
    b.write_bytes(b"p sp 2 1\n\x00\x01\x02" + os.urandom(64))
    assert "binary content" in one_error(capsys, "info", b, "--no-cache")


def test_geojson_integer_of_5000_digits(tmp_path, capsys):
    p = tmp_path / "big.geojson"
    p.write_text('{"type":"FeatureCollection","features":[{"type":"Feature","id":'
                 + "9" * 5000 + ',"properties":{},"geometry":{"type":"LineString",'
                 '"coordinates":[[10,50],[10.001,50]]}}]}')
    assert "big.geojson: invalid JSON" in one_error(capsys, "info", p, "--no-cache")


# ---- typed node ids ------------------------------------------------------------------------
@pytest.mark.parametrize("point,shown", [
    ("node:1.7", "'1.7'"), ("node:abc", "'abc'"), ("node:" + "9" * 30, "9" * 20),
    ("node:9223372036854775808", "9223372036854775808"),
])  # fmt: skip
def test_node_ids_are_checked_before_the_map_loads(capsys, monkeypatch, point, shown):
    import maps.load

    def no_load(*a, **k):
        raise AssertionError("the map was loaded before the point was checked")

    monkeypatch.setattr(maps.load, "load_map", no_load)
    err = one_error(capsys, "route", TINY, "--from", point, "--to", "node:1")
    assert shown in err


def test_huge_osm_id_does_not_grow_memory(capsys):
    """osmium's IdFilter allocated a bitmap as long as the id (std::bad_alloc)."""
    pytest.importorskip("osmium")
    err = one_error(capsys, "route", FIX / "osm" / "small.osm", "--contract", "--from",
                    "node:9000000000000000000", "--to", "node:1", "--backend", "cpu")
    assert "9000000000000000000" in err


def test_huge_fixed_id(capsys):
    pytest.importorskip("osmium")
    err = one_error(capsys, "billboards", FIX / "osm" / "small.osm", "--contract", "-k", "1",
                    "--fixed", "9000000000000000000", "--backend", "cpu", "--quiet")
    assert "--fixed '9000000000000000000'" in err


# ---- numbers -------------------------------------------------------------------------------
def test_demand_1e200(tmp_path, capsys):
    d = tmp_path / "d.csv"
    d.write_text("node,weight\n1,1e200\n2,1\n")
    err = one_error(capsys, "billboards", TINY, "-k", "1", "--demand", d, "--backend", "cpu")
    assert "d.csv:2: weight 1e+200 is too large" in err


@pytest.mark.parametrize("argv,shown", [
    (["billboards", TINY, "-k", "1", "--method", "sampled", "--epsilon", "1e-300"], "1e-300"),
    (["pagerank", TINY, "--out", "{tmp}/p.csv", "--tol", "0", "--max-iter", str(2**31)],
     str(2**31)),
    (["generate", "ring", "--nodes", str(2**30), "--out", "{tmp}/r.gr"], str(2**30)),
    (["generate", "complete", "--nodes", "100000", "--out", "{tmp}/c.gr"], "100000"),
    (["generate", "rmat", "--arcs-per-node", "313517", "--out", "{tmp}/c.gr"], "arcs"),
    (["generate", "rmat", "--nodes", "-50", "--out", "{tmp}/c.gr"], "-50"),
    (["generate", "random", "--seed", "-600", "--out", "{tmp}/c.gr"], "seed -600"),
    (["billboards", TINY, "-k", "1", "--method", "sampled", "--seed", "-1"], "seed -1"),
])  # fmt: skip
def test_unbounded_counts_are_refused(tmp_path, capsys, argv, shown):
    argv = [str(a).replace("{tmp}", str(tmp_path)) for a in argv]
    assert shown in one_error(capsys, *argv, *(["--backend", "cpu"] if argv[0] != "generate"
                                                else []))


# ---- areas ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    '{"type":"Polygon","coordinates":[[[NaN,0],[1,0],[1,1],[0,0]]]}',
    '{"type":"Polygon","coordinates":' + "[" * 5000 + "]" * 5000 + "}",
    '{"type":"Polygon","coordinates":[[[[[[0,0]]]]]]}',
    '{"type":"Polygon","coordinates":[[[1e400,0],[1,0],[1,1],[0,0]]]}',
])  # fmt: skip
def test_within_nan_or_nested_rings(tmp_path, capsys, text):
    pytest.importorskip("shapely")
    a = tmp_path / "a.geojson"
    a.write_text(text)
    assert "a.geojson" in one_error(capsys, "billboards", TINY, "-k", "1", "--within", a,
                                    "--backend", "cpu")


# ---- file names and the cache --------------------------------------------------------------
def test_non_utf8_file_names(tmp_path):
    """The cache key and the printed names once raised UnicodeEncodeError."""
    d = os.fsencode(tmp_path)
    gr, co = d + b"/bad\xff.gr", d + b"/bad\xff.co"
    Path(os.fsdecode(gr)).write_bytes(TINY.read_bytes())
    Path(os.fsdecode(co)).write_bytes((FIX / "dimacs" / "tiny.co").read_bytes())
    out = d + b"/out\xfe.csv"
    env = {**os.environ, "PYTHONPATH": str(REPO), "SIGNPOST_CACHE_DIR": str(tmp_path / "c"),
           "PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8"}
    code = "import sys; from app.cli import main; sys.exit(main())"
    for args in ([b"info", gr], [b"sssp", gr, b"--source", b"node:1", b"--out", out,
                                 b"--backend", b"cpu"]):
        r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, env=env)
        assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    assert out.split(b"/")[-1] in r.stdout  # the name printed as its bytes
    assert Path(os.fsdecode(out)).read_text().startswith("node_id,cost\n")


def test_very_long_cache_path_is_skipped(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / ("x" * 250) / ("y" * 250)
                                                 / ("z" * 250) / ("w" * 250) / ("v" * 250)))
    rc, err = cli(capsys, "info", TINY, "--json")
    assert rc == 0


@pytest.mark.parametrize("name", ["../../escape.gr", "a\nb.gr", "..gr", "x" * 200 + ".gr"])
def test_cache_entries_are_hashes_inside_the_cache_dir(tmp_path, monkeypatch, name):
    from maps.cache import cache_dir
    from maps.load import load_map

    src = tmp_path / "maps" / "deep"
    src.mkdir(parents=True)
    p = Path(os.path.normpath(src / name)) if "/" in name else src / name
    p.write_bytes(TINY.read_bytes())
    load_map(p)
    entries = list(cache_dir().iterdir())
    assert len(entries) == 1
    assert entries[0].parent == cache_dir() and len(entries[0].stem) == 40
    assert all(c in "0123456789abcdef" for c in entries[0].stem)
    assert json.loads(json.dumps(load_map(p).source_path)) == str(p)
