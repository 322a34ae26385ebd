"""``signpost bench vertex-programs``: seed 003's three programs through the vertex-program
framework against direct implementations, so the framework's overhead is visible.

    signpost bench vertex-programs --map gen:rmat:100000 --backend cupy --out bench_out/

Rows per program (median wall time of ``--repeats`` runs after a warm-up; GPU results
come back to the host, so the work is finished when the clock stops):

* MST (Figure 5): the Borůvka vertex program (list mode; on the GPU also the copy
  version and the collision ablation, the direct Borůvka kernels of
  ``programs/direct.cu``, and the Medusa-style buffer rebuilds a round-by-
  round contraction would need: layout + upload of every round's graph, as the paper
  measured Medusa here),
  the direct Kruskal oracle (CPU) and scipy's ``minimum_spanning_tree`` (CPU; it drops
  zero-weight edges, so its total is compared only on maps without them);
* PageRank, ``--iterations`` power iterations (tol 0): framework, the direct CSR power
  iteration on the same backend and on the CPU (scipy), and on the GPU the Medusa-style
  baseline (static per-arc buffers, ``programs/medusa.py``);
* GPU rows reuse what they derive from the map (edge lists, transposes, the engine's
  initial arc lists), built once per map on its DeviceGraph during the warm-up; the
  "per-map ... (once, host)" rows time that one-time preparation;
* Bellman-Ford from the vertex of largest out-degree (the paper's Figure 6 source):
  framework (list; collision on the GPU), the Medusa-style baseline and its layout
  rebuild alone (host build + upload: what each topology change costs it),
  ``sssp(strategy="auto")`` and scipy Dijkstra.

``--scaling 15:20`` adds the same rows on random graphs of 2^15..2^20 vertices with
|E| = 16|V| (Figure 8). Every row is checked against the first row of its program (``ok`` / ``MISMATCH``); the
table goes to ``vertex_programs.csv``. Still to do for Figures 5-8: the PNGs.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from resources.atomic import atomic_open

PROGRAMS = ("mst", "pagerank", "bf")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", default="gen:rmat:65536",
                   help="map file or gen:KIND[:N] (gen:rmat, gen:random, gen:kanto, ...)")
    p.add_argument("--programs", default=",".join(PROGRAMS),
                   help="comma-separated subset of mst,pagerank,bf")
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"))
    p.add_argument("--repeats", type=int, default=3, help="timed runs per row (median)")
    p.add_argument("--iterations", type=int, default=100, help="PageRank iterations")
    p.add_argument("--seed", type=int, default=1, help="seed of the generators")
    p.add_argument("--out", default="bench_out", help="folder for the CSV")
    p.add_argument("--scaling", metavar="LO:HI",
                   help="also random graphs of 2^LO..2^HI vertices, |E| = 16|V|, weights "
                        "1..1000 (Figure 8: 15:20)")


def _framework(backend: str) -> str:
    """Row name of the framework on ``backend`` (only the GPU engine has list/collision)."""
    return "framework (list)" if backend == "cupy" else "framework"


def _time(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    """(median seconds, last result) after one untimed warm-up call."""
    res = fn()
    times = []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        res = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), res


def _mst_rows(g, backend: str) -> list[tuple[str, str, Callable, Callable]]:
    """(implementation, backend, run, summary) rows; summary(result) -> comparable value."""
    from gpu_core.programs import minimum_spanning_forest

    rows = [(_framework(backend), backend,
             lambda: minimum_spanning_forest(g, backend=backend),
             lambda r: (r.total_weight, r.num_edges))]
    if backend == "cupy":
        from gpu_core.programs.cuda import boruvka_cuda
        from gpu_core.programs.direct import undirected_edges

        a, b, w = undirected_edges(g)
        for mode in ("copy", "collision"):
            rows.append((f"framework ({mode})", "cupy",
                         lambda mode=mode: boruvka_cuda(g.num_nodes, a, b, mode=mode,
                                                        graph=g)[0],
                         lambda keep: (int(w[keep].sum()), int(keep.sum()))))
    if backend == "cupy":
        from gpu_core.programs.direct_cuda import boruvka_direct_cuda

        rows.append(("direct Borůvka (GPU)", "cupy", lambda: boruvka_direct_cuda(g)[0],
                     lambda keep: (int(w[keep].sum()), int(keep.sum()))))
        # the GPU rows reuse per-map structures built once (DeviceGraph.derived): their
        # one-time cost, the undirected edge list in Kruskal's order, is a row of its own
        rows.append(("per-map edge list (once, host)", "cpu", lambda: undirected_edges(g),
                     lambda r: None))
        from gpu_core.programs.medusa import boruvka_rebuilds_cuda, boruvka_round_graphs

        rounds = boruvka_round_graphs(g.num_nodes, a, b)
        rows.append((f"Medusa-style rebuilds ({len(rounds)} rounds)", "cupy",
                     lambda: boruvka_rebuilds_cuda(rounds), lambda s: None))
    rows.append(("direct Kruskal", "cpu",
                 lambda: minimum_spanning_forest(g, backend="cpu", method="kruskal"),
                 lambda r: (r.total_weight, r.num_edges)))

    def scipy_mst():
        import scipy.sparse as sp
        from scipy.sparse.csgraph import minimum_spanning_tree

        from gpu_core.programs.direct import undirected_edges

        a, b, w = undirected_edges(g)
        m = sp.csr_array((w.astype(np.float64), (a, b)), shape=(g.num_nodes,) * 2)
        return minimum_spanning_tree(m)

    zero = g.num_arcs and int(g.weights.min()) == 0
    rows.append(("scipy minimum_spanning_tree", "cpu", scipy_mst,
                 (lambda t: None) if zero else
                 (lambda t: (int(round(t.sum())), int(t.nnz)))))
    return rows


def _pagerank_rows(g, backend: str, iters: int) -> list[tuple[str, str, Callable, Callable]]:
    from gpu_core.programs import pagerank

    kw = {"tol": 0.0, "max_iter": iters}

    def rank(r):
        return r.rank

    rows = [(_framework(backend), backend, lambda: pagerank(g, backend=backend, **kw), rank)]
    if backend == "cupy":
        from gpu_core.programs.cuda import pagerank_cuda

        n = g.num_nodes
        pairs = np.unique(g.arc_sources().astype(np.int64) * n + g.indices)
        pt, ph = pairs // n, pairs % n
        rows.append(("framework (collision)", "cupy",
                     lambda: pagerank_cuda(pt, ph, n, 0.85, 0.0, iters,
                                           mode="collision", graph=g)[0],
                     lambda x: x))
        rows.append(("direct CSR", "cupy",
                     lambda: pagerank(g, backend="cupy", method="direct", **kw), rank))
        rows.append(("per-map simple digraph (once, host)", "cpu",
                     lambda: np.unique(g.arc_sources().astype(np.int64) * n + g.indices),
                     lambda r: None))
        from gpu_core.programs.medusa import pagerank_medusa_cuda

        rows.append(("Medusa-style (static buffers)", "cupy",
                     lambda: pagerank_medusa_cuda(g, 0.85, 0.0, iters), lambda r: r[0]))
    rows.append(("direct CSR (scipy)", "cpu",
                 lambda: pagerank(g, backend="cpu", method="direct", **kw), rank))
    return rows


def _bf_rows(g, backend: str, source: int) -> list[tuple[str, str, Callable, Callable]]:
    from gpu_core.programs import bellman_ford
    from gpu_core.reference import scipy_distances
    from gpu_core.sssp import sssp

    def dist(r):
        return r.dist

    rows = [(_framework(backend), backend, lambda: bellman_ford(g, source, backend=backend),
             dist)]
    if backend == "cupy":
        from gpu_core.programs.cuda import bellman_ford_cuda

        rows.append(("framework (collision)", "cupy",
                     lambda: bellman_ford_cuda(g, source, mode="collision")[0], lambda d: d))
        from gpu_core.programs.medusa import bellman_ford_medusa_cuda, upload_layout

        rows.append(("Medusa-style (static buffers)", "cupy",
                     lambda: bellman_ford_medusa_cuda(g, source)[0], lambda d: d))
        rows.append(("Medusa-style layout rebuild", "cupy", lambda: upload_layout(g),
                     lambda r: None))
    rows.append(("sssp(strategy='auto')", backend,
                 lambda: sssp(g, source, strategy="auto", backend=backend), dist))
    rows.append(("scipy Dijkstra", "cpu", lambda: scipy_distances(g, np.array([source])),
                 lambda d: np.asarray(d)))
    return rows


def _same(a, b) -> bool:
    if a is None or b is None:
        return True  # not comparable (scipy drops zero-weight edges)
    if isinstance(a, tuple):
        return a == b
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return a.shape == b.shape and bool(np.abs(a - b).max(initial=0.0) <= 1e-9)
    return bool(np.array_equal(a, b))


def run(args: argparse.Namespace) -> int:
    from app.bench.sssp import _load
    from gpu_core.backend import describe_backend, resolve_backend
    from gpu_core.graph import CSRGraph

    wanted = [p for p in args.programs.split(",") if p]
    bad = [p for p in wanted if p not in PROGRAMS]
    if bad:
        raise SystemExit(f"unknown program {bad[0]!r}; choose from {', '.join(PROGRAMS)}")
    backend = resolve_backend(args.backend)
    net, label = _load(args.map, args.seed)
    g = CSRGraph.from_any(net)
    print(f"map {label}: {g.num_nodes:,} nodes, {g.num_arcs:,} arcs")
    print(f"backend {backend}: {describe_backend(backend)}")
    table, failed = _table(g, label, backend, wanted, args)
    if args.scaling:
        from app.bench.apsp import random_graph

        lo, _, hi = args.scaling.partition(":")
        for k in range(int(lo), int(hi or lo) + 1):
            n = 2**k
            gk = random_graph(n, 16 * n, 1000, seed=args.seed)
            print(f"scaling: random graph 2^{k} = {n:,} nodes, {gk.num_arcs:,} arcs")
            rows, bad = _table(gk, f"random 2^{k}", backend, wanted, args)
            table += rows
            failed |= bad
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_open(out / "vertex_programs.csv", "w") as fh:
        w = csv.DictWriter(fh, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    print(f"wrote {out / 'vertex_programs.csv'}")
    return 1 if failed else 0


def _table(g, label: str, backend: str, wanted: list[str], args) -> tuple[list[dict], bool]:
    """Timed rows of every wanted program on g, each checked against its first row."""
    source = int(np.argmax(np.diff(g.indptr))) if g.num_nodes else 0
    makers = {"mst": lambda: _mst_rows(g, backend),
              "pagerank": lambda: _pagerank_rows(g, backend, args.iterations),
              "bf": lambda: _bf_rows(g, backend, source)}
    table = []
    failed = False
    for prog in wanted:
        first = None
        for impl, be, fn, summary in makers[prog]():
            med, res = _time(fn, args.repeats)
            value = summary(res)
            if first is None:
                first = value
            ok = _same(first, value)
            failed |= not ok
            row = {"graph": label, "nodes": g.num_nodes, "arcs": g.num_arcs, "program": prog,
                   "implementation": impl, "backend": be, "median_ms": round(med * 1e3, 3),
                   "runs": max(1, args.repeats), "check": "ok" if ok else "MISMATCH"}
            table.append(row)
            print(f"  {prog:9s} {impl:30s} {be:5s} {row['median_ms']:11.3f} ms  {row['check']}",
                  flush=True)
    return table, failed
