"""Route index build figures for docs/perf/index_build.md: per map, the CCH's order /
topology / customization seconds, its arcs (basic and pruned) against the witness CH's,
the PHAST CPU sweep per source over each, and a re-customization after 10 closures (in
full, and partial from the map's kept metric).

    python scripts/bench_index_build.py /work/shared/maps/COL.gr.xz [...] [--ch] [--backend cupy]
    python scripts/bench_index_build.py kanto.spn --ways 1,2,16 --no-prune   # triangle pass

Re-customization after closures (issue 26), per draw of ``--closures`` random closures from
the map's kept metric: ``ready_s`` is closure-to-ready, the edited graph in hand until the
index can answer (on ``--backend cupy`` its sweep lists on the device, the stream
synchronized), apart from ``first_query_s``, a 100 x 100 matrix over it (the next query
answered); ``prepare_s`` is what ``partial.prepare`` does ahead, while no edit waits. With
``--before``, each draw is also timed the way the index did before issue 26, in the same
process: every arc slotted again, the graph key hashed, the patched lists in fresh memory,
rows cut over the threads as the full pass cuts them.

    python scripts/bench_index_build.py /work/shared/maps/NE.gr.xz --no-prune --backend cupy \
        --before --topology ne-topo.npz     # the GPU host (keep the topology file in /tmp)

``--ways``: also the triangle pass alone (``metric.triangles``, best of 2) in this process
with each number of bins (1: serial; the plan cuts heavy vertices over that many), after the
build rows; run it with NUMBA_NUM_THREADS >= the largest.

``--warm-up N`` (default 20000; 0: off): first a generated Kanto-like map of N nodes is
indexed, so that numba's compilation (tens of seconds on a machine without a cache, e.g. a
fresh device machine) is out of the build seconds (``warm_up_s`` row).

PACE .gr.xz maps are weighted as maps/formats/dimacs.py's ``load_pace`` does (seed 1). One line of
JSON per measurement on stdout.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def _sweep_ms(h, src) -> float:
    from gpu_core.hierarchy.cpu import sweep_block

    sweep_block(h, src[:4], None)  # warm-up
    t0 = time.perf_counter()
    sweep_block(h, src, None)
    return (time.perf_counter() - t0) / len(src) * 1e3


def _closed(g, k: int, seed: int):
    from gpu_core.graph import CSRGraph

    keep = np.ones(g.num_arcs, bool)
    keep[np.random.default_rng(seed).integers(0, g.num_arcs, k)] = False
    return CSRGraph.from_edges(g.num_nodes, g.arc_sources()[keep], g.indices[keep],
                               g.weights[keep])


def _topology(g, path: str):
    """The CCH topology of ``g``: read from ``path`` when it holds this graph's, else built
    (and written there when a path is given)."""
    import os

    from gpu_core.errors import InvalidArgumentError
    from gpu_core.hierarchy import build_topology, topology_key
    from gpu_core.hierarchy.cch import Topology

    if path and os.path.exists(path):
        try:
            return Topology.load(path, key=topology_key(g))
        except (OSError, ValueError, InvalidArgumentError):
            pass  # another graph's, or damaged: built again
    t = build_topology(g)
    if path:
        t.save(path)
    return t


def _triangles(t, g, name: str, ways: list[int], out) -> None:
    from gpu_core.hierarchy import metric
    from gpu_core.hierarchy.cch import slots_for

    up0, down0 = metric.initial(t.edges, slots_for(t, g), g.weights)
    for w in ways:
        best = None
        for _ in range(2):
            up, down = up0.copy(), down0.copy()
            t0, c0 = time.perf_counter(), time.process_time()
            metric.triangles(t, up, down, ways=w)
            r = (time.perf_counter() - t0, time.process_time() - c0)
            best = r if best is None or r[0] < best[0] else best
        p = metric._plan(t, metric.TRIANGLES, t.lvl_ptr, t.lvl_vert, w, metric.SERIAL_WORK,
                         metric.SPLIT_WORK)
        out(map=name, ways=w, triangles_s=round(best[0], 3),
            triangles_cpu_s=round(best[1], 3), cut_vertices=p.cut_vertices)


def _sync(backend: str) -> None:
    if backend == "cupy":
        import cupy as cp

        cp.cuda.Stream.null.synchronize()


def _ready(t, g2, backend: str, before: bool) -> tuple[float, object]:
    """Seconds from the edited graph ``g2`` to an index ready to answer, and the index.
    ``before``: the path before issue 26 (every arc slotted, key hashed, fresh memory,
    rows cut over the threads at the full pass's threshold)."""
    from gpu_core.hierarchy import partial, patch, plan
    from gpu_core.hierarchy.cch import customize
    from gpu_core.hierarchy.partial import PARTIAL_SPLIT_WORK as split

    if before:
        t._metric.inputs = None  # no kept graph: slots_for + initial over every arc
        partial.PARTIAL_SPLIT_WORK = plan.SPLIT_WORK  # rows cut as the full pass cuts them
        keep_spares = getattr(t, "_spares", None)
        t._spares = patch.Spares()
        patch.SPARES_PER_KIND, kept = 0, patch.SPARES_PER_KIND  # every list in new memory
    try:
        t0 = time.perf_counter()
        h = customize(t, g2, backend=backend)
        if before:
            _ = h.graph_key  # the key was hashed within customize
        _sync(backend)
        return time.perf_counter() - t0, h
    finally:
        if before:
            patch.SPARES_PER_KIND = kept
            t._spares = keep_spares
            partial.PARTIAL_SPLIT_WORK = split


def _recustomize_draws(t, g, name: str, a, out) -> None:
    """Closure-to-ready after ``a.closures`` random closures, ``a.draws`` draws (after one
    untimed warm-up draw), each from the map's kept metric (reopened untimed)."""
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy.api import iter_rows
    from gpu_core.hierarchy.cch import customize
    from gpu_core.hierarchy.partial import prepare

    customize(t, g, backend=a.backend)
    t0 = time.perf_counter()
    prepare(t, a.backend)
    _sync(a.backend)
    out(map=name, backend=a.backend, prepare_s=round(time.perf_counter() - t0, 3))
    pts = np.random.default_rng(7).integers(0, g.num_nodes, 100)
    variants = ("after", "before") if a.before else ("after",)
    for seed in range(1, a.draws + 2):
        g2 = CSRGraph.from_any(_closed(g, a.closures, 100 + seed))  # checked, as a job's
        row = {}
        for v in variants if seed % 2 else variants[::-1]:  # either goes first in turn
            customize(t, g, backend=a.backend)  # back to the map's metric (partial)
            c0 = time.process_time()
            s, h2 = _ready(t, g2, a.backend, v == "before")
            row[v] = (round(s, 4), round(time.process_time() - c0, 3), h2.customized)
        q0 = time.perf_counter()
        for _ in iter_rows(h2, pts, pts, a.backend):
            pass
        first = time.perf_counter() - q0
        if seed == 1:
            continue  # warm-up: numba's cached kernels load, the device compiles
        out(map=name, backend=a.backend, closures=a.closures, draw=seed - 1,
            **{f"ready_s_{v}": r[0] for v, r in row.items()},
            **{f"ready_cpu_s_{v}": r[1] for v, r in row.items()},
            changed=row["after"][2], first_query_s=round(first, 4))


def main() -> None:
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import build_hierarchy
    from gpu_core.hierarchy.cch import customize
    from maps.load import load_map

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("maps", nargs="+")
    ap.add_argument("--ch", action="store_true", help="also build the witness-search CH")
    ap.add_argument("--backend", default="cpu", help="where re-customization runs")
    ap.add_argument("--sources", type=int, default=64, help="sources of the timed sweep")
    ap.add_argument("--ways", default="", help="comma-separated bins for the triangle pass")
    ap.add_argument("--no-prune", action="store_true", help="skip the pruned rows")
    ap.add_argument("--closures", type=int, default=10, help="closures per re-customization")
    ap.add_argument("--draws", type=int, default=5, help="timed closure draws")
    ap.add_argument("--before", action="store_true",
                    help="also time each draw the way the index did before issue 26")
    ap.add_argument("--topology", default="",
                    help="read the CCH topology from this file, or build and write it there")
    ap.add_argument("--only-recustomize", action="store_true",
                    help="only the closure-to-ready rows (no build, sweep or full rows)")
    ap.add_argument("--warm-up", type=int, default=20000,
                    help="nodes of a generated map indexed first (compiles; 0: off)")
    a = ap.parse_args()

    def out(**kw) -> None:
        print(json.dumps(kw), flush=True)

    if a.warm_up > 0:
        from gpu_core.hierarchy import build_topology
        from maps.generate import generate

        t0 = time.perf_counter()
        gw = CSRGraph.from_any(generate("kanto", a.warm_up, seed=1))
        tw = build_topology(gw)
        for prune in (False, True):
            customize(tw, gw, prune=prune, reuse=False)
        out(warm_up_s=round(time.perf_counter() - t0, 3), nodes=a.warm_up)

    for path in a.maps:
        t0 = time.perf_counter()
        g = CSRGraph.from_any(load_map(path))
        name = path.rsplit("/", 1)[-1]
        out(map=name, nodes=g.num_nodes, arcs=g.num_arcs, load_s=time.perf_counter() - t0)
        src = np.random.default_rng(0).integers(0, g.num_nodes, a.sources)
        t = _topology(g, a.topology)
        if a.only_recustomize:
            _recustomize_draws(t, g, name, a, out)
            continue
        prunes = (False,) if a.no_prune else (False, True)
        for prune in prunes:
            h = customize(t, g, prune=prune)
            out(**{**h.summary(), "map": name, "method": "cch" + ("+prune" if prune else ""),
                   "total_s": t.order_s + t.topology_s + h.customize_s, "core": t.core,
                   "sweep_ms_per_source": _sweep_ms(h, src)})
        closed = _closed(g, 10, 1)
        for prune in prunes:  # in full (the kept metric unused)
            customize(t, closed, backend=a.backend, prune=prune, reuse=False)  # warm-up
            best = min(customize(t, closed, backend=a.backend, prune=prune,
                                 reuse=False).customize_s for _ in range(3))
            out(map=name, method="cch" + ("+prune" if prune else ""), backend=a.backend,
                recustomize_10_closures_s=best)
        # partial: from the map's kept metric to 10 closures (5 draws), wall and CPU
        # seconds of this process (all its threads)
        wall, cpu, edges = [], [], []
        for seed in range(1, 7):
            customize(t, g, backend=a.backend)
            g2 = _closed(g, 10, seed)
            c0 = time.process_time()
            h2 = customize(t, g2, backend=a.backend)
            if seed > 1:  # the first one loads the partial kernels
                wall.append(round(h2.customize_s, 3))
                cpu.append(round(time.process_time() - c0, 3))
                edges.append(h2.customized)
        out(map=name, method="cch", backend=a.backend, partial_10_closures_s=wall,
            partial_10_closures_cpu_s=cpu, changed=edges)
        _recustomize_draws(t, g, name, a, out)
        if a.ways:
            _triangles(t, g, name, [int(x) for x in a.ways.split(",")], out)
        if a.ch:
            h = build_hierarchy(g, method="ch")
            out(**{**h.summary(), "map": name, "method": "ch", "total_s": h.build_s,
                   "sweep_ms_per_source": _sweep_ms(h, src)})


if __name__ == "__main__":
    main()
