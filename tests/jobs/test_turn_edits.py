"""Turn bans as what-if edits (issue 39): ban_turn / lift_turn re-split the via node on the
edited graph; every answer against the independent turn-expanded oracle
(tests/turn_oracle.py) over the map without restrictions and the edited restriction list."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from app.jobs.edits import Edit, EditError, Scenario, parse_turn, read_scenario, write_scenario
from maps.formats.osm import load_osm
from maps.formats.osm_turns import Restriction, read_restrictions
from maps.model.turns import fold
from tests.maps.test_turns import grid_osm
from tests.turn_oracle import oracle_dist

SOURCES = (0, 17, 40, 80)


@pytest.fixture(scope="module")
def maps(tmp_path_factory):
    p = tmp_path_factory.mktemp("turn_edits") / "grid.osm"
    grid_osm(p)
    path = str(p)
    return (path, load_osm(path, profile="drive"),
            load_osm(path, profile="drive", turn_restrictions=False),
            read_restrictions(path).restrictions)


def _legal(net, s: int) -> np.ndarray:
    from gpu_core.sssp import sssp

    res = sssp(net, s, backend="cpu")
    return fold(net, np.where(res.reached, res.dist, -1))


def _ways_at(plain, v: int):
    """(ways entering node v, ways leaving it) as way ids."""
    t = plain.arc_sources()
    src = plain.edge_source_id
    return (sorted({int(src[e]) for e in np.flatnonzero(plain.indices == v)}),
            sorted({int(src[e]) for e in np.flatnonzero(t == v)}))


def _ban(f: int, v_id: int, t: int) -> Restriction:
    return Restriction(rel_id=-1, kind="no", value="no_left_turn", from_ways=(f,),
                       to_ways=(t,), via_node=v_id)


def _biting_ban(plain, rules):
    """A ban (F, V, T) at a junction no restriction names that changes some legal cost."""
    named = {r.via_node for r in rules}
    base = {s: oracle_dist(plain, rules, s) for s in SOURCES}
    for v in range(plain.num_nodes):
        vid = int(plain.node_ids[v])
        ins, outs = _ways_at(plain, v)
        if vid in named or len(outs) < 3:
            continue
        for f in ins:
            for t in outs:
                if t == f:
                    continue
                more = [*rules, _ban(f, vid, t)]
                if any(not np.array_equal(oracle_dist(plain, more, s), base[s]) for s in SOURCES):
                    return (f, vid, t), more, base
    raise AssertionError("no ban changes a route")


def test_ban_undo_redo_match_the_oracle(maps):
    path, net, plain, rules = maps
    (f, v, t), more, base = _biting_ban(plain, rules)
    sc = Scenario(net, backend="cpu")
    sc.apply(Edit("ban_turn", turn=(f, v, t)))
    edited = sc.network()
    assert edited.meta["turn_copies"][-1] == net.index_of(v)
    for s in SOURCES:
        assert np.array_equal(_legal(edited, s), oracle_dist(plain, more, s))
    sc.undo()
    for s in SOURCES:
        assert np.array_equal(_legal(sc.network(), s), base[s])
    sc.redo()
    for s in SOURCES:
        assert np.array_equal(_legal(sc.network(), s), oracle_dist(plain, more, s))
    with pytest.raises(EditError, match="banned already"):
        sc.apply(Edit("ban_turn", turn=(f, v, t)))
    sc.apply(Edit("lift_turn", turn=(f, v, t)))  # the ban lifted again: the map as it was
    for s in SOURCES:
        assert np.array_equal(_legal(sc.network(), s), base[s])


def _lonely(rules, r) -> bool:
    """No other restriction bans a turn at r's via node or ends on r's to-way."""
    return not any(o is not r and (o.via_node == r.via_node or set(o.to_ways) & set(r.to_ways)
                                   or set(o.via_ways) & set(r.from_ways)) for o in rules)


def test_lifting_a_file_restriction_matches_the_oracle(maps):
    """Lift a no_* of the file (the oracle drops it) and one turn of an only_* (the oracle:
    the only_* as no_* onto every other way but the lifted one)."""
    path, net, plain, rules = maps
    lifted = 0
    for r in [r for r in rules if r.via_node is not None and _lonely(rules, r)]:
        v = plain.index_of(r.via_node)
        _, outs = _ways_at(plain, v)
        f = r.from_ways[0]
        if r.kind == "no":
            t, want = r.to_ways[0], [o for o in rules if o is not r]
        else:
            others = [w for w in outs if w not in r.to_ways]
            if not others:
                continue
            t = others[0]
            want = [o for o in rules if o is not r] + [
                _ban(f, r.via_node, w) for w in outs if w not in (*r.to_ways, t)]
        sc = Scenario(net, backend="cpu")
        try:
            sc.apply(Edit("lift_turn", turn=(f, r.via_node, t)))
        except EditError as exc:  # e.g. a one-way from-way: nothing to lift
            assert "legal already" in str(exc) or "does not" in str(exc)
            continue
        for s in SOURCES:
            assert np.array_equal(_legal(sc.network(), s), oracle_dist(plain, want, s)), r
        lifted += 1
    assert lifted >= 3


def test_ban_then_close_the_approach(maps):
    """A closure after a ban finds the re-split approach (the oracle: the map with that road
    closed, the ban added); reopening it keeps the ban."""
    path, net, plain, rules = maps
    (f, v, t), more, _ = _biting_ban(plain, rules)
    vi = plain.index_of(v)
    e = int(np.flatnonzero((plain.indices == vi) & (plain.edge_source_id == f))[0])
    u = int(plain.node_ids[plain.arc_sources()[e]])
    close = Edit("close", nodes=(u, v))
    sc = Scenario(net, backend="cpu")
    sc.apply(Edit("ban_turn", turn=(f, v, t)))
    sc.apply(close)
    closed_plain = Scenario(plain, backend="cpu")
    closed_plain.apply(close)
    for s in SOURCES:
        assert np.array_equal(_legal(sc.network(), s),
                              oracle_dist(closed_plain.network(), more, s))
    assert sc.closed_arcs().size >= 1  # drawn struck through as any closed road
    other = Scenario(net, backend="cpu")  # closed first, then banned: the same map
    other.apply(close)
    other.apply(Edit("ban_turn", turn=(f, v, t)))
    for s in SOURCES:
        assert np.array_equal(_legal(other.network(), s), _legal(sc.network(), s))
    sc.apply(Edit("open", nodes=(u, v)))
    for s in SOURCES:
        assert np.array_equal(_legal(sc.network(), s), oracle_dist(plain, more, s))


def test_whatif_repair_and_change_view_after_a_ban(maps):
    """The app's path: the search repaired on the MutableGraph, the change view folded over
    copies: each node's change is the oracle's (legal cost with the ban − without)."""
    from app.gui.change_view import change_of
    from app.jobs import whatif
    from gpu_core.sssp import sssp

    path, net, plain, rules = maps
    (f, v, t), more, base = _biting_ban(plain, rules)
    sc = Scenario(net, backend="cpu")
    n0 = plain.num_nodes
    grew = False
    for s in SOURCES:
        before = sssp(sc.graph, s, backend="cpu")
        done = sc.apply(Edit("ban_turn", turn=(f, v, t)))
        out = whatif.run(sc.graph, before, [done.summary], whatif.WhatIfOptions(s, backend="cpu"),
                         base_graph=net)
        ch = change_of(net, sc, out.base, out.result)
        want, old = oracle_dist(plain, more, s), base[s]
        both = (want >= 0) & (old >= 0)
        assert np.array_equal(ch.delta[:n0][both], (want - old)[both])
        assert np.array_equal(ch.lost[:n0], (old >= 0) & (want < 0))
        grew |= bool((ch.delta > 0).any())
        sc.undo()
    assert grew


def test_cli_ban_and_lift_and_scenario_file(maps, tmp_path, capsys):
    """`sssp`/`matrix --ban-turn` answer the oracle's costs; a scenario file holds the same
    edit; bad specs are one line naming them."""
    import json

    from app.cli import main

    path, net, plain, rules = maps
    (f, v, t), more, base = _biting_ban(plain, rules)
    s = next(s for s in SOURCES if not np.array_equal(oracle_dist(plain, more, s), base[s]))
    want = oracle_dist(plain, more, s)
    tgt = [int(x) for x in np.flatnonzero(want != base[s])[:3]]
    ids = [int(plain.node_ids[k]) for k in tgt]
    pts, src = tmp_path / "to.csv", tmp_path / "from.csv"
    pts.write_text("node\n" + "".join(f"{i}\n" for i in ids))
    src.write_text(f"node\n{int(plain.node_ids[s])}\n")
    for index in ("off", "on"):
        out = tmp_path / f"m_{index}.csv"
        assert main(["matrix", path, "--profile", "drive", "--from", str(src), "--to",
                     str(pts), "--out", str(out), "--backend", "cpu",
                     "--ban-turn", f"{f},{v},{t}", "--index", index]) == 0
        got = out.read_text().splitlines()
        assert got[0].startswith("from,to,cost,")
        assert [int(line.split(",")[2]) for line in got[1:]] == [int(want[k]) for k in tgt], got
    sc = tmp_path / "ban.geojson"
    write_scenario(sc, [parse_turn(f"{f},{v},{t}")])
    assert read_scenario(sc)[0].turn == (f, v, t)
    assert json.loads(sc.read_text())["features"][0]["properties"] == {
        "action": "ban_turn", "turn": [f, v, t]}
    capsys.readouterr()
    common = ["matrix", path, "--profile", "drive", "--from", str(src), "--to", str(pts),
              "--out", str(tmp_path / "x.csv")]
    assert main([*common, "--ban-turn", f"{f},{v}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"--ban-turn {f},{v}" in err[0] and "FROM_WAY,VIA_NODE,TO_WAY" in err[0]
    assert main([*common, "--lift-turn", f"{f},{v},999999"]) == 2
    assert "way 999999 does not leave node" in capsys.readouterr().err


def test_scenario_numbers_network_and_graph_apart_after_a_mid_road_link(maps):
    """Added links with turn edits work (refused before); a mid-road end on a restricted
    map adds a node the graph appends but network() puts before the turn copies:
    ``network_order`` says how they differ (the app searches the graph, reads routes from
    network())."""
    from app.jobs.turn_search import renumbered
    from gpu_core.sssp import sssp

    path, net, plain, rules = maps
    (f, v, t), _, _ = _biting_ban(plain, rules)
    sc = Scenario(net, backend="cpu")
    sc.apply(Edit("ban_turn", turn=(f, v, t)))
    pt = lambda k: (float(net.lon[k]), float(net.lat[k]))  # noqa: E731
    sc.apply(Edit("add", line=(pt(0), pt(50))))
    assert sc.network_order() is None  # junction ends: one numbering
    mid = ((pt(0)[0] + pt(1)[0]) / 2, (pt(0)[1] + pt(1)[1]) / 2)
    sc.apply(Edit("add", line=(mid, pt(50))))
    order = sc.network_order()
    assert order is not None and not np.array_equal(order, np.arange(order.shape[0]))
    edited = sc.network()
    g = sc.graph.as_csr_graph()
    for s in (0, 33, edited.num_nodes - len(edited.meta["turn_copies"]) - 1):  # the new node too
        want = sssp(edited, s, backend="cpu")
        got = renumbered(sssp(g, int(order[s]), backend="cpu"), order)
        assert np.array_equal(got.dist, want.dist) and int(got.sources[0]) == s
        for x in np.flatnonzero(got.reached)[::7].tolist():
            path = got.path_to(x)  # arcs of network() at their costs
            for a, b in zip(path[:-1], path[1:], strict=False):
                row = slice(edited.indptr[a], edited.indptr[a + 1])
                w = edited.weights[row][edited.indices[row] == b]
                assert w.size and int(got.dist[b]) == int(got.dist[a]) + int(w.min())
    assert replace(Edit("ban_turn", turn=(f, v, t))).target().startswith("turn way")
