"""What-if edits (app.jobs.edits): the --close forms, scenario files, every action, and
the edited network against maps rebuilt by hand from the edited arc lists.
(Over 500 lines: the edit actions share the maps rebuilt by hand.)"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from app.jobs.edits import (
    Edit,
    EditError,
    Scenario,
    apply_edits,
    parse_close,
    read_scenario,
    write_scenario,
)
from app.jobs.maps import open_map
from gpu_core.sssp import sssp
from maps.model.build import build_network
from maps.model.profiles import arc_weight, to_weight
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")
SMALL_OSM = str(FIXTURES / "osm" / "small.osm")
GEOJSON = str(FIXTURES / "vector" / "small.geojson")
GRAPHML = str(FIXTURES / "graphml" / "osmnx_small.graphml")


@pytest.fixture(scope="module")
def tiny():
    return open_map(TINY, use_cache=False)


@pytest.fixture(scope="module")
def drive():
    return open_map(SMALL_OSM, profile="drive", use_cache=False)


def pairs(net, arcs) -> list[tuple[int, int]]:
    """(tail id, head id) in source ids of arc indices."""
    t = net.source_ids(net.arc_sources()[arcs])
    h = net.source_ids(net.indices[arcs])
    return list(zip(t, h, strict=True))


def live_pairs(net) -> list[tuple[int, int, int]]:
    t = net.source_ids(net.arc_sources())
    h = net.source_ids(net.indices)
    return sorted(zip(t, h, net.weights.tolist(), strict=True))


# ---- --close forms -------------------------------------------------------------------------
def test_parse_close_forms():
    assert parse_close("nodes:1,2") == Edit("close", nodes=(1, 2))
    assert parse_close("arc:7, 3") == Edit("close", nodes=(7, 3), oneway=True)
    assert parse_close("way:123") == Edit("close", way="123")
    assert parse_close("24.94,60.17") == Edit("close", point=(24.94, 60.17))
    assert parse_close("-73.98,40.73").point == (-73.98, 40.73)
    assert parse_close("nodes:a,b").nodes == ("a", "b")  # GraphML names
    assert parse_close("nodes:1,2").label == "--close nodes:1,2"


@pytest.mark.parametrize("spec, why", [
    ("nodes:1", "needs two node ids"),
    ("nodes:1,1", "both ends are node 1"),
    ("arc:1,2,3", "needs two node ids"),
    ("way:", "needs an id"),
    ("10.0,95.0", "latitude 95.0 is outside"),
    ("bridge", "not one of nodes:A,B"),
])
def test_parse_close_errors_name_the_spec(spec, why):
    with pytest.raises(EditError) as exc:
        parse_close(spec)
    assert str(exc.value).startswith(f"--close {spec}: ")
    assert why in str(exc.value)


# ---- scenario files ------------------------------------------------------------------------
EVERY_KIND = [
    Edit("close", nodes=(1, 2)),
    Edit("close", nodes=(3, 4), oneway=True),
    Edit("open", way="123"),
    Edit("remove", point=(24.5, 60.25)),
    Edit("close", polygon=((24.0, 60.0), (24.1, 60.0), (24.1, 60.1))),
    Edit("set_speed_kmh", way="7", value=30.5),
    Edit("set_cost", nodes=("a", "b"), value=120),
    Edit("add", line=((24.0, 60.0), (24.05, 60.02), (24.1, 60.0)), road_class="residential"),
    Edit("add", line=((24.0, 60.0), (24.1, 60.0)), oneway=True, speed_kmh=50.0),
    Edit("add", line=((24.0, 60.0), (24.1, 60.0)), value=7),
]


def test_scenario_round_trip(tmp_path):
    path = tmp_path / "s.geojson"
    write_scenario(path, EVERY_KIND)
    doc = json.loads(path.read_text())
    assert doc["type"] == "FeatureCollection" and len(doc["features"]) == len(EVERY_KIND)
    assert doc["features"][0] == {"type": "Feature", "properties": {"action": "close",
                                  "nodes": [1, 2]}, "geometry": None}
    back = read_scenario(path)
    assert back == EVERY_KIND
    assert back[2].label == f"{path}: feature 3 (action open)"
    write_scenario(tmp_path / "t.geojson", back)
    assert (tmp_path / "t.geojson").read_bytes() == path.read_bytes()


def _scenario(tmp_path, *features) -> str:
    path = tmp_path / "bad.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": list(features)}))
    return str(path)


def _feat(props, geom=None):
    return {"type": "Feature", "properties": props, "geometry": geom}


@pytest.mark.parametrize("feature, why", [
    (_feat({"action": "shut", "nodes": [1, 2]}), "action 'shut' is not one of"),
    (_feat({"action": "close"}), "close needs one target"),
    (_feat({"action": "close", "nodes": [1]}), "nodes must be [A, B]"),
    (_feat({"action": "set_cost", "way": 5}), "set_cost needs a value"),
    (_feat({"action": "close", "way": 5, "value": 3}), "close takes no value"),
    (_feat({"action": "add"}, {"type": "Point", "coordinates": [1, 2]}), "add needs a LineString"),
    (_feat({"action": "close"}, {"type": "Polygon", "coordinates": [
        [[0, 0], [1, 0], [1, 1], [0, 0]], [[0.1, 0.1], [0.2, 0.1], [0.2, 0.2], [0.1, 0.1]]]}),
     "holes are not supported"),
    (_feat({"action": "close"}, {"type": "MultiPoint", "coordinates": [[1, 2]]}),
     "'MultiPoint' is not Point"),
    (_feat({"action": "set_speed_kmh", "way": 5, "value": -3}), "give a speed above 0"),
    (_feat({"action": "close", "way": 5, "oneway": "yes"}), "oneway must be true or false"),
])
def test_bad_scenario_features_are_named(tmp_path, feature, why):
    ok = _feat({"action": "close", "nodes": [1, 2]})
    path = _scenario(tmp_path, ok, feature)
    with pytest.raises(EditError) as exc:
        read_scenario(path)
    assert f"{path}: feature 2" in str(exc.value)
    assert why in str(exc.value)


def test_scenario_that_is_not_a_collection(tmp_path):
    p = tmp_path / "x.geojson"
    p.write_text('{"type": "Feature"}')
    with pytest.raises(EditError, match="FeatureCollection"):
        read_scenario(p)
    p.write_text("{not json")
    from maps.errors import MapError

    with pytest.raises(MapError, match="invalid GeoJSON"):
        read_scenario(p)


# ---- each action on the DIMACS fixture -----------------------------------------------------
def test_close_open_remove_set_cost(tiny):
    sc = Scenario(tiny, backend="cpu")
    done = sc.apply(parse_close("nodes:1,2"))
    # tiny has 1->2 twice and 2->1: the road between 1 and 2 is three arcs
    assert sorted(pairs(tiny, done.arcs)) == [(1, 2), (1, 2), (2, 1)]
    assert sc.changed_arcs == 3
    assert sorted(pairs(tiny, sc.closed_arcs())) == [(1, 2), (1, 2), (2, 1)]
    net = sc.network()
    assert (1, 2) not in [(a, b) for a, b, _ in live_pairs(net)]
    assert net.meta["edits"] == 3
    sc.apply(Edit("open", nodes=(2, 1), oneway=True))
    assert sc.changed_arcs == 2
    sc.apply(Edit("remove", nodes=(3, 5)))
    sc.apply(Edit("open", nodes=(3, 5)))  # a removed arc stays removed
    assert (3, 5) not in [(a, b) for a, b, _ in live_pairs(sc.network())]
    sc.apply(Edit("set_cost", nodes=(3, 4), oneway=True, value=42))
    assert (3, 4, 42) in live_pairs(sc.network())
    assert sc.changed_arcs == 4


def test_the_cli_s_edited_map_makes_its_arc_attributes_when_read(drive):
    """``apply_edits`` (the CLI) defers the edited map's per-arc attributes
    (``RoadNetwork.defer_arcs``): read, compared, copied or pickled, the map equals the
    one made at once, field by field; a closure shares the node arrays and id lookup."""
    import dataclasses
    import pickle

    road = int(np.flatnonzero(drive.edge_kind == 0)[5])
    u = int(drive.source_ids([int(drive.arc_sources()[road])])[0])
    v = int(drive.source_ids([int(drive.indices[road])])[0])
    edits = [parse_close(f"nodes:{u},{v}")]
    eager_sc = Scenario(drive, backend="cpu")
    eager_sc.apply_all(edits)
    eager = eager_sc.network()
    lazy, changed = apply_edits(drive, edits, backend="cpu")
    assert changed == eager_sc.changed_arcs > 0
    assert "edge_kind" not in lazy.__dict__  # not made yet
    assert lazy.node_ids is drive.node_ids and lazy.x is drive.x
    for f in dataclasses.fields(eager):
        a, b = getattr(lazy, f.name), getattr(eager, f.name)
        if isinstance(b, np.ndarray):
            np.testing.assert_array_equal(a, b, err_msg=f.name)
        elif f.name != "_id_index":
            assert a == b, f.name
    assert "_arcs_make" not in lazy.__dict__
    lazy2, _ = apply_edits(drive, edits, backend="cpu")
    back = pickle.loads(pickle.dumps(lazy2))  # a Dask worker's copy carries them
    np.testing.assert_array_equal(back.edge_length, eager.edge_length)
    back.validate()


def test_errors_name_the_edit_and_change_nothing(tiny):
    sc = Scenario(tiny, backend="cpu")
    sc.apply(parse_close("nodes:1,3"))
    before = live_pairs(sc.network())
    cases = [
        (parse_close("nodes:1,5"), "nodes 1 and 5 share no arc"),
        (parse_close("nodes:1,99"), "node 99 is not on this map"),
        (parse_close("arc:5,3"), "no arc from node 5 to node 3"),
        (parse_close("way:4"), "a DIMACS map has none"),
        (Edit("set_cost", nodes=(3, 4), value=2.5), "not a whole number"),
        (Edit("set_cost", nodes=(3, 4), value=2**31), "outside 0..2147483647"),
        (Edit("set_speed_kmh", nodes=(3, 4), value=50), "a speed has no meaning on this map"),
        (parse_close("139.9,35.68"), "139.9,35.68 is 17.9 km from the nearest road"),
        (Edit("add", line=((139.7005, 35.68), (139.7015, 35.6815))), "give the link's cost as value"),
    ]
    for edit, why in cases:
        with pytest.raises(EditError) as exc:
            sc.apply(edit)
        assert why in str(exc.value), str(exc.value)
    assert live_pairs(sc.network()) == before
    assert len(sc.edits) == 1 and sc.changed_arcs == 1


def test_negative_weights_are_refused_naming_the_edit(tmp_path):
    path = tmp_path / "neg.gr"
    path.write_text("p sp 3 3\na 1 2 5\na 2 3 -2\na 1 3 4\n")
    net = open_map(str(path), use_cache=False)
    with pytest.raises(EditError, match=r"^--close arc:1,3: this map has negative arc weights"):
        apply_edits(net, [parse_close("arc:1,3")])


def test_apply_all_is_all_or_nothing(tiny):
    sc = Scenario(tiny, backend="cpu")
    sc.apply(parse_close("nodes:3,5"))
    before, summaries = live_pairs(sc.network()), len(sc.summaries)
    with pytest.raises(EditError, match="node 77"):
        sc.apply_all([parse_close("nodes:1,2"), Edit("set_cost", nodes=(3, 4), value=1),
                      parse_close("nodes:1,77")])
    assert live_pairs(sc.network()) == before
    assert len(sc.edits) == 1 and len(sc.summaries) == summaries


def test_a_failed_load_after_an_add_leaves_no_vertex(drive):
    sc = Scenario(drive, backend="cpu")
    sc.apply(parse_close("nodes:2,3"))
    version, n = sc.graph.version, sc.graph.num_nodes
    with pytest.raises(EditError, match="node 77 is not on this map"):
        sc.apply_all([Edit("add", line=((10.0005, 50.0), (10.0005, 50.001)), value=3),
                      parse_close("nodes:1,77")])
    assert (sc.graph.version, sc.graph.num_nodes) == (version, n)  # not even tried for real
    assert len(sc.edits) == 1 and sc.changed_arcs == 2
    done = sc.apply_all([Edit("add", line=((10.0005, 50.0), (10.0005, 50.001)), value=3),
                         parse_close("nodes:-1,-2")])
    assert len(done) == 2 and sc.network().num_nodes == n + 2


def test_set_speed_follows_the_profile(drive):
    # way 101: one-way residential 5>6>7 (drive: ds, cost = length / speed)
    sc = Scenario(drive, backend="cpu")
    done = sc.apply(Edit("set_speed_kmh", way="101", value=20))
    net = sc.network()
    assert pairs(drive, done.arcs) == [(5, 6), (6, 7)]
    for e in done.arcs.tolist():
        t, h = drive.arc_sources()[e], drive.indices[e]
        want = int(to_weight(float(drive.edge_length[e]) * 36.0 / 20))
        got = net.weights[net.arc_between(int(t), int(h))]
        assert got == want
    assert sc.changed_arcs == 2


def test_way_point_and_polygon_targets(drive):
    sc = Scenario(drive, backend="cpu")
    done = sc.apply(Edit("close", way="100"))  # two-way residential 1-2-3-4
    assert sorted(pairs(drive, done.arcs)) == sorted([(1, 2), (2, 1), (2, 3), (3, 2), (3, 4),
                                                     (4, 3)])
    sc.undo()
    # a point beside the street between 2 and 3 closes that road both ways
    done = sc.apply(parse_close("10.0014,50.00002"))
    assert sorted(pairs(drive, done.arcs)) == [(2, 3), (3, 2)]
    assert sc.changed_arcs == 2
    sc.undo()
    # a box around node 6 (lon 10.001, lat 50.001): every arc touching 6 has a part inside
    box = ((10.0008, 50.0008), (10.0012, 50.0008), (10.0012, 50.0012), (10.0008, 50.0012))
    done = sc.apply(Edit("close", polygon=box))
    assert sorted(pairs(drive, done.arcs)) == [(2, 6), (5, 6), (6, 2), (6, 7)]
    with pytest.raises(EditError, match="no arc of this map lies inside the polygon"):
        sc.apply(Edit("close", polygon=((11.0, 51.0), (11.001, 51.0), (11.001, 51.001))))
    with pytest.raises(EditError, match="way 999 is not on this map"):
        sc.apply(Edit("close", way="999"))


def test_way_ids_of_geojson_and_graphml_features():
    gj = open_map(GEOJSON, use_cache=False)
    net, changed = apply_edits(gj, [parse_close("way:10")], backend="cpu")
    assert changed == int((gj.edge_source_id == 10).sum()) == 4
    assert not (net.edge_source_id == 10).any()
    gm = open_map(GRAPHML, use_cache=False)
    net, changed = apply_edits(gm, [parse_close("way:1000")], backend="cpu")
    assert changed == int((gm.edge_source_id == 1000).sum()) == 2
    assert net.num_arcs == gm.num_arcs - 2


# ---- add -----------------------------------------------------------------------------------
def test_add_between_nodes_prices_by_the_profile(drive):
    sc = Scenario(drive, backend="cpu")
    # from node 1 (10.000, 50.000) to node 5 (10.000, 50.001): no split, a new two-way link
    done = sc.apply(Edit("add", line=((10.0, 50.0), (10.0, 50.001)), road_class="primary"))
    net = sc.network()
    assert net.num_nodes == drive.num_nodes and done.summary.inserted.size == 2
    e = net.arc_between(drive.index_of(1), drive.index_of(5))
    assert e >= 0 and net.arc_between(drive.index_of(5), drive.index_of(1)) >= 0
    assert net.weights[e] == arc_weight("drive", "primary", float(net.edge_length[e]))
    assert net.class_names[net.edge_class[e]] == "primary"
    assert abs(float(net.edge_length[e]) - 111.2) < 0.5
    assert sc.changed_arcs == 2


def test_add_mid_arc_splits_both_directions(drive):
    sc = Scenario(drive, backend="cpu")
    d0 = dijkstra(drive.to_scipy(), indices=np.arange(drive.num_nodes))
    # from the middle of 1-2 (two-way) to the middle of 5>6 (one-way), an expensive link
    line = ((10.0005, 50.0), (10.0005, 50.001))
    done = sc.apply(Edit("add", line=line, value=10**6))
    net = sc.network()
    n = drive.num_nodes
    assert net.num_nodes == n + 2
    assert net.node_ids[n:].tolist() == [-1, -2]
    # the split arcs: 1->2, 2->1, 5->6; their pieces keep the way id and the weight sum
    assert sorted(pairs(drive, [e for e in done.arcs.tolist() if e < drive.num_arcs])) == \
        [(1, 2), (2, 1), (5, 6)]
    x1 = n  # the vertex on 1-2
    i1, i2 = drive.index_of(1), drive.index_of(2)
    a, b = net.arc_between(i1, x1), net.arc_between(x1, i2)
    assert net.weights[a] + net.weights[b] == drive.weights[drive.arc_between(i1, i2)]
    assert net.edge_source_id[a] == net.edge_source_id[b] == 100
    assert abs(float(net.lon[x1]) - 10.0005) < 1e-7 and abs(float(net.lat[x1]) - 50.0) < 1e-7
    # distances between the old nodes are unchanged (the link is never worth taking)
    d1 = dijkstra(net.to_scipy(), indices=np.arange(n))[:, :n]
    assert np.array_equal(d0, d1)
    # 1->2, 2->1, 5->6 disabled; 6 pieces and 2 link arcs inserted
    assert sc.changed_arcs == 3 + 8
    assert sc.closed_arcs().size == 0  # split, not closed
    # the split road is still addressed by its nodes (as its pieces)
    closed = sc.apply(parse_close("nodes:1,2"))
    assert closed.arcs.size == 4
    assert sc.closed_arcs().size == 2
    # the new vertices are addressed as -1, -2
    sc.apply(Edit("set_cost", nodes=(-1, -2), value=5))
    assert net is not sc.network()
    assert sc.network().weights[sc.network().arc_between(n, n + 1)] == 5


def test_add_with_both_ends_on_one_arc(drive):
    sc = Scenario(drive, backend="cpu")
    sc.apply(Edit("add", line=((10.0002, 50.0), (10.0008, 50.0)), value=10**6))
    net = sc.network()
    n = drive.num_nodes
    i1, i2 = drive.index_of(1), drive.index_of(2)
    # 1 -> x -> y -> 2 and back, plus the link both ways
    chain = [net.arc_between(i1, n), net.arc_between(n, n + 1), net.arc_between(n + 1, i2)]
    assert min(chain) >= 0
    w = int(drive.weights[drive.arc_between(i1, i2)])
    assert int(net.weights[chain].sum()) == w  # the road costs what it cost
    for piece, share in zip(chain, (0.2, 0.6, 0.2), strict=True):
        assert abs(int(net.weights[piece]) - w * share) <= 1
    back = [net.arc_between(i2, n + 1), net.arc_between(n + 1, n), net.arc_between(n, i1)]
    assert min(back) >= 0 and int(net.weights[back].sum()) == w


def test_add_far_from_roads_names_the_point(drive):
    sc = Scenario(drive, backend="cpu", max_snap_m=50)
    with pytest.raises(EditError, match=r"point 10.0,50.01 is 1\d\d\d m from the nearest road "
                                        r"\(more than the 50 m allowed\)"):
        sc.apply(Edit("add", line=((10.0, 50.01), (10.0, 50.0))))


# ---- undo / redo ---------------------------------------------------------------------------
def _compaction(sc, n):
    g, ids = sc.graph.compact()
    ptr = np.asarray(g.indptr)
    assert (ptr[n:] == ptr[n]).all()  # added vertices left by an undo have no arcs
    return ptr[: n + 1].copy(), np.asarray(g.indices).copy(), np.asarray(g.weights).copy(), ids


def test_undo_restores_the_exact_graph(drive):
    sc = Scenario(drive, backend="cpu")
    steps = [Edit("add", line=((10.0005, 50.0), (10.0005, 50.001)), value=3),
             parse_close("nodes:2,3"), Edit("set_cost", way="105", value=9),
             Edit("remove", nodes=(-1, -2)), Edit("open", nodes=(2, 3))]
    n = drive.num_nodes
    snaps = [(_compaction(sc, n), sssp(sc.graph, 0, backend="cpu").dist[:n].copy())]
    for e in steps:
        sc.apply(e)
        snaps.append((_compaction(sc, sc.graph.num_nodes), None))
    for k in range(len(steps), 0, -1):
        rec = sc.undo()
        assert rec.edit == steps[k - 1] and rec.undone
        got = _compaction(sc, len(snaps[k - 1][0][0]) - 1)
        for a, b in zip(got, snaps[k - 1][0], strict=True):
            assert np.array_equal(a, b)
    assert sc.changed_arcs == 0 and not sc.edits and sc.undo() is None
    assert np.array_equal(sssp(sc.graph, 0, backend="cpu").dist[:n], snaps[0][1])
    assert sc.redo().edit == steps[0]
    assert sc.changed_arcs == 3 + 8


# ---- random edit sequences against a hand-kept arc list ------------------------------------
hyp = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@pytest.fixture(scope="module")
def grid():
    from maps.generate import generate

    return generate("grid", n=25, seed=4)


ACTION = st.sampled_from(["close", "open", "remove", "set_cost", "close1", "undo", "redo"])


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_random_edits_match_a_rebuilt_map(grid, data):
    net = grid
    tails, heads = net.arc_sources().astype(np.int64), net.indices.astype(np.int64)
    m = net.num_arcs
    # the model: each base arc's (live, removed, weight); undo keeps copies
    live, removed, w = np.ones(m, bool), np.zeros(m, bool), net.weights.astype(np.int64).copy()
    history: list = []
    redo: list = []
    sc = Scenario(net, backend="cpu")
    for _ in range(data.draw(st.integers(1, 8))):
        act = data.draw(ACTION)
        if act == "undo":
            assert (sc.undo() is None) == (not history)
            if history:
                redo.append((live.copy(), removed.copy(), w.copy()))
                live, removed, w = history.pop()
            continue
        if act == "redo":
            assert (sc.redo() is None) == (not redo)
            if redo:
                history.append((live.copy(), removed.copy(), w.copy()))
                live, removed, w = redo.pop()
            continue
        e = data.draw(st.integers(0, m - 1))
        a, b = int(net.node_ids[tails[e]]), int(net.node_ids[heads[e]])
        one = act == "close1"
        sel = ((tails == tails[e]) & (heads == heads[e]))
        if not one:
            sel |= (tails == heads[e]) & (heads == tails[e])
        cost = data.draw(st.integers(0, 3000))
        edit = Edit("close" if one else act, nodes=(a, b), oneway=one,
                    value=cost if act == "set_cost" else None)
        history.append((live.copy(), removed.copy(), w.copy()))
        redo.clear()
        live, removed, w = live.copy(), removed.copy(), w.copy()
        if act in ("close", "close1", "remove"):
            live[sel] = False
            removed[sel] |= act == "remove"
        elif act == "open":
            live[sel & ~removed] = True
        else:
            w[sel] = cost
        sc.apply(edit)
        got = sc.network()
        want = build_network(tails=tails[live], heads=heads[live], weights=w[live],
                             node_ids=net.node_ids, unit=net.unit, profile=net.profile,
                             lon=net.lon, lat=net.lat, origin=net.origin,
                             edge_length=net.edge_length[live],
                             edge_source_id=net.edge_source_id[live])
        for name in ("indptr", "indices", "weights", "edge_source_id", "edge_length",
                     "node_ids", "x", "y"):
            assert np.array_equal(getattr(got, name), getattr(want, name)), name
        assert got.meta["edits"] == sc.changed_arcs == int((~live | (w != net.weights)).sum())
        src = data.draw(st.integers(0, net.num_nodes - 1))
        d = sssp(got, src, backend="cpu").dist
        ref = _with_zero_arcs(net.num_nodes, tails[live], heads[live], w[live], src)
        assert np.array_equal(np.where(np.isinf(ref), -1, ref).astype(np.int64), d)


def _with_zero_arcs(n, t, h, w, src):
    """Dijkstra that keeps 0-cost arcs (scipy's sparse matrices drop stored zeros): every
    weight +1 scaled out by a factor beyond any path's hop count; of parallel arcs the
    lightest (a COO matrix would add them up)."""
    big = n + 1
    t, h, w = (np.asarray(a, dtype=np.int64) for a in (t, h, w))
    order = np.lexsort((w, h, t))
    t, h, w = t[order], h[order], w[order]
    first = np.r_[True, (t[1:] != t[:-1]) | (h[1:] != h[:-1])] if t.size else np.zeros(0, bool)
    t, h, w = t[first], h[first], w[first]
    ref = dijkstra(csr_matrix(((w.astype(float) * big + 1), (t, h)), shape=(n, n)), indices=src)
    return np.where(np.isinf(ref), np.inf, np.floor(ref / big))


ANY = st.sampled_from(["add", "add", "close", "set_cost", "undo", "redo"])


def _point_on(net, data) -> tuple[float, float]:
    """A point on a random arc of ``net`` (at a node, or part way along)."""
    e = data.draw(st.integers(0, net.num_arcs - 1))
    f = data.draw(st.sampled_from([0.0, 0.25, 0.5, 0.9, 1.0]))
    t, h = int(net.arc_sources()[e]), int(net.indices[e])
    return (float(net.lon[t] + f * (net.lon[h] - net.lon[t])),
            float(net.lat[t] + f * (net.lat[h] - net.lat[t])))


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_random_adds_keep_the_network_whole_and_undo_exact(grid, data):
    """Sequences with added links (splitting arcs mid-way): network() is the graph's live
    arcs with their attributes, searches on it equal scipy's, and undo gives back the
    compaction of before (added vertices left without arcs)."""
    from gpu_core.dynamic import ARC_LIVE

    sc = Scenario(grid, backend="cpu")
    stack = []
    for _ in range(data.draw(st.integers(1, 6))):
        act = data.draw(ANY)
        cur = sc.network()
        if act == "undo":
            if sc.undo() is not None:
                want = stack.pop()
                got = _compaction(sc, len(want[0]) - 1)
                assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
            continue
        if act == "redo":
            before = _compaction(sc, sc.graph.num_nodes)
            if sc.redo() is not None:
                stack.append(before)  # an undo of the redo gives back this state
            continue
        before = _compaction(sc, sc.graph.num_nodes)
        if act == "add":
            edit = Edit("add", line=(_point_on(cur, data), _point_on(cur, data)),
                        value=data.draw(st.integers(0, 2000)),
                        oneway=data.draw(st.booleans()))
        else:
            e = data.draw(st.integers(0, cur.num_arcs - 1))
            ab = tuple(cur.source_ids([cur.arc_sources()[e], cur.indices[e]]))
            edit = Edit(act, nodes=ab, value=7 if act == "set_cost" else None)
        try:
            sc.apply(edit)
        except EditError as exc:  # both ends on one node, or a closed road: nothing changed
            assert "same place" in str(exc) or "is closed" in str(exc)
            assert all(np.array_equal(a, b) for a, b in
                       zip(_compaction(sc, sc.graph.num_nodes), before, strict=True))
            continue
        stack.append(before)
        net = sc.network()
        net.validate()
        tail, head, w, state = sc.graph.arcs()
        live = np.flatnonzero(state == ARC_LIVE)
        want = build_network(tails=tail[live], heads=head[live], weights=w[live],
                             node_ids=net.node_ids, unit=net.unit, profile=net.profile,
                             x=net.x, y=net.y,
                             edge_length=sc.store.gather("length", grid.edge_length, live),
                             edge_source_id=sc.store.gather("src", grid.edge_source_id, live))
        for name in ("indptr", "indices", "weights", "edge_source_id", "edge_length"):
            assert np.array_equal(getattr(net, name), getattr(want, name)), name
        src = data.draw(st.integers(0, net.num_nodes - 1))
        ref = _with_zero_arcs(net.num_nodes, net.arc_sources(), net.indices, net.weights, src)
        assert np.array_equal(np.where(np.isinf(ref), -1, ref).astype(np.int64),
                              sssp(net, src, backend="cpu").dist)


def test_arc_store_ends_find_the_row_of_every_arc():
    """``ArcStore.ends`` finds an arc's tail by its row (no tail array kept): rows of no
    arc (isolated vertices, a vertex with in-arcs only) share their start with the next."""
    from app.jobs.edits.store import ArcStore
    from maps.generate import generate

    net = generate("grid", 400, seed=2)
    st = ArcStore(net)
    tails = net.arc_sources()
    for e in range(net.num_arcs):
        assert st.ends(e) == (int(tails[e]), int(net.indices[e]))
    from dataclasses import replace

    # vertices 0, 5, 6 and the last without out-arcs
    keep = (tails != 0) & (tails != 5) & (tails != 6) & (tails != net.num_nodes - 1)
    counts = np.bincount(tails[keep], minlength=net.num_nodes)
    holed = replace(net, indptr=np.concatenate([[0], np.cumsum(counts)]).astype(net.indptr.dtype),
                    indices=net.indices[keep], weights=net.weights[keep],
                    edge_kind=net.edge_kind[keep], edge_class=net.edge_class[keep],
                    edge_length=net.edge_length[keep], edge_source_id=net.edge_source_id[keep])
    st = ArcStore(holed)
    t2 = holed.arc_sources()
    assert holed.num_arcs == int(keep.sum())
    for e in range(holed.num_arcs):
        assert st.ends(e) == (int(t2[e]), int(holed.indices[e]))
