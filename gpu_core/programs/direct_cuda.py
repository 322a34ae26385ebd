"""Direct GPU PageRank and Borůvka (``direct.cu``), outside the vertex-program framework,
and the per-graph structures every GPU path of this package reuses.

The structures a program derives from a map (its simple digraph, the transposed CSR, the
undirected edges in Kruskal's order) are built once per graph and device and kept on the
graph's :class:`~gpu_core.device.graph.DeviceGraph` (``derived``), so a repeated call on
the same map does no host sorting and no upload. Results equal the CPU oracles
(``direct.pagerank_csr``: the flow of each rank summed in scipy's order, the same
stopping rule, ``tests/gpu/test_direct_gpu.py``; ``direct.kruskal_mask``: the same edge
set).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..device import get_kernel as _device_kernel
from ..device.graph import device_graph
from ..device.memory import ensure_free, oom_as_typed
from ..graph import CSRGraph
from .direct import undirected_edges

HERE = Path(__file__).resolve().parent
BLOCK = 256
CHECK_EVERY = 8  # PageRank iterations between two reads of the device's converged flag
# (the launch-per-iteration fallback); blocks per SM of the persistent PageRank launch
PERSISTENT_BLOCKS_PER_SM = 4


def get_kernel(name: str):
    return _device_kernel(HERE / "direct.cu", name)


def simple_arcs(g: CSRGraph) -> tuple[np.ndarray, np.ndarray]:
    """(tails, heads) int64 of the map's simple digraph, sorted by (tail, head); cached per
    graph on the device graph (the GPU paths only)."""
    def build():
        n = g.num_nodes
        pairs = np.unique(g.arc_sources().astype(np.int64) * n + g.indices)
        return pairs // n, pairs % n

    return device_graph(g).derived("simple_arcs", build)


def cached_undirected_edges(g: CSRGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`direct.undirected_edges`, computed once per graph (the GPU paths only)."""
    return device_graph(g).derived("undirected_edges", lambda: undirected_edges(g))


class _PageRankGraph:
    """The transposed simple digraph on the device: row v lists v's sources ascending."""

    def __init__(self, g: CSRGraph):
        import cupy as cp

        n = g.num_nodes
        tails, heads = simple_arcs(g)
        out = np.bincount(tails, minlength=n)
        dangling = out == 0
        order = np.argsort(heads * n + tails)
        indptr = np.zeros(n + 1, np.int32)
        indptr[1:] = np.cumsum(np.bincount(heads, minlength=n))
        inv = np.divide(1.0, out, out=np.zeros(n), where=~dangling)
        nbytes = 4 * (n + 1) + 4 * tails.size + 9 * n
        ensure_free(nbytes, "the direct PageRank graph")
        with oom_as_typed("the direct PageRank graph", nbytes):
            self.indptr = cp.asarray(indptr)
            self.src = cp.asarray(tails[order].astype(np.int32)) if tails.size else \
                cp.zeros(1, cp.int32)
            self.inv = cp.asarray(inv)
            self.dangling = cp.asarray(dangling.astype(np.uint8))
        # networkx's first dangling sum, x0[dangling].sum() with numpy's own summation
        self.dsum0 = float(np.full(int(dangling.sum()), 1.0 / n).sum())


def pagerank_direct_cuda(g: CSRGraph, damping: float, tol: float, max_iter: int):
    """``direct.pagerank_csr`` on the device: (rank numpy, iterations, delta, converged).
    One persistent cooperative launch runs every iteration (``prd_persistent``: one grid
    barrier per iteration, the stopping test on the device, nothing read back until the
    end); where cooperative launches are refused, two launches per iteration and one
    flag read every CHECK_EVERY iterations (``prd_pull`` + ``prd_finish``)."""
    n = g.num_nodes
    pg = device_graph(g).derived("pagerank_transpose", lambda: _PageRankGraph(g))
    try:
        return _pagerank_persistent(pg, n, float(damping), float(n * tol), int(max_iter))
    except _NoCooperativeLaunch:
        return _pagerank_launches(pg, n, float(damping), float(n * tol), int(max_iter))


class _NoCooperativeLaunch(Exception):
    pass


def _coop_blocks(kern) -> int:
    """Blocks of the persistent launch: PERSISTENT_BLOCKS_PER_SM per SM, capped by the
    kernel's occupancy (every block must be resident for the grid barrier)."""
    import cupy as cp

    sms = int(cp.cuda.Device().attributes["MultiProcessorCount"])
    by_regs = 65536 // (max(1, int(kern.num_regs)) * BLOCK)
    by_smem = (227 * 1024) // (int(kern.shared_size_bytes) + 1024)
    return sms * max(1, min(PERSISTENT_BLOCKS_PER_SM, by_regs, 2048 // BLOCK, by_smem))


def _pagerank_persistent(pg, n: int, damping: float, limit: float, max_iter: int):
    import cupy as cp

    kern = _device_kernel(HERE / "direct.cu", "prd_persistent", cooperative=True)
    nb = _coop_blocks(kern)
    ensure_free(32 * n + 16 * nb + 64, "the direct PageRank")
    xs = cp.full((2, n), 1.0 / n)
    ys = cp.empty((2, n))
    parts = cp.zeros(4 * nb)
    bar = cp.zeros(2, cp.uint32)
    info = cp.zeros(2, cp.int32)
    res = cp.full(1, np.nan)
    while True:
        try:
            kern((nb,), (BLOCK,), (pg.indptr, pg.src, pg.inv, pg.dangling, xs[0], xs[1],
                                   ys[0], ys[1], parts, bar, info, res, np.int32(n),
                                   np.float64(damping), np.float64(limit),
                                   np.int32(max_iter), np.float64(pg.dsum0)))
            break
        except cp.cuda.driver.CUDADriverError as exc:
            if "TOO_LARGE" in str(exc) and nb > 1:  # fewer resident blocks than computed
                nb = max(1, nb // 2)
                parts = cp.zeros(4 * nb)
                bar.fill(0)
                continue
            if "COOPERATIVE" in str(exc) or "NOT_SUPPORTED" in str(exc):
                raise _NoCooperativeLaunch(str(exc)) from exc
            raise
    done, iters = (int(v) for v in info.get())
    return xs[iters % 2].get(), iters, float(res.get()[0]), bool(done)


def _pagerank_launches(pg, n: int, damping: float, limit: float, max_iter: int):
    import cupy as cp

    nb = max(-(-n // BLOCK), 1)
    ensure_free(16 * n + 16 * nb, "the direct PageRank")
    x = cp.full(n, 1.0 / n)
    xn = cp.empty_like(x)
    parts = cp.empty((2, nb))
    dsum = cp.asarray([pg.dsum0])
    info = cp.zeros(2, cp.int32)
    res = cp.full(1, np.nan)
    pull, finish = get_kernel("prd_pull"), get_kernel("prd_finish")
    for it in range(1, max_iter + 1):
        pull((nb,), (BLOCK,), (pg.indptr, pg.src, pg.inv, pg.dangling, x, xn, dsum, info,
                               parts[0], parts[1], np.int32(n), np.float64(damping)))
        finish((1,), (BLOCK,), (parts[0], parts[1], np.int32(nb), dsum, info, res,
                                np.int32(it), np.float64(limit)))
        x, xn = xn, x
        if it % CHECK_EVERY == 0 and int(info[0].get()):
            break
    done, iters = (int(v) for v in info.get())
    return x.get(), iters, float(res.get()[0]), bool(done)


class _BoruvkaGraph:
    def __init__(self, g: CSRGraph):
        import cupy as cp

        a, b, w = cached_undirected_edges(g)
        self.k = int(a.shape[0])
        nbytes = 8 * max(self.k, 1)
        ensure_free(nbytes, "the direct Borůvka edges")
        with oom_as_typed("the direct Borůvka edges", nbytes):
            self.a = cp.asarray(a.astype(np.int32)) if self.k else cp.zeros(1, cp.int32)
            self.b = cp.asarray(b.astype(np.int32)) if self.k else cp.zeros(1, cp.int32)


def boruvka_direct_cuda(g: CSRGraph) -> tuple[np.ndarray, int]:
    """Kruskal's forest (a bool mask over ``cached_undirected_edges(g)``) by the direct
    Borůvka kernels, and the number of rounds. One counter read per round."""
    import cupy as cp

    n = g.num_nodes
    bg = device_graph(g).derived("boruvka_edges", lambda: _BoruvkaGraph(g))
    k = bg.k
    if n == 0 or k == 0:
        return np.zeros(k, bool), 0
    ensure_free(13 * n + k, "the direct Borůvka")
    root = cp.arange(n, dtype=cp.int32)
    best = cp.full(n, np.iinfo(np.int32).max, cp.int32)
    nxt = cp.empty(n, cp.int32)
    in_forest = cp.zeros(k, cp.uint8)
    hooks = cp.zeros(1, cp.int32)
    pick, hook = get_kernel("bor_pick"), get_kernel("bor_hook")
    jump, relabel = get_kernel("bor_jump"), get_kernel("bor_relabel")
    ge, gv = (-(-k // BLOCK),), (-(-n // BLOCK),)
    n32, k32 = np.int32(n), np.int32(k)
    rounds = 0
    while True:
        hooks.fill(0)
        pick(ge, (BLOCK,), (bg.a, bg.b, k32, root, best))
        hook(gv, (BLOCK,), (bg.a, bg.b, root, best, nxt, in_forest, hooks, n32))
        jump(gv, (BLOCK,), (root, nxt, n32))
        relabel(gv, (BLOCK,), (root, nxt, best, n32))
        if int(hooks.get()[0]) == 0:
            break
        rounds += 1
    return in_forest.get().astype(bool), rounds
