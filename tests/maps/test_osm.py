"""OSM loader: one-ways, access, rail, stations and transfers, contraction, errors."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

from maps.errors import EmptyMapError, LoadCancelled, MapFormatError, ProfileError
from maps.formats.osm import RAIL_COPY_OFFSET, load_osm
from maps.geo.projection import haversine_m
from maps.model.network import KIND_RAIL, KIND_ROAD, KIND_TRANSFER
from maps.samples import SAMPLE_MAP
from tests.conftest import FIXTURES

SMALL = FIXTURES / "osm" / "small.osm"


def arcs_by_id(net) -> dict[tuple[int, int], list[tuple[int, int, str]]]:
    """(tail id, head id) -> [(weight, kind, class)] for every arc."""
    out: dict[tuple[int, int], list] = {}
    t = net.arc_sources()
    for a in range(net.num_arcs):
        key = (int(net.node_ids[t[a]]), int(net.node_ids[net.indices[a]]))
        out.setdefault(key, []).append(
            (int(net.weights[a]), int(net.edge_kind[a]), net.class_names[net.edge_class[a]])
        )
    return out


@pytest.fixture(scope="module")
def small():
    # Junction-level graphs: the arcs these tests name run between ways' shared nodes.
    return {
        p: load_osm(SMALL, profile=p, nodes="junctions")
        for p in ("length", "walk", "drive", "multimodal")
    }


def test_every_profile_builds_a_valid_network(small):
    for p, net in small.items():
        net.validate()
        assert net.profile == p
        assert net.unit == ("dm" if p == "length" else "ds")
        assert net.weights.min() >= 1
        assert net.has_coordinates


def test_drive_keeps_one_ways(small):
    a = arcs_by_id(small["drive"])
    assert (5, 6) in a and (6, 5) not in a  # oneway=yes
    assert (8, 7) in a and (7, 8) not in a  # oneway=-1: against the node order
    # roundabout 3 > 41 > 7 > 42 > 3: one arc each way round, both one-way
    assert [c for *_, c in a[(3, 7)]] == ["tertiary"] and len(a[(7, 3)]) == 1
    assert (4, 61) in a and (61, 4) not in a  # motorway implies oneway
    assert (1, 2) in a and (2, 1) in a  # plain street both ways


def test_walk_ignores_one_ways_and_motorways(small):
    a = arcs_by_id(small["walk"])
    for u, v in [(5, 6), (6, 5), (7, 8), (8, 7), (1, 5), (5, 1)]:
        assert (u, v) in a
    assert len(a[(3, 7)]) == 2 and len(a[(7, 3)]) == 2  # both halves of the roundabout
    ids = set(small["walk"].node_ids.tolist())
    assert 61 not in ids and 60 not in ids  # motorway not walkable
    # footway 1-73-5: 73 is an inner point of the arc, kept as geometry
    net = small["walk"]
    arc = net.arc_between(net.index_of(1), net.index_of(5))
    g = net.geom_xy[net.geom_indptr[arc] : net.geom_indptr[arc + 1]]
    assert g.shape == (1, 2)


def test_private_and_construction_ways_are_excluded(small):
    for p in ("walk", "drive", "multimodal"):
        a = arcs_by_id(small[p])
        assert (4, 8) not in a and (8, 4) not in a  # access=private
        assert 90 not in set(small[p].node_ids.tolist())  # highway=construction


def test_clipped_way_is_cut_at_missing_nodes(small):
    a = arcs_by_id(small["walk"])
    assert (8, 80) in a and (81, 82) in a
    assert not any(999 in k for k in a)


def test_rail_only_in_multimodal(small):
    for p in ("length", "walk", "drive"):
        assert not np.any(small[p].edge_kind != KIND_ROAD)
        assert 50 not in set(small[p].node_ids.tolist())
    mm = small["multimodal"]
    assert np.any(mm.edge_kind == KIND_RAIL)
    a = arcs_by_id(mm)
    assert (50, 51) in a and (51, 50) in a and a[(50, 51)][0][1] == KIND_RAIL
    assert 53 not in set(mm.node_ids.tolist())  # railway=abandoned


def test_transfers_join_stations_to_the_nearest_road_node(small):
    mm = small["multimodal"]
    a = arcs_by_id(mm)
    # station 50 (55.6 m south of road node 1) and halt 52 (south of node 4)
    for st, road in [(50, 1), (52, 4)]:
        assert (st, road) in a and (road, st) in a
        w, kind, cls = a[(st, road)][0]
        assert kind == KIND_TRANSFER and cls == "transfer"
        d = float(haversine_m(10.0, 49.9995, 10.0, 50.0))
        assert w == round(1200 + d * 7.2)  # 120 s + the walk at 5 km/h, in ds
    # off-track station 55 is anchored at track point 51, which becomes a graph node
    assert any(k[0] == 51 and v[0][1] == KIND_TRANSFER for k, v in a.items())
    # the bus stop_position at node 6 joins nothing
    assert not any(6 in k and v[0][1] == KIND_TRANSFER for k, v in a.items())
    # tram stop 74 -> road point 73, which splits the footway there
    assert (74, 73) in a and (73, 1) in a and (73, 5) in a
    assert int((mm.edge_kind == KIND_TRANSFER).sum()) == 2 * mm.meta["transfers"] == 8


def test_rail_is_reached_only_through_transfers(small):
    """No arc joins a road node to a rail node directly."""
    mm = small["multimodal"]
    t = mm.arc_sources()
    node_kind = np.full(mm.num_nodes, -1)
    for kind in (KIND_ROAD, KIND_RAIL):
        sel = mm.edge_kind == kind
        node_kind[t[sel]] = kind
        node_kind[mm.indices[sel]] = kind
    road_rail = mm.edge_kind != KIND_TRANSFER
    assert np.all(node_kind[t[road_rail]] == node_kind[mm.indices[road_rail]])


def test_level_crossing_gets_a_separate_rail_node(tmp_path):
    # a tram crossing a street at a shared node 3: rail copy id = offset + 3
    (tmp_path / "x.osm").write_text(
        '<osm version="0.6">'
        '<node id="1" lat="50" lon="10"/><node id="2" lat="50" lon="10.002"/>'
        '<node id="3" lat="50" lon="10.001"/>'
        '<node id="4" lat="49.999" lon="10.001"/><node id="5" lat="50.001" lon="10.001"/>'
        + way(1, [1, 3, 2], "highway", "residential")
        + way(2, [4, 3, 5], "railway", "tram")
        + way(3, [3, 5], "railway", "tram")
        + "</osm>"
    )
    net = load_osm(tmp_path / "x.osm", profile="multimodal")
    ids = set(net.node_ids.tolist())
    assert 3 in ids and RAIL_COPY_OFFSET + 3 in ids
    a = arcs_by_id(net)
    assert (1, 3) in a and (4, RAIL_COPY_OFFSET + 3) in a
    assert all(v[0][1] != KIND_RAIL for k, v in a.items() if 3 in k)


def way(wid: int, refs: list[int], k: str, v: str) -> str:
    nds = "".join(f'<nd ref="{r}"/>' for r in refs)
    return f'<way id="{wid}">{nds}<tag k="{k}" v="{v}"/></way>'


def nx_graph(net) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(net.num_nodes))
    t = net.arc_sources()
    for u, v, w in zip(t.tolist(), net.indices.tolist(), net.weights.tolist(), strict=True):
        if not g.has_edge(u, v) or g[u][v]["weight"] > w:
            g.add_edge(u, v, weight=w)
    return g


@pytest.mark.parametrize("profile", ["length", "drive", "multimodal"])
def test_costs_match_networkx(small, profile):
    from gpu_core.sssp import sssp

    net = small[profile]
    g = nx_graph(net)
    for s in range(net.num_nodes):
        res = sssp(net, s, backend="cpu")
        want = nx.single_source_dijkstra_path_length(g, s)
        got = {v: int(d) for v, d in enumerate(res.dist.tolist()) if d >= 0}
        assert got == want


def test_contraction_keeps_costs_and_geometry():
    for profile in ("walk", "drive", "multimodal"):
        a = load_osm(SMALL, profile=profile, nodes="junctions")
        b = load_osm(SMALL, profile=profile, contract=True)
        b.validate()
        assert b.num_nodes <= a.num_nodes
        keep = [a.index_of(i) for i in b.node_ids.tolist()]
        da = dijkstra(a.to_scipy(), indices=keep)[:, keep]
        db = dijkstra(b.to_scipy())
        np.testing.assert_array_equal(da, db)
        # total drawn length is unchanged
        assert b.edge_length.sum() == pytest.approx(a.edge_length.sum(), rel=1e-6)


def test_contraction_merges_a_chain(tmp_path):
    (tmp_path / "c.osm").write_text(
        '<osm version="0.6">'
        + "".join(f'<node id="{i}" lat="50" lon="{10 + i / 1000}"/>' for i in range(1, 6))
        + way(1, [1, 2, 3], "highway", "residential")
        + way(2, [3, 4, 5], "highway", "residential")
        + "</osm>"
    )
    a = load_osm(tmp_path / "c.osm", profile="length", nodes="junctions")
    assert sorted(a.node_ids.tolist()) == [1, 3, 5]  # split where the ways meet
    full = load_osm(tmp_path / "c.osm", profile="length")
    assert sorted(full.node_ids.tolist()) == [1, 2, 3, 4, 5]  # default: every way node
    b = load_osm(tmp_path / "c.osm", profile="length", contract=True)
    assert sorted(b.node_ids.tolist()) == [1, 5] and b.num_arcs == 2
    arc = b.arc_between(b.index_of(1), b.index_of(5))
    assert b.geom_indptr[arc + 1] - b.geom_indptr[arc] == 3  # 2, 3, 4 kept as geometry
    assert b.weights[arc] == a.weights.sum() // 2


def test_every_way_node_is_a_graph_node_by_default():
    """Default graphs keep every OSM node of a used way, with the same drawn length and
    the same routes as the junction graph up to per-arc rounding of the weights."""
    full = load_osm(SMALL, profile="walk")
    junc = load_osm(SMALL, profile="walk", nodes="junctions")
    assert set(junc.node_ids.tolist()) < set(full.node_ids.tolist())
    assert 73 in set(full.node_ids.tolist())  # inner point of footway 1-73-5 (junction: geometry)
    assert full.edge_length.sum() == pytest.approx(junc.edge_length.sum(), rel=1e-9)
    keep = [full.index_of(i) for i in junc.node_ids.tolist()]
    df = dijkstra(full.to_scipy(), indices=keep)[:, keep]
    dj = dijkstra(junc.to_scipy())
    finite = np.isfinite(dj)
    np.testing.assert_array_equal(np.isfinite(df), finite)
    # each junction arc splits into at most a few pieces, each rounded to whole units
    assert np.abs(df[finite] - dj[finite]).max() <= 0.5 * full.num_arcs


def test_lengths_are_haversine_along_geometry(small):
    net = small["length"]
    arc = net.arc_between(net.index_of(1), net.index_of(2))
    d = float(haversine_m(10.0, 50.0, 10.001, 50.0))
    assert net.edge_length[arc] == pytest.approx(d, rel=1e-6)
    assert net.weights[arc] == round(d * 10)


# ---- errors ------------------------------------------------------------------------------


def test_truncated_pbf_is_a_format_error():
    path = FIXTURES / "osm" / "truncated.osm.pbf"
    with pytest.raises(MapFormatError, match="truncated.osm.pbf"):
        load_osm(path, profile="walk")


def test_malformed_xml_is_a_format_error():
    with pytest.raises(MapFormatError, match=r"garbage\.osm.*XML"):
        load_osm(FIXTURES / "osm" / "garbage.osm", profile="walk")


def test_missing_file(tmp_path):
    with pytest.raises(MapFormatError, match="no such file"):
        load_osm(tmp_path / "nope.osm", profile="walk")


def test_no_usable_way_names_the_profile():
    path = FIXTURES / "osm" / "no_roads.osm"
    with pytest.raises(EmptyMapError, match="'walk' profile"):
        load_osm(path, profile="walk")
    net = load_osm(path, profile="multimodal")  # the rail line is usable there
    assert net.num_arcs == 2


def test_unknown_profile():
    with pytest.raises(ProfileError, match="bike"):
        load_osm(SMALL, profile="bike")


def test_progress_and_cancel():
    seen: list[float] = []
    load_osm(SMALL, profile="walk", progress=lambda f, msg: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    with pytest.raises(LoadCancelled):
        load_osm(SMALL, profile="walk", cancel=lambda: True)
    calls = []

    def later() -> bool:  # cancel during building, not at the first check
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(LoadCancelled):
        load_osm(SAMPLE_MAP, profile="walk", cancel=later)


# ---- the real sample map -------------------------------------------------------------------


@pytest.fixture(scope="module")
def helsinki():
    return {p: load_osm(SAMPLE_MAP, profile=p) for p in ("walk", "drive", "multimodal")}


def test_sample_map_has_roads_rail_and_transfers(helsinki):
    mm = helsinki["multimodal"]
    mm.validate()
    kinds = np.bincount(mm.edge_kind, minlength=3)
    assert kinds[KIND_ROAD] > 5000 and kinds[KIND_RAIL] > 100 and kinds[KIND_TRANSFER] >= 20
    names = {mm.class_names[c] for c in np.unique(mm.edge_class[mm.edge_kind == KIND_RAIL])}
    assert {"rail", "tram", "subway"} <= names
    # drive has one-way streets: some arc u->v without v->u
    d = helsinki["drive"]
    pairs = set(zip(d.arc_sources().tolist(), d.indices.tolist(), strict=True))
    assert any((v, u) not in pairs for u, v in pairs)
    w = helsinki["walk"]
    wp = set(zip(w.arc_sources().tolist(), w.indices.tolist(), strict=True))
    assert all((v, u) in wp for u, v in wp)


def test_sample_map_route_matches_scipy(helsinki):
    from gpu_core.sssp import sssp

    for net in helsinki.values():
        _, label = net.components()
        big = np.bincount(label).argmax()
        members = np.flatnonzero(label == big)
        s, t = int(members[0]), int(members[-1])
        ref = dijkstra(net.to_scipy(), indices=s)
        res = sssp(net, net.index_of(int(net.node_ids[s])), backend="cpu", target=t)
        assert res.dist[t] == int(ref[t])
        path = res.path_to(t)
        cost = sum(
            int(net.weights[net.arc_between(int(u), int(v))])
            for u, v in zip(path[:-1], path[1:], strict=True)
        )
        assert cost == res.dist[t]


@pytest.mark.parametrize("ext, opener", [(".osm.bz2", "bz2"), (".osm.gz", "gzip")])
def test_compressed_xml(tmp_path, ext, opener):
    import importlib

    mod = importlib.import_module(opener)
    p = tmp_path / f"small{ext}"
    with mod.open(p, "wb") as f:
        f.write(SMALL.read_bytes())
    a = load_osm(p, profile="drive")
    b = load_osm(SMALL, profile="drive")
    np.testing.assert_array_equal(a.node_ids, b.node_ids)
    np.testing.assert_array_equal(a.weights, b.weights)


def test_negative_ids_as_josm_writes_them(tmp_path):
    text = SMALL.read_text().replace('id="', 'id="-').replace('ref="', 'ref="-')
    (tmp_path / "neg.osm").write_text(text)
    a = load_osm(tmp_path / "neg.osm", profile="multimodal")
    b = load_osm(SMALL, profile="multimodal")
    off = RAIL_COPY_OFFSET  # rail copies are offset + id, also for negative ids
    want = [-i if i < off else off - (i - off) for i in b.node_ids.tolist()]
    assert sorted(a.node_ids.tolist()) == sorted(want)
    assert sorted(a.weights.tolist()) == sorted(b.weights.tolist())
