"""Issue 14 item 3: inputs that once loaded to a wrong graph, each checked against an
oracle (networkx on the file as written, scipy on the uncontracted graph)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from maps.errors import MapError, MapFormatError
from maps.load import load_map
from maps.points.resolve import resolve_point

FIX = Path(__file__).resolve().parents[1] / "fixtures"


def graphml(nodes: list[tuple[str, float, float]], edges: list[tuple[str, str, str]]) -> str:
    head = ('<?xml version="1.0"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
            '<key id="x" for="node" attr.name="x"/><key id="y" for="node" attr.name="y"/>\n'
            '<key id="l" for="edge" attr.name="length"/><key id="h" for="edge" '
            'attr.name="highway"/>\n<graph edgedefault="directed">\n')
    ns = "".join(f'<node id="{i}"><data key="x">{x}</data><data key="y">{y}</data></node>\n'
                 for i, x, y in nodes)
    es = "".join(f'<edge source="{a}" target="{b}"><data key="l">{ln}</data>'
                 f'<data key="h">residential</data></edge>\n' for a, b, ln in edges)
    return head + ns + es + "</graph></graphml>\n"


def test_graphml_ids_are_strings_as_written(tmp_path):
    import networkx as nx

    nodes = [("1", 10.0, 50.0), ("01", 10.001, 50.0), ("2", 10.002, 50.0)]
    edges = [("1", "2", "100"), ("01", "2", "7")]
    p = tmp_path / "ids.graphml"
    p.write_text(graphml(nodes, edges))
    net = load_map(p, profile="length", use_cache=False)
    assert net.num_nodes == 3
    assert sorted(net.node_labels().tolist()) == ["01", "1", "2"]
    oracle = nx.DiGraph()
    oracle.add_weighted_edges_from((a, b, round(float(ln) * 10)) for a, b, ln in edges)
    from scipy.sparse.csgraph import dijkstra

    for src in ("1", "01"):
        s = resolve_point(net, f"node:{src}").node
        assert net.node_labels()[s] == src
        dist = dijkstra(net.to_scipy(), indices=s)
        t = resolve_point(net, "node:2").node
        assert dist[t] == nx.shortest_path_length(oracle, src, "2", weight="weight")


def test_graphml_leading_zero_ids_keep_their_zeros(tmp_path):
    p = tmp_path / "z.graphml"
    p.write_text(graphml([("01", 10.0, 50.0), ("02", 10.001, 50.0)], [("01", "02", "5")]))
    net = load_map(p, profile="length", use_cache=False)
    assert net.node_labels().tolist() == ["01", "02"]


OSM_BIG_IDS = """<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
 <node id="4611686018427387904" lat="50.000" lon="10.000"/>
 <node id="1" lat="50.000" lon="10.010"/>
 <node id="-4611686018427387904" lat="50.100" lon="10.000"/>
 <node id="2" lat="50.100" lon="10.010"/>
 <way id="10"><nd ref="4611686018427387904"/><nd ref="1"/><tag k="highway" v="residential"/></way>
 <way id="11"><nd ref="-4611686018427387904"/><nd ref="2"/><tag k="highway" v="residential"/></way>
</osm>
"""


def test_osm_ids_use_the_full_int64_range(tmp_path):
    """2^62 and -2^62 had the same key (id * 2 overflowed): two places became one node."""
    pytest.importorskip("osmium")
    p = tmp_path / "big.osm"
    p.write_text(OSM_BIG_IDS)
    net = load_map(p, profile="length", use_cache=False)
    assert sorted(net.node_ids.tolist()) == [-(2**62), 1, 2, 2**62]
    assert net.num_arcs == 4
    a, b = net.index_of(2**62), net.index_of(-(2**62))
    assert (net.lat[a], net.lat[b]) == (50.0, 50.1)
    assert net.components()[0] == 2  # two separate roads, as in the file


@pytest.mark.parametrize("lon", ["1e308", "-1e308", "2e2"])
def test_osm_exponent_coordinates_out_of_range_are_refused(tmp_path, lon):
    """osmium reads lon="1e308" as 0: the node would sit on the meridian."""
    pytest.importorskip("osmium")
    p = tmp_path / "e.osm"
    p.write_text(OSM_BIG_IDS.replace('lon="10.000"', f'lon="{lon}"', 1))
    with pytest.raises(MapFormatError, match=f"lon='{lon}' is outside -180..180"):
        load_map(p, profile="length", use_cache=False)


def test_osm_exponent_coordinates_in_range_still_load(tmp_path):
    pytest.importorskip("osmium")
    p = tmp_path / "ok.osm"
    p.write_text(OSM_BIG_IDS.replace('lon="10.010"', 'lon="1.001e1"', 1))
    net = load_map(p, profile="length", use_cache=False)
    assert net.lon[net.index_of(1)] == pytest.approx(10.01)


def test_wkt_1e308_is_refused(tmp_path):
    text = graphml([("1", 10.0, 50.0), ("2", 10.001, 50.0)], [("1", "2", "5")])
    text = text.replace('<data key="l">5</data>',
                        '<data key="l">5</data><data key="g">LINESTRING (10 50, 1e308 50, '
                        '10.001 50)</data>')
    text = text.replace('<key id="l"', '<key id="g" for="edge" attr.name="geometry"/><key id="l"')
    p = tmp_path / "w.graphml"
    p.write_text(text)
    with pytest.raises(MapFormatError, match="not a lon/lat position"):
        load_map(p, profile="length", use_cache=False)


def test_huge_length_is_too_large_not_negative(tmp_path):
    p = tmp_path / "h.graphml"
    p.write_text(graphml([("1", 10.0, 50.0), ("2", 10.001, 50.0)], [("1", "2", "1e300")]))
    with pytest.raises(MapError) as exc:
        load_map(p, profile="length", use_cache=False)
    assert "too large" in str(exc.value) and "negative" not in str(exc.value)


def test_huge_dimacs_weight_is_too_large_not_negative(tmp_path):
    p = tmp_path / "h.gr"
    p.write_text("p sp 2 1\na 1 2 18446744073709551615\n")
    with pytest.raises(MapFormatError) as exc:
        load_map(p, use_cache=False)
    assert "negative" not in str(exc.value) and "18446744073709551615" in str(exc.value)


@pytest.mark.parametrize("profile", ["length", "drive", "walk"])
def test_contract_keeps_costs_exact(profile):
    """Costs between the nodes both graphs keep equal the uncontracted graph's (scipy)."""
    pytest.importorskip("osmium")
    from scipy.sparse.csgraph import dijkstra

    full = load_map(FIX / "osm" / "small.osm", profile=profile, use_cache=False)
    con = load_map(FIX / "osm" / "small.osm", profile=profile, contract=True, use_cache=False)
    assert con.num_nodes < full.num_nodes
    ids = con.node_ids.tolist()
    fi = np.array([full.index_of(i) for i in ids])
    df = dijkstra(full.to_scipy(), indices=fi)[:, fi]
    dc = dijkstra(con.to_scipy(), indices=np.arange(con.num_nodes))
    assert np.array_equal(df, dc)
