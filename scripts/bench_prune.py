"""Perfect customization and arc removal (``gpu_core/hierarchy/perfect.py``) against the
basic customization and the strict pruning (``metric.prune``), one map at a time: arcs and
sweep levels kept, the seconds of each pass, the CPU sweep per source and a CPU
sources x targets matrix (restricted sweep) in interleaved rounds (min and median), every
variant's matrix rows equal.

    python scripts/bench_prune.py /work/shared/maps/NE.gr.xz [--topology t.npz] [--pairs 1000]

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


def main() -> None:
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy.cch import Topology, build_topology, to_hierarchy
    from gpu_core.hierarchy.metric import hierarchy_arrays, initial, prune, triangles
    from gpu_core.hierarchy.model import Hierarchy
    from gpu_core.hierarchy.perfect import perfect_metric, pruned_arrays, removable
    from maps.load import load_map

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("map")
    ap.add_argument("--topology", help="saved topology (.npz): read if there, else written")
    ap.add_argument("--sources", type=int, default=32, help="sources of the timed sweep")
    ap.add_argument("--pairs", type=int, default=1000, help="sources = targets of the matrix")
    ap.add_argument("--reps", type=int, default=3, help="timed rounds (min and median)")
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
    out(map=name, basic_s=round(t1 - t0, 3), basic_arrays_s=round(t2 - t1, 3),
        strict_prune_s=round(t3 - t2, 3), perfect_s=round(t4 - t3, 3),
        removal_s=round(t5 - t4, 3), pruned_arrays_s=round(t6 - t5, 3))
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
