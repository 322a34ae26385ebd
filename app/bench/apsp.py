"""``signpost bench apsp``: seed 000's Tables 1 and 2 (many-source / all-pairs).

Table 1: random graphs with |E| = 4|V| and weights 1..|V| for |V| = 1K..32K. Table 2:
random, R-MAT, ring and complete graphs at |V| = 4.6K (random and R-MAT with |E| = 16K
and weights 1..4K, ring and complete with unit weights). Columns: one search at a time
(Harish-Narayanan, the seed's "existing method"), seed 000's task-parallel method with and
without shared memory, our batched variant, GPU Floyd-Warshall and repeated CPU Dijkstra
(scipy). Every cell is the time for ALL |V| sources; a cell that would take longer than
``--budget`` seconds is timed on a random subset of sources and scaled up (marked ``*``);
Floyd-Warshall is skipped (marked ``-``) where its O(|V|^3) estimate or memory is too large.
GPU times are wall-clock after a warm-up batch (the host-driven loops are part of what is
measured) with the device synchronised; the batched all-pairs keeps the full matrix on
the device when it fits (``dev``) and is also timed once with the copy to the host.
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from dataclasses import dataclass

import numpy as np

from gpu_core.graph import CSRGraph
from osutil.atomic import atomic_open

GPU_VARIANTS = ("one_at_a_time", "task_parallel", "task_parallel_noshared", "batched")
COLUMNS = GPU_VARIANTS + ("fw_gpu", "cpu_dijkstra")
HEAD = {
    "one_at_a_time": "one-at-a-time",
    "task_parallel": "task-par",
    "task_parallel_noshared": "task-par nosh",
    "batched": "batched",
    "fw_gpu": "FW (GPU)",
    "cpu_dijkstra": "CPU Dijkstra",
}


# ---- graphs (seed 000's families; local so the bench needs nothing but numpy) -----------
def random_graph(n: int, m: int, wmax: int, seed: int = 0) -> CSRGraph:
    r = np.random.default_rng(seed)
    t = r.integers(0, n, m)
    h = (t + r.integers(1, n, m)) % n  # no self loops, exactly m arcs
    return CSRGraph.from_edges(n, t, h, r.integers(1, wmax + 1, m))


def rmat_graph(n: int, m: int, wmax: int, seed: int = 0) -> CSRGraph:
    """R-MAT (a, b, c, d = .45, .15, .15, .25 as GTgraph) on the next power of two, arcs
    with an endpoint >= n redrawn, so |V| = n exactly as in the seed's 4.6K graphs."""
    r = np.random.default_rng(seed)
    scale = max(1, (n - 1).bit_length())
    ts, hs = [], []
    got = 0
    while got < m:
        k = 2 * (m - got) + 1024
        t = np.zeros(k, dtype=np.int64)
        h = np.zeros(k, dtype=np.int64)
        for bit in range(scale):
            p = r.random(k)
            t |= (p >= 0.60).astype(np.int64) << bit  # c or d
            h |= (((p >= 0.45) & (p < 0.60)) | (p >= 0.75)).astype(np.int64) << bit  # b or d
        keep = (t < n) & (h < n) & (t != h)
        ts.append(t[keep])
        hs.append(h[keep])
        got += int(keep.sum())
    t = np.concatenate(ts)[:m]
    h = np.concatenate(hs)[:m]
    return CSRGraph.from_edges(n, t, h, r.integers(1, wmax + 1, m))


def ring_graph(n: int) -> CSRGraph:
    t = np.arange(n)
    return CSRGraph.from_edges(n, t, (t + 1) % n, np.ones(n, dtype=np.int64))


def complete_graph(n: int) -> CSRGraph:
    # Built row by row in CSR order (from_edges' sort would be slow at 21M arcs).
    cols = np.tile(np.arange(n, dtype=np.int32), n).reshape(n, n)
    mask = ~np.eye(n, dtype=bool)
    indices = cols[mask].astype(np.int32)
    indptr = (np.arange(n + 1, dtype=np.int64) * (n - 1)).astype(np.int32)
    return CSRGraph(indptr, indices, np.ones(indices.shape[0], dtype=np.int32))


# ---- timing ---------------------------------------------------------------------------
@dataclass
class Cell:
    seconds: float | None  # for all |V| sources (scaled when extrapolated)
    done: int = 0  # sources actually run
    note: str = ""  # "*" extrapolated, "-" skipped (why in `why`), "dev" result on device
    why: str = ""
    extra: str = ""

    def text(self, unit: float) -> str:
        if self.seconds is None:
            return "-"
        v = self.seconds / unit
        s = f"{v:,.0f}" if v >= 100 else f"{v:,.2f}" if v < 10 else f"{v:,.1f}"
        return s + ("*" if self.note == "*" else "")


def time_gpu_variant(g: CSRGraph, variant: str, budget: float, order: np.ndarray,
                     P: int | None = None, group: int | None = None) -> Cell:
    import cupy as cp

    from gpu_core.multi_source import cuda as ms_cuda

    n = g.num_nodes
    runner = ms_cuda.Runner(g, variant, n, P, total=n, group=group or ms_cuda.GROUP)
    P = runner.P
    full = variant == "batched" and n * n * 8 < 0.4 * ms_cuda.free_bytes()
    out = cp.empty((n, n) if full else (P, n), dtype=cp.int64)
    # warm-up: compile, first allocations, caches
    runner.run_batch(order[:P].astype(np.int32), None, out[:P])
    cp.cuda.Device().synchronize()
    runner.phases = runner.launches = runner.host_checks = 0
    t0 = time.perf_counter()
    done = 0
    while done < n:
        b = order[done : done + P].astype(np.int32)
        dst = out[done : done + b.shape[0]] if full else out[: b.shape[0]]
        runner.run_batch(b, None, dst)
        done += b.shape[0]
        if done < n and time.perf_counter() - t0 > budget:
            break
    cp.cuda.Device().synchronize()
    el = time.perf_counter() - t0
    batches = max(1, -(-done // P))
    extra = (f"P={P} phases/batch={runner.phases / batches:.1f} "
             f"launches/batch={runner.launches / batches:.1f} "
             f"host checks/batch={runner.host_checks / batches:.1f}")
    del out
    if done < n:
        return Cell(el * n / done, done, "*", extra=extra)
    return Cell(el, done, "dev" if full else "", extra=extra)


def _timed(c: Cell) -> float:
    """The seconds of a cell :func:`time_gpu_variant` made (it always times)."""
    assert c.seconds is not None
    return c.seconds


def time_fw(g: CSRGraph, prev: tuple[int, float] | None, fw_max: int, budget_fw: float) -> Cell:
    import cupy as cp

    from gpu_core.multi_source import cuda as ms_cuda

    n = g.num_nodes
    if n > fw_max:
        return Cell(None, why=f"|V| > --fw-max {fw_max}")
    if prev is not None:
        est = prev[1] * (n / prev[0]) ** 3
        if est > budget_fw:
            why = f"estimated {est:.0f} s from |V|={prev[0]} (n^3) > {budget_fw:.0f} s"
            return Cell(None, why=why)
    npad = (n + 31) // 32 * 32
    if 2 * npad * npad * 8 > 0.8 * ms_cuda.free_bytes():
        return Cell(None, why=f"needs {2 * npad * npad * 8} bytes of device memory")
    ms_cuda.floyd_warshall(ring_graph(64))  # warm-up (compile)
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    d = ms_cuda.floyd_warshall(g)
    cp.cuda.Device().synchronize()
    el = time.perf_counter() - t0
    del d
    return Cell(el, n)


def time_cpu(g: CSRGraph, budget: float, order: np.ndarray) -> Cell:
    """Repeated single-source Dijkstra (scipy, one thread), sources in chunks of 16 per
    call as the CPU backend does (one call per source adds scipy's per-call checks)."""
    from scipy.sparse.csgraph import dijkstra

    from gpu_core.multi_source.cpu import scipy_matrix

    mat = scipy_matrix(g)
    n = g.num_nodes
    dijkstra(mat, indices=int(order[0]))  # warm-up
    t0 = time.perf_counter()
    done = 0
    while done < n:
        k = min(16, n - done)
        dijkstra(mat, directed=True, indices=order[done : done + k])
        done += k
        if done < n and time.perf_counter() - t0 > budget:
            break
    el = time.perf_counter() - t0
    return Cell(el * n / done, done, "*" if done < n else "")


def _cell(col: str, g, args, gpu_ok: bool, order, fw_prev):
    """(one cell of the table, the Floyd-Warshall (n, seconds) the next graph extrapolates from)."""
    if col == "cpu_dijkstra":
        return (time_cpu(g, args.budget, order) if args.backend != "cupy"
                else Cell(None, why="--backend cupy")), fw_prev
    if not gpu_ok:
        return Cell(None, why="no GPU"), fw_prev
    if col == "fw_gpu":
        c = time_fw(g, fw_prev, args.fw_max, args.budget_fw)
        return c, ((g.num_nodes, c.seconds) if c.seconds is not None else fw_prev)
    return time_gpu_variant(g, col, args.budget, order, args.P if col == "batched" else None), fw_prev


def run_table(graphs: list[tuple[str, CSRGraph]], args, gpu_ok: bool, unit: float) -> list[dict]:
    from app.progress import step

    rows = []
    fw_prev = None
    for label, g in graphs:
        n = g.num_nodes
        order = np.random.default_rng(1).permutation(n)
        cells: dict[str, Cell] = {}
        for col in COLUMNS:
            if col not in args.columns:
                continue
            with step(f"{label} {HEAD[col]}") as p:
                p(None, "running")
                cells[col], fw_prev = _cell(col, g, args, gpu_ok, order, fw_prev)
            c = cells[col]
            print(f"  {label:>12} {HEAD[col]:>14}: "
                  f"{'-' if c.seconds is None else f'{c.seconds:.4f} s'} "
                  f"{c.note} {c.why} {c.extra} (sources run: {c.done})", flush=True)
        rows.append({"graph": label, "n": n, "m": g.num_arcs, "cells": cells})
    return rows


def print_table(title: str, rows: list[dict], unit: float, unit_name: str, device: str) -> str:
    cols = [c for c in COLUMNS if any(c in r["cells"] for r in rows)]
    lines = [f"{title} ({unit_name}; {device})"]
    head = f"{'graph':>12} {'|V|':>7} {'|E|':>9} " + " ".join(f"{HEAD[c]:>14}" for c in cols)
    head += f" {'tp/oaat':>8} {'nosh/tp':>8} {'tp/bat':>8} {'cpu/bat':>8}"
    lines.append(head)

    def ratio(r, a, b):
        ca, cb = r["cells"].get(a), r["cells"].get(b)
        if not ca or not cb or ca.seconds is None or cb.seconds is None or cb.seconds == 0:
            return "-"
        return f"{ca.seconds / cb.seconds:.1f}x"

    for r in rows:
        line = f"{r['graph']:>12} {r['n']:>7} {r['m']:>9} " + " ".join(
            f"{r['cells'][c].text(unit) if c in r['cells'] else '':>14}" for c in cols)
        line += (f" {ratio(r, 'one_at_a_time', 'task_parallel'):>8}"
                 f" {ratio(r, 'task_parallel_noshared', 'task_parallel'):>8}"
                 f" {ratio(r, 'task_parallel', 'batched'):>8}"
                 f" {ratio(r, 'cpu_dijkstra', 'batched'):>8}")
        lines.append(line)
    lines.append("* extrapolated from a random subset of sources; - not run (see log); ratios "
                 "are time/time from this run (e.g. tp/oaat = one-at-a-time over task-parallel)")
    text = "\n".join(lines)
    print(text, flush=True)
    return text


def write_csv(path: str, table: str, rows: list[dict]) -> None:
    with atomic_open(path, "w") as fh:
        w = csv.writer(fh)
        w.writerow(["table", "graph", "n", "m", "column", "seconds", "sources_run",
                    "extrapolated", "note"])
        for r in rows:
            for col, c in r["cells"].items():
                w.writerow([table, r["graph"], r["n"], r["m"], col,
                            "" if c.seconds is None else f"{c.seconds:.6f}", c.done,
                            int(c.note == "*"), (c.why + " " + c.extra).strip()])


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", default="1024,2048,4096,8192,16384,32768",
                   help="Table 1 vertex counts, comma-separated")
    p.add_argument("--table", choices=("1", "2", "both"), default="both")
    p.add_argument("--backend", choices=("auto", "cpu", "cupy"), default="auto",
                   help="cpu: only the CPU Dijkstra column; cupy: GPU columns only")
    p.add_argument("--columns", default=",".join(COLUMNS),
                   help=f"subset of {','.join(COLUMNS)}")
    p.add_argument("--budget", type=float, default=2.0,
                   help="seconds per cell before extrapolating from the sources run so far")
    p.add_argument("--budget-fw", type=float, default=20.0,
                   help="skip Floyd-Warshall when its n^3 estimate exceeds this (s)")
    p.add_argument("--fw-max", type=int, default=16384, help="largest |V| for Floyd-Warshall")
    p.add_argument("--P", type=int, default=None, help="batched: sources per launch (x32)")
    p.add_argument("--n2", type=int, default=4600, help="Table 2 vertex count")
    p.add_argument("--download", action="store_true",
                   help="also time the public all_pairs (with the copy to the host) at the "
                        "largest Table 1 size")
    p.add_argument("--out-dir", default=os.environ.get("OUT", "bench_out"),
                   help="where apsp_table*.csv/.txt go")
    p.add_argument("--sweep-P", default=None, metavar="P1,P2,...",
                   help="instead of the tables: time the batched variant for each P (and the "
                        "automatic choice) on the Table 1 graphs")
    p.add_argument("--ablation", action="store_true",
                   help="also time batched with one host check per phase vs per group, at "
                        "P = 32 and the automatic P (largest and smallest Table 1 size)")
    p.add_argument("--summary", default=None, metavar="FILE",
                   help="append one-line summaries (goal checks) to FILE")


def run(args) -> int:
    from gpu_core.backend import cupy_status

    ok, gpu_name = cupy_status()
    gpu_ok = ok and args.backend != "cpu"
    if args.backend == "cupy" and not ok:
        from gpu_core.errors import BackendUnavailableError

        raise BackendUnavailableError(f"the cupy backend is not available: {gpu_name}")
    args.columns = tuple(c.strip() for c in args.columns.split(",") if c.strip())
    bad = [c for c in args.columns if c not in COLUMNS]
    if bad:
        from app.cli import CliError

        raise CliError(f"unknown column(s) {', '.join(bad)}; choose from {', '.join(COLUMNS)}")
    device = f"GPU: {gpu_name}" if gpu_ok else f"CPU only ({gpu_name if not ok else 'chosen'})"
    os.makedirs(args.out_dir, exist_ok=True)
    print(f"# signpost bench apsp on {device}", flush=True)
    summaries: list[str] = []
    print(f"# CPU: {cpu_name()}", flush=True)
    if args.sweep_P:
        if not gpu_ok:
            from app.cli import CliError

            raise CliError("--sweep-P needs the GPU")
        summaries.extend(sweep_P(args, device))
        args.table = "none"
    if args.table in ("1", "both"):
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        graphs = [(f"random {n // 1024}K" if n % 1024 == 0 else f"random {n}",
                   random_graph(n, 4 * n, n, seed=n)) for n in sizes]
        rows = run_table(graphs, args, gpu_ok, 1e-3)
        text = print_table("Table 1: random graphs, |E| = 4|V|, weights 1..|V|, all |V| sources",
                           rows, 1e-3, "ms", device)
        write_csv(os.path.join(args.out_dir, "apsp_table1.csv"), "1", rows)
        summaries.extend(summary_table1(rows, device))
        if args.ablation and gpu_ok:
            summaries.extend(ablation(graphs, args, device))
        with atomic_open(os.path.join(args.out_dir, "apsp_table1.txt"), "w") as fh:
            fh.write(text + "\n")
        if args.download and gpu_ok:
            from gpu_core.multi_source import all_pairs

            n = sizes[-1]
            g = graphs[-1][1]
            t0 = time.perf_counter()
            d = all_pairs(g, backend="cupy")
            el = time.perf_counter() - t0
            print(f"all_pairs(random {n}) with the copy to host memory: {el:.3f} s "
                  f"({d.nbytes / 2**30:.1f} GiB)", flush=True)
            del d
    if args.table in ("2", "both"):
        n = args.n2
        graphs = [
            ("random", random_graph(n, 16384, 4096, seed=7)),
            ("R-MAT", rmat_graph(n, 16384, 4096, seed=7)),
            ("ring", ring_graph(n)),
            ("complete", complete_graph(n)),
        ]
        rows = run_table(graphs, args, gpu_ok, 1.0)
        text = print_table(f"Table 2: graph shapes at |V| = {n}, all |V| sources", rows, 1.0,
                           "s", device)
        write_csv(os.path.join(args.out_dir, "apsp_table2.csv"), "2", rows)
        summaries.extend(summary_table2(rows))
        with atomic_open(os.path.join(args.out_dir, "apsp_table2.txt"), "w") as fh:
            fh.write(text + "\n")
    if args.summary:
        with open(args.summary, "a") as fh:
            for line in summaries:
                fh.write(line + "\n")
    for line in summaries:
        print(line)
    return 0


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip() + f" ({os.cpu_count()} threads)"
    except OSError:
        pass
    import platform

    return platform.processor() or "unknown CPU"


def sweep_P(args, device: str) -> list[str]:
    """Batched all-pairs time for each P on the Table 1 graphs (tunes ms_cuda.auto_P)."""
    from gpu_core.multi_source import cuda as ms_cuda

    Ps = [int(x) for x in args.sweep_P.split(",") if x.strip()]
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    lines = [f"P sweep: batched all-pairs, random |E| = 4|V| (ms; {device})",
             f"{'|V|':>7} " + " ".join(f"{'P=' + str(P):>9}" for P in Ps) + f" {'auto':>12}"]
    out = []
    for n in sizes:
        g = random_graph(n, 4 * n, n, seed=n)
        order = np.random.default_rng(1).permutation(n)
        cells = [time_gpu_variant(g, "batched", args.budget, order, P) for P in Ps]
        auto = ms_cuda.auto_P(n, n)
        ca = time_gpu_variant(g, "batched", args.budget, order, None)
        for P, c in zip(Ps, cells, strict=True):
            print(f"  |V|={n} P={P}: {c.seconds:.4f} s {c.note} {c.extra}", flush=True)
        lines.append(f"{n:>7} " + " ".join(f"{c.text(1e-3):>9}" for c in cells)
                     + f" {ca.text(1e-3) + f' (P={auto})':>12}")
        best = min(zip(Ps, cells, strict=True), key=lambda pc: _timed(pc[1]))
        out.append(f"apsp P sweep |V|={n}: best P={best[0]} {_timed(best[1]) * 1e3:.1f} ms, "
                   f"auto P={auto} {_timed(ca) * 1e3:.1f} ms")
    _print_and_save(lines, args.out_dir, "apsp_sweep_P.txt")
    return out


def _print_and_save(lines: list[str], out_dir: str, name: str) -> None:
    """Print a table and write it to OUT_DIR/NAME."""
    text = "\n".join(lines)
    print(text, flush=True)
    with atomic_open(os.path.join(out_dir, name), "w") as fh:
        fh.write(text + "\n")


def ablation(graphs: list[tuple[str, CSRGraph]], args, device: str) -> list[str]:
    """What the device-side termination buys: batched with a host check after every
    phase (group = 1) against one per group of phases, at P = 32 and the automatic P."""
    from gpu_core.multi_source import cuda as ms_cuda

    pick = [graphs[0], graphs[-1]] if len(graphs) > 1 else graphs
    lines = [f"Ablation: batched all-pairs (ms; {device})",
             f"{'graph':>12} {'P=32 g=1':>10} {f'P=32 g={ms_cuda.GROUP}':>10} "
             f"{'auto g=1':>10} {f'auto g={ms_cuda.GROUP}':>10}"]
    out = []
    for label, g in pick:
        n = g.num_nodes
        order = np.random.default_rng(1).permutation(n)
        cells = [time_gpu_variant(g, "batched", args.budget, order, P, grp)
                 for P in (32, None) for grp in (1, ms_cuda.GROUP)]
        lines.append(f"{label:>12} " + " ".join(f"{c.text(1e-3):>10}" for c in cells))
        s = [_timed(c) for c in cells]
        out.append(f"apsp ablation {label}: host check per phase / per {ms_cuda.GROUP} phases: "
                   f"P=32 {s[0] / s[1]:.2f}x, auto P {s[2] / s[3]:.2f}x")
    _print_and_save(lines, args.out_dir, "apsp_ablation.txt")
    return out


def _sec(row: dict, col: str) -> float | None:
    c = row["cells"].get(col)
    return None if c is None else c.seconds


def summary_table1(rows: list[dict], device: str) -> list[str]:
    out = []
    for r in rows:
        b, tp, oa = _sec(r, "batched"), _sec(r, "task_parallel"), _sec(r, "one_at_a_time")
        cpu = _sec(r, "cpu_dijkstra")
        parts = [f"apsp T1 |V|={r['n']}:"]
        if b is not None:
            parts.append(f"batched {b * 1e3:.1f} ms")
        if tp is not None:
            parts.append(f"task-par {tp * 1e3:.1f} ms")
        if oa is not None and tp:
            parts.append(f"task-par/one-at-a-time {oa / tp:.1f}x")
        if tp and b:
            parts.append(f"batched/task-par {tp / b:.1f}x")
        if cpu and b:
            parts.append(f"batched/CPU {cpu / b:.1f}x")
        if r["n"] == 32768 and b is not None:
            parts.append(f"(goal <= 1000 ms: {'met' if b <= 1.0 else 'MISSED'})")
        if r["n"] == 1024 and oa is not None and tp:
            parts.append(f"(goal >= 10x: {'met' if oa / tp >= 10 else 'MISSED'})")
        out.append(" ".join(parts) + f" [{device}]")
    return out


def summary_table2(rows: list[dict]) -> list[str]:
    out = []
    for r in rows:
        cells = ", ".join(f"{HEAD[c]} {v.seconds:.3f} s{'*' if v.note == '*' else ''}"
                          for c, v in r["cells"].items() if v.seconds is not None)
        out.append(f"apsp T2 {r['graph']} |V|={r['n']}: {cells}")
    return out
