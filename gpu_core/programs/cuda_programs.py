"""The paper's three programs on the CUDA engine (``cuda.py`` + ``programs.cu``): Bellman-Ford,
PageRank and Borůvka, their masters shared with the CPU engine (``cpu_programs.py``)."""

from __future__ import annotations

import numpy as np

from ..errors import GpuCoreError
from .cuda import COMB_MIN_I64, COMB_SUM_F64, CudaEngine, CudaProgram, _empty


def _checked(eng: CudaEngine, tel: np.ndarray, limit: int) -> np.ndarray:
    if eng.stopped_by == "limit":
        raise GpuCoreError(f"{eng.p.name} did not finish in {limit} supersteps")
    return tel


def bellman_ford_cuda(g, source: int, *, mode: str = "list", combiner: bool = False,
                      **run_kw):
    """(dist int64 numpy, -1 unreachable; telemetry; supersteps). ``combiner``: keep only
    each vertex's smallest candidate (atomicMin) instead of listing every message."""
    import cupy as cp

    from .cpu_programs import INF

    n = g.num_nodes
    prog = CudaProgram("bellman-ford", "bf_superstep", msg_ints=1,
                       message_bound=lambda arcs, n_, inc: arcs, combiner=COMB_MIN_I64,
                       batched=True)
    eng = CudaEngine(prog, n, lambda: (g.arc_sources(), g.indices, g.weights), None, None,
                     mode=mode, graph=g, combiner=combiner)
    dist = cp.full(n, INF, cp.int64)
    active = cp.zeros(n, cp.uint8)
    active[source] = 1
    tel = eng.run((dist, cp.asarray([source], cp.int64)), active, max_supersteps=n + 2,
                  **run_kw)
    tel = _checked(eng, tel, n + 2)
    out = dist.get()
    out[out == INF] = -1
    return out, tel, eng.supersteps


def pagerank_cuda(tails, heads, n: int, damping: float, tol: float, max_iter: int, *,
                  mode: str = "list", graph=None, combiner: bool = False, **run_kw):
    """Distinct arcs (tails, heads) as api.pagerank prepares them -> (rank, master, tel,
    supersteps). ``graph``: the CSRGraph they come from (its device lists and out-degrees
    are then cached per graph). ``combiner``: sum each vertex's shares as they arrive
    (atomicAdd) instead of listing them."""
    import cupy as cp

    from .cpu_programs import PageRankMaster

    master = PageRankMaster(n, tol, max_iter)
    prog = CudaProgram("pagerank", "pr_superstep", msg_floats=1, aggregators=2,
                       master=master, message_bound=lambda arcs, n_, inc: arcs,
                       combiner=COMB_SUM_F64, batched=True,
                       stop_rule=(1, master.limit, master.max_iter))
    eng = CudaEngine(prog, n, lambda: (tails, heads, np.zeros_like(tails)), None, None,
                     mode=mode, graph=graph, combiner=combiner)
    x = cp.full(n, 1.0 / n)

    def degrees():
        return cp.asarray(np.bincount(tails, minlength=n).astype(np.int64))

    if graph is None:
        outdeg = degrees()
    else:
        from ..device.csr import device_graph

        outdeg = device_graph(graph).derived("vp:pagerank:outdeg", degrees)
    st = (x, outdeg, cp.asarray([damping, 1.0 / n]))
    tel = eng.run(st, cp.ones(n, cp.uint8), max_supersteps=max_iter + 2, **run_kw)
    tel = _checked(eng, tel, max_iter + 2)
    return x.get(), master, tel, eng.supersteps


def boruvka_cuda(n: int, a: np.ndarray, b: np.ndarray, *, mode: str = "list", graph=None,
                 **run_kw):
    """Undirected edges in rank order (direct.undirected_edges) -> (keep mask, master, tel,
    supersteps). ``graph``: the CSRGraph they come from (device lists cached per graph)."""
    import cupy as cp

    from .cpu_programs import BoruvkaMaster

    k = a.shape[0]
    master = BoruvkaMaster()
    prog = CudaProgram("boruvka", "boruvka_superstep", msg_ints=3, aggregators=2,
                       master=master,
                       message_bound=lambda arcs, n_, inc: arcs + 2 * n_ + inc,
                       insert_bound=lambda arcs, n_, inc: inc)
    def arcs():
        ranks = np.arange(k, dtype=np.int64)
        return np.r_[a, b], np.r_[b, a], np.r_[ranks, ranks]

    eng = CudaEngine(prog, n, arcs, None, None, mode=mode, graph=graph)
    in_forest = cp.zeros(max(k, 1), cp.uint8)
    # GATHER's (root, far) table: at most 2k moved arcs a round, at most half full
    slots = 1 << max(4 * k - 1, 1).bit_length()
    keys = _empty(cp, slots, np.int64, "Borůvka's merge table", fill=-1)
    ranks = _empty(cp, slots, np.int64, "Borůvka's merge table", fill=np.iinfo(np.int64).max)
    st = (cp.arange(n, dtype=cp.int64), cp.ones(n, cp.uint8), cp.zeros(n, cp.uint8), in_forest,
          keys, ranks, cp.asarray([slots - 1], cp.int64))
    limit = 64 * (8 + 2 * max(n, 2).bit_length())
    tel = eng.run(st, cp.ones(n, cp.uint8), max_supersteps=limit, **run_kw)
    tel = _checked(eng, tel, limit)
    return in_forest.get()[:k].astype(bool), master, tel, eng.supersteps

