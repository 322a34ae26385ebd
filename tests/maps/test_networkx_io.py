"""maps.from_networkx / from_edges / RoadNetwork.to_networkx / to_geodataframes: the
Python GIS stack in memory, checked against networkx's Dijkstra and the GraphML reader."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

import maps
from maps.errors import MapFormatError
from maps.load import load_map

nx = pytest.importorskip("networkx")


def _osm_like_graph(rows=6, cols=7, seed=4):
    """An OSMnx-like MultiDiGraph: a lon/lat grid, both directions of every street with
    float lengths, some edges drawn with a bend (shapely geometry), one one-way street."""
    import shapely

    rng = np.random.default_rng(seed)
    G = nx.MultiDiGraph(crs="epsg:4326")
    nid = {}
    for r in range(rows):
        for c in range(cols):
            nid[r, c] = 1000 + 17 * (r * cols + c)
            G.add_node(nid[r, c], x=24.9 + 0.002 * c, y=60.1 + 0.001 * r)
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0)):
                if r + dr >= rows or c + dc >= cols:
                    continue
                a, b = nid[r, c], nid[r + dr, c + dc]
                ln = float(rng.uniform(60, 300))
                pa, pb = G.nodes[a], G.nodes[b]
                geom = None
                if rng.random() < 0.3:  # a bend halfway
                    mid = ((pa["x"] + pb["x"]) / 2 + 0.0003, (pa["y"] + pb["y"]) / 2 + 0.0002)
                    geom = shapely.LineString([(pa["x"], pa["y"]), mid, (pb["x"], pb["y"])])
                both = not (r == 2 and dc == 1)  # row 2 is one-way eastbound
                for s, t in ((a, b), (b, a)) if both else ((a, b),):
                    g = None if geom is None else (geom if s == a else geom.reverse())
                    d = {"length": ln, "highway": "residential", "travel_time": ln / 8.33,
                         "osmid": 5000 + r * 100 + c}
                    if g is not None:
                        d["geometry"] = g
                    G.add_edge(s, t, **d)
    return G


def _nx_dist(G, weight):
    return dict(nx.all_pairs_dijkstra_path_length(G, weight=weight))


def _dist_by_id(net):
    d = dijkstra(net.to_scipy())
    ids = net.source_ids(np.arange(net.num_nodes))
    return {(ids[i], ids[j]): d[i, j] for i in range(len(ids)) for j in range(len(ids))
            if np.isfinite(d[i, j])}


def test_from_networkx_equals_networkx_dijkstra_on_rounded_weights():
    G = _osm_like_graph()
    net = maps.from_networkx(G, weight="length")
    assert net.unit == "dm" and net.meta["weight_rounding"] <= 0.05
    want = _nx_dist(G, lambda u, v, d: min(max(1, round(e["length"] * 10)) for e in d.values()))
    got = _dist_by_id(net)
    assert got == {(a, b): float(c) for a, row in want.items() for b, c in row.items()}
    tt = maps.from_networkx(G, weight="travel_time")
    assert tt.unit == "ds"
    want = _nx_dist(G, lambda u, v, d: min(max(1, round(e["travel_time"] * 10))
                                           for e in d.values()))
    assert _dist_by_id(tt) == {(a, b): float(c) for a, row in want.items() for b, c in row.items()}


def test_from_networkx_equals_the_graphml_file_networkx_wrote(tmp_path):
    """Saved as OSMnx does (geometry as WKT, every value a string) and read by Signpost's
    GraphML reader, the same graph routes the same."""
    G = _osm_like_graph()
    H = G.copy()
    for _, _, d in H.edges(data=True):
        for k, v in list(d.items()):
            d[k] = v.wkt if k == "geometry" else str(v)
    for _, d in H.nodes(data=True):
        for k, v in list(d.items()):
            d[k] = str(v)
    H.graph["crs"] = "epsg:4326"
    path = tmp_path / "g.graphml"
    nx.write_graphml(H, path)
    loaded = load_map(str(path), profile="length", use_cache=False)
    ours = maps.from_networkx(G, weight="length")
    assert loaded.unit == ours.unit == "dm"
    assert _dist_by_id(loaded) == _dist_by_id(ours)  # every route costs the same
    again = maps.from_networkx(nx.read_graphml(path, node_type=int), weight="length")
    assert _dist_by_id(again) == _dist_by_id(ours)  # string attributes and WKT read too
    assert sorted(loaded.source_ids(np.arange(loaded.num_nodes))) == sorted(G.nodes)
    np.testing.assert_allclose(np.sort(loaded.edge_length), np.sort(ours.edge_length),
                               rtol=1e-6)
    k = loaded.geom_xy.shape[0] if loaded.geom_xy is not None else 0
    assert k == ours.geom_xy.shape[0] > 0


def test_graphml_round_trip_through_to_networkx_keeps_routes_and_ids():
    from tests.conftest import FIXTURES

    net = load_map(str(FIXTURES / "graphml" / "osmnx_small.graphml"), use_cache=False)
    G = net.to_networkx()
    assert sorted(G.nodes) == sorted(net.source_ids(np.arange(net.num_nodes)))
    assert G.number_of_edges() == net.num_arcs and G.graph["unit"] == net.unit
    back = maps.from_networkx(G, weight="weight")
    assert back.meta["weight_scale"] == 1
    assert _dist_by_id(back) == _dist_by_id(net)
    np.testing.assert_allclose(np.sort(back.edge_length), np.sort(net.edge_length), rtol=1e-6)


def test_sample_map_to_networkx_matches_scipy():
    from maps.samples import SAMPLE_MAP

    net = load_map(SAMPLE_MAP, profile="walk")
    G = net.to_networkx()
    src = net.source_ids([7])[0]
    want = nx.single_source_dijkstra_path_length(G, src, weight="weight")
    d = dijkstra(net.to_scipy(), indices=7)
    got = {k: v for k, v in net.by_source_id(d).items() if np.isfinite(v)}
    assert got == {k: float(v) for k, v in want.items()}


def test_from_edges_scales_float_weights_exactly_or_refuses():
    net = maps.from_edges([1, 2, 3], [2, 3, 1], [0.6, 1.25, 2.0])
    assert net.weights.tolist() == sorted([60, 125, 200]) and net.meta["weight_scale"] == 100
    assert net.source_ids([0, 1, 2]) == [1, 2, 3]
    d = dijkstra(net.to_scipy(), indices=0)
    assert net.by_source_id(d) == {1: 0.0, 2: 60.0, 3: 185.0}
    third = maps.from_edges([1, 2], [2, 1], [1 / 3, 1.0])  # rounded: the finest int32 allows
    assert third.meta["weight_scale"] == 10**9 and sorted(third.weights) == [333333333, 10**9]
    pi = maps.from_edges([1, 2], [2, 1], [np.pi * 1e-3, 1.0])  # 10**9: the finest that fits
    got = sorted(pi.weights)[0] / pi.meta["weight_scale"]
    assert pi.meta["weight_scale"] == 10**9 and abs(got - np.pi * 1e-3) <= 1e-6 * np.pi * 1e-3
    for bad, needle in (([np.pi * 1e-5, 1e3, 1.0], "no power of ten"), ([-1.0, 1.0, 1.0], ">= 0"),
                        ([float("nan"), 1, 1], ">= 0"), ([3e9, 1, 1], "no power of ten")):
        with pytest.raises(ValueError, match=needle):
            maps.from_edges([1, 2, 3], [2, 3, 1], bad)


def test_from_edges_takes_dataframe_columns_and_coordinates():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"u": [10, 20, 20], "v": [20, 30, 10], "cost": [5, 7, 5]})
    nodes = pd.DataFrame({"id": [10, 20, 30], "x": [24.0, 24.001, 24.002],
                          "y": [60.0, 60.0, 60.0]})
    net = maps.from_edges(df.u, df.v, df.cost, x=nodes.x, y=nodes.y, node_ids=nodes.id,
                          weight_name="cost")
    assert net.has_coordinates and net.unit == "unit" and net.meta["weight_scale"] == 1
    assert dijkstra(net.to_scipy(), indices=net.index_of(10))[net.index_of(30)] == 12
    by_len = maps.from_edges(df.u, df.v, x=nodes.x, y=nodes.y, node_ids=nodes.id)
    assert by_len.unit == "dm" and 500 < by_len.weights.min() < 600  # ~55.6 m
    with pytest.raises(ValueError, match="not in node_ids"):
        maps.from_edges([10], [99], [1], node_ids=[10, 20])


def test_a_projected_crs_goes_through_the_hook():
    G = _osm_like_graph(2, 2)
    with pytest.raises(MapFormatError, match="EPSG:3857"):
        maps.from_networkx(G, crs="EPSG:3857")
    G.graph["crs"] = "EPSG:32635"
    with pytest.raises(MapFormatError, match="EPSG:32635"):
        maps.from_networkx(G)


def test_missing_weight_names_the_edge():
    G = _osm_like_graph(2, 2)
    u, v, k = next(iter(G.edges(keys=True)))
    del G.edges[u, v, k]["length"]
    with pytest.raises(ValueError, match=f"edge {u} -> {v} has no 'length'"):
        maps.from_networkx(G)


def test_to_geodataframes_with_geopandas():
    pytest.importorskip("geopandas")
    G = _osm_like_graph(3, 3)
    net = maps.from_networkx(G)
    nodes, edges = net.to_geodataframes()
    assert sorted(nodes.index) == sorted(G.nodes) and str(nodes.crs) == "EPSG:4326"
    assert len(edges) == net.num_arcs
    assert edges.geometry.length.gt(0).all()
