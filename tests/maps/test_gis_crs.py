"""Maps in projected CRSs load as the same network as in WGS84 (routes to 0.1 %), in every
format that carries a CRS; files without one, --crs, layers and odd file names."""

from __future__ import annotations

import json
import os
import sqlite3

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

from maps.errors import EmptyMapError, LayerChoiceError, MapFormatError
from maps.load import load_map
from tests.maps.gis_files import LAT0, LON0, STEP, grid_lines, project, write_graphml, write_lines

pytest.importorskip("pyproj")
CRSS = ["EPSG:32632", "EPSG:3857", "EPSG:2056"]  # UTM 32N, Web Mercator, the Swiss grid
NEED_OGR = ("shp", "fgb", "gml", "gdb", "gpkg-ogr")


def corner_cost(net, a=(LON0, LAT0), b=(LON0 + 3 * STEP, LAT0 + 3 * STEP)) -> float:
    """Least cost between the nodes nearest to lon/lat ``a`` and ``b``."""
    i = int(np.argmin(np.hypot(net.lon - a[0], net.lat - a[1])))
    j = int(np.argmin(np.hypot(net.lon - b[0], net.lat - b[1])))
    return float(dijkstra(net.to_scipy(), indices=i)[j])


@pytest.fixture(scope="module")
def reference():
    lines, props = grid_lines()
    return lines, props


def _write(tmp_path, fmt: str, crs: str | None, lines, props):
    if fmt in NEED_OGR:
        pytest.importorskip("pyogrio")
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    ext = {"gpkg-ogr": "gpkg"}.get(fmt, fmt)
    xy = project(lines, crs) if crs else lines
    if fmt == "graphml":
        return write_graphml(tmp_path / "g.graphml", lines, props, crs=crs, projected=xy)
    return write_lines(tmp_path / f"streets.{ext}", xy, props, crs=crs)


@pytest.mark.parametrize("crs", CRSS)
@pytest.mark.parametrize("fmt", ["geojson", "gpkg-ogr", "graphml", "shp", "fgb", "gml", "gdb",
                                 "parquet"])
def test_projected_map_routes_like_wgs84(tmp_path, reference, fmt, crs) -> None:
    lines, props = reference
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
    ref = load_map(_write(tmp_path / "a", fmt, "EPSG:4326", lines, props), use_cache=False)
    net = load_map(_write(tmp_path / "b", fmt, crs, lines, props), use_cache=False)
    assert net.num_nodes == ref.num_nodes == 16
    assert net.num_arcs == ref.num_arcs
    np.testing.assert_allclose(np.sort(net.edge_length), np.sort(ref.edge_length), rtol=1e-3)
    assert corner_cost(net) == pytest.approx(corner_cost(ref), rel=1e-3)
    np.testing.assert_allclose(np.sort(net.lon), np.sort(ref.lon), atol=1e-7)
    assert net.meta["crs"] == crs and ref.meta["crs"] in ("EPSG:4326", "OGC:CRS84")


def test_no_crs_and_projected_coordinates_asks_for_crs(tmp_path, reference) -> None:
    lines, props = reference
    p = write_lines(tmp_path / "utm.geojson", project(lines, "EPSG:32632"), props, crs=None)
    with pytest.raises(MapFormatError, match=r"utm\.geojson: .*not lon/lat.*--crs") as exc:
        load_map(p, use_cache=False)
    assert "\n" not in str(exc.value)
    net = load_map(p, crs="EPSG:32632")  # --crs gives it
    ref = load_map(write_lines(tmp_path / "ll.geojson", lines, props, crs=None), use_cache=False)
    assert corner_cost(net) == pytest.approx(corner_cost(ref), rel=1e-3)
    assert load_map(p, crs="EPSG:32632").meta["cache_hit"]  # the key holds --crs
    with pytest.raises(MapFormatError, match="--crs: unknown coordinate reference system"):
        load_map(p, crs="EPSG:999999", use_cache=False)


def test_crs_overrides_the_files(tmp_path, reference) -> None:
    lines, props = reference
    # A file claiming Web Mercator whose numbers are really Swiss grid metres.
    p = write_lines(tmp_path / "wrong.geojson", project(lines, "EPSG:2056"), props,
                    crs="EPSG:3857")
    net = load_map(p, crs="EPSG:2056", use_cache=False)
    assert net.meta["crs"] == "EPSG:2056"
    assert abs(net.lon.min() - LON0) < 1e-6


@pytest.mark.parametrize("text", [
    "+proj=utm +zone=32 +ellps=WGS84 +datum=WGS84 +units=m +no_defs",  # what OSMnx writes
    "epsg:32632",
    None,  # replaced by the WKT
])
def test_graphml_crs_strings(tmp_path, reference, text) -> None:
    from pyproj import CRS

    lines, props = reference
    text = text or CRS("EPSG:32632").to_wkt()
    p = write_graphml(tmp_path / "p.graphml", lines, props, crs=text,
                      projected=project(lines, "EPSG:32632"))
    net = load_map(p, use_cache=False)
    ref = load_map(write_graphml(tmp_path / "r.graphml", lines, props, crs=None), use_cache=False)
    assert corner_cost(net) == corner_cost(ref)  # lengths come from the file: equal
    assert net.meta["crs"] == "EPSG:32632"


def test_graphml_projected_without_crs_suggests_it(tmp_path, reference) -> None:
    lines, props = reference
    p = write_graphml(tmp_path / "p.graphml", lines, props, crs=None,
                      projected=project(lines, "EPSG:32632"))
    with pytest.raises(MapFormatError, match="--crs"):
        load_map(p, use_cache=False)


# ---- layers -------------------------------------------------------------------------------
def _multi_layer_gpkg(path, lines, props, crs="EPSG:3857"):
    """buildings (polygons) first, then streets and paths (lines), all in ``crs``."""
    pytest.importorskip("pyogrio")
    import shapely
    from pyogrio.raw import write

    xy = project(lines, crs)
    poly = shapely.to_wkb(np.array([shapely.box(*xy[0][0], *(xy[0][0] + 10))]))
    write(str(path), poly, [np.array(["house"], dtype=object)], ["kind"], layer="buildings",
          driver="GPKG", geometry_type="Polygon", crs=crs)
    write_lines(path, xy, props, crs=crs, layer="streets", append=True)
    write_lines(path, xy[:2], props[:2], crs=crs, layer="paths", append=True)
    return path


def test_gpkg_layers(tmp_path, reference) -> None:
    lines, props = reference
    p = _multi_layer_gpkg(tmp_path / "city.gpkg", lines, props)
    with pytest.raises(LayerChoiceError, match=r"2 line layers: 'paths', 'streets'; choose one "
                       r"with --layer") as exc:
        load_map(p, use_cache=False)
    assert exc.value.layers == ["paths", "streets"]
    net = load_map(p, layer="streets", use_cache=False)
    assert net.num_nodes == 16 and net.meta["layers"] == ["streets"]
    assert net.meta["crs"] == "EPSG:3857"
    ref = load_map(write_lines(tmp_path / "ll.geojson", lines, props, crs=None), use_cache=False)
    assert corner_cost(net) == pytest.approx(corner_cost(ref), rel=1e-3)
    with pytest.raises(MapFormatError, match="layer 'buildings' has no lines"):
        load_map(p, layer="buildings", use_cache=False)
    with pytest.raises(MapFormatError, match="no layer named 'nope'; the file has layers"):
        load_map(p, layer="nope", use_cache=False)
    with pytest.raises(MapFormatError, match="--layer does not apply to geojson maps"):
        load_map(tmp_path / "ll.geojson", layer="streets")


def test_ogr_layers(tmp_path, reference) -> None:
    pytest.importorskip("pyogrio")
    lines, props = reference
    p = write_lines(tmp_path / "s.gml", project(lines, "EPSG:2056"), props, crs="EPSG:2056",
                    layer="roads")
    assert load_map(p, layer="roads", use_cache=False).num_nodes == 16
    with pytest.raises(MapFormatError, match="no layer named 'x'"):
        load_map(p, layer="x", use_cache=False)


def test_gpkg_geometry_collection_starting_with_a_point(tmp_path) -> None:
    from tests.maps.gpkg_files import write_gpkg

    p = tmp_path / "gc.gpkg"
    write_gpkg(p, [([[10, 50], [10.001, 50]], {})])
    import shapely

    gc = shapely.from_wkt("GEOMETRYCOLLECTION (POINT (10 50), LINESTRING (10 50, 10 50.001))")
    blob = b"GP\x00\x01" + (4326).to_bytes(4, "little") + shapely.to_wkb(gc)
    con = sqlite3.connect(p)
    con.execute("UPDATE roads SET geom = ? WHERE fid = 1", (blob,))
    con.commit()
    con.close()
    net = load_map(p, use_cache=False)
    assert net.num_nodes == 2 and net.edge_length[0] == pytest.approx(111.2, abs=0.5)


ODD = st.text(alphabet=st.sampled_from(list("ab?#% &;'é_-.=")), min_size=1, max_size=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=ODD, layer=st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")),
                               min_size=1, max_size=15))
def test_gpkg_odd_file_and_layer_names(tmp_path_factory, name, layer) -> None:
    from tests.maps.gpkg_files import write_gpkg

    if name.strip(".") == "" or "/" in name:
        return
    d = tmp_path_factory.mktemp("odd")
    p = d / f"{name}.gpkg"
    decoy = d / "x.gpkg"  # what an unescaped URI would open for a name like "x.gpkg?..."
    write_gpkg(p, [([[10, 50], [10.001, 50]], {})], table=layer)
    write_gpkg(decoy, [([[11, 50], [11.001, 50], [11.002, 50]], {})])
    net = load_map(p, layer=layer, use_cache=False)
    assert net.num_nodes == 2 and net.lon.min() == pytest.approx(10.0)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["EPSG:32632", "epsg:3857", "EPSG:2056", "+proj=utm +zone=32 +datum=WGS84",
                        "urn:ogc:def:crs:EPSG::3857", "OGC:CRS84", "EPSG:4326"]),
       st.floats(-1, 1), st.floats(-1, 1))
def test_crs_strings_round_trip(text, dx, dy) -> None:
    from pyproj import Transformer

    from maps.geo.crs import to_lonlat

    lon, lat = np.array([LON0 + dx * 0.01]), np.array([LAT0 + dy * 0.01])
    x, y = Transformer.from_crs("EPSG:4326", text, always_xy=True).transform(lon, lat)
    lo, la, _ = to_lonlat(x, y, text)
    np.testing.assert_allclose([lo[0], la[0]], [lon[0], lat[0]], atol=1e-8)


@settings(max_examples=20, deadline=None)
@given(st.text(min_size=1, max_size=30))
def test_bad_crs_strings_fail_in_one_line(text) -> None:
    from maps.geo.crs import parse_crs

    try:
        parse_crs(text, "f.geojson")
    except MapFormatError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("f.geojson: ")


def test_geojson_without_lines_in_crs(tmp_path) -> None:
    p = tmp_path / "pts.geojson"
    p.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point",
                                                           "coordinates": [1, 2]}}]}))
    with pytest.raises(EmptyMapError):
        load_map(p, use_cache=False)


@pytest.mark.parametrize("default", ['edgedefault="directed"', 'edgedefault="undirected"', ""])
def test_graphml_edgedefault_as_networkx_reads_it(tmp_path, default) -> None:
    import networkx as nx

    p = tmp_path / "e.graphml"
    p.write_text(
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<key id="x" for="node" attr.name="x" attr.type="double"/>'
        '<key id="y" for="node" attr.name="y" attr.type="double"/>'
        f"<graph {default}>"
        + "".join(f'<node id="{i}"><data key="x">{10 + i / 1000}</data><data key="y">50</data>'
                  "</node>" for i in range(3))
        + '<edge source="0" target="1"/><edge source="1" target="2"/></graph></graphml>')
    g = nx.read_graphml(p)
    net = load_map(p, use_cache=False)
    assert net.num_arcs == (2 if g.is_directed() else 4)
    if default:
        bad = p.read_text().replace('<edge source="0"', '<edge directed="%s" source="0"'
                                    % ("false" if "undirected" not in default else "true"))
        p.write_text(bad)
        with pytest.raises(MapFormatError, match=r"e\.graphml:1: directed=\w+ edge in"):
            load_map(p, use_cache=False)


def test_gpkg_non_utf8_file_name(tmp_path) -> None:
    from tests.maps.gpkg_files import write_gpkg

    plain = tmp_path / "plain.gpkg"
    write_gpkg(plain, [([[10, 50], [10.001, 50]], {})])
    odd = tmp_path / os.fsdecode(b"caf\xe9 ?#%.gpkg")
    os.rename(plain, odd)
    net = load_map(odd, use_cache=False)
    assert net.num_nodes == 2


def test_gpkg_srs_from_its_wkt_definition(tmp_path, reference) -> None:
    """A non-EPSG organisation: the definition in gpkg_spatial_ref_sys is used."""
    from pyproj import CRS

    from tests.maps.gpkg_files import write_gpkg

    lines, props = reference
    xy = project(lines, "EPSG:2056")
    p = tmp_path / "ch.gpkg"
    write_gpkg(p, [(ln.tolist(), {}) for ln in xy], srs_id=990001)
    con = sqlite3.connect(p)
    con.execute("UPDATE gpkg_spatial_ref_sys SET organization = 'CUSTOM', "
                "organization_coordsys_id = 1, definition = ? WHERE srs_id = 990001",
                (CRS("EPSG:2056").to_wkt(),))
    con.commit()
    con.close()
    net = load_map(p, use_cache=False)
    ref = load_map(write_lines(tmp_path / "ll.geojson", lines, [{}] * len(lines), crs=None),
                   use_cache=False)
    assert net.meta["crs"] == "EPSG:2056"
    assert corner_cost(net) == pytest.approx(corner_cost(ref), rel=1e-3)
