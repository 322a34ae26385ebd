"""Added links on a map with turn restrictions (issue 39): every answer against the
independent turn-expanded oracle (tests/turn_oracle.py) over the map without restrictions
with the same link added (its split roads too), for links ending on nodes and mid-road."""

from __future__ import annotations

import os

import numpy as np
import pytest

from app.jobs.edits import Edit, Scenario, read_scenario, write_scenario
from maps.formats.osm import load_osm
from maps.formats.osm_turns import read_restrictions
from maps.model.turns import copies_of, fold
from tests.maps.test_turns import SHARED, grid_osm
from tests.turn_oracle import oracle_dist

SOURCES = (0, 17, 40, 80)


@pytest.fixture(scope="module")
def maps(tmp_path_factory):
    p = tmp_path_factory.mktemp("turn_links") / "grid.osm"
    grid_osm(p, share=0.9)
    path = str(p)
    return (path, load_osm(path, profile="drive"),
            load_osm(path, profile="drive", turn_restrictions=False),
            read_restrictions(path).restrictions)


def _legal(net, s: int, strategy: str = "auto") -> np.ndarray:
    from gpu_core.sssp import sssp

    res = sssp(net, s, strategy=strategy, backend="cpu")
    return fold(net, np.where(res.reached, res.dist, -1))


def _mid(net, e: int, f: float = 0.4) -> tuple[float, float]:
    t, h = int(net.arc_sources()[e]), int(net.indices[e])
    return (float(net.lon[t] + f * (net.lon[h] - net.lon[t])),
            float(net.lat[t] + f * (net.lat[h] - net.lat[t])))


def _links(plain) -> list[Edit]:
    """Links between nodes, from a node to mid-road, mid-road to mid-road (both two-way
    and one-way), and one along a road (both ends on it)."""
    n = plain.num_nodes
    pt = lambda v: (float(plain.lon[v]), float(plain.lat[v]))  # noqa: E731
    src = plain.arc_sources()
    two = [e for e in range(plain.num_arcs)
           if np.any((src == plain.indices[e]) & (plain.indices == src[e]))]
    return [
        Edit("add", line=(pt(3), pt(n - 4)), value=1),
        Edit("add", line=(pt(10), _mid(plain, two[25])), value=5),
        Edit("add", line=(_mid(plain, two[40]), _mid(plain, two[90])), value=2),
        Edit("add", line=(_mid(plain, two[60]), _mid(plain, two[130])), value=1, oneway=True),
        Edit("add", line=(_mid(plain, two[70], 0.2), _mid(plain, two[70], 0.8)), value=0),
    ]


def _same(net, plain_net, sources=SOURCES, rules=None, strategies=("auto",)) -> None:
    for s in sources:
        want = oracle_dist(plain_net, rules, s)
        for strat in strategies:
            got = _legal(net, s, strat)
            assert np.array_equal(got, want), (s, strat, np.flatnonzero(got != want)[:5])


def test_added_links_match_the_oracle(maps):
    """Each link alone, then all together, then undone and redone; copies stay last."""
    path, net, plain, rules = maps
    edits = _links(plain)
    for e in edits:
        sc, pl = Scenario(net, backend="cpu"), Scenario(plain, backend="cpu")
        sc.apply(e)
        pl.apply(e)
        edited = sc.network()
        c = copies_of(edited)
        assert c is not None and c.max() < edited.num_nodes - c.shape[0]
        assert edited.num_nodes - c.shape[0] == pl.network().num_nodes
        _same(edited, pl.network(), rules=rules)
    sc, pl = Scenario(net, backend="cpu"), Scenario(plain, backend="cpu")
    sc.apply_all(edits)
    pl.apply_all(edits)
    _same(sc.network(), pl.network(), rules=rules,
          strategies=("conventional", "selection", "adaptive", "eval_dijkstra", "bellman_ford_queue", "delta"))
    want_ids = pl.network().node_ids
    got = sc.network()
    n = plain.num_nodes  # the file's ids; new nodes -k (as edits address them), no copy's
    ids = got.node_ids[: want_ids.shape[0]]
    assert np.array_equal(ids[:n], want_ids[:n]) and (ids[n:] < 0).all()
    assert np.unique(ids[n:]).shape[0] == ids.shape[0] - n
    sc.undo()
    pl.undo()
    _same(sc.network(), pl.network(), rules=rules)
    sc.redo()
    pl.redo()
    _same(sc.network(), pl.network(), rules=rules)


def test_closing_an_added_link_and_a_split_road(maps):
    path, net, plain, rules = maps
    edits = _links(plain)[1:3]
    more = [Edit("close", point=edits[1].line[0]), Edit("close", point=edits[0].line[0])]
    sc, pl = Scenario(net, backend="cpu"), Scenario(plain, backend="cpu")
    sc.apply_all(edits + more)
    pl.apply_all(edits + more)
    _same(sc.network(), pl.network(), rules=rules)


def test_ban_after_a_link_and_scenario_file(maps, tmp_path):
    """A turn ban and an added link in one scenario (refused before); written and read back."""
    path, net, plain, rules = maps
    link = _links(plain)[2]
    sc = Scenario(net, backend="cpu")
    sc.apply(link)
    v = int(plain.node_ids[40])
    src = plain.edge_source_id
    ins = sorted({int(src[e]) for e in np.flatnonzero(plain.indices == 40)})
    outs = sorted({int(src[e]) for e in np.flatnonzero(plain.arc_sources() == 40)})
    sc.apply(Edit("ban_turn", turn=(ins[0], v, [w for w in outs if w != ins[0]][0])))
    out = tmp_path / "sc.json"
    write_scenario(str(out), sc.edits)
    again = Scenario(net, backend="cpu")
    again.apply_all(read_scenario(str(out)))
    for s in SOURCES:
        assert np.array_equal(_legal(again.network(), s), _legal(sc.network(), s))


@pytest.mark.parametrize("name", ["andorra", "liechtenstein"])
def test_extract_link_matches_oracle(name):
    path = f"{SHARED}/{name}.osm.pbf"
    if not os.path.exists(path):
        pytest.skip(f"{path} not here")
    net = load_osm(path, profile="drive")
    plain = load_osm(path, profile="drive", turn_restrictions=False)
    rules = read_restrictions(path).restrictions
    # a link from a restricted junction's neighbourhood to a far road
    via = [plain.index_of(r.via_node) for r in rules
           if r.via_node is not None and r.via_node in set(plain.node_ids.tolist())]
    a = via[0]
    e = int(np.flatnonzero(plain.arc_sources() == via[-1])[0])
    link = Edit("add", line=((float(plain.lon[a]), float(plain.lat[a])), _mid(plain, e)), value=1)
    sc, pl = Scenario(net, backend="cpu"), Scenario(plain, backend="cpu")
    sc.apply(link)
    pl.apply(link)
    rng = np.random.default_rng(2)
    _same(sc.network(), pl.network(), sources=[a, *rng.integers(0, plain.num_nodes, 2).tolist()],
          rules=rules)


def test_split_roads_whose_arcs_lead_to_copies(maps):
    """Mid-road ends on every road whose arcs reach different copies of its far end (the
    split vertex then takes copies: one per state); each against the oracle."""
    path, net, plain, rules = maps
    c = copies_of(net)
    n0 = net.num_nodes - c.shape[0]
    src, heads = net.arc_sources(), net.indices
    # file arcs that lead into a copy: their road's arcs reach several copies of the head
    picked = [e for e in range(int(net.indptr[n0])) if heads[e] >= n0][::5][:8]
    made = 0
    for e in picked:
        t, h = int(src[e]), int(c[heads[e] - n0])
        pe = int(np.flatnonzero((plain.arc_sources() == t) & (plain.indices == h))[0])
        link = Edit("add", line=(_mid(plain, pe, 0.3), (float(plain.lon[40]),
                                                        float(plain.lat[40]))), value=3)
        sc, pl = Scenario(net, backend="cpu"), Scenario(plain, backend="cpu")
        sc.apply(link)
        pl.apply(link)
        made += len(sc.turn_copies)
        _same(sc.network(), pl.network(), sources=(0, t, 80), rules=rules)
    assert made > 0
