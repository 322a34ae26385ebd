"""Issue 40 items 2-4: a GeoPackage ``--out`` never replaces the map's roads, append
writes in the layer's CRS and columns (or refuses), GDAL-written layers with R-tree
triggers and files with the ``gpkg_crs_wkt`` extension can be written."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from app.cli import main
from tests.maps.gis_files import LAT0, LON0, grid_lines, write_lines


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def _digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _one_line(capsys, *argv) -> str:
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, (rc, err)
    return err.strip()


def _iso(map_path, out, *extra) -> list[str]:
    return ["isochrones", str(map_path), "--from", f"{LON0},{LAT0}", "--metres", "100,200",
            "--backend", "cpu", "--no-cache", "--out", str(out), *extra]


def test_roads_named_isochrones_are_not_replaced_without_layer(tmp_path, capsys) -> None:
    pytest.importorskip("pyogrio")
    lines, props = grid_lines()
    m = write_lines(tmp_path / "m.gpkg", lines, props, crs="EPSG:4326", layer="isochrones")
    before = _digest(m)
    for mode in ("replace", "append"):
        err = _one_line(capsys, *_iso(m, m, "--if-exists", mode))
        assert "layer 'isochrones' is the map's layer" in err
        assert _digest(m) == before
