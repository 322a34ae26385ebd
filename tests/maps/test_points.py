"""Typed points: LON,LAT and node:ID."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maps.errors import MapError, NodeNotFoundError, PointError
from maps.formats.osm import load_osm
from maps.model.build import build_network
from maps.points.resolve import parse_point, resolve_point
from tests.conftest import FIXTURES


@pytest.fixture(scope="module")
def walk():
    return load_osm(FIXTURES / "osm" / "small.osm", profile="walk")


@pytest.mark.parametrize(
    "text, node_id, lon, lat",
    [("node:42", 42, None, None), (" NODE : -7 ", -7, None, None),
     ("24.94,60.17", None, 24.94, 60.17), ("-0.5 , +51", None, -0.5, 51.0),
     ("1e1,2E-1", None, 10.0, 0.2), (".5,.25", None, 0.5, 0.25)],
)  # fmt: skip
def test_parse_good(text, node_id, lon, lat):
    p = parse_point(text)
    assert (p.node_id, p.lon, p.lat) == (node_id, lon, lat)


@pytest.mark.parametrize(
    "text, match",
    [("12,abc", "cannot read point '12,abc'"), ("10,95", "latitude 95.0"),
     ("200,10", "longitude 200.0"), ("node:", "cannot read"), ("node: ", "cannot read"),
     ("", "cannot read"), ("1e999,0", "not finite"), ("nan,1", "cannot read"),
     ("1,2,3", "cannot read"), ("12", "LON,LAT")],
)  # fmt: skip
def test_parse_garbage(text, match):
    with pytest.raises(PointError, match=match):
        parse_point(text)


def test_resolve_node_id(walk):
    r = resolve_point(walk, "node:3")
    assert r.node == walk.index_of(3) and r.node_id == 3 and r.snap is None
    assert (r.lon, r.lat) == (10.002, 50.0)
    with pytest.raises(NodeNotFoundError, match="999999"):
        resolve_point(walk, "node:999999")


def test_resolve_lonlat_routes_from_the_nearer_endpoint(walk):
    r = resolve_point(walk, "10.0012,50.00001")
    assert r.node_id == 2 and r.snap is not None
    assert r.snap.distance_m == pytest.approx(1.11, abs=0.05)
    d = r.as_dict()
    assert d["snap"]["node"] == r.node and d["input"] == "10.0012,50.00001"


def test_resolve_far_point(walk):
    with pytest.raises(PointError, match="km from the nearest road"):
        resolve_point(walk, "10.7,50.0")
    r = resolve_point(walk, "10.0012,50.001", max_distance_m=5000.0)
    assert r.snap.distance_m < 5000


def test_lonlat_refused_without_coordinates():
    net = build_network(
        tails=np.array([0]), heads=np.array([1]), weights=np.array([5]),
        node_ids=np.array([10, 20]), unit="unit", profile="file",
    )  # fmt: skip
    with pytest.raises(PointError, match="no coordinates.*node:ID"):
        resolve_point(net, "10,50")
    r = resolve_point(net, "node:20")
    assert r.node == 1 and r.as_dict()["lon"] is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_fuzz_parser_raises_only_point_errors(text):
    try:
        p = parse_point(text)
    except PointError:
        return
    assert p.is_node or (-180 <= p.lon <= 180 and -90 <= p.lat <= 90)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="node:0123456789-+.,eE ", max_size=25),
        st.builds(lambda a, b: f"{a},{b}", st.floats(allow_nan=True), st.floats(allow_nan=True)),
    )
)
def test_fuzz_resolve_raises_only_map_errors(walk, text):
    try:
        r = resolve_point(walk, text, max_distance_m=200.0)
    except MapError:
        return
    assert 0 <= r.node < walk.num_nodes


def test_parse_node_name():
    """node:NAME with a non-integer NAME is a GraphML node id (resolved by name)."""
    p = parse_point(" node: a-b ")
    assert p.is_node and p.node_name == "a-b" and p.node_id is None
    assert parse_point("node:12").node_name is None


# ---- point files (one reader for signpost matrix, the GUI's OD tool, --demand) --------
def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return str(p)


@pytest.mark.parametrize(
    "text",
    ["lon,lat\n10.0012,50.00001\n10.002,50.0\n",
     "\ufeffLat;Lon\r\n50.00001;10.0012\r\n\r\n50.0;10.002\r\n",
     "name\tlongitude\tlatitude\na\t10.0012\t50.00001\nb\t10.002\t50.0\n",
     "node\n2\n3\n"],
)  # fmt: skip
def test_read_points_by_header_name(walk, tmp_path, text):
    from maps.points.resolve import read_points

    got = read_points(_write(tmp_path, "p.csv", text), walk)
    assert list(got.nodes) == [walk.index_of(2), walk.index_of(3)]


def test_read_points_geojson(walk, tmp_path):
    from maps.points.resolve import read_point_texts, read_points

    doc = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [10.0012, 50.00001]}},
        {"type": "Feature", "geometry": {"type": "MultiPoint", "coordinates": [[10.002, 50.0]]}}]}
    # (a Polygon feature among them is refused, not dropped: tests/maps/test_issue40_points.py)
    path = _write(tmp_path, "p.geojson", json.dumps(doc))
    assert list(read_points(path, walk).nodes) == [walk.index_of(2), walk.index_of(3)]
    assert [t for _, t in read_point_texts(path)] == ["10.0012,50.00001", "10.002,50.0"]


@pytest.mark.parametrize(
    "text, needle",
    [("", "p.csv: no header and no points"),
     ("lon,lat\n", "p.csv: no points after the header"),
     ("x,y\n1,2\n", "p.csv:1: header is 'x,y'"),
     ("lon,lat\n\n10.0,x\n", "p.csv:3: row 0: '10.0,x' is not two numbers"),
     ("lon,lat\n10.0\n", "p.csv:2: row 0: expected lon and lat in column(s) 1, 2, got 1"),
     (b"\xff\xfe\x00", "p.csv: not a UTF-8 text file")],
)  # fmt: skip
def test_read_points_errors_name_file_line_and_row(walk, tmp_path, text, needle):
    from maps.points.resolve import read_points

    with pytest.raises(PointError) as exc:
        read_points(_write(tmp_path, "p.csv", text), walk)
    assert needle in str(exc.value)


def test_read_point_texts(tmp_path):
    from maps.points.resolve import read_point_texts

    path = _write(tmp_path, "p.csv", "point,lon,lat,node_id\nnode:7,,,\n,1,2,\n,,,9\n")
    assert read_point_texts(path) == [(2, "node:7"), (3, "1,2"), (4, "node:9")]
    for text, needle in (("", "p.csv: empty file"), ("lon,lat\n", "p.csv: no points"),
                         ("name\nfoo\n", "p.csv:2: expected a point, lon+lat or node_id")):
        with pytest.raises(PointError, match=re.escape(needle)):
            read_point_texts(_write(tmp_path, "p.csv", text))


def test_read_demand(walk, tmp_path):
    from maps.points.resolve import read_demand

    a, b = read_demand(_write(tmp_path, "d.csv", "node,origin,destination\n2,1,0\n3,0,2.5\n"), walk)
    assert a[walk.index_of(2)] == 1 and b[walk.index_of(3)] == 2.5 and a.sum() == 1
    a, b = read_demand(_write(tmp_path, "d.csv", "node;weight\n2;4\n"), walk)
    assert a.sum() == b.sum() == 4
    for text, needle in (("", "d.csv: empty file"), ("id,w\n1,2\n", "d.csv:1: header is 'id,w'"),
                         ("node,weight\n2,abc\n", "d.csv:2: expected a node id and numbers"),
                         ("node,weight\n999,1\n", "d.csv:2: node '999'"),
                         ("node,weight\n2,-1\n", "d.csv:2: weights must be finite"),
                         ("node,weight\n2,0\n", "d.csv: no demand")):
        with pytest.raises(MapError, match=re.escape(needle)):
            read_demand(_write(tmp_path, "d.csv", text), walk)


def test_read_demand_takes_lonlat_rows_and_geojson_points(walk, tmp_path):
    """--demand reads the same point files as matrix: lon,lat rows snap like route's."""
    import json

    from maps.points.resolve import read_demand, read_points

    lon, lat = float(walk.lon[10]), float(walk.lat[10])
    node = read_points(_write(tmp_path, "p.csv", f"lon,lat\n{lon},{lat}\n"), walk).nodes[0]
    a, b = read_demand(_write(tmp_path, "d.csv", f"lon,lat,weight\n{lon},{lat},3\n"), walk)
    assert a[node] == b[node] == 3 and a.sum() == 3
    doc = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"origin": 2, "destination": 1},
         "geometry": {"type": "Point", "coordinates": [lon, lat]}}]}
    a, b = read_demand(_write(tmp_path, "d.geojson", json.dumps(doc)), walk)
    assert a[node] == 2 and b[node] == 1
    with pytest.raises(MapError, match=re.escape("d.csv:2: expected a point and numbers")):
        read_demand(_write(tmp_path, "d.csv", f"lon,lat,weight\n{lon},{lat},x\n"), walk)


def test_geojson_points_in_web_mercator_snap_like_wgs84(tmp_path):
    """Point files in another CRS (the legacy GeoJSON ``crs`` member) are transformed to
    lon/lat through pyproj: they pick the same nodes as the same points in WGS84."""
    import json
    import os

    from pyproj import Transformer

    from maps.load import load_map
    from maps.points.resolve import read_points

    net = load_map(os.path.join(os.path.dirname(__file__), "../../maps/samples/helsinki.osm.pbf"))
    lonlat = [(24.925, 60.163), (24.955, 60.175), (24.94, 60.17)]
    tr = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)

    def write(name, pts, crs=None):
        doc = {"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {"name": f"p{i}"},
             "geometry": {"type": "Point", "coordinates": list(p)}} for i, p in enumerate(pts)]}
        if crs:
            doc["crs"] = {"type": "name", "properties": {"name": crs}}
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        return str(path)

    wgs = read_points(write("wgs.geojson", lonlat), net)
    merc = read_points(write("merc.geojson", [tr.transform(*p) for p in lonlat],
                             "urn:ogc:def:crs:EPSG::3857"), net)
    np.testing.assert_array_equal(merc.nodes, wgs.nodes)
