"""Issue 40 item 5: a truncated .shp is refused naming the file and the features lost,
not loaded as a partial map."""

from __future__ import annotations

import os

import pytest

from maps.errors import MapFormatError
from maps.load import load_map
from tests.maps.gis_files import grid_lines, write_lines


@pytest.fixture
def shp(tmp_path):
    pytest.importorskip("pyogrio")
    lines, props = grid_lines()
    return write_lines(tmp_path / "grid.shp", lines, props, crs="EPSG:4326")


def test_whole_shapefile_loads(shp) -> None:
    assert load_map(str(shp), use_cache=False).num_nodes == 16


def test_truncated_shp_is_refused_with_the_count(shp) -> None:
    size = os.path.getsize(shp)
    with open(shp, "r+b") as fh:
        fh.truncate(size // 2)  # the second half of the features gone
    with pytest.raises(MapFormatError) as err:
        load_map(str(shp), use_cache=False)
    msg = str(err.value)
    assert "grid.shp" in msg and "truncated" in msg and "of 8 features" in msg, msg


def test_truncated_shp_without_shx_is_refused_by_its_header(shp) -> None:
    os.unlink(str(shp)[:-4] + ".shx")
    size = os.path.getsize(shp)
    with open(shp, "r+b") as fh:
        fh.truncate(size - 40)
    with pytest.raises(MapFormatError, match="truncated Shapefile"):
        load_map(str(shp), use_cache=False)


def test_features_without_geometry_are_said(tmp_path, capsys) -> None:
    pytest.importorskip("pyogrio")
    import numpy as np
    import shapely
    from pyogrio.raw import write

    lines, props = grid_lines()
    wkb = [shapely.to_wkb(shapely.linestrings(ln)) for ln in lines] + [None]
    p = tmp_path / "nulls.shp"
    write(str(p), np.array(wkb, dtype=object), [np.arange(len(wkb))], ["id"],
          driver="ESRI Shapefile", geometry_type="LineString", crs="EPSG:4326")
    net = load_map(str(p), use_cache=False)
    (note,) = net.meta["load_warnings"]
    assert "nulls.shp" in note and "1 of 9 features" in note and "no geometry" in note
    from app.cli import main

    assert main(["info", str(p), "--no-cache"]) == 0
    assert "warning:" in capsys.readouterr().err


def test_truncated_shp_in_a_zip_is_refused(shp, tmp_path) -> None:
    import zipfile

    size = os.path.getsize(shp)
    with open(shp, "r+b") as fh:
        fh.truncate(size // 2)
    z = tmp_path / "grid.shp.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for ext in (".shp", ".shx", ".dbf", ".prj"):
            zf.write(str(shp)[:-4] + ext, "grid" + ext)
    with pytest.raises(MapFormatError, match="truncated Shapefile 'grid.shp' in the zip"):
        load_map(str(z), use_cache=False)
