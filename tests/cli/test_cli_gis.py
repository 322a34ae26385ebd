"""The CLI on GIS files: --crs, --layer, --weight on every map command; info's crs/bbox;
route --json time_s; one-line errors with exit status 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import COMMANDS, main
from tests.maps.gis_files import LAT0, LON0, STEP, grid_lines, project, write_lines
from tests.maps.test_gis_crs import _multi_layer_gpkg

A = f"{LON0},{LAT0}"
B = f"{LON0 + 3 * STEP},{LAT0 + 3 * STEP}"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def city(tmp_path):
    lines, props = grid_lines()
    return _multi_layer_gpkg(tmp_path / "city name?#%.gpkg", lines, props)


def test_info_json_crs_and_bbox(capsys, city) -> None:
    rc, out, err = run(capsys, "info", city, "--layer", "streets", "--json")
    assert rc == 0, err
    info = json.loads(out)
    assert info["crs"] == "EPSG:3857"
    np.testing.assert_allclose(info["bbox"], [LON0, LAT0, LON0 + 3 * STEP, LAT0 + 3 * STEP],
                               atol=1e-7)
    rc, out, _ = run(capsys, "info", city, "--layer", "streets")
    assert "crs          EPSG:3857" in out


def test_layer_errors_exit_2_in_one_line(capsys, city) -> None:
    rc, out, err = run(capsys, "info", city)
    assert rc == 2 and err.count("\n") == 1
    assert "2 line layers: 'paths', 'streets'; choose one with --layer" in err
    rc, _, err = run(capsys, "route", city, "--layer", "buildings", "--from", A, "--to", B)
    assert rc == 2 and "layer 'buildings' has no lines" in err and err.count("\n") == 1


def test_route_by_weight_column(capsys, tmp_path) -> None:
    lines, props = grid_lines()
    p = write_lines(tmp_path / "w.gpkg", project(lines, "EPSG:32632"), props, crs="EPSG:32632")
    rc, out, err = run(capsys, "route", p, "--from", A, "--to", B, "--weight", "time_s",
                       "--weight-unit", "s", "--json", "--backend", "cpu")
    assert rc == 0, err
    r = json.loads(out)
    assert r["unit"] == "cs" and r["profile"] == "weight:time_s"
    assert r["time_s"] == pytest.approx(r["cost"] / 100)
    assert r["length_m"] == pytest.approx(3 * 150.8 + 3 * 222.4, rel=1e-3)  # from the geometry
    rc, out, err = run(capsys, "route", p, "--from", A, "--to", B, "--json", "--backend", "cpu")
    plain = json.loads(out)
    assert plain["time_s"] is None and plain["unit"] == "dm"
    rc, _, err = run(capsys, "route", p, "--from", A, "--to", B, "--weight", "nosuch")
    assert rc == 2 and "layer 'streets' feature" in err and "no 'nosuch' value" in err


def test_crs_option_on_a_file_without_one(capsys, tmp_path) -> None:
    lines, props = grid_lines()
    p = write_lines(tmp_path / "utm.geojson", project(lines, "EPSG:32632"), props, crs=None)
    rc, _, err = run(capsys, "info", p)
    assert rc == 2 and "--crs" in err and err.count("\n") == 1
    rc, out, err = run(capsys, "info", p, "--crs", "EPSG:32632", "--json")
    assert rc == 0 and json.loads(out)["crs"] == "EPSG:32632"


@pytest.mark.parametrize("command", [c for c in COMMANDS if c not in ("generate", "cache", "bench")])
def test_every_map_command_takes_the_gis_options(capsys, command) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    for flag in ("--layer", "--crs", "--weight", "--weight-unit", "--split-crossings"):
        assert flag in out, (command, flag)
