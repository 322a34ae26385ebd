"""GeoJSON and GeoPackage line layers."""

from __future__ import annotations

import json
import sqlite3
import struct
from pathlib import Path

import numpy as np
import pytest

from maps.errors import EmptyMapError, MapFormatError
from maps.formats.geojson import load_geojson
from maps.formats.gpkg import gpkg_blob_lines, load_gpkg
from maps.load import load_map
from maps.model.network import KIND_RAIL
from tests.maps.gpkg_files import write_gpkg

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "vector" / "small.geojson"
A, B, C = (139.700, 35.680), (139.701, 35.680), (139.702, 35.680)
D, E = (139.701, 35.682), (139.702, 35.682)


def arcs(net, with_ids: bool = True) -> list[tuple]:
    """(tail lon/lat, head lon/lat, weight[, source id]) per arc, rounded for comparison."""
    t, h = net.arc_sources(), net.indices
    out = []
    for i in range(net.num_arcs):
        row = (
            (round(net.lon[t[i]], 6), round(net.lat[t[i]], 6)),
            (round(net.lon[h[i]], 6), round(net.lat[h[i]], 6)),
            int(net.weights[i]),
        )
        out.append(row + ((int(net.edge_source_id[i]),) if with_ids else ()))
    return sorted(out)


def test_geojson_length_profile() -> None:
    net = load_geojson(FIX, profile="length")
    net.validate()
    assert net.unit == "dm" and net.num_nodes == 5 and net.num_arcs == 10
    assert net.meta["skipped_features"] == 1  # the Point
    assert arcs(net) == sorted(
        [
            (A, B, 903, 10), (B, A, 903, 10), (B, C, 903, 10), (C, B, 903, 10),
            (B, D, 2224, 11), (D, B, 2224, 11),  # pedestrians ignore oneway
            (C, E, 2224, 2), (E, C, 2224, 2), (E, D, 903, 2), (D, E, 903, 2),  # feature index 2
        ]
    )  # fmt: skip
    # The primary's middle vertex is drawing geometry, not a node.
    k = net.arc_between(net.index_of(2), net.index_of(3))
    assert net.geom_indptr[k + 1] - net.geom_indptr[k] == 1
    assert net.edge_length[k] == pytest.approx(222.4, abs=0.1)


def test_geojson_drive_and_multimodal() -> None:
    drive = load_geojson(FIX, profile="drive")
    assert drive.unit == "ds" and drive.num_nodes == 4  # the footway's corner E is unused
    got = arcs(drive, with_ids=False)
    assert (B, D, 160) in got and not any(a == D and b == B for a, b, _ in got)  # one-way
    assert (A, B, 108) in got  # residential 30 km/h: 90.3 m = 10.8 s
    mm = load_geojson(FIX, profile="multimodal")
    rail = mm.edge_kind == KIND_RAIL
    assert rail.sum() == 2 and mm.class_names[mm.edge_class[rail][0]] == "rail"
    assert (mm.weights[rail] == 41).all()  # 90.3 m at maxspeed 80 km/h = 4.06 s
    walk = load_geojson(FIX, profile="walk")
    assert not (walk.edge_kind == KIND_RAIL).any()


def test_geojson_contract() -> None:
    net = load_geojson(FIX, profile="length", contract=True)
    assert net.num_nodes == 4  # E (two footway neighbours) merged away
    k = net.arc_between(net.index_of(4), net.index_of(3))  # C -> D through E
    assert net.weights[k] == 2224 + 903


def test_vertex_matching_tolerance(tmp_path) -> None:
    def fc(second_start):
        return {"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {},
             "geometry": {"type": "LineString", "coordinates": [[10.0, 50.0], [10.001, 50.0]]}},
            {"type": "Feature", "properties": {},
             "geometry": {"type": "LineString", "coordinates": [second_start, [10.001, 50.001]]}},
        ]}  # fmt: skip

    p = tmp_path / "t.geojson"
    p.write_text(json.dumps(fc([10.001 + 2e-9, 50.0])))
    assert load_geojson(p).num_nodes == 3  # same vertex after rounding to 1e-7
    p.write_text(json.dumps(fc([10.001 + 2e-6, 50.0])))
    assert load_geojson(p).num_nodes == 4


def test_bare_geometry_and_feature(tmp_path) -> None:
    p = tmp_path / "g.geojson"
    p.write_text(json.dumps({"type": "LineString", "coordinates": [[1, 2], [1.001, 2]]}))
    assert load_geojson(p).num_arcs == 2
    p.write_text(json.dumps({"type": "Feature", "properties": {"oneway": True},
                             "geometry": {"type": "LineString",
                                          "coordinates": [[1, 2], [1.001, 2]]}}))  # fmt: skip
    assert load_geojson(p, profile="drive").num_arcs == 1


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"type": "FeatureCollection",\n "features": [\n  {"type": }]}', ":3: invalid JSON"),
        ('{"type": "FeatureCollection", "crs": {"type": "name", "properties": '
         '{"name": "urn:ogc:def:crs:EPSG::999999"}}, "features": []}', "unknown coordinate reference"),
        ('{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": '
         '{"type": "LineString", "coordinates": [[1, 2], ["a", 3]]}}]}', "feature 0: bad position"),
        ('{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": '
         '{"type": "LineString", "coordinates": [[1, 2], [500, 3]]}}]}', "with --crs"),
        ('{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": '
         '{"type": "LineString", "coordinates": [[1, 2]]}}]}', "at least 2 positions"),
        ("[1, 2]", "not a GeoJSON object"),
        ('{"features": []}', "no 'type'"),
    ],
)  # fmt: skip
def test_bad_geojson(tmp_path, text, needle) -> None:
    p = tmp_path / "bad.geojson"
    p.write_text(text)
    with pytest.raises(MapFormatError) as exc:
        load_geojson(p)
    assert "bad.geojson" in str(exc.value) and needle in str(exc.value), str(exc.value)


def test_geojson_without_lines(tmp_path) -> None:
    p = tmp_path / "pts.geojson"
    p.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [1, 2]}}
    ]}))  # fmt: skip
    with pytest.raises(EmptyMapError):
        load_geojson(p)


# ---- GeoPackage ----------------------------------------------------------------------------
def _features() -> list:
    doc = json.loads(FIX.read_text())
    out = []
    for f in doc["features"]:
        g = f["geometry"]
        if g["type"] == "LineString":
            out.append((g["coordinates"], f["properties"]))
        elif g["type"] == "MultiLineString":
            out += [(part, f["properties"]) for part in g["coordinates"]]
    return out


@pytest.mark.parametrize(("multi", "z"), [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("profile", ["length", "drive", "multimodal"])
def test_gpkg_matches_geojson(tmp_path, multi, z, profile) -> None:
    p = tmp_path / "roads.gpkg"
    write_gpkg(p, _features(), multi=multi, z=z)
    g = load_gpkg(p, profile=profile)
    ref = load_geojson(FIX, profile=profile)
    assert arcs(g, with_ids=False) == arcs(ref, with_ids=False)
    assert g.meta["layers"] == ["roads"]
    assert set(g.edge_source_id.tolist()) <= {1, 2, 3, 4, 5, 6}  # the rows' fids
    via_load_map = load_map(p, profile=profile, use_cache=False)
    assert arcs(via_load_map) == arcs(g)


def test_gpkg_bad_files(tmp_path) -> None:
    p = tmp_path / "junk.gpkg"
    p.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(MapFormatError, match=r"junk\.gpkg"):
        load_gpkg(p)
    q = tmp_path / "plain.gpkg"
    con = sqlite3.connect(q)
    con.execute("CREATE TABLE t (a)")
    con.commit()
    con.close()
    with pytest.raises(MapFormatError, match="not a GeoPackage"):
        load_gpkg(q)
    r = tmp_path / "blob.gpkg"
    write_gpkg(r, _features())
    con = sqlite3.connect(r)
    con.execute("UPDATE roads SET geom = ? WHERE fid = 2", (b"GP\x00\x03junk",))
    con.commit()
    con.close()
    with pytest.raises(MapFormatError, match="layer 'roads' feature 2: bad geometry blob"):
        load_gpkg(r)


def test_wkb_big_endian_zm_and_ewkb() -> None:
    pts = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    # ISO ZM LineString (3002), big-endian, no envelope.
    wkb = struct.pack(">BII", 0, 3002, 2) + pts.astype(">f8").tobytes()
    blob = b"GP\x00\x00" + struct.pack(">i", 4326) + wkb
    (line,) = gpkg_blob_lines(blob)
    np.testing.assert_array_equal(line, [[1, 2], [5, 6]])
    # EWKB LineString with Z flag and SRID, little-endian.
    ew = struct.pack("<BIiI", 1, 0x80000000 | 0x20000000 | 2, 4326, 2)
    ew += pts[:, :3].astype("<f8").tobytes()
    (line,) = gpkg_blob_lines(b"GP\x00\x01" + struct.pack("<i", 4326) + ew)
    np.testing.assert_array_equal(line, [[1, 2], [5, 6]])
    # Empty geometry flag; a point is not a line.
    assert gpkg_blob_lines(b"GP\x00\x11" + struct.pack("<i", 4326)) is None
    pt = struct.pack("<BI2d", 1, 1, 1.0, 2.0)
    assert gpkg_blob_lines(b"GP\x00\x01" + struct.pack("<i", 4326) + pt) is None
    for bad in (b"XX\x00\x01\x00\x00\x00\x00", blob[:-3], b"GP\x00\x0f" + b"\x00" * 4):
        with pytest.raises((ValueError, MapFormatError)):
            gpkg_blob_lines(bad)
