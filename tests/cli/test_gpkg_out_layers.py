"""Issue 40 items 2-4: a GeoPackage ``--out`` never replaces the map's roads, append
writes in the layer's CRS and columns (or refuses), GDAL-written layers with R-tree
triggers and files with the ``gpkg_crs_wkt`` extension can be written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.cli import main
from tests.cli.out_checks import digest as _digest
from tests.cli.out_checks import one_line as _one_line
from tests.cli.out_checks import private_cache  # noqa: F401  (the fixture)
from tests.maps.gis_files import LAT0, LON0, grid_lines, write_lines

pytestmark = pytest.mark.usefixtures("private_cache")


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


def _gdal_iso_layer(path, crs: str, name: str = "metres", **opts) -> None:
    """A GDAL-written 'isochrones' layer (R-tree triggers) of one polygon in ``crs``."""
    import numpy as np
    import shapely
    from pyogrio.raw import write
    from pyproj import Transformer

    x, y = Transformer.from_crs("EPSG:4326", crs, always_xy=True).transform(LON0, LAT0)
    poly = shapely.MultiPolygon([shapely.box(x - 50, y - 50, x + 50, y + 50)])
    write(str(path), np.array([shapely.to_wkb(poly)], dtype=object),
          [np.array([50]), np.array([500]), np.array(["dm"], dtype=object)],
          [name, "cost", "unit"], layer="isochrones", driver="GPKG",
          geometry_type="MultiPolygon", crs=crs, append=path.exists(), **opts)


def _map(tmp_path) -> Path:
    lines, props = grid_lines()
    return write_lines(tmp_path / "m.geojson", lines, props, crs=None)


def test_append_into_a_gdal_layer_in_3857_reprojects_and_keeps_its_index(tmp_path, capsys) -> None:
    pyogrio = pytest.importorskip("pyogrio")
    out = tmp_path / "out.gpkg"
    _gdal_iso_layer(out, "EPSG:3857")
    assert main(_iso(_map(tmp_path), out, "--if-exists", "append")) == 0, capsys.readouterr().err
    meta = pyogrio.read_info(out, layer="isochrones")
    assert meta["features"] == 3 and list(meta["fields"]) == ["metres", "cost", "unit"]
    _, _, wkb, fields = pyogrio.raw.read(out, layer="isochrones")
    import shapely

    x0, y0 = 949_571.0, 6_005_000.0  # LON0, LAT0 in EPSG:3857 (about)
    for g in shapely.from_wkb(wkb):
        cx, cy = g.centroid.x, g.centroid.y  # in metres near Zurich, not lon/lat near 0
        assert abs(cx - x0) < 5_000 and abs(cy - y0) < 5_000, (cx, cy)
    assert fields[0].tolist() == [50, 100, 200]
    con = sqlite3.connect(out)  # the R-tree the triggers keep has every feature
    try:
        assert con.execute('SELECT count(*) FROM "rtree_isochrones_geom"').fetchone()[0] == 3
        assert con.execute('SELECT min(minx) FROM "rtree_isochrones_geom"').fetchone()[0] > 9e5
    finally:
        con.close()


def test_append_refuses_a_layer_with_other_columns(tmp_path, capsys) -> None:
    pytest.importorskip("pyogrio")
    out = tmp_path / "out.gpkg"
    _gdal_iso_layer(out, "EPSG:4326", name="minutes")
    before = _digest(out)
    err = _one_line(capsys, *_iso(_map(tmp_path), out, "--if-exists", "append"))
    assert "no column 'metres'" in err and "choose replace" in err
    assert "sqlite" not in err.lower() and _digest(out) == before


def test_a_geopackage_with_the_crs_wkt_extension_is_written_and_keeps_its_layers(
        tmp_path, capsys) -> None:
    pyogrio = pytest.importorskip("pyogrio")
    lines, props = grid_lines()
    m = tmp_path / "wkt.gpkg"
    import numpy as np
    import shapely
    from pyogrio.raw import write

    write(str(m), np.array([shapely.to_wkb(shapely.linestrings(ln)) for ln in lines]),
          [np.array([p["highway"] for p in props], dtype=object)], ["highway"],
          layer="roads", driver="GPKG", geometry_type="LineString", crs="EPSG:4326",
          dataset_options={"CRS_WKT_EXTENSION": "YES"})
    con = sqlite3.connect(m)
    cols = [r[1] for r in con.execute("PRAGMA table_info(gpkg_spatial_ref_sys)")]
    roads = con.execute('SELECT * FROM "roads" ORDER BY fid').fetchall()
    con.close()
    assert "definition_12_063" in cols
    assert main(_iso(m, m, "--layer", "roads")) == 0, capsys.readouterr().err
    assert sorted(n for n, _ in pyogrio.list_layers(m)) == ["isochrones", "roads"]
    con = sqlite3.connect(m)
    assert con.execute('SELECT * FROM "roads" ORDER BY fid').fetchall() == roads
    con.close()
    assert pyogrio.read_info(m, layer="isochrones")["features"] == 2


def test_a_write_failure_names_no_sql(tmp_path, capsys) -> None:
    pytest.importorskip("pyogrio")
    out = tmp_path / "odd.gpkg"
    con = sqlite3.connect(out)  # a GeoPackage whose contents table lacks columns
    con.executescript("CREATE TABLE gpkg_contents (table_name TEXT PRIMARY KEY, "
                      "data_type TEXT);")
    con.close()
    err = _one_line(capsys, *_iso(_map(tmp_path), out))
    assert "cannot write the GeoPackage layer 'isochrones'" in err
    for word in ("sqlite", "table gpkg", "column", "values were supplied", "no such"):
        assert word not in err.lower(), err


def test_reading_a_damaged_geopackage_names_no_sql(tmp_path) -> None:
    from maps.errors import MapFormatError
    from maps.load import load_map

    p = tmp_path / "broken.gpkg"
    con = sqlite3.connect(p)  # gpkg_contents lists a layer whose table is missing
    con.executescript(
        "CREATE TABLE gpkg_contents (table_name TEXT, data_type TEXT, srs_id INTEGER);"
        "CREATE TABLE gpkg_geometry_columns (table_name TEXT, column_name TEXT, "
        "geometry_type_name TEXT, srs_id INTEGER, z INTEGER, m INTEGER);"
        "INSERT INTO gpkg_contents VALUES ('roads', 'features', 4326);"
        "INSERT INTO gpkg_geometry_columns VALUES ('roads', 'geom', 'LINESTRING', 4326, 0, 0);")
    con.close()
    with pytest.raises(MapFormatError) as err:
        load_map(str(p), use_cache=False)
    msg = str(err.value)
    assert "broken.gpkg" in msg and "missing" in msg
    for word in ("sqlite", "no such table", "select"):
        assert word not in msg.lower(), msg
