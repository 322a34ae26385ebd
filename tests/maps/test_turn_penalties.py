"""Turn penalties (issue 39, an option): node splitting against an independent oracle, a
Dijkstra over the arcs of the map (a state is the arc last driven) that adds each turn's
penalty, with and without turn bans."""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest

from gpu_core.sssp import sssp
from maps.generate import generate
from maps.model.turn_penalties import parse_penalties, with_turn_penalties
from maps.model.turns import fold
from maps.turn_bans import plain_of, random_bans, with_bans
from tests.turn_oracle import banned_sequences

PEN = {"left": 300000, "right": 40000, "u": 900000}


def _kind(net, e: int, f: int, tails, heads, choices) -> str:
    if heads[f] == tails[e]:
        return "u"
    if choices[e] < 2:
        return ""
    ax, ay = net.x[heads[e]] - net.x[tails[e]], net.y[heads[e]] - net.y[tails[e]]
    bx, by = net.x[heads[f]] - net.x[tails[f]], net.y[heads[f]] - net.y[tails[f]]
    a = math.degrees(math.atan2(ax * by - ay * bx, ax * bx + ay * by))
    return "left" if a > 45 else "right" if a < -45 else ""


def oracle(net, rules, pen: dict, source: int) -> np.ndarray:
    """Least cost from ``source`` with the turn penalties, over the map without bans."""
    tails = net.arc_sources().tolist()
    heads = net.indices.tolist()
    w = net.weights.tolist()
    out: dict[int, list[int]] = {}
    for e, u in enumerate(tails):
        out.setdefault(u, []).append(e)
    choices = [sum(1 for f in out.get(heads[e], []) if heads[f] != tails[e])
               for e in range(len(tails))]
    banned, only, _ = banned_sequences(net, rules)
    dist = np.full(net.num_nodes, -1, dtype=np.int64)
    dist[source] = 0
    best: dict[int, int] = {}
    heap = [(w[e], e) for e in out.get(source, [])]
    heapq.heapify(heap)
    while heap:
        d, e = heapq.heappop(heap)
        if e in best:
            continue
        best[e] = d
        v = heads[e]
        if dist[v] < 0 or d < dist[v]:
            dist[v] = d
        for f in out.get(v, []):
            if (e, f) in banned or ((e,) in only and f not in only[(e,)]):
                continue
            k = _kind(net, e, f, tails, heads, choices)
            if f not in best:
                heapq.heappush(heap, (d + w[f] + pen.get(k, 0), f))
    return dist


@pytest.fixture(scope="module")
def grid():
    plain = plain_of(generate("kanto", 400, seed=3))
    return plain, random_bans(plain, 0.4, 2)


@pytest.mark.parametrize("banned", [False, True])
def test_penalised_search_matches_oracle(grid, banned):
    plain, rules = grid
    rules = rules if banned else []
    net = with_turn_penalties(with_bans(plain, rules), PEN)
    assert net.meta["turn_penalty"]["node_copies"] > 0
    changed = 0
    for s in (0, 57, 211, 399):
        want = oracle(plain, rules, PEN, s)
        res = sssp(net, s, backend="cpu")
        got = fold(net, np.where(res.reached, res.dist, -1))
        assert np.array_equal(got, want), s
        changed += int((want != oracle(plain, rules, {}, s)).sum())
    assert changed > 0  # the penalties change answers


def test_zero_penalties_change_nothing(grid):
    plain, rules = grid
    base = with_bans(plain, rules)
    net = with_turn_penalties(base, {"left": 0})
    assert net.num_nodes == base.num_nodes and net.num_arcs == base.num_arcs


@pytest.mark.parametrize("text, err", [("left=-1", "0 or more"), ("up=3", "left=N"),
                                       ("left=1.5", "whole number"), ("", "left=N")])
def test_parse_refuses(text, err):
    with pytest.raises(ValueError, match=err):
        parse_penalties(text)


def test_parse():
    assert parse_penalties("left=10, right=2,u=300") == {"left": 10, "right": 2, "u": 300}


# ---- the CLI: --turn-penalty on route, sssp and matrix ------------------------------------
@pytest.fixture(scope="module")
def osm(tmp_path_factory):
    from tests.maps.test_turns import grid_osm

    p = tmp_path_factory.mktemp("pen") / "grid.osm"
    grid_osm(p, k=7, seed=4, share=0.3)
    return str(p)


def test_cli_sssp_route_matrix_with_penalties(osm, tmp_path, capsys):
    import json

    from app.cli import main
    from maps.formats.osm import load_osm

    net = load_osm(osm, profile="drive")
    pen = with_turn_penalties(net, {"left": 500, "u": 2000})
    src = f"node:{int(net.node_ids[3])}"
    res = sssp(pen, 3, backend="cpu")
    want = fold(pen, np.where(res.reached, res.dist, -1))
    free = sssp(net, 3, backend="cpu")
    base = fold(net, np.where(free.reached, free.dist, -1))
    assert (want > base).any()
    out = tmp_path / "c.npy"
    assert main(["sssp", osm, "--profile", "drive", "--source", src, "--out", str(out),
                 "--turn-penalty", "left=500,u=2000", "-q"]) == 0
    got = np.load(out)
    assert np.array_equal(got["node_id"], net.node_ids[: want.size])
    assert np.array_equal(got["cost"], want)
    capsys.readouterr()
    t = int(np.argmax(np.where(want > base, want - base, 0)))
    dst = f"node:{int(net.node_ids[t])}"
    assert main(["route", osm, "--profile", "drive", "--from", src, "--to", dst, "--json",
                 "--turn-penalty", "left=500,u=2000"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["cost"] == int(want[t]) and d["turn_penalty"]["left"] == 500
    pts = tmp_path / "p.csv"
    pts.write_text(f"id,node_id\na,{int(net.node_ids[3])}\n")
    tos = tmp_path / "t.csv"
    tos.write_text("id,node_id\n" + "".join(f"t{k},{int(net.node_ids[k])}\n"
                                             for k in range(net.num_nodes)
                                             if k < len(want) and want[k] >= 0))
    m = tmp_path / "m.npy"
    assert main(["matrix", osm, "--profile", "drive", "--from", str(pts), "--to", str(tos),
                 "--out", str(m), "--turn-penalty", "left=500,u=2000", "-q"]) == 0
    assert np.array_equal(np.load(m)[0], want[want >= 0])


def test_cli_refuses_walk_and_bad_text(osm, capsys):
    from app.cli import main

    assert main(["sssp", osm, "--profile", "walk", "--source", "node:1", "--out", "x.csv",
                 "--turn-penalty", "left=5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "drive map with coordinates" in err[0]
    assert main(["route", osm, "--from", "node:1", "--to", "node:2",
                 "--turn-penalty", "left=x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--turn-penalty 'left=x'" in err[0]


def test_penalised_map_is_not_the_cached_file(grid):
    plain, _ = grid
    plain.meta["cache_file"] = "/tmp/x.spn"
    plain.meta["node_names"] = [str(i) for i in range(plain.num_nodes)]
    try:
        net = with_turn_penalties(plain, {"left": 5})
    finally:
        del plain.meta["cache_file"], plain.meta["node_names"]
    assert "cache_file" not in net.meta  # Dask workers are shipped this map, not the file
    names = net.meta["node_names"]
    assert len(names) == net.num_nodes and names[plain.num_nodes:] == [
        str(v) for v in net.meta["turn_copies"]]
