"""--weight columns (exact integer costs, units, one-ways), --split-crossings, zipped
Shapefiles, and one-line errors naming file, layer and feature in every reader."""

from __future__ import annotations

import json
import re
import zipfile

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maps.errors import MapError, MapFormatError
from maps.load import load_map
from maps.model.weights import (
    FLOAT_REL_TOL,
    MAX_DIGITS,
    apportion,
    scale_values,
    seconds_of,
    unit_scale,
)
from tests.maps.gis_files import grid_lines, project, write_graphml, write_lines
from tests.maps.test_gis_crs import corner_cost

FORMATS = ["geojson", "gpkg", "shp", "fgb", "gml", "parquet"]


def _file(tmp_path, fmt, lines, props, crs="EPSG:2056"):
    if fmt not in ("geojson", "parquet"):
        pytest.importorskip("pyogrio")
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    return write_lines(tmp_path / f"w.{fmt}", project(lines, crs), props, crs=crs)


def _oracle(lines, props, oneway: bool) -> float:
    """networkx on the grid's blocks, each costing its line's time_s / 3."""
    g = nx.DiGraph()
    for ln, p in zip(lines, props, strict=True):
        for a in range(len(ln) - 1):
            u, v = tuple(np.round(ln[a], 7)), tuple(np.round(ln[a + 1], 7))
            g.add_edge(u, v, w=p["time_s"] / 3)
            if not (oneway and p["oneway"] == "yes"):
                g.add_edge(v, u, w=p["time_s"] / 3)
    a, b = tuple(np.round(lines[0][0], 7)), tuple(np.round(lines[-2][-1], 7))
    return nx.shortest_path_length(g, a, b, weight="w")


@pytest.mark.parametrize("fmt", FORMATS)
def test_weight_column_routes_by_it(tmp_path, fmt) -> None:
    lines, props = grid_lines()
    p = _file(tmp_path, fmt, lines, props)
    net = load_map(p, weight="time_s", weight_unit="s", use_cache=False)
    assert net.unit == "cs" and net.profile == "weight:time_s"  # 20.75 s needs centiseconds
    assert net.num_arcs == 48 - 3  # the one-way row is one way
    assert corner_cost(net) / 100 == pytest.approx(_oracle(lines, props, True), abs=0.06)
    # Each line's arcs add up to its value exactly (forward arcs of the first row: 20.5 s).
    walk = load_map(p, weight="time_s", weight_unit="s", profile="walk", use_cache=False)
    assert walk.num_arcs == 48  # walking ignores one-ways
    assert corner_cost(walk) / 100 == pytest.approx(_oracle(lines, props, False), abs=0.06)
    minutes = load_map(p, weight="time_s", weight_unit="min", use_cache=False)
    assert minutes.unit == "s"  # 20.75 min is a whole number of seconds
    assert corner_cost(minutes) == pytest.approx(corner_cost(net) * 60 / 100, rel=1e-3)


def test_shares_of_a_split_line_add_up_exactly(tmp_path) -> None:
    lines, props = grid_lines()
    net = load_map(_file(tmp_path, "geojson", lines, props), weight="cost", use_cache=False)
    assert net.unit == "unit"
    by_line: dict[int, int] = {}
    for sid, w in zip(net.edge_source_id.tolist(), net.weights.tolist(), strict=True):
        by_line[sid] = by_line.get(sid, 0) + w
    for i, p in enumerate(props):
        twice = 1 if p["oneway"] == "yes" else 2
        assert by_line[i] == p["cost"] * twice


def test_graphml_travel_time_and_float_weights(tmp_path) -> None:
    lines, props = grid_lines()
    p = write_graphml(tmp_path / "g.graphml", lines, props, crs=None)
    net = load_map(p, weight="travel_time", use_cache=False)
    assert seconds_of(net.unit, 10**6) is not None
    assert corner_cost(net) * seconds_of(net.unit, 1) == pytest.approx(
        _oracle(lines, props, False), rel=1e-6)
    q = tmp_path / "f.geojson"
    q.write_text(json.dumps({"type": "Feature", "properties": {"travel_time": 0.6},
                             "geometry": {"type": "LineString",
                                          "coordinates": [[10, 50], [10.001, 50]]}}))
    f = load_map(q, weight="travel_time", use_cache=False)
    assert f.unit == "ds" and f.weights.tolist() == [6, 6]  # 0.6 s is never truncated to 0


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("value", "needle"), [
    (None, "no 'time_s' value"), (-3.0, "is not a finite number >= 0"),
    ("abc", "'abc' is not a number")])
def test_bad_weight_names_file_layer_and_feature(tmp_path, fmt, value, needle) -> None:
    lines, props = grid_lines()
    props = [dict(p) for p in props]
    for p in props:
        p["time_s"] = str(p["time_s"]) if isinstance(value, str) else p["time_s"]
    props[5]["time_s"] = value
    p = _file(tmp_path, fmt, lines, props)
    with pytest.raises(MapFormatError) as exc:
        load_map(p, weight="time_s", use_cache=False)
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(str(p)) and needle in msg, msg
    if fmt not in ("geojson",):
        assert "layer '" in msg
    assert re.search(r"feature \d+: ", msg)  # its index or fid (FlatGeobuf reorders features)


def test_weight_option_checks() -> None:
    from maps.model.weights import weight_spec

    with pytest.raises(MapFormatError, match="--weight-unit needs --weight"):
        weight_spec(None, "s")
    with pytest.raises(MapFormatError, match="--weight does not apply to dimacs maps"):
        load_map("tests/fixtures/dimacs/tiny.gr", weight="x", use_cache=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1e5, allow_nan=False), min_size=1, max_size=30))
def test_scale_keeps_values(values) -> None:
    try:
        ints, unit = scale_values(np.array(values), "time", column="t")
    except MapFormatError as exc:  # issue 24: refused rather than rounded
        assert "weight column 't'" in str(exc) and "\n" not in str(exc)
        assert not all(float(v).is_integer() for v in values)
        return
    dim, k = unit_scale(unit)
    assert dim == "time" and ints.max() <= 2**31 - 1
    err = np.abs(ints / 10**k - values)
    if not np.all(err <= 1e-6 * np.abs(values)):  # a float column: the finest scale, 0.1%
        assert np.all(err <= FLOAT_REL_TOL * np.abs(values))
        assert k == MAX_DIGITS or max(values) * 10 ** (k + 1) > 2**31 - 1
    if all(float(v).is_integer() for v in values):
        assert k == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.lists(st.floats(0, 1e4), min_size=1,
                                                           max_size=6)), min_size=1, max_size=8))
def test_apportion_sums_exactly(groups) -> None:
    totals = np.array([t for t, _ in groups])
    group = np.concatenate([[i] * len(ls) for i, (_, ls) in enumerate(groups)])
    lengths = np.concatenate([ls for _, ls in groups])
    share = apportion(totals, group, lengths)
    assert (share >= 0).all()
    np.testing.assert_array_equal(np.bincount(group, weights=share).astype(np.int64), totals)


def test_apportion_tiny_group_after_long_ones() -> None:
    """Found by the property above (CI, stop 52): a group of lengths 4e-9 after groups of
    16,384 m got a share of -1 (its running fraction, by subtraction, passed 1)."""
    share = apportion(np.array([0, 1126]), np.array([0, 0, 1, 1]),
                      np.array([6384.0, 10000.0, 4e-9, 0.0]))
    assert (share >= 0).all() and share[:2].sum() == 0 and share[2:].sum() == 1126


# ---- crossings, zipped Shapefile ------------------------------------------------------------
def test_split_crossings(tmp_path) -> None:
    p = tmp_path / "x.geojson"
    feats = [[[10, 50], [10.002, 50.002]], [[10, 50.002], [10.002, 50]]]
    p.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "LineString",
                                                           "coordinates": c}} for c in feats]}))
    plain = load_map(p, use_cache=False)
    split = load_map(p, split_crossings=True, use_cache=False)
    assert (plain.num_nodes, plain.num_arcs) == (4, 4)
    assert (split.num_nodes, split.num_arcs) == (5, 8)
    assert plain.components()[0] == 2 and split.components()[0] == 1
    assert split.edge_length.sum() == pytest.approx(plain.edge_length.sum(), rel=1e-9)


def test_zipped_shapefile(tmp_path) -> None:
    pytest.importorskip("pyogrio")
    lines, props = grid_lines()
    shp = write_lines(tmp_path / "roads.shp", project(lines, "EPSG:2056"), props,
                      crs="EPSG:2056")
    z = tmp_path / "roads.shp.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for ext in (".shp", ".shx", ".dbf", ".prj"):
            zf.write(shp.with_suffix(ext), "roads" + ext)
    a = load_map(shp, use_cache=False)
    b = load_map(z, use_cache=False)
    assert b.meta["crs"] == "EPSG:2056" and corner_cost(a) == corner_cost(b)


def test_missing_gdb_and_garbage_files(tmp_path) -> None:
    pytest.importorskip("pyogrio")
    for name in ("junk.fgb", "junk.gml", "junk.shp", "junk.parquet"):
        p = tmp_path / name
        p.write_bytes(b"\x00garbage" * 50)
        with pytest.raises(MapFormatError) as exc:
            load_map(p, use_cache=False)
        assert str(exc.value).startswith(str(p)) and "\n" not in str(exc.value)


def test_osm_tag_as_weight(tmp_path) -> None:
    pytest.importorskip("osmium")
    lines, props = grid_lines()
    ids: dict[tuple, int] = {}
    nodes, ways = [], []
    for w, (ln, p) in enumerate(zip(lines, props, strict=True), start=100):
        refs = []
        for lon, lat in ln:
            key = (round(lon, 7), round(lat, 7))
            if key not in ids:
                ids[key] = len(ids) + 1
                nodes.append(f'<node id="{ids[key]}" lat="{lat:.7f}" lon="{lon:.7f}"/>')
            refs.append(f'<nd ref="{ids[key]}"/>')
        tags = "".join(f'<tag k="{k}" v="{v}"/>' for k, v in p.items())
        ways.append(f'<way id="{w}">{"".join(refs)}{tags}</way>')
    p = tmp_path / "grid.osm"
    p.write_text('<?xml version="1.0"?><osm version="0.6">' + "".join(nodes + ways) + "</osm>")
    net = load_map(p, weight="time_s", weight_unit="s", use_cache=False)
    assert net.unit == "cs" and net.num_arcs == 48 - 3
    assert corner_cost(net) / 100 == pytest.approx(_oracle(lines, props, True), abs=0.06)
    with pytest.raises(MapFormatError, match=r"grid\.osm: way 100: no 'nope' value"):
        load_map(p, weight="nope", use_cache=False)


PROP = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                 st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
                 st.lists(st.integers(0, 9), max_size=3), st.dictionaries(st.text(max_size=3),
                                                                          st.integers(), max_size=2))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["highway", "oneway", "cost", "maxspeed", "x"]),
                                PROP, max_size=5), min_size=1, max_size=4),
       st.sampled_from([None, "walk", "drive"]))
def test_property_types_load_or_fail_in_one_line(tmp_path_factory, props, profile) -> None:
    d = tmp_path_factory.mktemp("props")
    feats = [{"type": "Feature", "properties": p, "geometry": {
        "type": "LineString", "coordinates": [[10 + i * 1e-3, 50], [10 + (i + 1) * 1e-3, 50]]}}
        for i, p in enumerate(props)]
    f = d / "p.geojson"
    f.write_text(json.dumps({"type": "FeatureCollection", "features": feats}, allow_nan=True))
    for weight in (None, "cost"):
        try:
            net = load_map(f, weight=weight, profile=profile, use_cache=False)
        except MapError as exc:
            assert "\n" not in str(exc) and str(exc).startswith(str(f))
            continue
        net.validate()
        assert net.weights.min() >= 0
