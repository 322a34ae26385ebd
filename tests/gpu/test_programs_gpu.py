"""The CUDA vertex-program engine against the CPU engine, through the public API
(``backend="cupy"`` vs ``"cpu"``) and the engine's own entry points (list and collision
modes): integer programs bit-identical, PageRank within 1e-12; telemetry, cancel, OOM
and the CLI's ``--backend cupy``."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from gpu_core.errors import CancelledError, GpuOutOfMemoryError
from gpu_core.graph import CSRGraph
from gpu_core.programs import SUPERSTEP_DTYPE, bellman_ford, minimum_spanning_forest, pagerank
from gpu_core.programs.direct import undirected_edges
from tests.core.families import FAMILIES, FAMILY_NAMES

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu

MODES = ("list", "collision", "copy")


def _random_graph(seed: int) -> CSRGraph:
    """Sweep graphs: random sizes, density, weights (zeros and ties), loops, parallels."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    m = int(rng.integers(0, 6 * n + 1))
    wmax = int(rng.choice([1, 3, 1000]))
    t = rng.integers(0, n, m)
    h = rng.integers(0, n, m)
    return CSRGraph.from_edges(n, t, h, rng.integers(0, wmax + 1, m))


# ---- public API: cupy == cpu ---------------------------------------------------------------


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_api_bellman_ford_cupy_equals_cpu(name, make):
    g = make(seed=3)
    gpu = bellman_ford(g, 0, backend="cupy")
    assert gpu.backend == "cupy"
    np.testing.assert_array_equal(gpu.dist, bellman_ford(g, 0, backend="cpu").dist)
    assert gpu.telemetry.dtype == SUPERSTEP_DTYPE and gpu.supersteps == len(gpu.telemetry)


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_api_mst_cupy_equals_cpu(name, make):
    g = make(seed=4)
    gpu = minimum_spanning_forest(g, backend="cupy")
    cpu = minimum_spanning_forest(g, backend="cpu")
    assert gpu.backend == "cupy" and gpu.method == "framework"
    np.testing.assert_array_equal(gpu.tails, cpu.tails)
    np.testing.assert_array_equal(gpu.heads, cpu.heads)
    np.testing.assert_array_equal(gpu.weights, cpu.weights)
    assert (gpu.total_weight, gpu.components) == (cpu.total_weight, cpu.components)


@pytest.mark.parametrize("seed", range(20))
def test_api_mst_direct_method_equals_framework_and_cpu(seed):
    """method="direct" (direct Borůvka kernels) == framework == the CPU oracle."""
    g = _random_graph(seed)
    direct = minimum_spanning_forest(g, backend="cupy", method="direct")
    assert direct.backend == "cupy" and direct.method == "direct"
    for ref in (minimum_spanning_forest(g, backend="cupy", method="framework"),
                minimum_spanning_forest(g, backend="cpu", method="direct")):
        np.testing.assert_array_equal(np.c_[direct.tails, direct.heads, direct.weights],
                                      np.c_[ref.tails, ref.heads, ref.weights])
        assert (direct.total_weight, direct.components) == (ref.total_weight, ref.components)


def test_cli_mst_methods_on_cupy(tmp_path, capsys):
    from app.cli import main

    path = "tests/fixtures/dimacs/tiny.gr"
    texts = []
    for method in ("framework", "direct"):
        out = tmp_path / f"{method}.csv"
        assert main(["mst", path, "--backend", "cupy", "--method", method, "--json",
                     "--no-cache", "--out", str(out)]) == 0
        js = json.loads(capsys.readouterr().out)
        assert (js["backend"], js["method"]) == ("cupy", method)
        texts.append(out.read_text())
    assert texts[0] == texts[1]


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
@pytest.mark.parametrize("method", ("framework", "direct"))
def test_api_pagerank_cupy_equals_cpu(name, make, method):
    g = make(seed=5)
    gpu = pagerank(g, backend="cupy", method=method, tol=1e-10, max_iter=1000)
    cpu = pagerank(g, backend="cpu", method=method, tol=1e-10, max_iter=1000)
    assert gpu.backend == "cupy"
    assert (gpu.iterations, gpu.converged) == (cpu.iterations, cpu.converged)
    assert np.abs(gpu.rank - cpu.rank).max(initial=0.0) <= 1e-12


@pytest.mark.parametrize("seed", range(40))
def test_api_random_sweep(seed):
    g = _random_graph(seed)
    src = seed % g.num_nodes
    np.testing.assert_array_equal(bellman_ford(g, src, backend="cupy").dist,
                                  bellman_ford(g, src, backend="cpu").dist)
    a = minimum_spanning_forest(g, backend="cupy")
    b = minimum_spanning_forest(g, backend="cpu")
    np.testing.assert_array_equal(np.c_[a.tails, a.heads, a.weights],
                                  np.c_[b.tails, b.heads, b.weights])
    pa = pagerank(g, backend="cupy", max_iter=30)
    pb = pagerank(g, backend="cpu", max_iter=30)
    assert pa.iterations == pb.iterations
    assert np.abs(pa.rank - pb.rank).max() <= 1e-12


def test_api_auto_picks_the_gpu():
    g = FAMILIES[0][1](seed=1)
    assert bellman_ford(g, 0, backend="auto").backend == "cupy"
    assert minimum_spanning_forest(g, backend="auto").backend == "cupy"
    assert minimum_spanning_forest(g, backend="cupy", method="kruskal").backend == "cpu"


def test_api_telemetry_stream_and_cancel():
    g = FAMILIES[0][1](seed=2)
    rows = []
    res = minimum_spanning_forest(g, backend="cupy", on_superstep=rows.append)
    assert len(rows) == res.supersteps == len(res.telemetry) > 0
    assert [int(r["superstep"]) for r in rows] == list(range(res.supersteps))
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(CancelledError, match="superstep 3"):
        minimum_spanning_forest(g, backend="cupy", cancel=cancel)
    with pytest.raises(CancelledError):
        pagerank(g, backend="cupy", cancel=lambda: True)


def test_api_full_device_raises_typed_oom(monkeypatch):
    from gpu_core.device import memory

    monkeypatch.setattr(memory, "free_memory", lambda: (0, 1 << 30))
    monkeypatch.setattr(memory, "HEADROOM_BYTES", 1 << 40)
    g = FAMILIES[0][1](seed=1)
    with pytest.raises(GpuOutOfMemoryError):
        bellman_ford(g, 0, backend="cupy")


# ---- the engine's entry points: list and collision modes -----------------------------------


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
@pytest.mark.parametrize("mode", MODES)
def test_bellman_ford_modes_equal_cpu(name, make, mode):
    from gpu_core.programs.cuda_programs import bellman_ford_cuda

    g = make(seed=3)
    dist, tel, steps = bellman_ford_cuda(g, 0, mode=mode)
    np.testing.assert_array_equal(dist, bellman_ford(g, 0, backend="cpu").dist)
    assert len(tel) == steps > 0


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
@pytest.mark.parametrize("mode", MODES)
def test_boruvka_modes_equal_cpu(name, make, mode):
    from gpu_core.programs.cuda_programs import boruvka_cuda

    g = make(seed=4)
    a, b, _ = undirected_edges(g)
    keep, _, _, _ = boruvka_cuda(g.num_nodes, a, b, mode=mode)
    ref = minimum_spanning_forest(g, backend="cpu", method="kruskal")
    np.testing.assert_array_equal(a[keep], ref.tails)
    np.testing.assert_array_equal(b[keep], ref.heads)


@pytest.mark.parametrize("mode", MODES)
def test_pagerank_modes_equal_cpu(mode):
    from gpu_core.programs.cuda_programs import pagerank_cuda

    g = FAMILIES[0][1](seed=5)
    n = g.num_nodes
    pairs = np.unique(g.arc_sources().astype(np.int64) * n + g.indices)
    x, master, _, _ = pagerank_cuda(pairs // n, pairs % n, n, 0.85, 1e-10, 1000, mode=mode)
    ref = pagerank(g, backend="cpu", tol=1e-10, max_iter=1000)
    assert master.iterations == ref.iterations
    assert np.abs(x - ref.rank).max() <= 1e-12


def test_rev_skewed_in_degree_uses_random_insertion():
    """Thousands of senders to one vertex (rev-WikiTalk's shape): both modes agree."""
    from gpu_core.programs.cuda_programs import bellman_ford_cuda

    n = 20_000
    t = np.r_[np.zeros(n - 1, np.int64), np.arange(1, n)]
    h = np.r_[np.arange(1, n), np.zeros(n - 1, np.int64)]
    g = CSRGraph.from_edges(n, t, h, np.ones(t.size, np.int64))
    for mode in MODES:
        dist, _, _ = bellman_ford_cuda(g, 0, mode=mode)
        np.testing.assert_array_equal(dist, bellman_ford(g, 0, backend="cpu").dist)


# ---- CLI --backend cupy --------------------------------------------------------------------


def test_cli_mst_and_pagerank_on_cupy(tmp_path, capsys):
    from app.cli import main
    # a generated DIMACS map: the GPU machine has no osmium for OSM files
    osm = str(tmp_path / "rmat.gr")
    assert main(["generate", "rmat", "--nodes", "500", "--seed", "3", "--out", osm]) == 0
    capsys.readouterr()
    outs = {}
    for be in ("cpu", "cupy"):
        f = tmp_path / f"forest_{be}.csv"
        assert main(["mst", osm, "--json", "--backend", be, "--no-cache", "--out", str(f)]) == 0
        js = json.loads(capsys.readouterr().out)
        assert js["backend"] == be
        outs[be] = (js["total_weight"], js["edges"], js["components"], f.read_text())
    assert outs["cpu"] == outs["cupy"]
    ranks = {}
    for be in ("cpu", "cupy"):
        f = tmp_path / f"rank_{be}.csv"
        assert main(["pagerank", osm, "--out", str(f), "--backend", be, "--no-cache",
                     "--tol", "1e-12", "--max-iter", "5000"]) == 0
        capsys.readouterr()
        with open(f, newline="") as fh:
            rows = list(csv.reader(fh))
        ranks[be] = ([r[0] for r in rows], np.array([float(r[1]) for r in rows[1:]]))
    assert ranks["cpu"][0] == ranks["cupy"][0]
    assert np.abs(ranks["cpu"][1] - ranks["cupy"][1]).max() <= 1e-12


def test_bench_vertex_programs_on_cupy(tmp_path, capsys):
    from app.cli import main

    rc = main(["bench", "vertex-programs", "--map", "gen:rmat:2000", "--backend", "cupy",
               "--repeats", "1", "--iterations", "10", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0 and "MISMATCH" not in out
    with open(tmp_path / "vertex_programs.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    impls = {(r["program"], r["implementation"]) for r in rows}
    for prog in ("mst", "pagerank", "bf"):
        assert (prog, "framework (list)") in impls and (prog, "framework (collision)") in impls
    assert ("mst", "framework (copy)") in impls
    assert ("bf", "Medusa-style (static buffers)") in impls
    assert ("pagerank", "Medusa-style (static buffers)") in impls


def test_bench_vertex_programs_paper_set_on_cupy(tmp_path, capsys):
    """The full graph set at toy sizes on the GPU (what scripts/gpu_part_programs.sh runs
    at the paper's sizes): every figure's implementations, no mismatch, --cpu-rows road."""
    from app.cli import main

    rc = main(["bench", "vertex-programs", "--backend", "cupy", "--map", "gen:grid:900",
               "--graphs", "rmat,random,wiki,revwiki", "--nodes", "512", "--wiki-nodes",
               "800", "--wiki-arcs", "2000", "--scaling", "6:7", "--repeats", "1",
               "--iterations", "5", "--edits", "100", "--cpu-rows", "road", "--out",
               str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0 and "MISMATCH" not in out and "mismatches=0" in out
    with open(tmp_path / "vertex_programs.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for graph in ("gen:grid:900", "R-MAT", "rev-WikiTalk-like", "random 2^7"):
        impls = {(r["program"], r["implementation"]) for r in rows if r["graph"] == graph}
        for prog in ("mst", "pagerank", "bf"):
            assert (prog, "framework (list)") in impls and (prog, "framework (collision)") in impls
        assert {("mst", "framework (copy)"), ("mst", "direct Borůvka (GPU)"),
                ("pagerank", "direct CSR"), ("pagerank", "Medusa-style (static buffers)"),
                ("bf", "Medusa-style (static buffers)"), ("bf", "sssp(strategy='auto')")} <= impls
        assert ("mst", "Medusa-style rebuilds (every round)") in impls
        assert (("bf", "scipy Dijkstra") in impls) == (graph == "gen:grid:900")
    assert all(float(r["compact_ms"]) >= 0 for r in rows)
    for png in ("fig5_mst.png", "fig6_bellman_ford.png", "fig7_pagerank.png",
                "fig8_scaling.png"):
        assert (tmp_path / png).stat().st_size > 0


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_medusa_baseline_equals_cpu(name, make):
    from gpu_core.programs.medusa import bellman_ford_medusa_cuda, pagerank_medusa_cuda

    g = make(seed=6)
    dist, tel, build_s = bellman_ford_medusa_cuda(g, 0)
    np.testing.assert_array_equal(dist, bellman_ford(g, 0, backend="cpu").dist)
    assert len(tel) > 0 and build_s >= 0
    x, it, _, conv, _ = pagerank_medusa_cuda(g, 0.85, 1e-10, 1000)
    ref = pagerank(g, backend="cpu", tol=1e-10, max_iter=1000)
    assert (it, conv) == (ref.iterations, ref.converged)
    assert np.abs(x - ref.rank).max() <= 1e-12


# ---- combiners (the API's default on the GPU for Bellman-Ford and PageRank) ----------------


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_combiners_equal_cpu(name, make):
    """atomicMin / atomicAdd slots instead of lists: Bellman-Ford bit-identical, PageRank
    within 1e-12 with the same iterations; the telemetry counts vertices with mail."""
    from gpu_core.programs.cuda_programs import bellman_ford_cuda, pagerank_cuda

    g = make(seed=7)
    if g.num_nodes == 0:
        pytest.skip("empty graph")
    dist, tel, steps = bellman_ford_cuda(g, 0, combiner=True)
    np.testing.assert_array_equal(dist, bellman_ford(g, 0, backend="cpu").dist)
    assert len(tel) == steps and int(tel["messages"].max(initial=0)) <= g.num_nodes
    n = g.num_nodes
    pairs = np.unique(g.arc_sources().astype(np.int64) * n + g.indices)
    x, master, _, _ = pagerank_cuda(pairs // n, pairs % n, n, 0.85, 1e-10, 1000,
                                    combiner=True)
    ref = pagerank(g, backend="cpu", tol=1e-10, max_iter=1000)
    assert master.iterations == ref.iterations
    assert np.abs(x - ref.rank).max() <= 1e-12


def test_combiner_refused_in_copy_mode():
    from gpu_core.errors import InvalidArgumentError
    from gpu_core.programs.cuda_programs import bellman_ford_cuda

    with pytest.raises(InvalidArgumentError, match="copy"):
        bellman_ford_cuda(FAMILIES[0][1](seed=1), 0, mode="copy", combiner=True)


def test_bench_time_cap_marks_rows_over_cap(tmp_path, capsys):
    """A cap no run can meet: every GPU framework row stops and says so, nothing fails."""
    from app.cli import main

    rc = main(["bench", "vertex-programs", "--map", "gen:rmat:3000", "--backend", "cupy",
               "--repeats", "1", "--iterations", "50", "--time-cap", "0.00001",
               "--edits", "0", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0 and "MISMATCH" not in out
    with open(tmp_path / "vertex_programs.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    over = {(r["program"], r["implementation"]) for r in rows if r["check"] == "over cap"}
    assert ("mst", "framework (list)") in over and ("pagerank", "framework (list)") in over
    assert all("cap" in r["note"] for r in rows if r["check"] == "over cap")
    assert (tmp_path / "fig5_mst.png").stat().st_size > 0


# ---- the batched engine: device-side stop, receiver-counted mail, CUDA graphs --------------


def _telemetry(tel) -> np.ndarray:
    return np.c_[tel["superstep"], tel["active"], tel["messages"], tel["arcs"]]


@pytest.mark.parametrize("combiner", (True, False))
def test_long_runs_take_graphs_and_match_cpu(combiner):
    """Hundreds of supersteps (past GRAPH_AFTER: CUDA graph batches) on a long path with
    side branches: distances bit-identical, and the telemetry (vertices run, messages after
    combining, arcs) row for row the CPU engine's."""
    from gpu_core.programs.cuda import GRAPH_AFTER

    n = 6 * GRAPH_AFTER  # >= 2 * GRAPH_AFTER hops to the end: graphs take over
    t = np.r_[np.arange(n - 1), np.arange(0, n - 3, 3)]
    h = np.r_[np.arange(1, n), np.arange(3, n, 3)]
    rng = np.random.default_rng(11)
    g = CSRGraph.from_edges(n, t, h, rng.integers(1, 9, t.size))
    gpu = bellman_ford(g, 0, backend="cupy", combiner=combiner)
    cpu = bellman_ford(g, 0, backend="cpu", combiner=combiner)
    np.testing.assert_array_equal(gpu.dist, cpu.dist)
    assert gpu.supersteps == cpu.supersteps > 2 * GRAPH_AFTER
    np.testing.assert_array_equal(_telemetry(gpu.telemetry), _telemetry(cpu.telemetry))


@pytest.mark.parametrize("combiner", (True, False))
def test_pagerank_stop_rule_on_the_device_matches_the_master(combiner):
    """tol 0: the device stop rule ends the run at max_iter (past GRAPH_AFTER: in a CUDA
    graph batch); a loose tol: at the master's convergence step. Same iterations and
    telemetry as the CPU."""
    from gpu_core.programs.cuda import GRAPH_AFTER

    g = FAMILIES[0][1](seed=8)
    for tol, max_iter in ((0.0, 2 * GRAPH_AFTER), (1e-4, 1000)):
        gpu = pagerank(g, backend="cupy", tol=tol, max_iter=max_iter, combiner=combiner)
        cpu = pagerank(g, backend="cpu", tol=tol, max_iter=max_iter, combiner=combiner)
        assert (gpu.iterations, gpu.converged) == (cpu.iterations, cpu.converged)
        assert gpu.supersteps == cpu.supersteps
        assert np.abs(gpu.rank - cpu.rank).max() <= 1e-12
        np.testing.assert_array_equal(_telemetry(gpu.telemetry), _telemetry(cpu.telemetry))


@pytest.mark.parametrize("seed", range(6))
def test_negative_weights_mst_and_pagerank_cupy_equal_cpu(seed):
    """Issue 24: MST takes arcs of any sign (every GPU method compares ranks in the
    (w, a, b) order), PageRank ignores weights: cupy equals the CPU on signed weights."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 300))
    m = int(rng.integers(1, 5 * n))
    g = CSRGraph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m),
                            rng.integers(-1000, 1000, m))
    want = minimum_spanning_forest(g, backend="cpu", method="kruskal")
    for method in ("framework", "direct"):
        got = minimum_spanning_forest(g, backend="cupy", method=method)
        np.testing.assert_array_equal(got.tails, want.tails)
        np.testing.assert_array_equal(got.heads, want.heads)
        assert got.total_weight == want.total_weight
    for method in ("framework", "direct"):
        a = pagerank(g, backend="cupy", method=method)
        b = pagerank(g, backend="cpu", method=method)
        np.testing.assert_allclose(a.rank, b.rank, rtol=0, atol=1e-12)
