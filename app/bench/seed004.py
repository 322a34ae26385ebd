"""``signpost bench seed004``: seed 004's Table 5-2 and Figure 5-1, reproduced.

    signpost bench seed004 --backend cupy --out bench_out/

Table 5-2: the plain sequential Bellman-Ford (numba; |V|-1 full rounds, as the thesis's
times imply, ``gpu_core.sssp.baselines``) against seed 004's flag-array GPU Bellman-Ford
(strategy ``bellman_ford_queue``) on seeded random simple digraphs of the thesis's exact
sizes ("Simple Graph" 00-04), weights uniform 1..1000 (the thesis says only "random").
Figure 5-1: Dijkstra with an open-node pool (numba) against the GPU evaluation-value
Dijkstra (``eval_dijkstra``) on the DIMACS maps at hand. Only COL and FLA are available
(``../shared/maps``); NY, BAY and NW are not, and the bench says so. Those files are
PACE-2016 conversions without weights, so they get seeded uniform 1..1000 weights
(``maps.formats.dimacs.load_pace``, seed 1), not the DIMACS distances the thesis used: the
speed-ups are comparable in kind, not in value. ``--map`` adds any other map file.

Beside them: our strategy on the CPU backend and scipy (Dijkstra, the check). Without CuPy
(``--backend cpu``) the GPU columns say "n/a". Every distance is checked against scipy
(exit status 1 on a mismatch). Writes ``seed004_table52.csv``/``.png`` and
``seed004_fig51.csv``/``.png`` into ``--out``; the thesis's reported numbers are printed
and written beside ours (RTX 2080, Xeon 8255C).

Imports only numpy/scipy/gpu_core/maps (and matplotlib when present): runs on the GPU
machine.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

import numpy as np

# Table 5-1/5-2: (name, nodes, arcs, plain BF ms, GPU BF ms, speed-up) on an RTX 2080
PAPER_T52 = (
    ("Simple-Graph-00", 10, 34, 0.028, 0.31, 0.09),
    ("Simple-Graph-01", 1_000, 18_555, 270.345, 8.227, 32.86),
    ("Simple-Graph-02", 5_000, 122_984, 8799.94, 45.855, 191.91),
    ("Simple-Graph-03", 10_000, 489_476, 68532.7, 133.717, 512.52),
    ("Simple-Graph-04", 5_000, 1_242_105, 84488.6, 238.185, 354.72),
)
# Figure 5-1 as the text states it (the bars carry no numbers): per-map remarks
PAPER_F51 = {
    "NY": "little gain", "BAY": "speed-up < 1", "COL": "speed-up > 3", "FLA": "",
    "NW": "speed-up > 3",
}
PAPER_F51_MEAN = 1.75
MAPS_AT_HAND = ("COL.gr.xz", "FLA.gr.xz")
MISSING = ("NY", "BAY", "NW")
REPO = Path(__file__).resolve().parents[2]
NA = "n/a"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"))
    p.add_argument("--seed", type=int, default=1, help="seed of the graphs and sources")
    p.add_argument("--out", default="bench_out", help="folder for CSV/PNG")
    p.add_argument("--graphs", default="0,1,2,3,4",
                   help="Table 5-2 rows to run (Simple Graph numbers); empty: none")
    p.add_argument("--scale", type=float, default=1.0,
                   help="shrink the Table 5-2 graphs (nodes and arcs x this; smoke tests)")
    p.add_argument("--negative", action="store_true",
                   help="Table 5-2 with negative arcs: w(u,v) + p(u) - p(v), p uniform 0..500 "
                        "(no negative cycle); the Bellman-Ford family's advantage")
    p.add_argument("--early-exit", action="store_true",
                   help="let the plain Bellman-Ford stop after a round without change "
                        "(the thesis's times imply it did not)")
    p.add_argument("--maps-dir", default=None,
                   help="folder with COL.gr.xz / FLA.gr.xz (default: ../shared/maps)")
    p.add_argument("--map", action="append", default=[],
                   help="another map for Figure 5-1 (repeatable); 'none' skips the figure")
    p.add_argument("--sources", type=int, default=3, help="Figure 5-1 sources per map")
    p.add_argument("--budget-s", type=float, default=60.0,
                   help="cancel one of our CPU searches after this long (reported as such)")


# ---- shared -------------------------------------------------------------------------------
def random_simple_graph(n: int, m: int, seed: int, negative: bool = False):
    """A seeded random simple digraph with exactly n nodes and m arcs (no loops, no
    parallel arcs), weights uniform 1..1000; with ``negative`` shifted by node potentials
    (w + p(u) - p(v), p uniform 0..500): negative arcs, every cycle keeps its cost."""
    from gpu_core.graph import CSRGraph

    m = min(m, n * (n - 1))
    rng = np.random.default_rng(seed)
    codes = np.zeros(0, np.int64)
    while codes.size < m:  # codes of ordered pairs u != v: u * (n-1) + (v shifted past u)
        more = rng.integers(0, n * (n - 1), int((m - codes.size) * 1.2) + 16)
        codes = np.unique(np.concatenate([codes, more]))
    codes = rng.permutation(codes)[:m]
    u, r = codes // (n - 1), codes % (n - 1)
    v = r + (r >= u)
    w = rng.integers(1, 1001, m)
    if negative:
        p = rng.integers(0, 501, n)
        w = w + p[u] - p[v]
    return CSRGraph.from_edges(n, u, v, w)


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _ours(g, source: int, strategy: str, backend: str, budget_s: float):
    """(seconds, dist) of our strategy's search (run_backend: search + predecessors + copy
    back, after a warm-up), or (None, None) when it ran past ``budget_s``."""
    from gpu_core.errors import CancelledError
    from gpu_core.keys import key_space_for
    from gpu_core.sssp import run_backend

    ks = key_space_for(g.weights, g.num_nodes)
    src = np.array([source], np.int32)
    deadline = [0.0]

    def late() -> bool:
        return time.perf_counter() > deadline[0]

    try:
        for _ in range(2):  # warm-up (compile / device graph), then the timed run
            deadline[0] = time.perf_counter() + budget_s
            dt, (key, _pred, _log) = _timed(
                lambda: run_backend(backend, g, src, strategy, _opts(), ks, cancel=late))
    except CancelledError:
        return None, None
    return dt, ks.split(key)[0]


def _opts():
    from gpu_core.sssp import SSSPOptions

    return SSSPOptions()


def _scipy(g, source: int):
    """(seconds, dist) of scipy (Dijkstra; Bellman-Ford with negative arcs), unreached
    marked as our dist marks it on this graph."""
    from gpu_core.keys import key_space_for
    from gpu_core.reference import scipy_distances

    unreach = key_space_for(g.weights, g.num_nodes).unreachable
    return _timed(lambda: scipy_distances(g, np.array([source], np.int32), unreach))


def _ms(x) -> str:
    return NA if x is None else f"{x * 1e3:.3f}"


def _ratio(a, b) -> str:
    return NA if a is None or b is None or b <= 0 else f"{a / b:.2f}"


# ---- Table 5-2 ----------------------------------------------------------------------------
def table52(args, gpu: bool) -> tuple[list[dict], bool]:
    from gpu_core.keys import key_space_for
    from gpu_core.sssp.baselines import plain_bellman_ford

    rows, ok = [], True
    picks = [int(x) for x in args.graphs.split(",") if x.strip()]
    plain_bellman_ford(random_simple_graph(4, 6, 0), 0)  # compile / load numba's cache
    print("Table 5-2: plain Bellman-Ford (numba, sequential) vs seed 004's flag/queue "
          "Bellman-Ford (bellman_ford_queue); random weights 1..1000"
          + (" shifted by potentials 0..500 (negative arcs)" if args.negative else ""))
    for i in picks:
        name, n0, m0, p_plain, p_gpu, p_speed = PAPER_T52[i]
        n = max(2, round(n0 * args.scale))
        m = max(1, round(m0 * args.scale))
        g = random_simple_graph(n, m, args.seed + i, args.negative)
        t_sc, ref = _scipy(g, 0)
        unreach = key_space_for(g.weights, g.num_nodes).unreachable  # as our dist marks it
        t_plain, (d_plain, rounds) = _timed(lambda g=g, u=unreach: plain_bellman_ford(
            g, 0, early_exit=args.early_exit, unreachable=u))
        t_cpu, d_cpu = _ours(g, 0, "bellman_ford_queue", "cpu", args.budget_s)
        t_gpu, d_gpu = (_ours(g, 0, "bellman_ford_queue", "cupy", args.budget_s) if gpu
                        else (None, None))
        good = all(d is None or np.array_equal(d, ref) for d in (d_plain, d_cpu, d_gpu))
        ok &= good
        row = {
            "graph": name, "nodes": g.num_nodes, "arcs": g.num_arcs, "plain_rounds": rounds,
            "plain_bf_ms": _ms(t_plain), "ours_gpu_ms": _ms(t_gpu),
            "speedup_gpu": _ratio(t_plain, t_gpu), "ours_cpu_ms": _ms(t_cpu),
            "speedup_cpu": _ratio(t_plain, t_cpu), "scipy_ms": _ms(t_sc),
            "scipy": "Bellman-Ford" if int(g.weights.min()) < 0 else "Dijkstra",
            "min_arc": int(g.weights.min()),
            "paper_plain_ms": p_plain, "paper_gpu_ms": p_gpu, "paper_speedup": p_speed,
            "verify": "ok" if good else "MISMATCH",
        }
        rows.append(row)
        print(f"  {name}  {n:>6,} / {g.num_arcs:>9,}  plain {row['plain_bf_ms']:>10} ms  "
              f"GPU {row['ours_gpu_ms']:>9} ms (x{row['speedup_gpu']})  "
              f"CPU queue {row['ours_cpu_ms']:>9} ms (x{row['speedup_cpu']})  "
              f"scipy {row['scipy_ms']} ms  | paper x{p_speed} "
              f"({p_plain} / {p_gpu} ms)  {row['verify']}", flush=True)
    return rows, ok


# ---- Figure 5-1 ---------------------------------------------------------------------------
def _maps_dir(args) -> Path | None:
    if args.maps_dir:
        return Path(args.maps_dir)
    for cand in (REPO.parent / "shared" / "maps", REPO.parent.parent / "shared" / "maps"):
        if cand.is_dir():
            return cand
    return None


def _fig51_maps(args) -> list[Path]:
    extra = [Path(m) for m in args.map if m != "none"]
    if "none" in args.map:
        return extra
    d = _maps_dir(args)
    found = [d / f for f in MAPS_AT_HAND if d is not None and (d / f).exists()]
    absent = [f for f in MAPS_AT_HAND if d is None or not (d / f).exists()]
    print("Figure 5-1: the thesis's NY, BAY and NW graphs are not available here"
          + (f"; {', '.join(absent)} not found in {d}" if absent else "")
          + ". PACE files carry no weights: seeded uniform 1..1000 (seed 1), not the "
            "DIMACS distances the thesis used.")
    return found + extra


def fig51(args, gpu: bool) -> tuple[list[dict], bool]:
    from app.bench.sssp import _load
    from gpu_core.graph import CSRGraph
    from gpu_core.sssp.baselines import pool_dijkstra

    rows, ok = [], True
    for path in _fig51_maps(args):
        net, label = _load(str(path), args.seed)
        g = CSRGraph.from_any(net)
        short = path.name.split(".")[0]
        rng = np.random.default_rng(args.seed)
        times: dict[str, list] = {k: [] for k in ("pool", "gpu", "cpu", "scipy")}
        good = True
        for s in rng.integers(0, g.num_nodes, max(1, args.sources)).tolist():
            t_sc, ref = _scipy(g, s)
            t_pool, d_pool = _timed(lambda g=g, s=s: pool_dijkstra(g, s))
            t_cpu, d_cpu = _ours(g, s, "eval_dijkstra", "cpu", args.budget_s)
            t_gpu, d_gpu = _ours(g, s, "eval_dijkstra", "cupy", args.budget_s) if gpu else (
                None, None)
            good &= all(d is None or np.array_equal(d, ref) for d in (d_pool, d_cpu, d_gpu))
            for k, t in (("pool", t_pool), ("gpu", t_gpu), ("cpu", t_cpu), ("scipy", t_sc)):
                times[k].append(t)
        ok &= good
        med = {k: (None if None in v else statistics.median(v)) for k, v in times.items()}
        row = {
            "map": short, "label": label, "nodes": g.num_nodes, "arcs": g.num_arcs,
            "sources": args.sources, "pool_dijkstra_ms": _ms(med["pool"]),
            "ours_gpu_eval_ms": _ms(med["gpu"]), "speedup_gpu": _ratio(med["pool"], med["gpu"]),
            "ours_cpu_eval_ms": _ms(med["cpu"]), "speedup_cpu": _ratio(med["pool"], med["cpu"]),
            "scipy_dijkstra_ms": _ms(med["scipy"]), "paper": PAPER_F51.get(short.upper(), ""),
            "verify": "ok" if good else "MISMATCH",
        }
        rows.append(row)
        print(f"  {short:6s} {g.num_nodes:>9,} nodes  pool Dijkstra {row['pool_dijkstra_ms']} ms"
              f"  GPU eval {row['ours_gpu_eval_ms']} ms (x{row['speedup_gpu']})  CPU eval "
              f"{row['ours_cpu_eval_ms']} ms (x{row['speedup_cpu']})  scipy "
              f"{row['scipy_dijkstra_ms']} ms  | paper: {row['paper'] or '-'}  {row['verify']}",
              flush=True)
    speed = [float(r["speedup_gpu"]) for r in rows if r["speedup_gpu"] != NA]
    mean = f"{statistics.mean(speed):.2f}" if speed else NA
    print(f"  mean GPU speed-up over the pool Dijkstra: {mean} (paper: {PAPER_F51_MEAN} over "
          "NY, BAY, COL, FLA, NW)")
    return rows, ok


# ---- output -------------------------------------------------------------------------------
def _write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:
        return
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _png(path: Path, rows: list[dict], label: str, series: list[tuple[str, str]],
         title: str, ylabel: str, log: bool) -> None:
    if not rows:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:
        return
    fig, ax = plt.subplots(figsize=(8, 4.5))
    x = np.arange(len(rows))
    width = 0.8 / len(series)
    for j, (key, name) in enumerate(series):
        vals = [float(r[key]) if r[key] not in (NA, "", None) else np.nan for r in rows]
        ax.bar(x + (j - (len(series) - 1) / 2) * width, vals, width, label=name)
    ax.set_xticks(x, [r[label] for r in rows], fontsize=8)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(args: argparse.Namespace) -> int:
    from gpu_core.backend import describe_backend, resolve_backend

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    backend = resolve_backend(args.backend)
    gpu = backend == "cupy"
    print(f"backend {backend}: {describe_backend(backend)}"
          + ("" if gpu else "; the GPU columns are n/a"))
    t52, ok1 = table52(args, gpu)
    f51, ok2 = fig51(args, gpu)
    _write_csv(out / "seed004_table52.csv", t52)
    _write_csv(out / "seed004_fig51.csv", f51)
    _png(out / "seed004_table52.png", t52, "graph",
         [("speedup_gpu", "ours: GPU queue BF"), ("speedup_cpu", "ours: CPU queue BF"),
          ("paper_speedup", "thesis (RTX 2080)")],
         "Seed 004 Table 5-2: speed-up over the plain Bellman-Ford", "speed-up (x)", True)
    _png(out / "seed004_fig51.png", f51, "map",
         [("pool_dijkstra_ms", "pool Dijkstra (CPU)"), ("ours_gpu_eval_ms", "eval Dijkstra GPU"),
          ("ours_cpu_eval_ms", "eval Dijkstra CPU"), ("scipy_dijkstra_ms", "scipy Dijkstra")],
         "Seed 004 Figure 5-1 (weights 1..1000, seed 1)", "ms per source (median)", True)
    ok = ok1 and ok2
    print(f"wrote {out}/seed004_table52.csv, seed004_fig51.csv (+ PNG with matplotlib); "
          f"verify={'ok' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":  # python -m app.bench.seed004 ...
    ap = argparse.ArgumentParser(prog="bench seed004")
    add_arguments(ap)
    raise SystemExit(run(ap.parse_args()))
