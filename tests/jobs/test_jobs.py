"""The Qt-free jobs (app/jobs) give the numbers the CLI prints and the oracles agree with."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

from app.cli import main
from app.jobs import billboards, matrix, route, sssp
from app.jobs.maps import open_map, profile_for, resolve_texts
from maps.errors import UnreachableError
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")
SMALL_OSM = str(FIXTURES / "osm" / "small.osm")


@pytest.fixture(scope="module")
def tiny():
    return open_map(TINY, use_cache=False)


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    from maps.generate import generate
    from maps.outputs.dimacs import write_dimacs

    path = tmp_path_factory.mktemp("jobs") / "g.gr"
    write_dimacs(generate("grid", n=100, seed=3), str(path))
    return str(path), open_map(str(path), use_cache=False)


def test_route_job_is_the_cli_json(tiny, capsys):
    res = route.run(tiny, route.RouteOptions("node:1", "node:3", backend="cpu", map_path=TINY))
    assert main(["route", TINY, "--from", "node:1", "--to", "node:3", "--json",
                 "--backend", "cpu", "--no-cache"]) == 0
    cli = json.loads(capsys.readouterr().out)
    ours = dict(res.json)
    for d in (cli, ours):
        d.pop("search_ms")
    assert set(cli.pop("timings")) == {"load_s", "warmup_s", "search_s", "compile_s"}  # the CLI's own
    assert ours == cli
    ref = dijkstra(tiny.to_scipy(), indices=res.source.node)
    assert res.route.cost == int(ref[res.target.node]) == cli["cost"]
    assert int(tiny.weights[res.route.arcs].sum()) == res.route.cost


def test_route_read_back_from_a_search_matches_path_nodes(grid):
    _, net = grid
    res = sssp.run(net, sssp.SsspJobOptions(0, backend="cpu"))
    for t in (7, 55, 99):
        r = route.read_route(net, res, 0, t)
        assert list(r.nodes) == list(res.path_to(t))
        assert r.cost == int(res.dist[t]) == int(net.weights[r.arcs].sum())
        assert r.nodes[0] == 0 and r.nodes[-1] == t


def test_unreachable_route_says_why():
    net = open_map(str(FIXTURES / "osm" / "two_islands.osm"), use_cache=False)
    _, label = net.components()
    a, b = 0, int(np.flatnonzero(label != label[0])[0])
    ids = net.node_ids
    with pytest.raises(UnreachableError, match="different components"):
        route.run(net, route.RouteOptions(f"node:{ids[a]}", f"node:{ids[b]}", backend="cpu"))


def test_sssp_job_matches_scipy_and_the_cli(grid, tmp_path, capsys):
    path, net = grid
    res = sssp.run(net, sssp.SsspJobOptions(5, strategy="adaptive", backend="cpu"))
    ref = dijkstra(net.to_scipy(), indices=5)
    np.testing.assert_array_equal(res.dist, np.where(np.isinf(ref), -1, ref).astype(np.int64))
    out = tmp_path / "s.npy"
    assert main(["sssp", path, "--source", f"node:{net.node_ids[5]}", "--out", str(out),
                 "--backend", "cpu", "--strategy", "adaptive", "--no-cache"]) == 0
    capsys.readouterr()
    np.testing.assert_array_equal(np.load(out)["cost"], res.dist)


def test_sssp_compare_runs_every_strategy(grid):
    _, net = grid
    started = []
    runs = sssp.compare(net, sssp.SsspJobOptions(0, backend="cpu"), on_start=started.append)
    assert tuple(started) == sssp.COMPARE_STRATEGIES == tuple(runs)
    first = runs[sssp.COMPARE_STRATEGIES[0]].dist
    assert all(np.array_equal(r.dist, first) for r in runs.values())


def test_matrix_job_whole_and_streamed_match_the_cli(grid, tmp_path, capsys):
    path, net = grid
    src, dst = (0, 17, 42, 99), (3, 64)
    opts = matrix.MatrixOptions(src, dst, backend="cpu", chunk=2)
    whole = matrix.run(net, opts).matrix
    streamed = np.concatenate([block for _, block in matrix.iter_rows(net, opts)])
    np.testing.assert_array_equal(whole, streamed)
    ref = dijkstra(net.to_scipy(), indices=list(src))[:, list(dst)]
    np.testing.assert_array_equal(whole, ref.astype(np.int64))
    ids = net.node_ids
    (tmp_path / "a.csv").write_text("node\n" + "".join(f"{ids[v]}\n" for v in src))
    (tmp_path / "b.csv").write_text("node\n" + "".join(f"{ids[v]}\n" for v in dst))
    assert main(["matrix", path, "--from", str(tmp_path / "a.csv"), "--to", str(tmp_path / "b.csv"),
                 "--out", str(tmp_path / "m.npy"), "--backend", "cpu", "--no-cache"]) == 0
    capsys.readouterr()
    np.testing.assert_array_equal(np.load(tmp_path / "m.npy"), whole)


def test_billboards_job_matches_the_cli(grid, capsys):
    path, net = grid
    progress = []
    done = billboards.run(net, billboards.BillboardsOptions(3, mode="weighted", backend="cpu",
                                                           method="exact"),
                          progress=lambda f, m: progress.append((f, m)))
    assert main(["billboards", path, "-k", "3", "--json", "--backend", "cpu", "--method",
                 "exact", "--quiet", "--no-cache"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["sites"] == billboards.site_ids(net, done.billboards.sites)
    assert cli["group_betweenness"] == pytest.approx(list(done.billboards.group_betweenness))
    assert progress and all(m.startswith("round ") for _, m in progress)


def test_candidate_masks():
    net = open_map(SMALL_OSM, profile="walk", use_cache=False)
    assert billboards.candidate_mask(net, "all") is None
    road = billboards.candidate_mask(net, "road")
    no_rail = billboards.candidate_mask(net, "no-rail")
    assert road.dtype == bool and road.shape == (net.num_nodes,) and road.any()
    assert no_rail.shape == (net.num_nodes,)


def test_map_helpers(tiny):
    assert profile_for(TINY, "walk") is None  # DIMACS weights come from the file
    assert profile_for(SMALL_OSM, "walk") == "walk"
    a, b = resolve_texts(tiny, "node:1", "node:3")
    assert (a.node_id, b.node_id) == (1, 3) and a.snap is None
