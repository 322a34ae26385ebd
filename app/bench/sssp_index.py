"""``signpost bench sssp --index [FILE.npz]``: the ``auto+index`` row, one-to-all searches
through the route index (``sssp(..., index=h)``, issue 26), timed like the other rows on
the same sources and checked against the same references (dist vs scipy on every source,
dist and pred vs the reference search on the first).

The key-weighted index comes from FILE.npz when given (built there with
``gpu_core.hierarchy.key_hierarchy`` and saved when the file does not exist yet, so a
build can be carried to another machine), else from the cache folder
(``app.jobs.index.key_hierarchy_for(policy="on")``: loaded, or built once and kept).
The build or load time is printed, not part of the row. Per source the row times the
whole public ``sssp()`` call (upward search, sweep, keys, predecessors, distances).
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np


def load_index(g, spec: str):
    """(key hierarchy, how it was obtained) for ``--index`` (``cache`` or a .npz path)."""
    from gpu_core.hierarchy import Hierarchy, key_graph_fingerprint, key_hierarchy

    t0 = time.perf_counter()
    if spec == "cache":
        from app.jobs.index import key_hierarchy_for

        h, info = key_hierarchy_for(g, policy="on")
        return h, f"{info.source} in {info.seconds:.1f} s ({info.path})"
    if os.path.exists(spec):
        h = Hierarchy.load(spec, key=key_graph_fingerprint(g))
        return h, f"loaded {spec} in {time.perf_counter() - t0:.1f} s"
    h = key_hierarchy(g)
    h.save(spec)
    return h, f"built in {h.build_s:.1f} s, saved to {spec}"


def index_row(g, sources, backend: str, ref_dists, ref_pred, spec: str,
              budget_s: float) -> tuple[dict, bool]:
    """(the table row of ``auto+index``, whether every check passed)."""
    from gpu_core.sssp import sssp

    h, how = load_index(g, spec)
    print(f"  search index: {h.levels} levels, {h.shortcuts:,} shortcuts; {how}", flush=True)
    t0 = time.perf_counter()
    first = sssp(g, int(sources[0]), backend=backend, index=h)  # checks the index once
    print(f"  first indexed search (index check, reverse graph, buffers): "
          f"{(time.perf_counter() - t0) * 1e3:.0f} ms", flush=True)
    ok = (first.extra.get("index") == "phast" and np.array_equal(first.dist, ref_dists[0])
          and np.array_equal(first.pred, ref_pred))
    times, phases, edges, sweep_us = [], [], [], []
    spent = 0.0
    for s, ref in zip(sources, ref_dists, strict=False):
        t0 = time.perf_counter()
        res = sssp(g, int(s), backend=backend, index=h)
        dt = time.perf_counter() - t0
        times.append(dt)
        phases.append(len(res.phases))
        edges.append(res.phases.total_edges)
        sweep_us.append(res.phases.total_time_us)
        ok &= bool(np.array_equal(res.dist, ref))
        spent += dt
        if spent > budget_s:
            break
    med = statistics.median(times)
    e_med = statistics.median(edges)
    row = {
        "strategy": "auto+index",
        "sources": len(times),
        "median_ms": med * 1e3,
        "phases": statistics.median(phases),
        "edges": e_med,
        "mteps": e_med / med / 1e6,
        "speedup_vs_scipy": float("nan"),  # filled by the caller
        "phase_time_sum_ms": statistics.median(sweep_us) / 1e3,
        "sssp_api_ms": med * 1e3,
    }
    return row, ok
