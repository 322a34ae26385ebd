"""``signpost bench edits``: incremental repair after a road closure vs a fresh search.

    signpost bench edits --map gen:kanto --map NE.gr.xz --closures 100 --sources 5 \\
        --backend cupy --write-doc

Per map and random source: a fresh ``auto`` search, then ``--closures`` / ``--sources``
random single-road closures on the current shortest-path tree (a road: a live tree arc and
its reverse arcs, closed in one batch). For each closure: the batch is applied (*apply*:
``MutableGraph.apply``), a fresh ``auto`` search runs on the edited graph (*fresh*; the
compaction it needs first is timed apart as *compact*, then forgotten, so that a repair
that falls back pays its own), and the result is repaired from the one before (*repair*:
``gpu_core.repair.repair``). Both calls are
timed the same way: CUDA events recorded on the stream right before and after the call
(*GPU ms*, which includes every transfer and the result arrays on the host) and
perf_counter (*wall ms*); the route to a random target (``path_to``) is read in both. The
repaired dist and pred are checked against the fresh ones (exit 1 on a mismatch). The
road is then reopened and repaired back (untimed), so every closure starts from the
unedited map and the repair chain runs on device-resident results, as in an editing
session (the reopening repair has no limits, so it never hands over to a fresh search,
whose result would have to be uploaded); one untimed closure per source warms that up. Medians over the closures; the
share that fell back to a fresh search; per-closure rows in ``edits_closures.csv``.

Imports only numpy/gpu_core/maps (no Qt, shapely): it runs on the GPU machine as
``python -m app.bench.edits``.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from osutil.atomic import atomic_open

DOC = Path(__file__).resolve().parents[2] / "docs" / "perf" / "edits.md"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", action="append", required=True,
                   help="map file or gen:KIND[:N] (repeatable: one table row per map)")
    p.add_argument("--closures", type=int, default=100, help="closures per map (all sources)")
    p.add_argument("--sources", type=int, default=5, help="random sources per map")
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-affected", type=int, default=None,
                   help="RepairOptions.max_affected (default: its fraction of the map)")
    p.add_argument("--budget-fraction", type=float, default=None,
                   help="RepairOptions.budget_fraction (default: its default)")
    p.add_argument("--pick", default="uniform", choices=("uniform", "shallow"),
                   help="uniform: any tree road; shallow: one near the source (large "
                        "subtrees: what the fallback limit is measured with)")
    p.add_argument("--out", default="bench_out", help="folder for edits_closures.csv")
    p.add_argument("--write-doc", action="store_true", help=f"write the table to {DOC}")
    p.add_argument("--doc", default=None, help="write the table as Markdown here")


class _Timer:
    """CUDA events (when on the GPU) and perf_counter around one call."""

    def __init__(self, gpu: bool):
        self.gpu = gpu
        if gpu:
            import cupy as cp

            self.cp = cp

    def __call__(self, fn):
        if self.gpu:
            a, b = self.cp.cuda.Event(), self.cp.cuda.Event()
            a.record()
        t0 = time.perf_counter()
        out = fn()
        if self.gpu:
            b.record()
            b.synchronize()
        wall = (time.perf_counter() - t0) * 1e3
        gpu_ms = self.cp.cuda.get_elapsed_time(a, b) if self.gpu else float("nan")
        return out, gpu_ms, wall


def _tree_arc(res, tail, head, live, rng, pick: str) -> int:
    """A random tree arc id (-1 if none)."""
    if pick == "uniform":
        for _ in range(64):  # random arcs until a tree arc: no O(m) pass per closure
            e = int(rng.integers(tail.shape[0]))
            if live[e] and res.pred[head[e]] == tail[e]:
                return e
    tree = live & (res.pred[head] == tail)
    if pick == "shallow" and tree.any():
        hops = res.hops[head]
        tree &= hops <= np.quantile(hops[tree], 0.02)
    cand = np.flatnonzero(tree)
    return int(rng.choice(cand)) if cand.size else -1


def _road(mg, res, rng, pick: str = "uniform") -> np.ndarray:
    """A random live tree arc of ``res`` and its live reverse arcs (arc ids); "shallow":
    among the tree arcs whose head lies in the 2% fewest hops from the source."""
    from gpu_core.dynamic import ARC_LIVE

    h = mg.host
    k = h.total
    tail, head, state = h.tail[:k], h.head[:k], h.state[:k]
    e = _tree_arc(res, tail, head, state == ARC_LIVE, rng, pick)
    if e < 0:
        return np.zeros(0, np.int64)
    t, v = int(tail[e]), int(head[e])
    back = mg.out_arcs(v)
    back = back[h.head[back] == t]
    return np.concatenate([[e], back]).astype(np.int64)


def bench_map(spec: str, args, backend: str, writer) -> dict:
    from app.bench.sssp import _load
    from gpu_core import sssp
    from gpu_core.dynamic import MutableGraph
    from gpu_core.graph import CSRGraph
    from gpu_core.repair import RepairOptions, repair
    from gpu_core.sssp.api import prepare_graph

    t0 = time.perf_counter()
    net, label = _load(spec, args.seed)
    g = CSRGraph.from_any(net)
    print(f"map {label}: {g.num_nodes:,} nodes, {g.num_arcs:,} arcs "
          f"(loaded in {time.perf_counter() - t0:.1f} s)", flush=True)
    mg = MutableGraph(net, backend=backend)
    base = RepairOptions()
    opts = RepairOptions(max_affected=args.max_affected,
                         budget_fraction=base.budget_fraction if args.budget_fraction is None
                         else args.budget_fraction)
    # the untimed reopening repairs without limits: every timed closure then starts from
    # a device-resident result of the unedited map, as a session of edits does
    reopen = RepairOptions(max_affected=10**9, budget_fraction=None, max_rounds=10**9)
    timer = _Timer(backend == "cupy")
    rng = np.random.default_rng(args.seed)
    sources = rng.integers(0, g.num_nodes, max(1, args.sources))
    per = max(1, args.closures // len(sources))
    rows, failed = [], False
    for si, s in enumerate(sources.tolist()):
        cur = sssp(mg, s, backend=backend)
        for c in range(per + 1):  # closure 0 warms up (kernels, device copies): untimed
            arcs = _road(mg, cur, rng, args.pick)
            if not arcs.size:
                break
            summary, _, apply_wall = timer(lambda a=arcs: mg.apply(mg.batch().disable(a)))
            target = int(rng.integers(g.num_nodes))

            # a fresh search on the edited map: the compaction (and validation) it needs
            # after an edit, then the search
            _, cmp_gpu, cmp_wall = timer(lambda: prepare_graph(mg))

            def do_fresh(tg=target, s=s):
                r = sssp(mg, s, backend=backend)
                r.path_to(tg)
                return r

            fresh, fr_gpu, fr_wall = timer(do_fresh)
            mg._csr_version = -1  # forget that compaction: a fallback pays its own again

            def do_repair(prev=cur, sm=summary, tg=target):
                r = repair(mg, prev, sm, backend=backend, options=opts)
                r.path_to(tg)
                return r

            rep, rep_gpu, rep_wall = timer(do_repair)
            if not (np.array_equal(rep.dist, fresh.dist) and np.array_equal(rep.pred, fresh.pred)):
                print(f"MISMATCH {label} source {s} closure {c}: repair != fresh search")
                failed = True
            back = mg.apply(mg.batch().enable(arcs))
            cur = repair(mg, rep, back, backend=backend, options=reopen)
            if c == 0:
                continue
            row = {"map": label.split(" ")[0], "source": s, "arcs": int(arcs.size),
                   "method": rep.method, "affected": rep.affected,
                   "repair_gpu_ms": rep_gpu, "repair_wall_ms": rep_wall,
                   "fresh_gpu_ms": fr_gpu, "fresh_wall_ms": fr_wall,
                   "compact_gpu_ms": cmp_gpu, "compact_wall_ms": cmp_wall,
                   "apply_wall_ms": apply_wall,
                   "repair_kernel_ms": rep.extra.get("gpu_ms", float("nan")),
                   "rounds": rep.extra.get("rounds", 0)}
            rows.append(row)
            writer.writerow(row)
        print(f"  source {si + 1}/{len(sources)} done", flush=True)
    return _summary(label, g, rows, failed, timer.gpu)


def _med(rows, k):
    vals = [r[k] for r in rows if r[k] == r[k]]
    return statistics.median(vals) if vals else float("nan")


def _summary(label, g, rows, failed, gpu: bool) -> dict:
    if not rows:
        return {"map": label, "n": g.num_nodes, "closures": 0, "failed": failed}
    key = "gpu" if gpu else "wall"
    ratio = [r[f"repair_{key}_ms"] / r[f"fresh_{key}_ms"] for r in rows]
    # a fallback compacts the edited graph and searches: against the same two steps
    fell = [r[f"repair_{key}_ms"] / (r[f"fresh_{key}_ms"] + r[f"compact_{key}_ms"])
            for r in rows if r["method"] == "fresh"]
    rep = [x for x, r in zip(ratio, rows, strict=True) if r["method"] == "repair"]
    return {
        "map": label.split(" ")[0], "n": g.num_nodes, "m": g.num_arcs, "closures": len(rows),
        "repair_gpu": _med(rows, "repair_gpu_ms"), "repair_wall": _med(rows, "repair_wall_ms"),
        "repair_p90": float(np.percentile([r[f"repair_{key}_ms"] for r in rows], 90)),
        "fresh_gpu": _med(rows, "fresh_gpu_ms"), "fresh_wall": _med(rows, "fresh_wall_ms"),
        "compact": _med(rows, f"compact_{key}_ms"), "apply": _med(rows, "apply_wall_ms"),
        "kernel": _med(rows, "repair_kernel_ms"),
        "fallback": sum(r["method"] == "fresh" for r in rows) / len(rows),
        "affected": _med(rows, "affected"), "affected_max": max(r["affected"] for r in rows),
        "ratio_median": statistics.median(ratio), "ratio_max": max(rep) if rep else float("nan"),
        "fallback_ratio_max": max(fell) if fell else float("nan"), "failed": failed,
    }


HEADER = ("| map | nodes | closures | repair GPU ms | repair wall ms | repair p90 ms | "
          "fresh auto GPU ms | fresh wall ms | compact ms | apply ms | repaired/fresh "
          "median (max) | fell back | fallback/(compact+fresh) max | affected median (max) |")


def table(summaries: list[dict]) -> str:
    lines = [HEADER, "|" + "---|" * 14]
    for s in summaries:
        if not s.get("closures"):
            continue
        lines.append(
            f"| {s['map']} | {s['n']:,} | {s['closures']} | {s['repair_gpu']:.2f} | "
            f"{s['repair_wall']:.2f} | {s['repair_p90']:.2f} | {s['fresh_gpu']:.2f} | "
            f"{s['fresh_wall']:.2f} | {s['compact']:.2f} | {s['apply']:.2f} | "
            f"{s['ratio_median']:.2f} ({s['ratio_max']:.2f}) | {100 * s['fallback']:.0f}% | "
            f"{s['fallback_ratio_max']:.2f} | {s['affected']:.0f} ({s['affected_max']:,}) |")
    return "\n".join(lines)


def write_doc(path: Path, summaries, args, device: str) -> None:
    cmd = (f"signpost bench edits {' '.join('--map ' + m for m in args.map)} --closures "
           f"{args.closures} --sources {args.sources} --backend {args.backend} --write-doc")
    text = "\n".join([
        "# What-if edits: incremental repair vs a fresh search",
        "",
        f"Command: `{cmd}` (also `python -m app.bench.edits ...`).",
        f"Device: {device}; host {os.cpu_count()} cores ({platform.machine()}), "
        f"Python {platform.python_version()}.",
        "",
        "Random single-road closures on the current shortest-path tree of random sources "
        "(the arc and its reverse, one batch). *repair*: `gpu_core.repair.repair` from the "
        "result before the closure, plus the route to a random target; *fresh auto*: "
        "`gpu_core.sssp` on the edited graph (same route read); both timed by CUDA events "
        "right before and after the call (GPU ms: includes transfers and the host result "
        "arrays) and by wall clock. *compact*: the CSR compaction (and validation) a fresh "
        "search needs after an edit (not counted in *fresh*). *apply*: `MutableGraph.apply` of the "
        "closure. *repaired/fresh*: per-closure ratio of the GPU times (wall on the CPU), "
        "its median over all closures and its largest over the repaired ones; *fell "
        "back*: the share the repair handed to a fresh search (RepairOptions: the device "
        "time budget, 5% of a fresh search's time by default, or the vertex limit); such a "
        "call compacts the edited graph and searches, so it is compared with *compact* + "
        "*fresh* of the same closure (*fallback/(compact+fresh)*). Medians over the "
        "closures.",
        "",
        table(summaries),
        "",
    ])
    with atomic_open(path, "w") as fh:
        fh.write(text)
    print(f"wrote {path}")


def run(args: argparse.Namespace) -> int:
    from gpu_core.backend import describe_backend, resolve_backend

    backend = resolve_backend(args.backend)
    device = describe_backend(backend)
    print(f"backend {backend}: {device}", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    fields = ["map", "source", "arcs", "method", "affected", "repair_gpu_ms", "repair_wall_ms",
              "fresh_gpu_ms", "fresh_wall_ms", "compact_gpu_ms", "compact_wall_ms",
              "apply_wall_ms", "repair_kernel_ms", "rounds"]
    summaries = []
    with atomic_open(out / "edits_closures.csv", "w") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for spec in args.map:
            summaries.append(bench_map(spec, args, backend, w))
            print(table(summaries[-1:]), flush=True)
    print(table(summaries))
    failed = any(s["failed"] for s in summaries)
    doc = args.doc or (str(DOC) if args.write_doc else None)
    if doc:
        write_doc(Path(doc), summaries, args, device)
    print("SUMMARY verify=" + ("FAIL" if failed else "ok"))
    sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":  # python -m app.bench.edits ... (no CLI dispatcher needed)
    ap = argparse.ArgumentParser(prog="bench edits")
    add_arguments(ap)
    raise SystemExit(run(ap.parse_args()))
