"""``signpost bench billboards --cpu-rounds``: the exact CPU greedy as the app's first run
sees it (issue 27): the kernels' load from numba's cache (``app.jobs.billboards.warm_up``),
then K rounds on every source of each ``--map``, with the wall and the process CPU seconds
of each round (CPU time: other work on a shared machine inflates the wall time), for one
thread and for numba's default thread count (``NUMBA_NUM_THREADS``).
"""

from __future__ import annotations

import argparse
import time

import numba


def _timed_greedy(g, k: int, mode: str) -> tuple[list[float], list[float], list[int]]:
    """(wall, CPU seconds) per round and the sites of the exact CPU greedy."""
    from gpu_core.betweenness import BillboardResult, billboards

    walls, cpus, sites = [], [], []
    rnd = 0
    t, c = time.perf_counter(), time.process_time()
    for ev in billboards(g, k, mode=mode, backend="cpu", method="exact"):
        if isinstance(ev, BillboardResult):
            sites = [int(v) for v in ev.sites]
        elif ev.round != rnd:  # a round starts: the one before is done
            if rnd:
                walls.append(time.perf_counter() - t)
                cpus.append(time.process_time() - c)
                t, c = time.perf_counter(), time.process_time()
            rnd = ev.round
    walls.append(time.perf_counter() - t)
    cpus.append(time.process_time() - c)
    return walls, cpus, sites


def cpu_rounds(args: argparse.Namespace, load, say) -> int:
    """Run the bench over ``args.map`` (``load(spec)`` gives (graph, name)); ``say`` prints
    and records a summary line."""
    from app.jobs.billboards import BillboardsOptions, warm_up

    t, c = time.perf_counter(), time.process_time()
    warm_up(BillboardsOptions(k=1, mode=args.mode, backend="cpu", method="exact"))
    say(f"kernels loaded (numba cache or compile): {time.perf_counter() - t:.2f} s wall, "
        f"{time.process_time() - c:.2f} s CPU")
    default = numba.get_num_threads()
    for spec in args.map or ["maps/samples/helsinki.osm.pbf"]:
        g, name = load(spec)
        for threads in sorted({1, default}):
            numba.set_num_threads(threads)
            try:
                walls, cpus, sites = _timed_greedy(g, args.k_max, args.mode)
            finally:
                numba.set_num_threads(default)
            later = cpus[1:] or [0.0]
            say(f"billboards cpu {name} ({g.num_nodes}n/{g.num_arcs}a, {args.mode}) "
                f"K={args.k_max} threads={threads}: wall {sum(walls):.2f} s, CPU "
                f"{sum(cpus):.2f} s (round 1 {cpus[0]:.2f} s, later rounds "
                f"{min(later):.2f}-{max(later):.2f} s CPU); sites {sites}")
    return 0
