"""Perfect customization and arc removal (``gpu_core/hierarchy/perfect.py``) against the
basic customization and the strict pruning (``metric.prune``), one map at a time: arcs and
sweep levels kept, the seconds of each pass, the CPU sweep per source and a CPU
sources x targets matrix (restricted sweep) in interleaved rounds (min and median), every
variant's matrix rows equal.

    python scripts/bench_prune.py /work/shared/maps/NE.gr.xz [--topology t.npz] [--pairs 1000]
    python scripts/bench_prune.py kanto.spn --topology k.npz --threads 1,2 --bins 16 --no-queries

``--threads``: each pass again with that many numba threads (and plan bins), wall and CPU
seconds of the process, best of ``--reps``: the triangles, the perfect pass alone, the
removal alone, the fused pass (``perfect.perfect_and_kept``, the default build) and the
removal from a given perfect metric (``perfect.kept_given``, the GPU backend's host part);
run it with NUMBA_NUM_THREADS >= the largest. ``--bins``: each pass's plan for that many
threads (``plan.plan_cost``): its work, critical path and parallel loops, so the speed-up
on a host with more cores is bounded without one (work / path).

PACE .gr.xz maps are weighted as maps/formats/dimacs.py's ``load_pace`` does (seed 1);
``--topology`` reads (or, when missing, writes) the map's saved CCH topology. One line of
JSON per measurement on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def _sweep_ms(h, src) -> float:
    from gpu_core.hierarchy.cpu import sweep_block

    t0 = time.perf_counter()
    sweep_block(h, src, None)
    return (time.perf_counter() - t0) / len(src) * 1e3


def _matrix(h, src, dst) -> tuple[float, np.ndarray]:
    from gpu_core.hierarchy.few import cpu_rows

    t0 = time.perf_counter()
    rows = [b for _, b in cpu_rows(h, src, dst, "rphast", None)]
    return time.perf_counter() - t0, np.concatenate(rows)


def _timed(fn) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def pass_seconds(t, up, down, pu, pd, ways: int, reps: int) -> dict:
    """Each pass with ``ways`` numba threads and plan bins: best wall seconds of ``reps``
    (after a warm-up) and that run's CPU seconds (all threads)."""
    import numba

    from gpu_core.hierarchy import metric, perfect

    numba.set_num_threads(ways)
    passes = {
        "triangles": lambda: metric.triangles(t, up.copy(), down.copy(), ways=ways),
        "perfect": lambda: metric.upper_pass(t, up, down, ways=ways),
        "removal": lambda: perfect.removable(t, pu, pd),
        "fused": lambda: perfect.perfect_and_kept(t, up, down, ways=ways),
        "kept_given": lambda: perfect.kept_given(t, up, down, pu, pd, ways=ways),
    }
    row: dict = {"threads": ways}
    for label, fn in passes.items():
        fn()  # compiles, plans
        best = min((_timed(fn) for _ in range(reps)), key=lambda r: r[0])
        row[f"{label}_s"], row[f"{label}_cpu_s"] = round(best[0], 3), round(best[1], 3)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return row


def plan_rows(t, bins: int) -> list[dict]:
    """Each pass's plan for ``bins`` threads: work, critical path, parallel loops."""
    import numpy as np

    from gpu_core.hierarchy import perfect
    from gpu_core.hierarchy.plan import TRIANGLES, UPPER, build_plan, plan_cost

    sweep, lp = perfect.topology_layout(t)
    by_sweep = np.empty(t.n, np.int32)
    by_sweep[sweep] = np.arange(t.n, dtype=np.int32)
    one, every = np.array([0, t.n], np.int64), np.arange(t.n, dtype=np.int32)
    rows = []
    for label, kind, ptr, verts, split_all in (
            ("triangles", TRIANGLES, t.lvl_ptr, t.lvl_vert, False),
            ("perfect (metric.upper_pass)", UPPER, lp, by_sweep, False),
            ("fused (perfect.perfect_and_kept)", UPPER, lp, by_sweep, True),
            ("kept_given (one group)", UPPER, one, every, True)):
        args = (t.up_ptr, t.dn_ptr, t.dn_src, t.dn_edge)
        c = plan_cost(kind, build_plan(kind, ptr, verts, *args, bins, split_all=split_all),
                      ptr, verts, *args)
        rows.append({"plan": label, **c, "bound": round(c["work"] / max(c["path"], 1), 2)})
    # the removal before the fused pass: a static prange over the vertices by rank
    deg = np.diff(t.up_ptr)
    wk = deg * (deg + 1) // 2  # plan.vertex_work's UPPER steps
    path = max(int(wk[t.n * j // bins:t.n * (j + 1) // bins].sum()) for j in range(bins))
    rows.append({"plan": "removable (static prange)", "work": int(wk.sum()), "path": path,
                 "ways": bins, "bound": round(int(wk.sum()) / max(path, 1), 2)})
    return rows


def main() -> None:
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy.cch import Topology, build_topology, to_hierarchy
    from gpu_core.hierarchy.metric import hierarchy_arrays, initial, prune, triangles
    from gpu_core.hierarchy.model import Hierarchy
    from gpu_core.hierarchy.perfect import (
        perfect_and_kept,
        perfect_metric,
        pruned_arrays,
        removable,
    )
    from maps.load import load_map

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("map")
    ap.add_argument("--topology", help="saved topology (.npz): read if there, else written")
    ap.add_argument("--sources", type=int, default=32, help="sources of the timed sweep")
    ap.add_argument("--pairs", type=int, default=1000, help="sources = targets of the matrix")
    ap.add_argument("--reps", type=int, default=3, help="timed rounds (min and median)")
    ap.add_argument("--threads", default="", help="comma-separated thread counts: per pass")
    ap.add_argument("--bins", default="", help="comma-separated bins: each plan's cost")
    ap.add_argument("--no-queries", action="store_true", help="skip the sweep and matrix")
    a = ap.parse_args()

    def out(**kw) -> None:
        print(json.dumps(kw), flush=True)

    name = a.map.rsplit("/", 1)[-1]
    g = CSRGraph.from_any(load_map(a.map))
    if a.topology and os.path.exists(a.topology):
        t = Topology.load(a.topology)
    else:
        t = build_topology(g)
        if a.topology:
            t.save(a.topology)
    out(map=name, nodes=g.num_nodes, arcs=g.num_arcs, cch_edges=t.edges)
    from gpu_core.hierarchy.cch import slots_for

    slots = slots_for(t, g)
    t0 = time.perf_counter()
    up, down = initial(t.edges, slots, g.weights)
    triangles(t, up, down)
    t1 = time.perf_counter()
    basic = to_hierarchy(t, up, down)
    t2 = time.perf_counter()
    ku, kd = prune(t, up, down)
    strict = Hierarchy(t.n, *hierarchy_arrays(t, up, down, (ku, kd)), "")
    t3 = time.perf_counter()
    pu, pd = perfect_metric(t, up, down)
    t4 = time.perf_counter()
    ku2, kd2 = removable(t, pu, pd)
    t5 = time.perf_counter()
    perfect = Hierarchy(t.n, *pruned_arrays(t, pu, pd, ku2, kd2), "")
    t6 = time.perf_counter()
    fused = perfect_and_kept(t, up, down)
    t7 = time.perf_counter()
    for x, y in zip(fused, (pu, pd, ku2, kd2), strict=True):
        if not (x == y).all():
            raise SystemExit("the fused pass differs from the perfect pass + removal")
    out(map=name, basic_s=round(t1 - t0, 3), basic_arrays_s=round(t2 - t1, 3),
        strict_prune_s=round(t3 - t2, 3), perfect_s=round(t4 - t3, 3),
        removal_s=round(t5 - t4, 3), pruned_arrays_s=round(t6 - t5, 3),
        fused_s=round(t7 - t6, 3), fused_equal=True)
    for b in [int(x) for x in a.bins.split(",") if x]:
        for row in plan_rows(t, b):
            out(map=name, **row)
    for w in [int(x) for x in a.threads.split(",") if x]:
        out(map=name, **pass_seconds(t, up, down, pu, pd, w, a.reps))
    if a.no_queries:
        return
    rng = np.random.default_rng(0)
    src = rng.integers(0, g.num_nodes, a.sources)
    ms, md = rng.integers(0, g.num_nodes, a.pairs), rng.integers(0, g.num_nodes, a.pairs)
    variants = {"basic": basic, "strict": strict, "perfect": perfect}
    sweep_ms: dict = {k: [] for k in variants}
    matrix_s: dict = {k: [] for k in variants}
    for h in variants.values():  # warm-up (compiles)
        _sweep_ms(h, src[:4])
        _matrix(h, ms[:8], md)
    want = None
    for r in range(a.reps):  # interleaved: the shared machine's load hits each variant
        for label, h in variants.items():
            sweep_ms[label].append(_sweep_ms(h, src))
            secs, m = _matrix(h, ms, md)
            matrix_s[label].append(secs)
            want = m if want is None else want
            if r == 0 and not (m == want).all():
                raise SystemExit(f"{label}: the matrix differs from the basic index's")
    for label, h in variants.items():
        out(map=name, index=label, up_arcs=int(h.up_dst.shape[0]),
            down_arcs=int(h.down_src.shape[0]), levels=h.levels,
            sweep_ms_per_source_min=round(min(sweep_ms[label]), 2),
            sweep_ms_per_source_median=round(float(np.median(sweep_ms[label])), 2),
            matrix_s_min=round(min(matrix_s[label]), 3),
            matrix_s_median=round(float(np.median(matrix_s[label])), 3), pairs=a.pairs,
            reps=a.reps, equal_to_basic=True)


if __name__ == "__main__":
    main()
