"""``signpost mst`` and ``signpost pagerank``: keys, files with the map's ids, exit 2."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from app.cli import main
from gpu_core.backend import cupy_status
from tests.conftest import FIXTURES

OSM = str(FIXTURES / "osm" / "two_islands.osm")
DIMACS = str(FIXTURES / "dimacs" / "tiny.gr")


def _load(path):
    from maps.load import load_map

    return load_map(path, use_cache=False)


@pytest.mark.parametrize("path", [OSM, DIMACS])
def test_mst_json_and_csv(path, tmp_path, capsys):
    from gpu_core.programs import minimum_spanning_forest

    out = tmp_path / "forest.csv"
    rc = main(["mst", path, "--json", "--backend", "cpu", "--no-cache", "--out", str(out)])
    assert rc == 0
    js = json.loads(capsys.readouterr().out)
    for key in ("total_weight", "edges", "components", "unit", "nodes", "backend",
                "supersteps", "time_s"):
        assert key in js
    net = _load(path)
    ref = minimum_spanning_forest(net, method="kruskal")
    assert js["total_weight"] == ref.total_weight and isinstance(js["total_weight"], int)
    assert js["edges"] == ref.num_edges and js["components"] == ref.components
    assert js["unit"] == net.unit and js["backend"] == "cpu"
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["from_id", "to_id", "weight"]
    labels = net.node_labels()
    want = [[str(labels[a]), str(labels[b]), str(w)]
            for a, b, w in zip(ref.tails, ref.heads, ref.weights, strict=True)]
    assert rows[1:] == want


def test_mst_methods_write_the_same_forest(tmp_path, capsys):
    """--method framework and direct (the default) give byte-identical CSVs."""
    outs = {}
    for method in ("framework", "direct", None):
        out = tmp_path / f"{method}.csv"
        argv = ["mst", DIMACS, "--json", "--backend", "cpu", "--no-cache", "--out", str(out)]
        assert main(argv + (["--method", method] if method else [])) == 0
        js = json.loads(capsys.readouterr().out)
        assert js["method"] == (method or "direct")
        outs[method] = out.read_text()
    assert outs["framework"] == outs["direct"] == outs[None]


def test_mst_geojson_and_summary(tmp_path, capsys):
    out = tmp_path / "forest.geojson"
    assert main(["mst", OSM, "--no-cache", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "components" in text and "wrote" in text
    fc = json.loads(out.read_text())
    net = _load(OSM)
    assert fc["type"] == "FeatureCollection" and fc["features"]
    f = fc["features"][0]
    assert f["geometry"]["type"] == "LineString" and len(f["geometry"]["coordinates"]) == 2
    assert set(f["properties"]) == {"from_id", "to_id", "weight"}
    a = net.index_of(f["properties"]["from_id"])
    assert f["geometry"]["coordinates"][0] == pytest.approx([net.lon[a], net.lat[a]], abs=1e-6)
    assert not list(tmp_path.glob(".tmp-*"))  # written through a renamed temporary file


def test_mst_bad_input_exit_2(tmp_path, capsys):
    assert main(["mst", OSM, "--out", str(tmp_path / "f.txt")]) == 2
    assert "f.txt" in capsys.readouterr().err
    bare = tmp_path / "bare.gr"  # a DIMACS graph without its .co: no coordinates
    bare.write_bytes(open(DIMACS, "rb").read())
    assert main(["mst", str(bare), "--no-cache", "--out", str(tmp_path / "f.geojson")]) == 2
    assert "coordinates" in capsys.readouterr().err
    if not cupy_status()[0]:
        assert main(["mst", OSM, "--backend", "cupy", "--no-cache"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("signpost mst: error:") and "not available" in err
    assert main(["mst", str(tmp_path / "missing.osm")]) == 2


def test_pagerank_csv_and_json(tmp_path, capsys):
    import networkx as nx

    out = tmp_path / "rank.csv"
    rc = main(["pagerank", OSM, "--out", str(out), "--json", "--backend", "cpu",
               "--no-cache", "--tol", "1e-12", "--max-iter", "5000"])
    assert rc == 0
    js = json.loads(capsys.readouterr().out)
    for key in ("iterations", "delta", "converged", "top"):
        assert key in js
    assert js["converged"] and js["top"] and set(js["top"][0]) == {"node_id", "rank"}
    net = _load(OSM)
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["node_id", "rank"] and len(rows) == net.num_nodes + 1
    assert [r[0] for r in rows[1:]] == [str(v) for v in net.node_labels().tolist()]
    rank = np.array([float(r[1]) for r in rows[1:]])
    assert all(repr(float(r[1])) == r[1] for r in rows[1:])  # full float64 precision
    assert math.fsum(rank.tolist()) == pytest.approx(1.0, abs=1e-12)
    G = nx.DiGraph()
    G.add_nodes_from(range(net.num_nodes))
    G.add_edges_from(zip(net.arc_sources().tolist(), net.indices.tolist(), strict=True))
    ref = nx.pagerank(G, weight=None, tol=1e-12, max_iter=5000)
    assert np.abs(rank - np.array([ref[i] for i in range(net.num_nodes)])).max() <= 1e-9
    best = max(range(net.num_nodes), key=lambda i: (ref[i], -i))
    assert js["top"][0]["node_id"] == int(net.node_labels()[best])


def test_pagerank_summary_line(tmp_path, capsys):
    out = tmp_path / "rank.csv"
    assert main(["pagerank", DIMACS, "--out", str(out), "--no-cache", "--max-iter", "1"]) == 0
    assert "did NOT converge" in capsys.readouterr().out


@pytest.mark.parametrize("args,named", [
    (["--damping", "1.5"], "--damping 1.5"),
    (["--damping", "0"], "--damping 0.0"),
    (["--tol", "-0.5"], "--tol -0.5"),
    (["--max-iter", "0"], "--max-iter 0"),
])
def test_pagerank_bad_numbers_exit_2(args, named, tmp_path, capsys):
    out = tmp_path / "rank.csv"
    assert main(["pagerank", OSM, "--out", str(out), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("signpost pagerank: error:") and named in err
    assert len(err.splitlines()) == 1 and not out.exists()


def test_pagerank_bad_output_exit_2(tmp_path, capsys):
    assert main(["pagerank", OSM, "--out", str(tmp_path / "r.npy")]) == 2
    assert main(["pagerank", OSM, "--out", str(tmp_path / "no" / "r.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_bench_vertex_programs_writes_csv(tmp_path, capsys):
    rc = main(["bench", "vertex-programs", "--map", "gen:random:300", "--backend", "cpu",
               "--repeats", "1", "--iterations", "5", "--out", str(tmp_path),
               "--scaling", "6:7"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "MISMATCH" not in text
    with open(tmp_path / "vertex_programs.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    got = {(r["program"], r["implementation"]) for r in rows}
    assert ("mst", "framework") in got and ("pagerank", "direct CSR (scipy)") in got
    assert ("bf", "scipy Dijkstra") in got and all(r["check"] == "ok" for r in rows)
    assert ("mst", "direct Kruskal") in got
    assert {r["graph"] for r in rows} == {"gen:random:300", "random 2^6", "random 2^7"}
    assert {int(r["arcs"]) for r in rows if r["graph"] == "random 2^7"} == {16 * 128}


def test_bench_vertex_programs_paper_graphs_and_figures(tmp_path, capsys):
    """Seed 003's graph set at toy sizes: Table 1 rows, every program on every graph,
    the mutable-graph columns, Figures 5-8 as PNG."""
    rc = main(["bench", "vertex-programs", "--backend", "cpu", "--map", "gen:grid:400",
               "--graphs", "rmat,random,wiki,revwiki", "--nodes", "256", "--arcs-per-node",
               "4", "--wiki-nodes", "600", "--wiki-arcs", "1500", "--scaling", "5:6",
               "--repeats", "1", "--iterations", "3", "--edits", "50", "--out",
               str(tmp_path)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "not available offline" in text and "MISMATCH" not in text
    with open(tmp_path / "vertex_programs.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    # Figure 8's graphs right after the road graph, so a run cut short has every figure
    names = ["gen:grid:400", "random 2^5", "random 2^6", "R-MAT", "Random",
             "WikiTalk-like R-MAT", "rev-WikiTalk-like"]
    assert list(dict.fromkeys(r["graph"] for r in rows)) == names
    for name in names:
        progs = {r["program"] for r in rows if r["graph"] == name}
        assert progs == {"mst", "pagerank", "bf"}, name
    assert all(r["check"] == "ok" and float(r["median_ms"]) >= 0 for r in rows)
    assert all(float(r["edit_batch_ms"]) >= 0 and float(r["compact_ms"]) >= 0 for r in rows)
    assert {int(r["arcs"]) for r in rows if r["graph"] == "R-MAT"} == {256 * 4}
    with open(tmp_path / "graphs.csv", newline="") as fh:
        stats = {r["graph"]: r for r in csv.DictReader(fh)}
    wiki, rev = stats["WikiTalk-like R-MAT"], stats["rev-WikiTalk-like"]
    assert (int(wiki["nodes"]), int(wiki["arcs"])) == (600, 1500)
    assert (wiki["max_out"], wiki["sd_out"]) == (rev["max_in"], rev["sd_in"])
    assert int(wiki["max_out"]) > 3 * int(wiki["max_in"])  # out-degrees skewed, as WikiTalk
    assert "stand-in" in wiki["note"] and "stand-in" in rev["note"]
    for png in ("fig5_mst.png", "fig6_bellman_ford.png", "fig7_pagerank.png",
                "fig8_scaling.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png


def test_bench_vertex_programs_bad_graph(capsys):
    assert main(["bench", "vertex-programs", "--graphs", "wikitalk", "--backend", "cpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error: --graphs: unknown graph 'wikitalk'" in err[0]


def test_bench_vertex_programs_bad_program(capsys):
    assert main(["bench", "vertex-programs", "--map", "gen:random:50", "--programs", "nope",
                 "--backend", "cpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error: unknown program 'nope'" in err[0]


def test_bench_time_cap_reuse_and_include(tmp_path, capsys):
    """--time-cap: a row past it reads 'over cap' (not a mismatch) with its time; Figure
    8's 2^k graph equal to --graphs random is measured once; --include keeps old rows."""
    first = tmp_path / "a"
    rc = main(["bench", "vertex-programs", "--backend", "cpu", "--graphs", "random",
               "--nodes", "256", "--scaling", "7:8", "--repeats", "1", "--iterations", "3",
               "--edits", "0", "--time-cap", "0.000001", "--out", str(first)])
    text = capsys.readouterr().out
    assert rc == 0 and "MISMATCH" not in text and "same graph as random 2^8" in text
    with open(first / "vertex_programs.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and all(r["check"] == "over cap" and "cap" in r["note"] for r in rows)
    same = [(r["implementation"], r["median_ms"]) for r in rows if r["graph"] == "Random"]
    assert same == [(r["implementation"], r["median_ms"]) for r in rows
                    if r["graph"] == "random 2^8"]
    second = tmp_path / "b"
    rc = main(["bench", "vertex-programs", "--backend", "cpu", "--map", "gen:grid:100",
               "--repeats", "1", "--iterations", "3", "--edits", "0", "--programs", "mst",
               "--include", str(first), "--out", str(second)])
    assert rc == 0
    with open(second / "vertex_programs.csv", newline="") as fh:
        graphs = {r["graph"] for r in csv.DictReader(fh)}
    assert graphs == {"random 2^7", "random 2^8", "Random", "gen:grid:100"}
    assert (second / "fig8_scaling.png").read_bytes()[:4] == b"\x89PNG"
    # a graph measured again replaces its included rows; --skip leaves the others as they were
    third = tmp_path / "c"
    rc = main(["bench", "vertex-programs", "--backend", "cpu", "--scaling", "7:7",
               "--graphs", "", "--map", "gen:grid:100", "--repeats", "1", "--iterations", "3",
               "--edits", "50", "--programs", "mst", "--skip", "Kruskal", "--skip", "grid",
               "--include", str(second), "--out", str(third)])
    assert rc == 0
    with open(third / "vertex_programs.csv", newline="") as fh:
        again = [r for r in csv.DictReader(fh) if r["graph"] == "random 2^7"]
    old = [r for r in rows if r["graph"] == "random 2^7"]
    assert len(again) == len(old)
    by_impl = {(r["program"], r["implementation"]): r["check"] for r in again}
    assert by_impl[("mst", "framework")] == "ok"  # measured again, with no cap
    assert by_impl[("mst", "direct Kruskal")] == "over cap"  # skipped: the included row
    assert by_impl[("pagerank", "framework")] == "over cap"  # not asked for: kept
    # the graph's edit/compact figures are those measured now, on its kept rows too
    assert {r["edit_batch_ms"] for r in again} == {again[0]["edit_batch_ms"]} != {""}
    # a graph copied from its twin (Random = random 2^7) replaces its included rows too
    fourth = tmp_path / "d"
    rc = main(["bench", "vertex-programs", "--backend", "cpu", "--scaling", "7:7",
               "--graphs", "random", "--nodes", "128", "--repeats", "1", "--iterations", "3",
               "--edits", "0", "--programs", "mst", "--include", str(third),
               "--out", str(fourth)])
    assert rc == 0
    with open(fourth / "vertex_programs.csv", newline="") as fh:
        table = list(csv.DictReader(fh))
    with open(fourth / "graphs.csv", newline="") as fh:
        stats = [r["graph"] for r in csv.DictReader(fh)]
    assert stats.count("Random") == 1 and stats.count("random 2^7") == 1

    def impls(graph):
        return sorted((r["program"], r["implementation"]) for r in table if r["graph"] == graph)
    assert impls("Random") == impls("random 2^7") and len(set(impls("Random"))) == len(
        impls("Random"))


def test_goal_lines_read_the_ne_rows():
    from app.bench.vertex_programs_goals import goal_lines

    def row(prog, impl, ms, check="ok", **kw):
        return {"graph": "NE", "kind": "road", "program": prog, "implementation": impl,
                "median_ms": ms, "check": check, "edit_batch_ms": kw.get("edits", "")}

    table = [row("mst", "framework (list)", 20.0, edits="0.8"),
             row("mst", "direct Borůvka kernels (GPU)", 2.0),
             row("mst", "scipy minimum_spanning_tree", 500.0),
             row("mst", "Medusa-style rebuilds (every round)", 900.0),
             row("pagerank", "framework (combiner)", 9.0, check="over cap"),
             row("pagerank", "direct CSR", 3.5),
             row("bf", "framework (list)", 100.0),
             row("bf", "Medusa-style (static buffers)", 150.0)]
    lines = "\n".join(goal_lines(table))
    assert "mst-direct on NE: 2.000 ms, goal <= 3 ms: met; 250x scipy" in lines
    assert "mst-framework on NE: lists 20.000 ms, goal <= 15 ms: not met" in lines
    assert "pagerank-framework on NE: combiner > 9.0 ms (over the time cap)" in lines
    assert "pagerank-direct on NE: 3.500 ms, goal <= 4 ms: met" in lines
    assert "edit-batch on NE: 0.800 ms, goal <= 1 ms: met" in lines
    assert "bellman-ford on NE: lists 100.0 ms vs static buffers 150.0 ms: lists win" in lines
    assert "boruvka on NE: lists 20.0 ms vs rebuild every round 900.0 ms: lists win" in lines
