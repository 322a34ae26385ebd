"""The timed rows of ``signpost bench vertex-programs``, one list per program (Figures
5-7): the framework in each mode, the direct implementations, the Medusa-style baseline
and the CPU comparisons. Each :class:`Row` knows how to run once and what to compare
with the program's first row; ``vertex_programs`` times and checks them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Row:
    """One timed implementation of a program. ``run()``, or ``run(cancel)`` for a
    ``cancellable`` row: ``cancel`` is None or turns True once the row's time cap has
    passed, and the row stops at its next superstep (CancelledError)."""

    impl: str
    backend: str
    run: Callable[..., object]
    summary: Callable[[Any], object]  # run()'s result -> value compared with the first row
    oracle: bool = False  # a CPU row (comparison or host preparation; ``--cpu-rows``): run
    # once, no warm-up (nothing to compile), to keep a GPU run short
    warm: bool = True  # False: host work (preparation, rebuilds), timed without a warm-up
    note: str = ""  # the CSV's note column (e.g. how many Borůvka rounds were rebuilt)
    cancellable: bool = False
    prepare: Callable[[], None] | None = None  # untimed set-up, run once before the row
    once: bool = False  # host-bound (layout rebuilds): one run, no warm-up


def _framework(backend: str) -> str:
    """Row name of the framework on ``backend`` (only the GPU engine has list/collision)."""
    return "framework (list)" if backend == "cupy" else "framework"


def _totals(r) -> tuple[int, int]:
    return (r.total_weight, r.num_edges)


def mst_rows(g, backend: str) -> list[Row]:
    from gpu_core.programs import minimum_spanning_forest
    from gpu_core.programs.direct import undirected_edges

    def api(cancel=None):
        return minimum_spanning_forest(g, backend=backend, cancel=cancel)

    if backend != "cupy":
        rows = [Row(_framework(backend), backend, api, _totals, cancellable=True)]
    else:
        from gpu_core.programs.cuda_programs import boruvka_cuda
        from gpu_core.programs.direct_cuda import cached_undirected_edges
        from gpu_core.programs.medusa import boruvka_rebuilds_cuda, boruvka_round_graphs

        a, b, w = cached_undirected_edges(g)  # the one the GPU rows use (built once)

        def mask_totals(keep):
            return (int(w[keep].sum()), int(keep.sum()))

        # the engine runs, forest mask back on the host (as the direct kernels' row); then
        # the whole API call, which also builds the forest's host arrays and components
        rows = [Row(f"framework ({mode})", "cupy",
                    lambda cancel=None, mode=mode: boruvka_cuda(
                        g.num_nodes, a, b, mode=mode, graph=g, cancel=cancel)[0],
                    mask_totals, cancellable=True) for mode in ("list", "copy", "collision")]
        rows.append(Row("framework (list), whole API call", "cupy", api, _totals,
                        cancellable=True))
        from gpu_core.programs.direct_cuda import boruvka_direct_cuda

        # the kernels alone (the forest mask on the device, as the goal counts them),
        # then the whole API call (forest edges, totals and components back on the host)
        rows.append(Row("direct Borůvka kernels (GPU)", "cupy",
                        lambda: boruvka_direct_cuda(g)[0], mask_totals))
        rows.append(Row("direct Borůvka (GPU)", "cupy",
                        lambda: minimum_spanning_forest(g, backend="cupy", method="direct"),
                        _totals))
        # the GPU rows reuse per-map structures built once (DeviceGraph.derived): their
        # one-time cost, the undirected edge list in Kruskal's order, is a row of its own
        rows.append(Row("per-map edge list (once, host)", "cpu", lambda: undirected_edges(g),
                        lambda r: None, warm=False, oracle=True))
        rounds = boruvka_round_graphs(g.num_nodes, a, b)
        rows.append(Row("Medusa-style rebuilds (every round)", "cupy",
                        lambda: boruvka_rebuilds_cuda(rounds), lambda s: None, warm=False,
                        once=True,
                        note=f"{len(rounds)} rounds"))
    rows.append(Row("direct Kruskal", "cpu",
                    lambda: minimum_spanning_forest(g, backend="cpu", method="direct"),
                    _totals, oracle=backend == "cupy"))

    matrix: dict = {}

    def scipy_matrix():  # untimed (Row.prepare): scipy's own call is what is compared
        import scipy.sparse as sp

        a, b, w = undirected_edges(g)
        matrix["m"] = sp.csr_array((w.astype(np.float64), (a, b)), shape=(g.num_nodes,) * 2)

    def scipy_mst():
        from scipy.sparse.csgraph import minimum_spanning_tree

        return minimum_spanning_tree(matrix["m"])

    zero = g.num_arcs and int(g.weights.min()) == 0
    rows.append(Row("scipy minimum_spanning_tree", "cpu", scipy_mst,
                    (lambda t: None) if zero else (lambda t: (int(round(t.sum())), int(t.nnz))),
                    oracle=True, prepare=scipy_matrix))
    return rows


def pagerank_rows(g, backend: str, iters: int) -> list[Row]:
    from gpu_core.programs import pagerank


    def rank(r):
        return r.rank

    # the framework with its sum combiner (the API's default) first; on the GPU then the
    # paper's message lists (no combiner: every share a list element) and the collision
    # ablation
    name = "framework (combiner)" if backend == "cupy" else _framework(backend)
    rows = [Row(name, backend,
                lambda cancel=None: pagerank(g, backend=backend, cancel=cancel, tol=0.0,
                                             max_iter=iters), rank,
                cancellable=True)]
    if backend == "cupy":
        from gpu_core.programs.cuda_programs import pagerank_cuda
        from gpu_core.programs.direct_cuda import simple_arcs
        from gpu_core.programs.medusa import pagerank_medusa_cuda, upload_layout

        n = g.num_nodes

        def simple():
            return np.unique(g.arc_sources().astype(np.int64) * n + g.indices)

        pt, ph = simple_arcs(g)  # the one the GPU rows use (built once)
        for mode in ("list", "collision"):
            rows.append(Row(f"framework ({mode})", "cupy",
                            lambda cancel=None, mode=mode: pagerank_cuda(
                                pt, ph, n, 0.85, 0.0, iters, mode=mode, graph=g,
                                cancel=cancel)[0], lambda x: x, cancellable=True))
        rows.append(Row("direct CSR", "cupy",
                        lambda: pagerank(g, backend="cupy", method="direct", tol=0.0,
                                         max_iter=iters), rank))
        rows.append(Row("per-map simple digraph (once, host)", "cpu", simple, lambda r: None,
                        warm=False, oracle=True))
        rows.append(Row("Medusa-style (static buffers)", "cupy",
                        lambda: pagerank_medusa_cuda(g, 0.85, 0.0, iters), lambda r: r[0]))
        rows.append(Row("Medusa-style layout rebuild", "cupy",
                        lambda: upload_layout(g, pagerank=True), lambda r: None, warm=False,
                        once=True))
    from gpu_core.programs.direct import pagerank_iterate, pagerank_matrix

    scipy_q: dict[str, tuple[Any, np.ndarray]] = {}

    def scipy_prepare():  # untimed (Row.prepare): the iterations are what is compared
        scipy_q["q"] = pagerank_matrix(g)

    rows.append(Row("direct CSR (scipy)", "cpu",
                    lambda: pagerank_iterate(*scipy_q["q"], 0.85, 0.0, iters), lambda r: r[0],
                    oracle=backend == "cupy", prepare=scipy_prepare))
    return rows


def bf_rows(g, backend: str, source: int) -> list[Row]:
    from gpu_core.programs import bellman_ford
    from gpu_core.reference import scipy_distances
    from gpu_core.sssp import sssp

    def dist(r):
        return r.dist

    name = "framework (combiner)" if backend == "cupy" else _framework(backend)
    rows = [Row(name, backend,
                lambda cancel=None: bellman_ford(g, source, backend=backend, cancel=cancel),
                dist, cancellable=True)]
    if backend == "cupy":
        from gpu_core.programs.cuda_programs import bellman_ford_cuda
        from gpu_core.programs.medusa import bellman_ford_medusa_cuda, upload_layout

        for mode in ("list", "collision"):
            rows.append(Row(f"framework ({mode})", "cupy",
                            lambda cancel=None, mode=mode: bellman_ford_cuda(
                                g, source, mode=mode, cancel=cancel)[0], lambda d: d,
                            cancellable=True))
        rows.append(Row("Medusa-style (static buffers)", "cupy",
                        lambda cancel=None: bellman_ford_medusa_cuda(g, source,
                                                                     cancel=cancel)[0],
                        lambda d: d, cancellable=True))
        rows.append(Row("Medusa-style layout rebuild", "cupy", lambda: upload_layout(g),
                        lambda r: None, warm=False, once=True))
    rows.append(Row("sssp(strategy='auto')", backend,
                    lambda: sssp(g, source, strategy="auto", backend=backend), dist))
    rows.append(Row("scipy Dijkstra", "cpu",
                    lambda: scipy_distances(g, np.array([source])), np.asarray, oracle=True))
    return rows
