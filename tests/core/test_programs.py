"""Vertex programs (seed 003) on the CPU engine against independent oracles: a plain
Kruskal under the tie rule, scipy's MST and Dijkstra, networkx.pagerank.
(Over 500 lines: one oracle per program, shared graph families.)"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from numba import njit

from gpu_core.errors import BackendUnavailableError, CancelledError, InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.programs import (
    SUPERSTEP_DTYPE,
    PoolExhaustedError,
    bellman_ford,
    minimum_spanning_forest,
    pagerank,
)
from gpu_core.programs.cpu import (
    CpuProgram,
    Engine,
    add_arc,
    delete_arc,
    no_combine,
    run_vertices,
    send,
)
from gpu_core.sssp import sssp
from tests.core.families import FAMILIES, FAMILY_NAMES

SAMPLE = "maps/samples/helsinki.osm.pbf"


def random_multigraph(seed: int, n: int = 40, m: int = 120, wmax: int = 9,
                      isolated: int = 3) -> CSRGraph:
    """Zero weights, parallel arcs, self-loops, dead ends and `isolated` arc-less nodes."""
    r = np.random.default_rng(seed)
    k = n - isolated
    t = r.integers(0, k, m)
    h = r.integers(0, k, m)
    t = np.r_[t, t[:10]]  # parallel arcs, other weights
    h = np.r_[h, h[:10]]
    t = np.r_[t, [0, 1]]  # self-loops
    h = np.r_[h, [0, 1]]
    return CSRGraph.from_edges(n, t, h, r.integers(0, wmax + 1, t.size))


def undirected_min(g: CSRGraph) -> dict[tuple[int, int], int]:
    """{(a, b) a < b: the lightest arc between a and b either way}, self-loops dropped."""
    best: dict[tuple[int, int], int] = {}
    for u, v, w in zip(g.arc_sources().tolist(), g.indices.tolist(), g.weights.tolist(),
                       strict=True):
        if u != v:
            key = (min(u, v), max(u, v))
            best[key] = min(w, best.get(key, w))
    return best


def kruskal_oracle(g: CSRGraph) -> tuple[list[tuple[int, int, int]], int]:
    """(edges (a, b, w) a < b in Kruskal order, components): plain Python."""
    best = undirected_min(g)
    parent = list(range(g.num_nodes))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    out = []
    for (a, b), w in sorted(best.items(), key=lambda kv: (kv[1], kv[0][0], kv[0][1])):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
            out.append((a, b, w))
    return out, g.num_nodes - len(out)


def as_edges(res) -> list[tuple[int, int, int]]:
    return list(zip(res.tails.tolist(), res.heads.tolist(), res.weights.tolist(), strict=True))


def nx_pagerank(g: CSRGraph, **kw) -> np.ndarray:
    G = nx.DiGraph()
    G.add_nodes_from(range(g.num_nodes))
    G.add_edges_from(zip(g.arc_sources().tolist(), g.indices.tolist(), strict=True))
    ref = nx.pagerank(G, weight=None, **kw)
    return np.array([ref[i] for i in range(g.num_nodes)])


# ---- minimum spanning forest ---------------------------------------------------------------


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_mst_edge_set_is_kruskals(name, make):
    g = make(seed=2)
    edges, comps = kruskal_oracle(g)
    for method in ("framework", "direct", "kruskal", "boruvka"):  # boruvka: old name
        res = minimum_spanning_forest(g, backend="cpu", method=method)
        assert as_edges(res) == edges, method
        assert res.components == comps
        assert res.total_weight == sum(w for _, _, w in edges)


@pytest.mark.parametrize("seed", range(4))
def test_mst_multigraph_zero_weights_and_isolated_nodes(seed):
    g = random_multigraph(seed)
    edges, comps = kruskal_oracle(g)
    res = minimum_spanning_forest(g, backend="cpu")
    assert as_edges(res) == edges
    assert res.components == comps >= 3  # the isolated nodes are components too
    assert res.rounds >= 1 and res.supersteps == len(res.telemetry)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_mst_without_arcs(n):
    g = CSRGraph.from_edges(n, [], [], [])
    res = minimum_spanning_forest(g, backend="cpu")
    assert res.num_edges == 0 and res.total_weight == 0 and res.components == n


def _scipy_mst_total(g: CSRGraph) -> int:
    import scipy.sparse as sp
    from scipy.sparse.csgraph import minimum_spanning_tree

    best = undirected_min(g)
    a = np.array([k[0] for k in best], dtype=np.int64)
    b = np.array([k[1] for k in best], dtype=np.int64)
    w = np.array(list(best.values()), dtype=np.float64)
    m = sp.csr_array((w, (a, b)), shape=(g.num_nodes, g.num_nodes))
    return int(round(minimum_spanning_tree(m).sum()))


@pytest.mark.parametrize("name", ["random_sparse", "rmat", "grid_road", "disconnected",
                                  "duplicate_arcs", "heavy_weights"])
def test_mst_total_matches_scipy(name):
    from tests.core.families import make_graph

    g = make_graph(name, seed=5)
    assert g.weights.min() > 0  # scipy drops zero-weight edges
    assert minimum_spanning_forest(g, backend="cpu").total_weight == _scipy_mst_total(g)


@pytest.fixture(scope="module")
def sample_map():
    from maps.load import load_map

    return load_map(SAMPLE, use_cache=False)


def test_mst_on_sample_map(sample_map):
    from scipy.sparse.csgraph import connected_components

    net = sample_map
    g = CSRGraph.from_any(net)
    res = minimum_spanning_forest(net, backend="cpu")
    ref = minimum_spanning_forest(net, method="kruskal")
    assert as_edges(res) == as_edges(ref)
    assert res.total_weight == _scipy_mst_total(g)
    count, _ = connected_components(net.to_scipy(), directed=False)
    assert res.components == count
    # the topology-changing program: arcs shrink to nothing as supervertices merge
    arcs = res.telemetry["arcs"]
    assert arcs[-1] == 0 and arcs.max() <= 2 * (res.num_edges + res.components + g.num_arcs)


# ---- PageRank --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_pagerank_matches_networkx(seed):
    g = random_multigraph(seed, n=50, m=130)
    ref = nx_pagerank(g, tol=1e-12, max_iter=10_000)
    for combiner in (True, False):
        res = pagerank(g, backend="cpu", tol=1e-12, max_iter=10_000, combiner=combiner)
        assert res.converged
        assert np.abs(res.rank - ref).max() <= 1e-9
        assert abs(res.rank.sum() - 1.0) < 1e-12
    direct = pagerank(g, backend="cpu", tol=1e-12, max_iter=10_000, method="direct")
    assert np.abs(direct.rank - ref).max() <= 1e-9


@pytest.mark.parametrize("name", ["rmat", "single_node", "single_node_loop", "self_loops",
                                  "isolated_source"])
def test_pagerank_families(name):
    from tests.core.families import make_graph

    g = make_graph(name, seed=1)
    res = pagerank(g, backend="cpu", tol=1e-12, max_iter=10_000)
    assert np.abs(res.rank - nx_pagerank(g, tol=1e-12, max_iter=10_000)).max() <= 1e-9


def test_pagerank_sample_map_and_default_stop(sample_map):
    g = CSRGraph.from_any(sample_map)
    res = pagerank(sample_map, backend="cpu", tol=1e-12, max_iter=10_000)
    assert np.abs(res.rank - nx_pagerank(g, tol=1e-12, max_iter=10_000)).max() <= 1e-9
    dflt = pagerank(sample_map, backend="cpu")  # networkx's defaults stop at the same step
    ref = nx_pagerank(g)
    assert dflt.converged and dflt.delta < 1e-6 * g.num_nodes
    assert np.abs(dflt.rank - ref).max() <= 1e-12
    assert dflt.supersteps == dflt.iterations + 1


def test_pagerank_not_converged_is_reported():
    g = random_multigraph(1)
    res = pagerank(g, backend="cpu", tol=0.0, max_iter=3)
    assert not res.converged and res.iterations == 3 and res.delta > 0
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx_pagerank(g, tol=0.0, max_iter=3)


@pytest.mark.parametrize("kw,text", [
    ({"damping": 0.0}, "0.0"), ({"damping": 1.0}, "1.0"), ({"damping": 1.5}, "1.5"),
    ({"damping": float("nan")}, "nan"), ({"tol": -1e-3}, "-0.001"), ({"max_iter": 0}, "0"),
])
def test_pagerank_validation(kw, text):
    with pytest.raises(InvalidArgumentError, match=text):
        pagerank(random_multigraph(0), backend="cpu", **kw)


# ---- Bellman-Ford ------------------------------------------------------------------------------


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_bellman_ford_equals_sssp_and_dijkstra(name, make):
    from scipy.sparse.csgraph import dijkstra

    g = make(seed=3)
    ref = sssp(g, 0, backend="cpu").dist
    for combiner in (True, False):
        res = bellman_ford(g, 0, backend="cpu", combiner=combiner)
        np.testing.assert_array_equal(res.dist, ref)
    d = dijkstra(_min_matrix(g), indices=0)
    want = np.where(np.isinf(d), -1, np.round(d)).astype(np.int64)
    np.testing.assert_array_equal(bellman_ford(g, 0, backend="cpu").dist, want)


def _min_matrix(g: CSRGraph):
    """scipy matrix of the lightest arc per (u, v); zero weights as a tiny epsilon so that
    scipy keeps them (rounded away afterwards); self-loops dropped."""
    import scipy.sparse as sp

    best: dict[tuple[int, int], float] = {}
    for u, v, x in zip(g.arc_sources().tolist(), g.indices.tolist(), g.weights.tolist(),
                       strict=True):
        if u != v:
            best[(u, v)] = min(best.get((u, v), np.inf), x if x else 1e-9)
    rows = [k[0] for k in best]
    cols = [k[1] for k in best]
    return sp.csr_array((list(best.values()), (rows, cols)), shape=(g.num_nodes,) * 2)


def test_bellman_ford_sample_map(sample_map):
    res = bellman_ford(sample_map, 7, backend="cpu")
    np.testing.assert_array_equal(res.dist, sssp(sample_map, 7, backend="cpu").dist)


def test_bellman_ford_bad_source():
    with pytest.raises(InvalidArgumentError, match="99"):
        bellman_ford(random_multigraph(0), 99, backend="cpu")


# ---- engine semantics ----------------------------------------------------------------------


def test_telemetry_rows_are_consistent():
    g = random_multigraph(4)
    seen = []
    res = bellman_ford(g, 0, backend="cpu", on_superstep=seen.append)
    tel = res.telemetry
    assert tel.dtype == SUPERSTEP_DTYPE and len(tel) == res.supersteps == len(seen)
    np.testing.assert_array_equal(tel["superstep"], np.arange(len(tel)))
    np.testing.assert_array_equal([r["messages"] for r in seen], tel["messages"])
    assert (tel["active"] > 0).all() and (tel["time_us"] >= 0).all()
    # mail sent in superstep i wakes vertices in i+1; the run ends once no mail is left
    assert (tel["active"][1:] > 0)[tel["messages"][:-1] > 0].all()
    assert tel["messages"][-1] == 0 and (tel["messages"][:-1] > 0).all()
    assert (tel["arcs"] == g.num_arcs).all()


def test_cancel_between_supersteps():
    g = random_multigraph(2)
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(CancelledError, match="superstep 3"):
        minimum_spanning_forest(g, backend="cpu", cancel=cancel)
    with pytest.raises(CancelledError):
        pagerank(g, backend="cpu", cancel=lambda: True)


def test_backend_choice():
    from gpu_core.backend import cupy_status, resolve_backend

    g = random_multigraph(0)
    if not cupy_status()[0]:  # this machine: an explicit cupy says why it cannot run
        with pytest.raises(BackendUnavailableError, match="not available"):
            minimum_spanning_forest(g, backend="cupy")
        with pytest.raises(BackendUnavailableError, match="not available"):
            pagerank(g, backend="cupy")
    with pytest.raises(InvalidArgumentError, match="gpu"):
        bellman_ford(g, 0, backend="gpu")
    assert minimum_spanning_forest(g, backend="auto").backend == resolve_backend("auto")
    assert minimum_spanning_forest(g, backend="cpu").backend == "cpu"


def test_pool_overflow_raises_typed_error():
    from gpu_core.programs.cpu_programs import bf_superstep

    g = random_multigraph(0)
    prog = CpuProgram("tight", bf_superstep, msg_ints=1, message_bound=lambda a, n, i: 0)
    eng = Engine(prog, g.num_nodes, g.arc_sources(), g.indices, g.weights)
    active = np.zeros(g.num_nodes, bool)
    active[0] = True
    dist = np.full(g.num_nodes, np.iinfo(np.int64).max)
    with pytest.raises(PoolExhaustedError):
        eng.run((dist, np.array([0])), active, max_supersteps=10)


@njit
def _edit_compute(v, ctx, st):
    """Superstep 0: count my arcs, delete them. 1: count again (0), insert v -> v+1.
    2: count (1, a fresh id), send myself a message. 3: read it and halt."""
    seen, ids = st
    k = 0
    e = ctx.first[v]
    while e >= 0:
        k += 1
        ids[v] = max(ids[v], e)
        if ctx.step[0] == 0:
            delete_arc(ctx, e)
        e = ctx.arc_next[e]
    seen[ctx.step[0], v] = k
    if ctx.step[0] == 1:
        add_arc(ctx, v, (v + 1) % ctx.first.shape[0], 7)
    if ctx.step[0] == 2:
        s = send(ctx, v)
        ctx.w_i[s, 0] = 42
        return False
    if ctx.step[0] == 3:
        seen[3, v] = ctx.r_i[ctx.r_head[v], 0]
        return False
    return True


@njit
def _edit_superstep(ctx, st, active, use_combiner):
    return run_vertices(_edit_compute, no_combine, False, ctx, st, active)


def test_topology_edits_take_effect_next_superstep():
    n = 4
    tails, heads = np.array([0, 0, 1, 2]), np.array([1, 2, 2, 3])
    prog = CpuProgram("edits", _edit_superstep, msg_ints=1,
                      insert_bound=lambda a, n_, i: n_)
    eng = Engine(prog, n, tails, heads, np.ones(4))
    seen = np.zeros((4, n), np.int64)
    ids = np.full(n, -1, np.int64)
    tel = eng.run((seen, ids), np.ones(n, bool), max_supersteps=10)
    np.testing.assert_array_equal(seen[0], [2, 1, 1, 0])  # deletions not yet applied
    np.testing.assert_array_equal(seen[1], [0, 0, 0, 0])
    np.testing.assert_array_equal(seen[2], [1, 1, 1, 1])  # the inserted arcs
    np.testing.assert_array_equal(seen[3], [42] * n)  # the message reactivated each vertex
    assert ids.min() >= 4  # inserted arcs got new ids; deleted ids are not reused
    np.testing.assert_array_equal(tel["arcs"], [0, 4, 4, 4])
    assert eng.stopped_by == "quiet"


@settings(max_examples=40, deadline=None)
@given(n=hst.integers(1, 14), data=hst.data())
def test_random_small_graphs(n, data):
    m = data.draw(hst.integers(0, 3 * n))
    t = data.draw(hst.lists(hst.integers(0, n - 1), min_size=m, max_size=m))
    h = data.draw(hst.lists(hst.integers(0, n - 1), min_size=m, max_size=m))
    w = data.draw(hst.lists(hst.integers(0, 5), min_size=m, max_size=m))
    g = CSRGraph.from_edges(n, t, h, w)
    edges, comps = kruskal_oracle(g)
    res = minimum_spanning_forest(g, backend="cpu")
    assert as_edges(res) == edges and res.components == comps
    np.testing.assert_array_equal(bellman_ford(g, 0, backend="cpu").dist,
                                  sssp(g, 0, backend="cpu").dist)
    pr = pagerank(g, backend="cpu", tol=1e-13, max_iter=10_000)
    assert np.abs(pr.rank - nx_pagerank(g, tol=1e-13, max_iter=10_000)).max() <= 1e-9


@settings(max_examples=40, deadline=None)
@given(n=hst.integers(1, 30), data=hst.data())
def test_mst_methods_agree_with_kruskal_and_scipy(n, data):
    """framework and direct: the same edge set (Kruskal's tie rule) and scipy's total
    (weights >= 1: scipy drops zero-weight edges)."""
    m = data.draw(hst.integers(0, 4 * n))
    t = data.draw(hst.lists(hst.integers(0, n - 1), min_size=m, max_size=m))
    h = data.draw(hst.lists(hst.integers(0, n - 1), min_size=m, max_size=m))
    w = data.draw(hst.lists(hst.integers(1, 6), min_size=m, max_size=m))
    g = CSRGraph.from_edges(n, t, h, w)
    edges, comps = kruskal_oracle(g)
    fw = minimum_spanning_forest(g, backend="cpu", method="framework")
    di = minimum_spanning_forest(g, backend="cpu", method="direct")
    assert (fw.method, di.method) == ("framework", "direct")
    assert as_edges(fw) == as_edges(di) == edges
    assert fw.total_weight == di.total_weight == _scipy_mst_total(g)
    assert fw.components == di.components == comps


def test_mst_unknown_method():
    with pytest.raises(InvalidArgumentError, match="unknown method 'prim'"):
        minimum_spanning_forest(CSRGraph.from_edges(2, [0], [1], [1]), method="prim")


# ---- the example program of docs/architecture.md ---------------------------------------------


@njit(inline="always")
def _label_compute(v, ctx, st):
    (label,) = st
    best = v if ctx.step[0] == 0 else label[v]
    m = ctx.r_head[v]
    while m >= 0:
        best = min(best, ctx.r_i[m, 0])
        m = ctx.r_next[m]
    if ctx.step[0] == 0 or best < label[v]:
        label[v] = best
        e = ctx.first[v]
        while e >= 0:
            s = send(ctx, ctx.arc_head[e])
            ctx.w_i[s, 0] = best
            e = ctx.arc_next[e]
    return False


@njit(inline="always")
def _min_label(w_i, w_f, into, frm):
    w_i[into, 0] = min(w_i[into, 0], w_i[frm, 0])


@njit
def _label_superstep(ctx, st, active, use_combiner):
    return run_vertices(_label_compute, _min_label, use_combiner, ctx, st, active)


@pytest.mark.parametrize("combiner", [True, False])
def test_docs_example_program(combiner):
    from scipy.sparse.csgraph import dijkstra

    g = random_multigraph(3, n=30, m=45)
    prog = CpuProgram("min-label", _label_superstep, msg_ints=1, combines=True,
                      message_bound=lambda arcs, n, incoming: arcs)
    label = np.zeros(g.num_nodes, np.int64)
    eng = Engine(prog, g.num_nodes, g.arc_sources(), g.indices, g.weights,
                 use_combiner=combiner)
    eng.run((label,), np.ones(g.num_nodes, bool), max_supersteps=g.num_nodes + 1)
    # each vertex ends with the smallest vertex that reaches it (itself included)
    reach = np.isfinite(dijkstra(_min_matrix(g)))
    want = [int(np.flatnonzero(reach[:, v])[0]) for v in range(g.num_nodes)]
    np.testing.assert_array_equal(label, want)
    assert eng.stopped_by == "quiet"


def test_cuda_tables_match_the_cu_source():
    """cuda.py (untested draft) fills address/scalar tables in programs.cu's enum order and
    calls only kernels the .cu defines: checked here without a GPU."""
    import re
    from pathlib import Path

    from gpu_core.programs import cuda

    src = (Path(cuda.__file__).parent / "programs.cu").read_text()

    def enum(name):
        body = re.search(r"enum " + name + r" \{(.*?)\};", src, re.S).group(1)
        return [x.strip() for x in body.split(",") if x.strip()]

    assert enum("CtxSlot")[:-1] == ["C_" + s.upper() for s in cuda.CTX_SLOTS]
    sc = enum("ScSlot")
    assert sc.index("S_STEP") == cuda.SC_STEP and sc.index("S_TOTAL") == cuda.SC_TOTAL
    assert len(sc) - 1 == cuda.SC_LEN
    cnt = enum("CntSlot")[:-1]
    assert cnt == ["CNT_TOP", "CNT_DEL", "CNT_INS", "CNT_OVERFLOW", "CNT_RAN", "CNT_ACT"]
    assert len(cnt) == cuda.CNT_N and [cuda.CNT_RAN, cuda.CNT_ACT] == [4, 5]
    assert int(re.search(r"#define VP_LOG_W (\d+)", src).group(1)) == cuda.LOG_W
    assert int(re.search(r"#define VP_BLOCK (\d+)", src).group(1)) == cuda.BLOCK
    kernels = set(re.findall(r'extern "C" __global__ void (\w+)', src))
    kernels |= set(re.findall(r"^VP_SUPERSTEP\((\w+),", src, re.M))
    used = set(re.findall(r'get_kernel\("(\w+)"\)', Path(cuda.__file__).read_text()))
    used |= set(re.findall(r'CudaProgram\("[\w-]+", "(\w+)"', Path(cuda.__file__).read_text()))
    assert used and used <= kernels


@pytest.mark.parametrize("name", ["random_sparse", "rmat", "grid_road", "disconnected",
                                  "zero_weights", "single_node", "duplicate_arcs",
                                  "self_loops", "isolated_source"])
def test_medusa_baseline_numpy_twin(name):
    """The Medusa-style layout and supersteps (numpy twin of medusa.cu) give the
    framework's answers: Bellman-Ford distances, PageRank within 1e-12."""
    from gpu_core.programs.medusa import bellman_ford_numpy, pagerank_numpy
    from tests.core.families import make_graph

    g = make_graph(name, 3)
    np.testing.assert_array_equal(bellman_ford_numpy(g, 0),
                                  bellman_ford(g, 0, backend="cpu").dist)
    x, it, _, conv = pagerank_numpy(g, 0.85, 1e-10, 1000)
    ref = pagerank(g, backend="cpu", tol=1e-10, max_iter=1000)
    assert (it, conv) == (ref.iterations, ref.converged)
    assert np.abs(x - ref.rank).max() <= 1e-12


@pytest.mark.parametrize("name", ["random_sparse", "grid_road", "disconnected", "single_node"])
def test_boruvka_round_graphs_follow_the_contraction(name):
    """The graphs the Medusa-style baseline rebuilds for: one per Borůvka round, shrinking
    to the components, as many as the vertex program's rounds."""
    from gpu_core.programs.direct import undirected_edges
    from gpu_core.programs.medusa import boruvka_round_graphs
    from tests.core.families import make_graph

    g = make_graph(name, 2)
    a, b, _ = undirected_edges(g)
    rounds = boruvka_round_graphs(g.num_nodes, a, b)
    res = minimum_spanning_forest(g, backend="cpu")
    assert len(rounds) == res.rounds
    sizes = [r[0] for r in rounds]
    assert sizes == sorted(sizes, reverse=True) and (not sizes or sizes[0] == g.num_nodes)
    for n, t, h in rounds:
        assert t.size == h.size and (t != h).all() and (t < n).all() and (h < n).all()
