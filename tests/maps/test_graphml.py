"""GraphML (OSMnx-style) loading: hand-written fixture, networkx-written files, errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from maps.errors import EmptyMapError, MapFormatError
from maps.formats.graphml import load_graphml, parse_wkt_linestring
from maps.load import load_map

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "graphml" / "osmnx_small.graphml"


def arcs(net) -> list[tuple[int, int, int, int]]:
    """(tail id, head id, weight, source id) per arc."""
    ids = net.node_ids
    return sorted(
        zip(
            ids[net.arc_sources()].tolist(),
            ids[net.indices].tolist(),
            net.weights.tolist(),
            net.edge_source_id.tolist(),
            strict=True,
        )
    )


def test_fixture_length_profile() -> None:
    net = load_graphml(FIX, profile="length")
    net.validate()
    assert net.unit == "dm" and net.profile == "length"
    assert net.node_ids.tolist() == [101, 102, 103, 104, 105]
    np.testing.assert_allclose(net.lon, [139.7, 139.701, 139.702, 139.701, 139.702])
    np.testing.assert_allclose(net.lat, [35.68, 35.68, 35.68, 35.681, 35.681])
    got = arcs(net)
    assert got == sorted(
        [
            (101, 102, 903, 1000), (102, 101, 903, 1000),
            (102, 103, 903, 1001),
            (103, 102, 903, 1001),  # the one-way primary walked backwards
            (102, 104, 1200, 1002), (104, 102, 1200, 1002),
            (104, 105, 903, 1003), (105, 104, 903, 1003),  # osmid list: first element
            (103, 105, 1112, 1005), (105, 103, 1112, 1005),  # parallel edges (keys 0, 1)
            (103, 105, 1500, 1006), (105, 103, 1500, 1006),
        ]
    )  # fmt: skip
    # Lengths come from the file, classes from highway (list: first element).
    i = net.arc_between(0, 1)
    assert net.edge_length[i] == pytest.approx(90.3)
    assert net.class_names[net.edge_class[i]] == "residential"
    j = net.arc_between(3, 4)
    assert net.class_names[net.edge_class[j]] == "residential"
    # The footway's WKT geometry: one inner point, drawn in the right direction.
    k = net.arc_between(1, 3)
    a, b = net.geom_indptr[k], net.geom_indptr[k + 1]
    assert b - a == 1
    mid = net.geom_xy[a]
    assert net.x[0] < mid[0] < net.x[1]  # 139.7005 lies between 139.700 and 139.701


def test_fixture_walk_and_drive() -> None:
    walk = load_graphml(FIX, profile="walk")
    assert walk.unit == "ds" and walk.num_arcs == 12
    # 90.3 m at 5 km/h = 65.0 s
    assert walk.weights[walk.arc_between(0, 1)] == 650
    drive = load_graphml(FIX, profile="drive")
    assert drive.num_arcs == 9  # no footway, the one-way primary only forwards
    assert drive.arc_between(1, 2) >= 0 and drive.arc_between(2, 1) < 0
    assert drive.weights[drive.arc_between(1, 2)] == 65  # 90.3 m at maxspeed 50 = 6.5 s
    assert drive.weights[drive.arc_between(0, 1)] == 108  # residential 30 km/h
    assert "footway" not in drive.class_names


def test_through_load_map_and_gzip(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "c"))
    gz = tmp_path / "g.graphml.gz"
    gz.write_bytes(gzip.compress(FIX.read_bytes()))
    a = load_map(gz, profile="walk")
    b = load_graphml(FIX, profile="walk")
    assert arcs(a) == arcs(b)


def _nx_graph(multi_di: bool = True):
    g = nx.MultiDiGraph() if multi_di else nx.MultiGraph()
    g.add_node(1, x=10.0, y=50.0, osmid=1)
    g.add_node(2, x=10.001, y=50.0, osmid=2)
    g.add_node(3, x=10.001, y=50.001, osmid=3)
    g.add_edge(1, 2, key=0, length=71.5, highway="primary", oneway=True, osmid=77)
    g.add_edge(2, 3, key=0, length=111.2, highway="residential", oneway=False, osmid=78,
               geometry="LINESTRING (10.001 50, 10.0012 50.0005, 10.001 50.001)")  # fmt: skip
    if multi_di:
        g.add_edge(3, 2, key=0, length=111.2, highway="residential", oneway=False, osmid=78)
    return g


def test_networkx_written_multidigraph(tmp_path) -> None:
    p = tmp_path / "nx.graphml"
    nx.write_graphml(_nx_graph(), p)
    net = load_graphml(p, profile="length")
    assert net.node_ids.tolist() == [1, 2, 3]
    assert arcs(net) == [(1, 2, 715, 77), (2, 1, 715, 77), (2, 3, 1112, 78), (3, 2, 1112, 78)]
    k = net.arc_between(1, 2)
    assert net.geom_indptr[k + 1] - net.geom_indptr[k] == 1
    drive = load_graphml(p, profile="drive")
    assert arcs(drive) == [(1, 2, 43, 77), (2, 3, 133, 78), (3, 2, 133, 78)]


def test_networkx_undirected(tmp_path) -> None:
    p = tmp_path / "u.graphml"
    nx.write_graphml(_nx_graph(multi_di=False), p)
    walk = load_graphml(p, profile="walk")
    assert walk.num_arcs == 4  # every edge both ways on foot
    drive = load_graphml(p, profile="drive")
    assert [(u, v) for u, v, _, _ in arcs(drive)] == [(1, 2), (2, 3), (3, 2)]  # oneway kept


def test_string_node_ids_and_missing_length(tmp_path) -> None:
    g = nx.MultiDiGraph()
    g.add_node("a", x=0.0, y=0.0)
    g.add_node("b", x=0.001, y=0.0)
    g.add_edge("a", "b", highway="footway")
    p = tmp_path / "s.graphml"
    nx.write_graphml(g, p)
    net = load_graphml(p, profile="length")
    assert net.node_ids.tolist() == [1, 2] and net.meta["node_names"] == ["a", "b"]
    # No length attribute: haversine, 0.001 deg of longitude at the equator = 111.2 m.
    assert net.weights[0] == 1112


def test_contract_chain(tmp_path) -> None:
    g = nx.MultiDiGraph()
    for i in range(4):
        g.add_node(i + 1, x=10 + i * 0.001, y=50.0)
    g.add_node(9, x=10.001, y=50.001)
    for u, v in ((1, 2), (2, 3), (3, 4), (2, 9)):
        for a, b in ((u, v), (v, u)):
            g.add_edge(a, b, length=100.0, highway="residential")
    p = tmp_path / "chain.graphml"
    nx.write_graphml(g, p)
    full = load_graphml(p, profile="length")
    small = load_graphml(p, profile="length", contract=True)
    assert full.num_nodes == 5 and small.num_nodes == 4  # node 3 merged away
    k = small.arc_between(small.index_of(2), small.index_of(4))
    assert small.weights[k] == 2000 and small.geom_indptr[k + 1] - small.geom_indptr[k] == 1


def test_wkt_parser() -> None:
    np.testing.assert_allclose(parse_wkt_linestring("LINESTRING (1 2, 3 4)"), [[1, 2], [3, 4]])
    np.testing.assert_allclose(parse_wkt_linestring("linestring z(1 2 9,3 4 9)"), [[1, 2], [3, 4]])
    assert parse_wkt_linestring("LINESTRING EMPTY").shape == (0, 2)
    for bad in ("POINT (1 2)", "LINESTRING (1, 2 3)", "LINESTRING (a b, 1 2)"):
        with pytest.raises(ValueError):
            parse_wkt_linestring(bad)


HEAD = '<?xml version="1.0"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
KEYS = (
    '<key id="x" for="node" attr.name="x"/><key id="y" for="node" attr.name="y"/>\n'
    '<key id="g" for="edge" attr.name="geometry"/>'
    '<key id="l" for="edge" attr.name="length"/>\n'
)  # lines 3-4: the graph starts on line 5


@pytest.mark.parametrize(
    ("body", "line", "needle"),
    [
        ('<graph edgedefault="directed">\n<node id="1"><data key="x">1</data></node>\n'
         "</graph></graphml>", 6, "no x/y"),
        ('<graph edgedefault="directed">\n<node id="1"><data key="x">1</data>'
         '<data key="y">oops</data></node>\n</graph></graphml>', 6, "not numbers"),
        ('<graph edgedefault="directed">\n<node id="1"><data key="x">1</data>'
         '<data key="y">2</data></node>\n<edge source="1" target="7"/>\n</graph></graphml>',
         7, "undeclared node '7'"),
        ('<graph edgedefault="directed">\n<node id="1"><data key="x">1</data>'
         '<data key="y">2</data></node>\n<edge source="1" target="1">'
         '<data key="g">LINESTRING (1 2, x)</data></edge>\n</graph></graphml>', 7, "geometry"),
        ('<graph edgedefault="directed">\n<node id="1"><data key="x">1</data>'
         '<data key="y">2</data></node>\n<edge source="1" target="1">'
         '<data key="l">-3</data></edge>\n</graph></graphml>', 7, "length -3"),
        ('<graph edgedefault="directed">\n<node id="1">\n</graph></graphml>', 7, "invalid XML"),
    ],
)  # fmt: skip
def test_bad_graphml(tmp_path, body, line, needle) -> None:
    p = tmp_path / "bad.graphml"
    p.write_text(HEAD + KEYS + body)
    with pytest.raises(MapFormatError) as exc:
        load_graphml(p)
    assert f"bad.graphml:{line}:" in str(exc.value) and needle in str(exc.value), str(exc.value)


def test_not_graphml_and_empty(tmp_path) -> None:
    p = tmp_path / "x.graphml"
    p.write_text("<svg></svg>")
    with pytest.raises(MapFormatError, match="not GraphML"):
        load_graphml(p)
    p.write_text(HEAD + KEYS + '<graph edgedefault="directed"></graph></graphml>')
    with pytest.raises(EmptyMapError):
        load_graphml(p)
    p.write_text(HEAD + KEYS + '<graph><node id="1"><data key="x">1</data><data key="y">2</data>'
                 "</node></graph></graphml>")  # fmt: skip
    with pytest.raises(EmptyMapError, match="no edge is usable"):
        load_graphml(p)
