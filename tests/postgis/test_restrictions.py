"""A pgRouting restrictions table (``pgr_trsp``'s form) as turn bans (issue 39): the costs
equal pgRouting's own ``pgr_trsp`` on the same tables, bad rows are counted by reason."""

from __future__ import annotations

import numpy as np
import pytest

from maps.formats.osm_turns import Restriction
from maps.load import load_map
from maps.model.turns import fold
from tests.postgis.conftest import sql
from tests.turn_oracle import oracle_dist

BAN = 1e9  # pgr_trsp lets a restricted path be taken at its cost: far above any route


def _bans(plain, count: int = 12):
    """[(A, B)] edge pairs at ``count`` junctions: A enters the junction, B leaves it by
    another edge; and one three-edge path [A, M, B]."""
    src = plain.edge_source_id
    tails = plain.arc_sources()
    rng = np.random.default_rng(7)
    pairs = []
    for v in rng.choice(plain.num_nodes, count * 3, replace=False).tolist():
        ins = sorted({int(src[e]) for e in np.flatnonzero(plain.indices == v)})
        outs = sorted({int(src[e]) for e in np.flatnonzero(tails == v)})
        if len(outs) >= 3 and ins:
            a = ins[0]
            pairs.append([a, next(b for b in outs if b != a), int(plain.node_ids[v])])
        if len(pairs) == count:
            break
    a, m, _ = pairs[0]
    v = next(int(plain.indices[e]) for e in np.flatnonzero(src == a)
             if np.any((src == m) & (tails == plain.indices[e])))
    w = int(plain.indices[np.flatnonzero((src == m) & (tails == v))[0]])  # m's far end
    after = [int(src[e]) for e in np.flatnonzero(tails == w) if int(src[e]) != m]
    return pairs, [a, m, after[0]]


@pytest.fixture(scope="module")
def restricted(grid_table, pg):
    uri, _ = grid_table
    plain = load_map(uri)
    pairs, three = _bans(plain)
    sql(pg, "DROP TABLE IF EXISTS grid_restr")
    sql(pg, "CREATE TABLE grid_restr (id integer, path bigint[], cost float8)")
    rows = [(i + 1, p[:2], BAN) for i, p in enumerate(pairs)] + [(50, three, BAN)]
    for r in rows:
        sql(pg, "INSERT INTO grid_restr VALUES (%s, %s, %s)", r)
    bad = [(100, [], BAN), (101, [pairs[0][0]], BAN), (103, [pairs[0][0], 99999999], BAN)]
    for r in bad:
        sql(pg, "INSERT INTO grid_restr VALUES (%s, %s, %s)", r)
    sql(pg, "INSERT INTO grid_restr VALUES (104, ARRAY[%s, NULL]::bigint[], %s)",
        (pairs[0][0], BAN))
    # two edges that never meet: the first ban's from-edge and one far from it
    tails = plain.arc_sources()
    ends = {int(tails[e]) for e in np.flatnonzero(plain.edge_source_id == pairs[0][0])}
    ends |= {int(plain.indices[e]) for e in np.flatnonzero(plain.edge_source_id == pairs[0][0])}
    far = next(int(plain.edge_source_id[e]) for e in range(plain.num_arcs)
               if int(tails[e]) not in ends and int(plain.indices[e]) not in ends)
    sql(pg, "INSERT INTO grid_restr VALUES (102, %s, %s)", ([pairs[0][0], far], BAN))
    rules = [Restriction(i + 1, "no", "no_turn", (a,), (b,), via_node=v)
             for i, (a, b, v) in enumerate(pairs)]
    rules.append(Restriction(50, "no", "no_turn", (three[0],), (three[2],),
                             via_ways=(three[1],)))
    return uri, plain, load_map(uri + "&restrictions=grid_restr"), pairs, rules


def test_bad_rows_counted_by_reason(restricted):
    _, _, net, pairs, _ = restricted
    tr = net.meta["turn_restrictions"]
    by = tr["skipped_by_reason"]
    assert tr["table"] == "grid_restr" and tr["read"] == len(pairs) + 1 + 5
    for reason in ("empty_path", "one_edge", "edge_not_in_map", "null_edge",
                   "edges_do_not_meet"):
        assert by.get(reason) == 1, (reason, by)
    assert tr["applied"] == len(pairs) + 1 and tr["node_copies"] > 0, (by, tr["skipped_ids"])


def test_costs_equal_the_oracle_and_pgr_trsp(restricted, pg):
    """Every cost is the turn-expanded oracle's (rows written by hand as restrictions); and
    pgr_trsp's wherever it agrees on u-turns: its routes never turn back on an edge, ours
    may (a u-turn is legal unless banned, as OSRM has it), so ours are never dearer."""
    from gpu_core.sssp import sssp

    uri, plain, net, pairs, rules = restricted
    edges = "SELECT id, source, target, cost, reverse_cost FROM grid_utm"
    restr = "SELECT id, path, cost FROM grid_restr WHERE id < 100"
    changed = same = total = 0
    ids = plain.node_ids
    src, tails = plain.edge_source_id, plain.arc_sources()
    ends = lambda e: {int(ids[x]) for k in np.flatnonzero(src == e)  # noqa: E731
                      for x in (tails[k], plain.indices[k])}
    near = sorted({x for a, b, _ in pairs for x in ends(a) | ends(b)})
    for s in (int(ids[0]), *sorted(ends(pairs[0][0]))[:1], *sorted(ends(pairs[1][0]))[:1]):
        res = sssp(net, net.index_of(s), backend="cpu")
        got = fold(net, np.where(res.reached, res.dist, -1))
        assert np.array_equal(got, oracle_dist(plain, rules, plain.index_of(s)))
        targets = sorted({int(t) for t in ids[::15].tolist()} | set(near) - {s})
        rows = sql(pg, "SELECT end_vid, agg_cost FROM pgr_trsp(%s, %s, %s, %s::bigint[], true) "
                   "WHERE edge = -1", (edges, restr, s, targets))
        want = {int(v): c for v, c in rows if c < BAN}
        free = sssp(plain, plain.index_of(s), backend="cpu")
        for t, c in want.items():
            assert got[net.index_of(t)] <= c, (s, t)
            same += int(got[net.index_of(t)] == c)
            changed += int(free.dist[plain.index_of(t)] != got[net.index_of(t)])
        total += len(want)
        assert len(want) > 0.9 * len(targets)
    assert changed > 0  # the bans change some route (the test has teeth)
    assert same > 0.9 * total


def test_info_reports_the_table(restricted, capsys):
    import json

    from app.cli import main

    uri, _, net, pairs, _ = restricted
    assert main(["info", uri + "&restrictions=grid_restr", "--json"]) == 0
    tr = json.loads(capsys.readouterr().out)["turn_restrictions"]
    assert tr["applied"] == len(pairs) + 1 and tr["skipped"] == 5
    assert main(["info", uri + "&restrictions=grid_restr"]) == 0
    assert "restrictions read, 13 applied, 5 skipped" in capsys.readouterr().out


def test_restrictions_and_contract_refused(restricted):
    from maps.errors import MapError

    uri = restricted[0]
    with pytest.raises(MapError, match="--contract does not combine"):
        load_map(uri + "&restrictions=grid_restr", contract=True)
    with pytest.raises(MapError, match="restrictions table nope"):
        load_map(uri + "&restrictions=nope")
