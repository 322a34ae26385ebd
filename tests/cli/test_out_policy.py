"""Issue 24 item 2: an output never destroys an input, a GeoPackage output keeps the
file's other layers, and ``--if-exists fail|replace|append`` holds for files too."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from app.cli import main
from tests.cli.out_checks import digest as _digest
from tests.cli.out_checks import one_line as _one_line
from tests.cli.out_checks import private_cache  # noqa: F401  (the fixture)
from tests.conftest import FIXTURES
from tests.maps.gis_files import LAT0, LON0, grid_lines, write_lines

TINY = str(FIXTURES / "dimacs" / "tiny.gr")


pytestmark = pytest.mark.usefixtures("private_cache")


def _points(tmp_path, name="p.csv") -> Path:
    p = tmp_path / name
    p.write_text("node\n1\n2\n3\n")
    return p


def test_mst_out_the_map_itself_is_refused(tmp_path, capsys) -> None:
    lines, props = grid_lines()
    m = write_lines(tmp_path / "map.geojson", lines, props, crs=None)
    before = _digest(m)
    err = _one_line(capsys, "mst", m, "--out", m, "--no-cache")
    assert "is the command's input (MAP" in err and "map.geojson" in err, err
    assert _digest(m) == before


@pytest.mark.parametrize("which", ["--from", "--to"])
def test_matrix_out_a_points_file_even_through_a_link_is_refused(tmp_path, capsys, which) -> None:
    p, q = _points(tmp_path), _points(tmp_path, "q.csv")
    link = tmp_path / "link.csv"
    link.symlink_to(p if which == "--from" else q)
    before = (_digest(p), _digest(q))
    err = _one_line(capsys, "matrix", TINY, "--from", p, "--to", q, "--out", link)
    assert f"is the command's input ({which}" in err, err
    assert (_digest(p), _digest(q)) == before and link.is_symlink()


def test_demand_scenario_and_dimacs_companion_are_inputs(tmp_path, capsys) -> None:
    d = _points(tmp_path, "d.csv")
    err = _one_line(capsys, "billboards", TINY, "-k", "1", "--demand", d, "--out", d)
    assert "(--demand" in err
    s = tmp_path / "s.csv"  # a scenario file with an odd name is still an input
    s.write_text('{"type": "FeatureCollection", "features": []}')
    err = _one_line(capsys, "sssp", TINY, "--source", "node:1", "--scenario", s, "--out", s)
    assert "(--scenario" in err and s.read_text().startswith('{"type"')
    gr = tmp_path / "m.gr"
    gr.write_bytes(Path(TINY).read_bytes())
    co = tmp_path / "m.co"
    co.write_bytes((FIXTURES / "dimacs" / "tiny.co").read_bytes())
    link = tmp_path / "co.csv"
    link.symlink_to(co)
    err = _one_line(capsys, "sssp", gr, "--source", "node:1", "--out", link)
    assert "companion" in err and _digest(co) == _digest(FIXTURES / "dimacs" / "tiny.co")


def test_if_exists_fail_keeps_the_file(tmp_path, capsys) -> None:
    keep = tmp_path / "keep.csv"
    keep.write_text("precious\n")
    err = _one_line(capsys, "sssp", TINY, "--source", "node:1", "--out", keep,
                    "--if-exists", "fail")
    assert "exists (--if-exists fail)" in err and keep.read_text() == "precious\n"
    assert main(["sssp", TINY, "--source", "node:1", "--out", str(keep)]) == 0  # replace
    assert keep.read_text().startswith("node_id,cost")


def test_append_adds_rows_under_one_header(tmp_path, capsys) -> None:
    out = tmp_path / "r.csv"
    run = ["route", TINY, "--from", "node:1", "--to", "node:3", "--backend", "cpu",
           "--out", str(out)]
    assert main(run) == 0
    first = out.read_text().splitlines()
    assert main([*run, "--if-exists", "append"]) == 0
    both = out.read_text().splitlines()
    assert both == first + first[1:] and both.count(first[0]) == 1
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    err = _one_line(capsys, *run[:-1], other, "--if-exists", "append")
    assert "header 'a,b'" in err and other.read_text() == "a,b\n1,2\n"


@pytest.mark.parametrize("argv", [
    ["sssp", TINY, "--source", "node:1", "--out", "{d}/c.npy"],
    ["matrix", TINY, "--from", "{p}", "--to", "{p}", "--out", "{d}/m.npy"],
    ["matrix", TINY, "--from", "{p}", "--to", "{p}", "--out", "{d}/m.parquet"],
])
def test_append_is_refused_where_a_file_cannot_grow(tmp_path, capsys, argv) -> None:
    p = _points(tmp_path)
    argv = [a.format(d=tmp_path, p=p) for a in argv]
    err = _one_line(capsys, *argv, "--if-exists", "append")
    assert "--if-exists append does not apply to" in err, err
    assert not Path(argv[argv.index("--out") + 1]).exists()


def _rows(path, table: str) -> list:
    con = sqlite3.connect(path)
    try:
        return con.execute(f'SELECT * FROM "{table}" ORDER BY fid').fetchall()
    finally:
        con.close()


def _layers(path) -> list[str]:
    con = sqlite3.connect(path)
    try:
        return sorted(r[0] for r in con.execute("SELECT table_name FROM gpkg_contents"))
    finally:
        con.close()


@pytest.fixture
def city(tmp_path) -> Path:
    """A GDAL-written GeoPackage with two line layers, roads and tracks."""
    pytest.importorskip("pyogrio")
    lines, props = grid_lines()
    p = write_lines(tmp_path / "city.gpkg", lines, props, crs="EPSG:4326", layer="roads")
    write_lines(p, lines[:2], props[:2], crs="EPSG:4326", layer="tracks", append=True)
    return p


def _iso(city, *extra) -> list[str]:
    return ["isochrones", str(city), "--layer", "roads", "--from", f"{LON0},{LAT0}",
            "--metres", "100,200", "--backend", "cpu", "--no-cache", "--out", str(city), *extra]


def test_isochrones_into_the_maps_geopackage_keeps_its_layers(city, capsys) -> None:
    roads, tracks = _rows(city, "roads"), _rows(city, "tracks")
    assert main(_iso(city)) == 0, capsys.readouterr().err
    assert _layers(city) == ["isochrones", "roads", "tracks"]
    assert _rows(city, "roads") == roads and _rows(city, "tracks") == tracks  # bit-exact
    iso = _rows(city, "isochrones")
    assert [r[2] for r in iso] == [100, 200]
    assert main(_iso(city)) == 0  # replace (the default): the layer, not the file
    assert len(_rows(city, "isochrones")) == 2 and _rows(city, "roads") == roads
    assert main(_iso(city, "--if-exists", "append")) == 0
    assert [r[2] for r in _rows(city, "isochrones")] == [100, 200, 100, 200]
    before = _digest(city)
    err = _one_line(capsys, *_iso(city, "--if-exists", "fail"))
    assert "layer 'isochrones'" in err and _digest(city) == before
    import pyogrio  # the file still opens in GDAL, with all three layers

    assert sorted(name for name, _ in pyogrio.list_layers(city)) == _layers(city)
    _, _, _, fields = pyogrio.raw.read(city, layer="isochrones")
    assert fields[0].tolist() == [100, 200, 100, 200]


def test_an_interrupted_geopackage_write_leaves_the_old_file(city, capsys, monkeypatch) -> None:
    import maps.outputs.vector

    assert main(_iso(city)) == 0
    before = _digest(city)
    calls = []

    def interrupted(geom, srs_id=4326):
        calls.append(geom)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real(geom, srs_id)

    real = maps.outputs.vector.gpkg_blob
    monkeypatch.setattr(maps.outputs.vector, "gpkg_blob", interrupted)
    assert main(_iso(city, "--if-exists", "append")) == 130
    assert _digest(city) == before
    assert sorted(p.name for p in city.parent.iterdir() if p.name.startswith(".signpost-tmp")) == []


def test_geojson_append_is_refused_and_json_summary_unchanged(tmp_path, capsys) -> None:
    pytest.importorskip("pyogrio")
    lines, props = grid_lines()
    m = write_lines(tmp_path / "m.geojson", lines, props, crs=None)
    out = tmp_path / "iso.geojson"
    args = ["isochrones", str(m), "--from", f"{LON0},{LAT0}", "--metres", "100",
            "--backend", "cpu", "--no-cache", "--out", str(out)]
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["out"] == str(out)
    err = _one_line(capsys, *args, "--if-exists", "append")
    assert "does not apply to .geojson" in err


def test_append_to_a_foreign_layer_of_that_name_is_refused(city, capsys) -> None:
    """A line layer named 'isochrones' (written by GDAL) cannot take polygons."""
    lines, props = grid_lines()
    write_lines(city, lines[:1], props[:1], crs="EPSG:4326", layer="isochrones", append=True)
    before = _digest(city)
    err = _one_line(capsys, *_iso(city, "--if-exists", "append"))
    assert "layer 'isochrones' is not one of polygons" in err and _digest(city) == before
    assert main(_iso(city)) == 0  # replace swaps it for the polygons, keeps the rest
    assert _layers(city) == ["isochrones", "roads", "tracks"]
    assert [r[2] for r in _rows(city, "isochrones")] == [100, 200]
    from pyogrio.raw import read  # GDAL's R-tree of the old layer went with it

    meta, _, _, fields = read(city, layer="isochrones")
    assert meta["geometry_type"] == "MultiPolygon" and fields[0].tolist() == [100, 200]
