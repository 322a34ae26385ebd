"""Group betweenness and greedy billboards (seed 002) on the CPU backend.

Oracles: networkx group_betweenness_centrality (DiGraph, normalized=False,
endpoints=False), a greedy built on it, prominent_group(greedy=True) when pandas is
installed, and brute-force path enumeration / all K-sets on tiny graphs.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest

from gpu_core.betweenness import (
    BillboardProgress,
    BillboardResult,
    billboards,
    choose_kernel,
    graph_shape,
    group_betweenness,
    place_billboards,
)
from gpu_core.errors import CancelledError, InvalidArgumentError
from gpu_core.graph import CSRGraph
from tests.core import families as fam

RTOL = 1e-9


def to_nx(g: CSRGraph) -> nx.DiGraph:
    G = nx.DiGraph()
    G.add_nodes_from(range(g.num_nodes))
    for u, v, w in zip(g.arc_sources(), g.indices, g.weights, strict=True):
        if u != v:
            G.add_edge(int(u), int(v), weight=int(w))
    return G


def largest_scc(g: CSRGraph) -> CSRGraph:
    """The largest strongly connected component, relabelled 0..k-1 (no parallel arcs)."""
    G = to_nx(g)
    comp = sorted(max(nx.strongly_connected_components(G), key=len))
    H = nx.convert_node_labels_to_integers(G.subgraph(comp), ordering="sorted")
    e = list(H.edges(data="weight"))
    return CSRGraph.from_edges(H.number_of_nodes(), [a for a, _, _ in e], [b for _, b, _ in e],
                               [c for _, _, c in e])


def brute_sb(g: CSRGraph, group, mode: str, a=None, b=None) -> float:
    """SB by enumerating every shortest arc-path of every pair (tiny graphs only)."""
    n = g.num_nodes
    tails = g.arc_sources()
    w = np.ones(g.num_arcs, np.int64) if mode == "hops" else g.weights.astype(np.int64)
    if mode == "weighted" and w.size and w.min() == 0:
        w = w * (4 * n + 1) + 1  # (cost, hops) lexicographic, as documented
    adj = [[] for _ in range(n)]
    for e in range(g.num_arcs):
        if tails[e] != g.indices[e]:
            adj[tails[e]].append((int(g.indices[e]), int(w[e])))
    inf = float("inf")
    grp = set(group)
    a = np.ones(n) if a is None else a
    b = np.ones(n) if b is None else b
    total = 0.0
    for s in range(n):
        if s in grp:
            continue
        d = [inf] * n  # Bellman-Ford: independent of the code under test
        d[s] = 0
        for _ in range(n):
            for u in range(n):
                if d[u] < inf:
                    for x, c in adj[u]:
                        d[x] = min(d[x], d[u] + c)
        paths = [[0, 0] for _ in range(n)]  # per t: [all, through group]

        def walk(u, hit, d=d, paths=paths):
            for x, c in adj[u]:
                if d[u] + c == d[x]:
                    paths[x][0] += 1
                    paths[x][1] += hit
                    walk(x, hit or (x in grp))

        walk(s, False)
        for t in range(n):
            if t != s and t not in grp and paths[t][0]:
                total += a[s] * b[t] * paths[t][1] / paths[t][0]
    return total


def nx_enum_sb(G: nx.DiGraph, group, weight=None) -> float:
    """SB from networkx's all_shortest_paths, pair by pair (endpoints excluded)."""
    grp = set(group)
    tot = 0.0
    for s in G:
        if s in grp:
            continue
        for t in G:
            if t == s or t in grp or not nx.has_path(G, s, t):
                continue
            ps = list(nx.all_shortest_paths(G, s, t, weight=weight))
            tot += sum(any(x in grp for x in p[1:-1]) for p in ps) / len(ps)
    return tot


SMALL = ["random_sparse", "rmat", "grid_road", "equal_weight_grid", "complete",
         "bidirectional_ring"]


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("mode", ["hops", "weighted"])
def test_sb_equals_networkx(name, mode):
    """networkx group_betweenness_centrality for groups of 1 and 2 on strongly connected
    digraphs. (For larger groups networkx 3.x's incremental algorithm is occasionally off:
    random_sparse seed 3, weighted, group [29, 31, 82, 114] gives 1364.83 where enumerating
    every shortest path gives 1361.83; those sizes are checked against enumeration.)"""
    g = largest_scc(fam.make_graph(name, seed=3))
    G = to_nx(g)
    wt = None if mode == "hops" else "weight"
    rng = np.random.default_rng(7)
    for size in (1, 2, 2):
        grp = sorted(int(x) for x in rng.choice(g.num_nodes, size=size, replace=False))
        ref = nx.group_betweenness_centrality(G, grp, normalized=False, endpoints=False,
                                              weight=wt)
        sb, pairs = group_betweenness(g, grp, mode=mode)
        assert sb == pytest.approx(ref, rel=RTOL, abs=1e-9)
        k = g.num_nodes - len(grp)
        assert pairs == k * (k - 1)  # strongly connected: every ordered pair


@pytest.mark.parametrize("name", ["random_sparse", "rmat"])
@pytest.mark.parametrize("mode", ["hops", "weighted"])
def test_sb_equals_path_enumeration(name, mode):
    g = largest_scc(fam.make_graph(name, seed=3))
    G = to_nx(g)
    rng = np.random.default_rng(8)
    for size in (3, 4):
        grp = sorted(int(x) for x in rng.choice(g.num_nodes, size=size, replace=False))
        ref = nx_enum_sb(G, grp, None if mode == "hops" else "weight")
        assert group_betweenness(g, grp, mode=mode)[0] == pytest.approx(ref, rel=RTOL)


@pytest.mark.parametrize("name", ["disconnected", "zero_weights", "duplicate_arcs",
                                  "self_loops", "isolated_source", "single_node_loop"])
@pytest.mark.parametrize("mode", ["hops", "weighted"])
def test_sb_brute_force_odd_graphs(name, mode):
    g = fam.make_graph(name, seed=1)
    if g.num_nodes > 30:  # path enumeration is exponential: take an induced prefix
        keep = np.arange(30)
        t = g.arc_sources()
        sel = (t < 30) & (g.indices < 30)
        g = CSRGraph.from_edges(30, t[sel], g.indices[sel], g.weights[sel])
        del keep
    grp = [v for v in (1, 4, 9) if v < g.num_nodes]
    sb, _ = group_betweenness(g, grp, mode=mode)
    assert sb == pytest.approx(brute_sb(g, grp, mode), rel=RTOL, abs=1e-9)


def test_sb_small_real_graph():
    """Karate club (undirected): networkx counts unordered pairs, half our ordered sum."""
    K = nx.karate_club_graph()
    e = [(u, v) for u, v in K.edges] + [(v, u) for u, v in K.edges]
    g = CSRGraph.from_edges(K.number_of_nodes(), [x for x, _ in e], [y for _, y in e],
                            [1] * len(e))
    for grp in ([0], [0, 33], [2, 5, 31]):
        ref = nx.group_betweenness_centrality(K, grp, normalized=False, endpoints=False)
        sb, _ = group_betweenness(g, grp, mode="hops")
        assert sb == pytest.approx(2 * ref, rel=RTOL)


def nx_greedy(G: nx.DiGraph, k: int, weight):
    """Greedy on SB by networkx path enumeration: largest gain, ties to the smallest label."""
    group: list[int] = []
    cur = 0.0
    out = []
    for _ in range(k):
        best, bv = -math.inf, None
        for v in sorted(G.nodes):
            if v in group:
                continue
            val = nx_enum_sb(G, group + [v], weight)
            if bv is None or val > best + 1e-9 * max(1.0, abs(best)):
                best, bv = val, v
        out.append((bv, best - cur))
        group.append(bv)
        cur = best
    return out


@pytest.mark.parametrize("name,mode", [("random_sparse", "weighted"), ("grid_road", "weighted"),
                                       ("rmat", "hops")])
def test_greedy_equals_networkx_greedy(name, mode):
    small = {"random_sparse": dict(n=24, avg_deg=3), "grid_road": dict(rows=4, cols=6),
             "rmat": dict(scale=5, edge_factor=4)}
    g = largest_scc(getattr(fam, name)(seed=2, **small[name]))
    G = to_nx(g)
    ref = nx_greedy(G, 3, None if mode == "hops" else "weight")
    res = place_billboards(g, 3, mode=mode, backend="cpu")
    assert list(res.sites) == [v for v, _ in ref]
    np.testing.assert_allclose(res.gains, [x for _, x in ref], rtol=1e-9, atol=1e-9)
    for i in range(3):  # cumulative SB equals a fresh SB of the prefix
        sb, pairs = group_betweenness(g, res.sites[: i + 1], mode=mode)
        assert res.group_betweenness[i] == pytest.approx(sb, rel=1e-9)
        assert res.pairs[i] == pytest.approx(pairs)
        assert res.coverage[i] == pytest.approx(sb / pairs)


def test_greedy_equals_prominent_group():
    pytest.importorskip("pandas")  # networkx's prominent_group needs it
    g = largest_scc(fam.random_sparse(seed=4, n=25, avg_deg=3))
    G = to_nx(g)
    _, grp = nx.prominent_group(G, 3, weight="weight", greedy=True, normalized=False,
                                endpoints=False)
    res = place_billboards(g, 3, mode="weighted", backend="cpu")
    assert list(res.sites) == list(grp)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("mode", ["hops", "weighted"])
def test_greedy_vs_brute_force_optimum(seed, mode):
    g = largest_scc(fam.random_sparse(seed=seed, n=14, avg_deg=3, wmax=5))
    n = g.num_nodes
    k = 3
    res = place_billboards(g, k, mode=mode, backend="cpu")
    best = max(group_betweenness(g, c, mode=mode)[0]
               for c in itertools.combinations(range(n), k))
    own = group_betweenness(g, res.sites, mode=mode)[0]
    assert res.group_betweenness[-1] == pytest.approx(own, rel=1e-9)
    assert own >= (1 - 1 / math.e) * best - 1e-9
    assert own <= best + 1e-9


def test_generator_events_and_cancel():
    g = fam.grid_road(seed=1)
    evs = list(billboards(g, 2, mode="weighted", backend="cpu"))
    prog = [e for e in evs if isinstance(e, BillboardProgress)]
    assert isinstance(evs[-1], BillboardResult)
    assert {p.round for p in prog} == {1, 2}
    assert prog[-1].sources_done == prog[-1].sources_total == g.num_nodes - 1
    assert all(0 <= p.fraction <= 1 for p in prog)
    calls = {"n": 0}

    def cancel():
        calls["n"] += 1
        return calls["n"] > 2

    with pytest.raises(CancelledError):
        place_billboards(g, 2, mode="weighted", backend="cpu", cancel=cancel)
    gen = billboards(g, 2, backend="cpu")
    next(gen)
    gen.close()  # closing mid-way is clean


def test_candidates_fixed_and_demand():
    g = largest_scc(fam.random_sparse(seed=5, n=16, avg_deg=3, wmax=9))
    n = g.num_nodes
    cands = [v for v in range(n) if v % 2 == 1]
    res = place_billboards(g, 2, mode="weighted", backend="cpu", candidates=cands, fixed=[0])
    assert all(v in cands for v in res.sites) and 0 not in res.sites
    assert res.base_group_betweenness == pytest.approx(group_betweenness(g, [0], mode="weighted")[0])
    full = [0, *res.sites]
    assert res.group_betweenness[-1] == pytest.approx(
        group_betweenness(g, full, mode="weighted")[0], rel=1e-9)
    # OD demand: limited sources, weighted targets, against brute force
    a = np.zeros(n)
    a[:5] = 1.0
    b = np.linspace(0.5, 2.0, n)
    sb, _ = group_betweenness(g, [3, 7], mode="weighted", sources=a > 0, targets=b)
    assert sb == pytest.approx(brute_sb(g, [3, 7], "weighted", a=a, b=b), rel=1e-9)
    res = place_billboards(g, 2, mode="weighted", backend="cpu", sources=a > 0, targets=b)
    assert res.group_betweenness[-1] == pytest.approx(
        brute_sb(g, list(res.sites), "weighted", a=a, b=b), rel=1e-9)


def test_bad_input():
    g = fam.random_sparse(seed=1, n=10)
    with pytest.raises(InvalidArgumentError, match="K=11"):
        place_billboards(g, 11, backend="cpu")
    with pytest.raises(InvalidArgumentError, match="candidate"):
        place_billboards(g, 3, backend="cpu", candidates=[1, 2])
    with pytest.raises(InvalidArgumentError, match="mode"):
        place_billboards(g, 1, backend="cpu", mode="fast")
    with pytest.raises(InvalidArgumentError, match="kernel"):
        place_billboards(g, 1, backend="cpu", kernel="warp")
    with pytest.raises(InvalidArgumentError, match="out of range"):
        place_billboards(g, 1, backend="cpu", candidates=[99])


def test_shape_rule(monkeypatch):
    from gpu_core.betweenness import kernel_choice

    road = fam.road_grid(30, 30, seed=1)
    dense = fam.complete(seed=1, n=80)
    assert graph_shape(road).diameter_estimate >= 58
    assert graph_shape(dense).diameter_estimate == 1
    assert graph_shape(dense).mean_degree == 79
    # measured: work-efficient everywhere (edge branch off by default)
    for g in (road, dense, fam.rmat(seed=1, scale=9, edge_factor=24)):
        assert choose_kernel(graph_shape(g)) == "work_efficient"
    monkeypatch.setattr(kernel_choice, "EDGE_MAX_DIAMETER", 3)
    assert choose_kernel(graph_shape(dense)) == "edge"
    assert choose_kernel(graph_shape(road)) == "work_efficient"


def test_sampled_within_stated_error():
    """Seeded sampled run on a 900-vertex road grid: every prefix's estimate lies within the
    stated bound of its exact SB, and the sampled set is near the exact greedy's value."""
    g = fam.road_grid(30, 30, seed=7)
    k = 4
    r = place_billboards(g, k, mode="weighted", backend="cpu", method="sampled",
                         epsilon=0.2, delta=0.05, seed=11)
    assert r.method == "sampled" and r.samples > 0 and r.error_bound > 0
    for i in range(k):
        exact = group_betweenness(g, r.sites[: i + 1], mode="weighted")[0]
        assert abs(r.group_betweenness[i] - exact) <= r.error_bound
    ex = place_billboards(g, k, mode="weighted", backend="cpu", method="exact")
    n = g.num_nodes
    # (1 - 1/e)·OPT - eps·A·B <= SB(sampled), and OPT >= SB(exact greedy)
    own = group_betweenness(g, r.sites, mode="weighted")[0]
    assert own >= (1 - 1 / math.e) * ex.group_betweenness[-1] - 0.2 * n * n
    # same seed, same answer
    r2 = place_billboards(g, k, mode="weighted", backend="cpu", method="sampled",
                          epsilon=0.2, delta=0.05, seed=11)
    assert list(r2.sites) == list(r.sites)


def test_method_auto_picks_by_size():
    from gpu_core.betweenness.api import sample_size

    small = fam.grid_road(seed=1)
    assert place_billboards(small, 2, backend="cpu").method == "exact"
    big = fam.road_grid(200, 200, seed=1)  # 40,000 vertices: K·|V|·|E| too large on a CPU
    gen = billboards(big, 2, backend="cpu", epsilon=0.5)
    first = next(gen)
    assert first.phase == "sample"
    gen.close()
    assert sample_size(20, 1_520_000, 0.1, 0.1) == math.ceil(
        2 * (math.log(20) + 20 * math.log(1_520_000)) / 0.01)


@pytest.mark.parametrize("method", ["exact", "sampled"])
def test_cancel_polled_often_on_a_big_map(method):
    """Cancel (and closing the window, which cancels) must not wait for a twentieth of all
    sources: on Andorra that was minutes. Chunks are bounded by arc visits instead."""
    from gpu_core.betweenness import api

    side = 160  # 25 600 nodes, ~100 000 arcs: old chunks were 1 280 (exact) sources
    idx = np.arange(side * side).reshape(side, side)
    a, b = idx[:, :-1].ravel(), idx[:, 1:].ravel()
    c, d = idx[:-1, :].ravel(), idx[1:, :].ravel()
    src, dst = np.concatenate([a, b, c, d]), np.concatenate([b, a, d, c])
    g = CSRGraph.from_edges(side * side, src, dst, np.ones(src.size, np.int64))
    polls = []

    def cancel():
        polls.append(1)
        return len(polls) >= 3

    done = []
    with pytest.raises(CancelledError):
        for ev in billboards(g, 1, backend="cpu", method=method, epsilon=0.05, cancel=cancel):
            done.append(ev.sources_done)
    per_chunk = max(done)  # sources searched before the third poll, over two chunks
    assert per_chunk * (g.num_arcs + g.num_nodes) <= 2 * api.CPU_CHUNK_WORK


def test_cpu_sampling_split_over_threads_equals_one_call(monkeypatch):
    """The CPU sampler runs pieces of a chunk on several threads: same draws, same result."""
    from gpu_core.betweenness import sampling

    g = fam.grid_road(seed=4, rows=20, cols=20)
    monkeypatch.setattr("os.cpu_count", lambda: 3)
    par = place_billboards(g, 3, mode="weighted", backend="cpu", method="sampled", epsilon=0.3)

    def one_call(g, w, unit, ri, rx, rw, srcs, tgts, hs, base):
        from gpu_core.betweenness.cpu import sample_paths

        return sample_paths(g.indptr, g.indices, w, unit, ri, rx, rw, srcs, tgts,
                            np.uint64(hs), base)

    monkeypatch.setattr(sampling, "_sample_cpu", one_call)
    seq = place_billboards(g, 3, mode="weighted", backend="cpu", method="sampled", epsilon=0.3)
    assert list(par.sites) == list(seq.sites)
    np.testing.assert_array_equal(par.group_betweenness, seq.group_betweenness)


@pytest.mark.parametrize("mode", ["hops", "weighted"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_kept_tight_arcs_equal_fresh_searches(monkeypatch, seed, mode):
    """Rounds replayed from the kept tight-arc DAGs give bit-for-bit the gains of a fresh
    search per round (zero-weight and parallel arcs, demand and a fixed site included)."""
    from gpu_core.betweenness import api as bb_api

    g = fam.random_sparse(seed=seed, n=60, avg_deg=4, wmax=4)
    rng = np.random.default_rng(seed)
    w = g.weights.copy()
    w[rng.random(w.size) < 0.15] = 0  # zero-weight arcs: composite keys
    u = g.arc_sources() if hasattr(g, "arc_sources") else np.repeat(
        np.arange(g.num_nodes), np.diff(g.indptr))
    dup = rng.choice(w.size, 10, replace=False)  # parallel arcs: distinct paths
    g = CSRGraph.from_edges(g.num_nodes, np.r_[u, u[dup]], np.r_[g.indices, g.indices[dup]],
                            np.r_[w, w[dup]])
    a = rng.random(g.num_nodes) * (rng.random(g.num_nodes) < 0.8)
    kw = dict(mode=mode, backend="cpu", method="exact", sources=a, fixed=[1])
    kept = place_billboards(g, 4, **kw)
    monkeypatch.setattr(bb_api, "CPU_KEEP_BYTES", 0)
    fresh = place_billboards(g, 4, **kw)
    assert list(kept.sites) == list(fresh.sites)
    assert kept.gains.tolist() == fresh.gains.tolist()
    assert kept.pairs.tolist() == fresh.pairs.tolist()
