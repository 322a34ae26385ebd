"""OSM turn restrictions (issue 39): reading, node splitting, and every search against an
independent turn-aware oracle (tests/turn_oracle.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from maps.formats.osm import load_osm
from maps.formats.osm_turns import read_restrictions
from maps.model.turns import fold
from tests.turn_oracle import detour_pair, oracle_dist

SHARED = "/work/shared/maps"
VALUES = ("no_left_turn", "no_right_turn", "no_straight_on", "only_straight_on",
          "only_right_turn", "no_u_turn")


def grid_osm(path, k: int = 9, seed: int = 3, share: float = 0.5) -> None:
    """A k×k street grid (each block edge its own two-way way, a few one-way), turn
    restrictions at ``share`` of its junctions (via node), some via a way, and broken or
    conditional relations of every kind the reader counts."""
    rng = np.random.default_rng(seed)
    nid = lambda i, j: 1 + i * k + j  # noqa: E731
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<osm version="0.6">']
    for i in range(k):
        for j in range(k):
            lat = 35.0 + i * 0.001 + rng.uniform(-2e-4, 2e-4)
            lon = 139.0 + j * 0.001 + rng.uniform(-2e-4, 2e-4)
            lines.append(f'<node id="{nid(i, j)}" lat="{lat:.7f}" lon="{lon:.7f}"/>')
    ways: dict[int, tuple[int, int]] = {}
    at: dict[int, list[int]] = {}
    wid = 1000
    for i in range(k):
        for j in range(k):
            for di, dj in ((0, 1), (1, 0)):
                if i + di < k and j + dj < k:
                    a, b = nid(i, j), nid(i + di, j + dj)
                    ways[wid] = (a, b)
                    at.setdefault(a, []).append(wid)
                    at.setdefault(b, []).append(wid)
                    one = '<tag k="oneway" v="yes"/>' if rng.random() < 0.1 else ""
                    lines.append(f'<way id="{wid}"><nd ref="{a}"/><nd ref="{b}"/>'
                                 f'<tag k="highway" v="residential"/>{one}</way>')
                    wid += 1
    rid = 1
    rels = []

    def rel(tags: dict, members: list[tuple[str, int, str]]) -> None:
        nonlocal rid
        m = "".join(f'<member type="{t}" ref="{r}" role="{ro}"/>' for t, r, ro in members)
        tg = "".join(f'<tag k="{a}" v="{b}"/>' for a, b in {"type": "restriction", **tags}.items())
        rels.append(f'<relation id="{rid}">{m}{tg}</relation>')
        rid += 1

    for v, ws in at.items():
        if len(ws) < 3 or rng.random() > share:
            continue
        f = int(rng.choice(ws))
        value = str(rng.choice(VALUES))
        t = f if value == "no_u_turn" else int(rng.choice([w for w in ws if w != f]))
        rel({"restriction": value}, [("way", f, "from"), ("node", v, "via"), ("way", t, "to")])
    for w, (a, b) in list(ways.items())[:: max(1, len(ways) // 12)]:  # via-way restrictions
        fa = [x for x in at[a] if x != w]
        tb = [x for x in at[b] if x != w]
        if fa and tb:
            value = "no_left_turn" if rng.random() < 0.7 else "only_straight_on"
            rel({"restriction": value}, [("way", fa[0], "from"), ("way", w, "via"),
                                         ("way", tb[-1], "to")])
    corner = nid(0, 0)
    far = [w for w, (a, b) in ways.items() if corner not in (a, b)][0]
    rel({"restriction": "no_left_turn"}, [("way", far, "from"), ("node", corner, "via"),
                                          ("way", at[corner][0], "to")])  # from not at via
    rel({"restriction": "no_left_turn"}, [("way", 999999, "from"), ("node", 999999, "via"),
                                          ("way", at[corner][0], "to")])  # outside the extract
    rel({"restriction:conditional": "no_left_turn @ (Mo-Fr 07:00-09:00)"},
        [("way", at[corner][0], "from"), ("node", corner, "via"), ("way", at[corner][1], "to")])
    rel({"restriction": "no_left_turn", "except": "motorcar"},
        [("way", at[corner][0], "from"), ("node", corner, "via"), ("way", at[corner][1], "to")])
    rel({"restriction:hgv": "no_left_turn"},
        [("way", at[corner][0], "from"), ("node", corner, "via"), ("way", at[corner][1], "to")])
    rel({"restriction": "no_left_turn"}, [("way", at[corner][0], "from"),
                                          ("node", corner, "via")])  # no to
    lines += rels + ["</osm>"]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    p = tmp_path_factory.mktemp("turns") / "grid.osm"
    grid_osm(p)
    return str(p)


def _check(path: str, sources, strategies=("auto",), index=None) -> None:
    from gpu_core.sssp import sssp

    net = load_osm(path, profile="drive")
    plain = load_osm(path, profile="drive", turn_restrictions=False)
    rules = read_restrictions(path).restrictions
    assert net.meta["turn_restrictions"]["applied"] > 0
    for s in sources:
        want = oracle_dist(plain, rules, s)
        for strat in strategies:
            kw = {} if index is None else {"index": index(net)}
            res = sssp(net, s, strategy=strat, backend="cpu", **kw)
            got = fold(net, np.where(res.reached, res.dist, -1))
            assert np.array_equal(got, want), (path, s, strat)


def test_broken_and_conditional_counts(grid):
    tr = load_osm(grid, profile="drive").meta["turn_restrictions"]
    by = tr["skipped_by_reason"]
    assert tr["conditional"] == 1 and by["conditional_only"] == 1
    assert by["excepted"] == 1 and by["other_mode"] == 1 and by["missing_from_or_to"] == 1
    assert by["from_way_not_at_via"] >= 1 and by["via_outside_map"] == 1  # one-way from-ways too
    assert tr["read"] == tr["applied"] + tr["skipped"]


def test_walk_ignores_restrictions(grid):
    net = load_osm(grid, profile="walk")
    assert "turn_restrictions" not in net.meta and "turn_copies" not in net.meta


def test_grid_every_strategy_matches_oracle(grid):
    from gpu_core.sssp import STRATEGIES

    _check(grid, [0, 17, 40, 80], strategies=tuple(s for s in STRATEGIES if s != "auto"))


def test_grid_contracted_matches_oracle(grid):
    """--contract keeps the restricted ways' nodes, so costs between kept nodes stay legal."""
    from gpu_core.sssp import sssp

    net = load_osm(grid, profile="drive", contract=True)
    plain = load_osm(grid, profile="drive", turn_restrictions=False)
    rules = read_restrictions(grid).restrictions
    assert net.meta["turn_restrictions"]["applied"] > 0
    n0 = net.num_nodes - len(net.meta["turn_copies"])
    at = [plain.index_of(int(i)) for i in net.node_ids[:n0].tolist()]
    for s in (0, n0 // 2):
        want = oracle_dist(plain, rules, plain.index_of(int(net.node_ids[s])))
        res = sssp(net, s, backend="cpu")
        assert np.array_equal(fold(net, np.where(res.reached, res.dist, -1)), want[at])


def test_unrestricted_search_breaks_a_ban(grid):
    """The oracle differs from a plain search: the test above would fail without splitting."""
    from gpu_core.sssp import sssp

    plain = load_osm(grid, profile="drive", turn_restrictions=False)
    rules = read_restrictions(grid).restrictions
    differs = 0
    for s in (0, 17, 40, 80):
        res = sssp(plain, s, backend="cpu")
        differs += int((np.where(res.reached, res.dist, -1) != oracle_dist(plain, rules, s)).sum())
    assert differs > 0


@pytest.mark.parametrize("name", ["andorra", "liechtenstein"])
def test_extract_matches_oracle(name):
    path = f"{SHARED}/{name}.osm.pbf"
    if not os.path.exists(path):
        pytest.skip(f"{path} not here")
    net = load_osm(path, profile="drive")
    n0 = net.num_nodes - len(net.meta["turn_copies"])
    rng = np.random.default_rng(1)
    _check(path, rng.integers(0, n0, 3).tolist())


def test_route_json_names_a_detour(grid, capsys):
    """`route --json` on a pair whose legal cost exceeds the plain one: the oracle's cost,
    and turn_restrictions says it detours (cost_without: the plain cost)."""
    import json

    from app.cli import main

    plain = load_osm(grid, profile="drive", turn_restrictions=False)
    rules = read_restrictions(grid).restrictions
    s, t, want, free = detour_pair(plain, rules, (0, 17, 40, 80))
    a, b = (f"node:{int(plain.node_ids[k])}" for k in (s, t))
    assert main(["route", grid, "--from", a, "--to", b, "--profile", "drive", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["cost"] == int(want[t]) and d["node_ids"][-1] == int(plain.node_ids[t])
    tr = d["turn_restrictions"]
    assert tr["detour"] and tr["cost_without"] == int(free.dist[t])


@pytest.mark.parametrize("variant,index", [("auto", "off"), ("one_at_a_time", "off"),
                                           ("batched", "off"), ("phast", "on")])
def test_matrix_folds_copies_and_matches_oracle(grid, variant, index):
    """Every many-source variant and the route index (phast), whole and streamed."""
    from app.jobs import matrix

    net = load_osm(grid, profile="drive")
    plain = load_osm(grid, profile="drive", turn_restrictions=False)
    rules = read_restrictions(grid).restrictions
    src, n0 = [0, 17, 40, 80], plain.num_nodes
    want = np.stack([oracle_dist(plain, rules, s) for s in src])
    opts = matrix.MatrixOptions(tuple(src), tuple(range(n0)), backend="cpu", variant=variant,
                                index=index)
    got = matrix.run(net, opts).matrix
    assert np.array_equal(got, want)
    rows = np.concatenate([b for _, b in matrix.iter_rows(net, opts)])
    assert np.array_equal(rows, want)


def test_route_index_sssp_matches_oracle(grid):
    from app.jobs.index import key_hierarchy_for

    _check(grid, [0, 40], index=lambda net: key_hierarchy_for(net, policy="on")[0])


def test_cache_keeps_the_copies(grid, tmp_path, monkeypatch):
    from maps.load import load_map
    from maps.model.turns import copies_of

    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    a = load_map(grid, profile="drive")
    b = load_map(grid, profile="drive")
    assert b.meta.get("cache_hit") and np.array_equal(copies_of(a), copies_of(b))
    assert b.meta["turn_restrictions"]["applied"] == a.meta["turn_restrictions"]["applied"]


def test_networkx_export_is_the_files_graph_and_says_so(grid):
    net = load_osm(grid, profile="drive")
    plain = load_osm(grid, profile="drive", turn_restrictions=False)
    G = net.to_networkx()
    assert G.number_of_nodes() == plain.num_nodes and G.number_of_edges() == plain.num_arcs
    tr = G.graph["turn_restrictions"]
    assert tr["in_graph"] is False and tr["applied"] == net.meta["turn_restrictions"]["applied"]


def test_closing_a_road_closes_its_copies_too(grid, capsys):
    """--close nodes:A,B on a restricted map: the turn copies' arcs A→B close as well, so
    the route equals the oracle on the plain map without A↔B."""
    import json

    from app.cli import main

    net = load_osm(grid, profile="drive")
    plain = load_osm(grid, profile="drive", turn_restrictions=False)
    rules = read_restrictions(grid).restrictions
    copies = np.asarray(net.meta["turn_copies"])
    n0 = plain.num_nodes
    # an arc out of a restricted junction that its copies duplicate
    a = int(copies[0])
    lo = int(net.indptr[n0])  # the first arc of the first copy
    b = int(to_orig(net, net.indices[lo]))
    keep = ~(((plain.arc_sources() == a) & (plain.indices == b))
             | ((plain.arc_sources() == b) & (plain.indices == a)))
    cut = _without_arcs(plain, keep)
    ida, idb = int(plain.node_ids[a]), int(plain.node_ids[b])
    for s in (0, 40, 80):
        want = oracle_dist(cut, rules, s)
        t = int(np.argmax(want))
        main(["route", grid, "--from", f"node:{int(plain.node_ids[s])}", "--to",
              f"node:{int(plain.node_ids[t])}", "--profile", "drive", "--json",
              "--close", f"nodes:{ida},{idb}"])
        d = json.loads(capsys.readouterr().out)
        assert d["cost"] == int(want[t]) and d["edits"] >= 2


def to_orig(net, v):
    from maps.model.turns import to_original

    return to_original(net, [v])[0]


def _without_arcs(net, keep):
    from dataclasses import replace

    counts = np.bincount(net.arc_sources()[keep], minlength=net.num_nodes)
    indptr = np.r_[0, np.cumsum(counts)].astype(np.int32)
    return replace(net, indptr=indptr, indices=net.indices[keep], weights=net.weights[keep],
                   edge_kind=net.edge_kind[keep], edge_class=net.edge_class[keep],
                   edge_length=net.edge_length[keep], edge_source_id=net.edge_source_id[keep],
                   geom_indptr=None, geom_xy=None, _id_index=None)


def test_snapped_points_are_file_nodes(grid):
    """A LON,LAT point at a restricted junction snaps to the file's node, never to a turn
    copy (a search from a copy could leave only the way its approach allows)."""
    from app.jobs.maps import resolve_texts

    net = load_osm(grid, profile="drive")
    n0 = net.num_nodes - len(net.meta["turn_copies"])
    arcs = np.flatnonzero(net.arc_sources() >= n0)[:40]  # arcs leaving copies
    texts = []
    for a in arcs.tolist():  # a point a third of the way along each
        u, v = int(net.arc_sources()[a]), int(net.indices[a])
        texts.append(f"{net.lon[u] * 0.9 + net.lon[v] * 0.1:.7f},"
                     f"{net.lat[u] * 0.9 + net.lat[v] * 0.1:.7f}")
    got = [p.node for p in resolve_texts(net, *texts)]
    assert max(got) < n0


def test_info_reports_read_applied_skipped(grid, capsys):
    import json

    from app.cli import main

    assert main(["info", grid, "--profile", "drive", "--json"]) == 0
    tr = json.loads(capsys.readouterr().out)["turn_restrictions"]
    assert tr["read"] == tr["applied"] + tr["skipped"] and tr["conditional"] == 1
    assert tr["skipped_by_reason"]["via_outside_map"] == 1
    assert main(["-v", "info", grid, "--profile", "drive"]) == 0
    out = capsys.readouterr().out
    assert "restrictions read" in out and "skipped (via_outside_map): r55" in out
    assert main(["info", grid, "--profile", "walk", "--json"]) == 0
    assert "turn_restrictions" not in json.loads(capsys.readouterr().out)
