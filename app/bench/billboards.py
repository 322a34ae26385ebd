"""``signpost bench billboards``: seed 002 Figure 4 (time against K per GPU kernel).

For a road map (large diameter) and a social-style R-MAT graph (small diameter, like the
seed's Twitter graph) it runs the exact greedy with each kernel (edge-based,
vertex-based, work-efficient) and reports the cumulative time after each round K (the
greedy for K' < K is a prefix of the one for K, so one run gives the whole curve). A
kernel stops early once its cumulative time passes ``--budget-s`` (the table says how far
it got). ``--sources N`` limits every kernel to the same N random sources (the time per
round is linear in the sources; the full-source work-efficient run is reported as well).
It also times a networkx greedy against ours on a graph networkx can handle, and, with
``--ne``, the sampled method on a large DIMACS/PACE map.

Maps: a file path (any format ``maps.load.load_map`` reads) or ``gen:KIND:N[:ARCS_PER_NODE]``
(``maps.generate``), e.g. ``gen:grid:31041`` (a Shizuoka-sized road-like grid) or
``gen:rmat:9481:26`` (9,481 nodes, ~246K arcs like the seed's Twitter graph).

Over 500 lines: the Figure-4 sweep and the issue-5 goals share their loaders and helpers;
the CPU rounds (``billboards_cpu``) and the sampling comparison (``billboards_sampling``,
``--sampling``) live apart.
"""

from __future__ import annotations

import argparse
import csv
import os
import time

import numpy as np

from osutil.atomic import atomic_open

from .billboards_tables import kernel_table, plot_times

KERNEL_LIST = ("edge", "vertex", "work_efficient")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", action="append", default=None,
                   help="road map(s): path or gen:KIND:N (default gen:grid:31041 and the "
                   "Andorra extract in .gpu_maps/ when present)")
    p.add_argument("--social", action="append", default=None,
                   help="small-diameter graph(s) (default gen:rmat:9481:26; '' = skip)")
    p.add_argument("--k-max", type=int, default=10, help="largest K (default 10)")
    p.add_argument("--mode", default="weighted", choices=("hops", "weighted"),
                   help="paths on the road maps (default weighted)")
    p.add_argument("--social-mode", default="hops", choices=("hops", "weighted"),
                   help="paths on the social graph (default hops: Twitter is unweighted)")
    p.add_argument("--kernels", default=",".join(KERNEL_LIST), help="comma-separated kernels")
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"))
    p.add_argument("--sources", type=int, default=0,
                   help="random sources per round for the kernel comparison (0 = all)")
    p.add_argument("--budget-s", type=float, default=30.0,
                   help="stop a kernel's run once its cumulative time exceeds this")
    p.add_argument("--nx-nodes", type=int, default=100, help="graph size for the networkx ratio")
    p.add_argument("--nx-k", type=int, default=3, help="K for the networkx ratio (0 = skip)")
    p.add_argument("--ne", default=None, help="large map for the sampled method (e.g. NE.gr.xz)")
    p.add_argument("--ne-k", type=int, default=20)
    p.add_argument("--epsilon", default="0.1",
                   help="sampling epsilon (--goals: a comma-separated list, run in order)")
    p.add_argument("--delta", type=float, default=0.1)
    p.add_argument("--we-configs", default="",
                   help="work-efficient THREADSxBLOCKS_PER_SM to sweep on the first road map "
                   "(e.g. 256x4,128x8); the fastest is kept for the rest")
    p.add_argument("--index", action="store_true",
                   help="--goals with --ne: also the sampled method through a route index")
    p.add_argument("--goals", action="store_true",
                   help="only the issue-5 goals: near-far sweep (--nf-factors) on round 1 of "
                   "the first --map and on one sampling chunk of --ne, then the exact K=--k-max "
                   "greedy (all sources, per-round times) and the sampled --ne run to the end")
    p.add_argument("--cpu-rounds", action="store_true",
                   help="only the exact CPU greedy K=--k-max on every source of each --map "
                   "(default the sample map): numba cache load, wall and CPU s per round, "
                   "one thread and the default count (issue 27)")
    p.add_argument("--sampling", default=None, metavar="M[,M...]",
                   help="only the issue-43 comparison on each --map (default the sample map) "
                   "at K=--k-max and each --epsilon: progressive, fixed, networkit")
    p.add_argument("--nf-factors", default="0,2,4,8",
                   help="near-far steps (x mean arc length; 0 = Bellman-Ford) for --goals")
    p.add_argument("--out", default="bench_out/billboards", help="folder for CSV/PNG")
    p.add_argument("--summary", default=None, help="append one-line summaries to this file")


def _load(spec: str):
    from gpu_core.graph import CSRGraph

    if spec.startswith("gen:"):
        from maps.generate import generate

        parts = spec.split(":")
        opts = {}
        if len(parts) > 3:
            opts["arcs_per_node"] = int(parts[3])
        net = generate(parts[1], n=int(parts[2]), seed=1, **opts)
    else:
        from app.progress import step
        from maps.load import load_map

        with step(f"loading {spec}") as p:
            net = load_map(spec, progress=p)
    return CSRGraph.from_any(net), spec


def _run_greedy(g, k, **kw):
    """Rounds until k or the budget: (result or None, per-round times, sites)."""
    from app.progress import step
    from gpu_core.betweenness import billboards

    budget = kw.pop("budget_s", None)
    res = None
    gen = billboards(g, k, **kw)
    with step(f"billboards k={k}") as p:
        res, times = _rounds(gen, p, budget)
    return res, times


def _rounds(gen, p, budget):
    """_run_greedy's loop: per-round times from the events, each fed to the progress ``p``."""
    from gpu_core.betweenness import BillboardResult

    times: list[float] = []
    t_round = time.perf_counter()
    last_round = 1
    res = None
    for ev in gen:
        if isinstance(ev, BillboardResult):
            res = ev
            break
        p(ev.fraction, f"round {ev.round}/{ev.rounds}")
        if ev.round != last_round:  # a round finished
            times.append(time.perf_counter() - t_round)
            t_round = time.perf_counter()
            last_round = ev.round
            if budget is not None and sum(times) > budget:
                gen.close()
                return None, times
    if res is not None:
        times.append(time.perf_counter() - t_round)
    return res, times


def _nx_greedy_time(g, k: int, mode: str):
    """Time networkx's greedy: prominent_group(greedy=True) when pandas is there, else a
    greedy calling group_betweenness_centrality for every candidate (|V| calls a round)."""
    import networkx as nx

    G = nx.DiGraph()
    G.add_nodes_from(range(g.num_nodes))
    for u, v, w in zip(g.arc_sources(), g.indices, g.weights, strict=True):
        if u != v:
            G.add_edge(int(u), int(v), weight=int(w))
    weight = None if mode == "hops" else "weight"
    t0 = time.perf_counter()
    try:
        import pandas  # noqa: F401

        _, grp = nx.prominent_group(G, k, weight=weight, greedy=True, normalized=False,
                                    endpoints=False)
        how = "prominent_group(greedy=True)"
    except ImportError:
        grp = []
        for _ in range(k):
            best, bv = None, None
            for v in G.nodes:
                if v in grp:
                    continue
                val = nx.group_betweenness_centrality(G, grp + [v], normalized=False,
                                                      endpoints=False, weight=weight)
                if best is None or val > best:
                    best, bv = val, v
            grp.append(bv)
        how = "greedy over group_betweenness_centrality"
    return time.perf_counter() - t0, how, grp


def _timed_exact(g, k, mode):
    """Exact greedy, all sources, work-efficient: (total s, per-round s, result)."""
    from gpu_core.betweenness import BillboardResult, billboards

    t0 = time.perf_counter()
    res = None
    for ev in billboards(g, k, mode=mode, backend="cupy", kernel="work_efficient",
                         method="exact"):
        if isinstance(ev, BillboardResult):
            res = ev
    assert res is not None  # billboards() ends with its result
    return time.perf_counter() - t0, list(res.rounds_time_s), res


def goals(args: argparse.Namespace) -> int:
    """Issue 5: exact K=10 on the 31K road grid <= 3 s; sampled K=20 on NE <= 60 s."""
    import cupy as cp

    from gpu_core.backend import describe_backend
    from gpu_core.betweenness import cuda as bcuda
    from gpu_core.betweenness.api import sample_size
    from gpu_core.betweenness.common import search_weights

    summary: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        summary.append(line)

    device = describe_backend("cupy")
    say(f"# billboards goals on {device}")
    t0 = time.perf_counter()
    bcuda._module()
    say(f"module compile (nvrtc, betweenness.cu): {time.perf_counter() - t0:.2f} s")
    factors = [float(f) for f in args.nf_factors.split(",") if f]
    spec = (args.map or ["gen:grid:31041"])[0]
    g, name = _load(spec)
    # round 1 (no cached rows) for each near-far step; a warm-up first (allocation)
    best = None
    bcuda.NEAR_FAR_FACTOR = factors[0]
    _timed_exact(g, 2, args.mode)
    for f in factors:
        bcuda.NEAR_FAR_FACTOR = f
        runs = [_timed_exact(g, 2, args.mode) for _ in range(2)]
        t = min(r[1][0] for r in runs)
        t2 = min(r[1][1] for r in runs)
        say(f"{name} ({g.num_nodes}n/{g.num_arcs}a) exact, all sources, near-far "
            f"{f:g} x mean w (delta {bcuda.near_far_delta(search_weights(g, args.mode))}): "
            f"round 1 {t:.3f} s, round 2 {t2:.3f} s (best of 2); sites "
            f"{[int(v) for v in runs[0][2].sites]}")
        del runs
        if best is None or t < best[0]:
            best = (t, f)
    assert best is not None  # factors holds one at least
    bcuda.NEAR_FAR_FACTOR = best[1]
    tot, rounds, res = _timed_exact(g, args.k_max, args.mode)
    tot2, rounds2, res2 = _timed_exact(g, args.k_max, args.mode)
    say(f"{name} exact K={args.k_max} {args.mode} work_efficient near-far {best[1]:g}: "
        f"{tot:.3f} s / {tot2:.3f} s (two runs); rounds "
        f"{', '.join(f'{x:.3f}' for x in rounds2)}; coverage {100 * res.coverage[-1]:.1f}%; "
        f"sites {[int(v) for v in res.sites]} (equal in both runs: "
        f"{list(res.sites) == list(res2.sites)})")
    del res, res2
    cp.get_default_memory_pool().free_all_blocks()
    # diagnostic: one warp per source (8 sources per block) with the same near-far step
    bcuda.WE_GROUP = "warp"
    _, rw_, _ = _timed_exact(g, 2, args.mode)
    bcuda.WE_GROUP = "block"
    say(f"{name} warp per source (diagnostic): round 1 {rw_[0]:.3f} s, round 2 {rw_[1]:.3f} s")
    cp.get_default_memory_pool().free_all_blocks()
    if not args.ne:
        return 0
    t0 = time.perf_counter()
    gn, nname = _load(args.ne)
    say(f"NE load: {time.perf_counter() - t0:.1f} s, {gn.num_nodes}n/{gn.num_arcs}a")
    w = search_weights(gn, "weighted")
    t0 = time.perf_counter()
    ri, rx, rw = bcuda.reverse_arrays(gn, w)
    t_rev = time.perf_counter() - t0
    t0 = time.perf_counter()
    smp = bcuda.CudaSampler(gn, w, ri, rx, rw)
    cp.cuda.Device().synchronize()
    say(f"NE set-up: reverse arrays {t_rev:.2f} s (host), sampler allocation "
        f"{time.perf_counter() - t0:.2f} s ({smp.nb} blocks x {44 * gn.num_nodes / 1e6:.0f} MB)")
    rng = np.random.default_rng(7)
    probe = smp.nb
    srcs = rng.integers(0, gn.num_nodes, probe).astype(np.int32)
    tgts = rng.integers(0, gn.num_nodes, (probe, 1)).astype(np.int32)
    best = None
    for f in factors:
        bcuda.NEAR_FAR_FACTOR = f
        t0 = time.perf_counter()
        es, _, _ = smp.run(srcs, tgts, 5, 0)
        cp.cuda.Device().synchronize()
        t = time.perf_counter() - t0
        say(f"NE probe, {probe} sampled sources (one wave), near-far {f:g}: {t:.2f} s = "
            f"{probe / t:.0f} sources/s; {int(es.size) / probe:.0f} path vertices per sample; "
            f"buffer reruns so far {smp.reruns}")
        if best is None or t < best[0]:
            best = (t, f)
        if t > 20:
            break
    assert best is not None  # factors holds one at least
    bcuda.NEAR_FAR_FACTOR = best[1]
    # diagnostic: half the blocks in flight (bandwidth-bound: same rate; latency-bound: half)
    keep = bcuda.SAMPLE_SCRATCH_BUDGET
    del smp
    cp.get_default_memory_pool().free_all_blocks()
    bcuda.SAMPLE_SCRATCH_BUDGET = (44 * gn.num_nodes + 16) * (probe // 2)
    smp = bcuda.CudaSampler(gn, w, ri, rx, rw)
    t0 = time.perf_counter()
    smp.run(srcs, tgts, 5, 0)
    cp.cuda.Device().synchronize()
    t = time.perf_counter() - t0
    say(f"NE probe with {smp.nb} blocks (diagnostic), near-far {best[1]:g}: {t:.2f} s = "
        f"{probe / t:.0f} sources/s")
    bcuda.SAMPLE_SCRATCH_BUDGET = keep
    del smp
    cp.get_default_memory_pool().free_all_blocks()
    from gpu_core.betweenness import BillboardResult, billboards

    last = None  # (seconds, sources) of the previous epsilon
    for eps in [float(e) for e in str(args.epsilon).split(",")]:
        L = sample_size(args.ne_k, gn.num_nodes, eps, args.delta)
        if last is not None and last[0] * L / last[1] > 60:
            say(f"NE eps={eps}: skipped (projected {last[0] * L / last[1]:.0f} s)")
            break
        t0 = time.perf_counter()
        res = None
        marks = []
        for ev in billboards(gn, args.ne_k, mode="weighted", backend="cupy",
                             method="sampled", epsilon=eps, delta=args.delta, seed=1):
            if isinstance(ev, BillboardResult):
                res = ev
            elif ev.phase == "sample":
                marks.append((ev.sources_done, time.perf_counter() - t0))
        assert res is not None  # billboards() ends with its result
        t = time.perf_counter() - t0
        chunks = ", ".join(f"{d}@{x:.1f}s" for d, x in marks)
        say(f"NE sampled K={args.ne_k} eps={eps} delta={args.delta} near-far {best[1]:g}: "
            f"{t:.1f} s end to end (after load); L={L} sources (1 target each); chunks "
            f"{chunks}; guarantee: w.p. >= {1 - args.delta:g}, SB(greedy) >= (1-1/e)OPT - "
            f"{eps:g}*A*B = (1-1/e)OPT - {eps * gn.num_nodes ** 2:.4g}; coverage "
            f"{100 * res.coverage[-1]:.1f}%, SB {res.group_betweenness[-1]:.4g} +- "
            f"{res.error_bound:.3g}; sites {[int(v) for v in res.sites]}; ({res.notes})")
        last = (t, L)
        if args.index:
            _indexed_sampled(gn, args, eps, res, t, say)
    if args.summary:
        with open(args.summary, "a") as fh:
            for line in summary:
                fh.write(f"{line}\n")
    return 0


def _indexed_sampled(gn, args, eps: float, plain, t_plain: float, say) -> None:
    """Issue 12: the sampled greedy through the route index, beside the plain run above
    (same draws, so the same sites are required); the index build is timed apart."""
    from gpu_core.betweenness import BillboardResult, billboards
    from gpu_core.hierarchy import build_hierarchy

    t0 = time.perf_counter()
    h = build_hierarchy(gn)
    say(f"NE route index build (CPU, once per map, cached by the app): "
        f"{time.perf_counter() - t0:.1f} s; {h.summary()}")
    for rep in range(2):
        t0 = time.perf_counter()
        res = None
        for ev in billboards(gn, args.ne_k, mode="weighted", backend="cupy", method="sampled",
                             epsilon=eps, delta=args.delta, seed=1, hierarchy=h):
            if isinstance(ev, BillboardResult):
                res = ev
        assert res is not None  # billboards() ends with its result
        t = time.perf_counter() - t0
        same = list(res.sites) == list(plain.sites) and list(res.gains) == list(plain.gains)
        say(f"NE sampled K={args.ne_k} eps={eps} with the route index (run {rep + 1}): "
            f"{t:.2f} s = {t_plain / t:.1f}x the plain sampler's {t_plain:.1f} s; same sites "
            f"and gains: {same}; ({res.notes})")


def _we_config_sweep(g, name: str, mode: str, backend: str, configs: str) -> str:
    """Time the work-efficient kernel's launch shapes ``configs`` (THxBPS[:group], comma
    separated) on ``g``, keep the best for the rest of the run; its summary line."""
    from gpu_core.betweenness import cuda as bcuda

    best_cfg = None
    for cfg in configs.split(","):
        shape_, _, group = cfg.partition(":")
        th, bps = (int(x) for x in shape_.split("x"))
        bcuda.WE_THREADS, bcuda.WE_BLOCKS_PER_SM = th, bps
        bcuda.WE_GROUP = group or "block"
        _run_greedy(g, 1, mode=mode, backend=backend, method="exact",
                    kernel="work_efficient")  # warm-up (allocation)
        # K = 3 from scratch, all sources: round 1 fills the per-source rows, rounds
        # 2-3 reuse them
        ts = []
        for _ in range(2):
            _, times = _run_greedy(g, 3, mode=mode, backend=backend, method="exact",
                                   kernel="work_efficient")
            ts.append(times)
        t = float(np.median([x[0] for x in ts]))
        t2 = float(np.median([np.mean(x[1:]) for x in ts]))
        print(f"work_efficient {cfg}: round 1 {t:.4f} s, later rounds {t2:.4f} s "
              f"(median of 2, all {g.num_nodes} sources)")
        score = t + 9 * t2  # K = 10
        if best_cfg is None or score < best_cfg[0]:
            best_cfg = (score, th, bps, group or "block", t, t2)
    assert best_cfg is not None  # configs holds one at least
    bcuda.WE_THREADS, bcuda.WE_BLOCKS_PER_SM = best_cfg[1], best_cfg[2]
    bcuda.WE_GROUP = best_cfg[3]
    line = (f"billboards WE config sweep on {name}: best {best_cfg[1]}x{best_cfg[2]} "
            f"{best_cfg[3]}: round 1 {best_cfg[4]:.4f} s, later {best_cfg[5]:.4f} s "
            f"(all sources)")
    print(line)
    return line


def _vs_networkx(args: argparse.Namespace, backend: str) -> str:
    """Exact greedy against networkx's on a grid of ``--nx-nodes``: its summary line."""
    from gpu_core.betweenness import place_billboards

    g, name = _load(f"gen:grid:{args.nx_nodes}")
    t_nx, how, grp = _nx_greedy_time(g, args.nx_k, args.mode)
    t0 = time.perf_counter()
    ours = place_billboards(g, args.nx_k, mode=args.mode, backend=backend, method="exact")
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    place_billboards(g, args.nx_k, mode=args.mode, backend=backend, method="exact")
    t_warm = time.perf_counter() - t0
    line = (f"billboards vs networkx on {name} ({g.num_nodes}n) K={args.nx_k}: networkx "
            f"{how} {t_nx:.2f} s, ours ({backend}) {t_warm:.3f} s warm "
            f"({t_ours:.2f} s first): {t_nx / t_warm:.0f}x; same sites: "
            f"{[int(v) for v in ours.sites] == [int(v) for v in grp]}")
    print(line)
    return line


def _sampled_on_map(args: argparse.Namespace, backend: str) -> str:
    """Sampled billboards on ``--ne`` (a country-sized map): its summary line."""

    t0 = time.perf_counter()
    g, name = _load(args.ne)
    t_load = time.perf_counter() - t0
    from gpu_core.betweenness import BillboardResult, billboards

    t0 = time.perf_counter()
    res = None
    for ev in billboards(g, args.ne_k, mode="weighted", backend=backend, method="sampled",
                         epsilon=float(args.epsilon), delta=args.delta, seed=1):
        if isinstance(ev, BillboardResult):
            res = ev
        elif ev.phase == "sample":
            print(f"  {time.perf_counter() - t0:7.2f} s: sampled sources "
                  f"{ev.sources_done}/{ev.sources_total}", flush=True)
    assert res is not None  # billboards() ends with its result
    t = time.perf_counter() - t0
    line = (f"billboards sampled {os.path.basename(name)} ({g.num_nodes}n/{g.num_arcs}a) "
            f"K={args.ne_k} eps={args.epsilon} delta={args.delta}: {t:.1f} s "
            f"(load {t_load:.1f} s), {res.samples} pairs, coverage "
            f"{100 * res.coverage[-1]:.1f}%, SB {res.group_betweenness[-1]:.4g} "
            f"+- {res.error_bound:.3g} ({res.notes})")
    print(line)
    return line


def _graphs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(map spec, path mode) of every graph the run times: the road maps, then the social."""
    maps = args.map
    if maps is None:
        maps = ["gen:grid:31041"]
        for cand in (".gpu_maps/andorra_length.spn",):
            if os.path.exists(cand):
                maps.append(cand)
    graphs = [(m, args.mode) for m in maps]
    for soc in args.social if args.social is not None else ["gen:rmat:9481:26"]:
        if soc:
            graphs.append((soc, args.social_mode))
    return graphs


def run(args: argparse.Namespace) -> int:
    from gpu_core.backend import describe_backend, resolve_backend

    if getattr(args, "goals", False):
        return goals(args)
    if getattr(args, "sampling", None):
        from .billboards_sampling import sampling_bench

        return sampling_bench(args, _load, _say_to(args.summary))
    if getattr(args, "cpu_rounds", False):
        from .billboards_cpu import cpu_rounds

        return cpu_rounds(args, _load, _say_to(args.summary))
    from gpu_core.betweenness import graph_shape, place_billboards

    os.makedirs(args.out, exist_ok=True)
    backend = resolve_backend(args.backend)
    device = describe_backend(args.backend)
    kernels = [k for k in args.kernels.split(",") if k] if backend == "cupy" else ["cpu"]
    graphs = _graphs(args)
    summary: list[str] = []
    rows = []
    print(f"# signpost bench billboards on {device}; K up to {args.k_max}")
    fig = {}
    for spec, mode in graphs:
        g, name = _load(spec)
        shp = graph_shape(g)
        print(f"\n## {name}: {g.num_nodes} nodes, {g.num_arcs} arcs, mean degree "
              f"{shp.mean_degree:.1f}, hop diameter >= {shp.diameter_estimate}; {mode} paths")
        rng = np.random.default_rng(1)
        src = None
        if args.sources and args.sources < g.num_nodes:
            src = np.sort(rng.choice(g.num_nodes, args.sources, replace=False))
        nsrc = g.num_nodes if src is None else src.size
        if args.we_configs and backend == "cupy" and spec == graphs[0][0]:
            summary.append(_we_config_sweep(g, name, mode, backend, args.we_configs))
        results = {}
        for kern in kernels:
            kw = dict(mode=mode, backend=backend, method="exact", sources=src,
                      budget_s=args.budget_s)
            if kern != "cpu":
                kw["kernel"] = kern
            res, times = _run_greedy(g, args.k_max, **kw)
            cum = np.cumsum(times)
            results[kern] = (res, cum)
            fig[(name, kern)] = cum
            for i, t in enumerate(cum):
                rows.append(dict(graph=name, mode=mode, kernel=kern, sources=nsrc, k=i + 1,
                                 cum_s=round(float(t), 5), round_s=round(float(times[i]), 5),
                                 site=int(res.sites[i]) if res is not None else -1))
        line = kernel_table(name, g, mode, nsrc, kernels, results, args.k_max)
        if line is not None:
            summary.append(line)
        if src is not None and backend == "cupy" and "work_efficient" in kernels:
            # the goal: all sources, K = k-max, work-efficient
            t0 = time.perf_counter()
            res = place_billboards(g, args.k_max, mode=mode, backend=backend,
                                   kernel="work_efficient", method="exact")
            t = time.perf_counter() - t0
            line = (f"billboards {name} full exact K={args.k_max} {mode} work_efficient: "
                    f"{t:.2f} s, coverage {100 * res.coverage[-1]:.1f}%")
            print(line)
            summary.append(line)
    if args.nx_k > 0:
        summary.append(_vs_networkx(args, backend))
    if args.ne:
        summary.append(_sampled_on_map(args, backend))
    path = os.path.join(args.out, "billboards.csv")
    if rows:
        with atomic_open(path, "w") as fh:
            wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
            wr.writeheader()
            wr.writerows(rows)
        print(f"wrote {path}")
    plot_times(fig, device, os.path.join(args.out, "billboards_fig4.png"))
    if args.summary:
        with open(args.summary, "a") as fh:
            for line in summary:
                fh.write(f"[{device}] {line}\n")
    return 0


def _say_to(summary: str | None):
    """print(line), and append it to the ``--summary`` file when one is given."""

    def say(line: str) -> None:
        print(line, flush=True)
        if summary:
            with open(summary, "a") as fh:
                fh.write(line + "\n")

    return say


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m app.bench.billboards")
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
