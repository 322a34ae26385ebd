"""The Medusa-style baseline of seed 003 (Figures 6-7): static message buffers, one slot
per arc laid out by head, built on the host from the topology (``medusa.cu``).

The layout (:func:`layout`) is the part a topology change forces to rebuild; its host
time plus the upload is reported as ``build_s``. :func:`bellman_ford_numpy` and
:func:`pagerank_numpy` run the same supersteps with numpy: the CPU tests check the layout
and the semantics with them, the GPU tests the kernels against the CPU engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..device import get_kernel, memory
from ..graph import CSRGraph
from .common import telemetry_rows

HERE = Path(__file__).resolve().parent
BLOCK = 256
INF = np.int64(2**63 - 1)


def layout(n: int, tails: np.ndarray, heads: np.ndarray):
    """(indptr by tail, slot of each arc, rindptr by head) for arcs sorted by tail: arc
    e's message goes to slot[e]; vertex v reads slots rindptr[v]..rindptr[v+1]-1."""
    heads = np.asarray(heads, np.int64)
    order = np.argsort(heads, kind="stable")
    slot = np.empty(heads.size, np.int32)
    slot[order] = np.arange(heads.size, dtype=np.int32)
    indptr = np.zeros(n + 1, np.int32)
    rindptr = np.zeros(n + 1, np.int32)
    if heads.size:
        indptr[1:] = np.cumsum(np.bincount(np.asarray(tails, np.int64), minlength=n))
        rindptr[1:] = np.cumsum(np.bincount(heads, minlength=n))
    return indptr, slot, rindptr


def simple_arcs(g: CSRGraph) -> tuple[np.ndarray, np.ndarray]:
    """PageRank's arcs: the distinct (tail, head) pairs, sorted by tail then head."""
    n = g.num_nodes
    pairs = np.unique(g.arc_sources().astype(np.int64) * n + g.indices.astype(np.int64))
    return pairs // n, pairs % n


# ---- numpy twins (same supersteps; used by the CPU tests) -------------------------------


def bellman_ford_numpy(g: CSRGraph, source: int) -> np.ndarray:
    n = g.num_nodes
    tails = g.arc_sources().astype(np.int64)
    indptr, slot, rindptr = layout(n, tails, g.indices)
    slot_head = np.repeat(np.arange(n), np.diff(rindptr))
    dist = np.full(n, INF, np.int64)
    dist[source] = 0
    active = np.zeros(n, bool)
    active[source] = True
    buf = np.zeros(g.num_arcs, np.int64)
    stamp = np.full(g.num_arcs, -1, np.int64)
    step = 0
    while active.any():
        e = np.flatnonzero(active[tails])  # send
        buf[slot[e]] = dist[tails[e]] + g.weights[e]
        stamp[slot[e]] = step
        r = np.flatnonzero(stamp == step)  # receive
        best = dist.copy()
        np.minimum.at(best, slot_head[r], buf[r])
        active = best < dist
        dist = best
        step += 1
    dist[dist == INF] = -1
    return dist


def pagerank_numpy(g: CSRGraph, damping: float, tol: float, max_iter: int):
    """(rank, iterations, delta, converged) by the Medusa supersteps."""
    n = g.num_nodes
    tails, heads = simple_arcs(g)
    indptr, slot, rindptr = layout(n, tails, heads)
    deg = np.diff(indptr)
    x = np.full(n, 1.0 / n)
    buf = np.zeros(tails.size)
    delta = float("nan")
    for it in range(1, max_iter + 1):
        dangling = float(x[deg == 0].sum())
        buf[slot] = (x / np.maximum(deg, 1))[tails]
        t = np.add.reduceat(np.r_[buf, 0.0], rindptr[:-1]) * (np.diff(rindptr) > 0)
        new = damping * (t + dangling / n) + (1.0 - damping) / n
        delta = float(np.abs(new - x).sum())
        x = new
        if delta < n * tol:
            return x, it, delta, True
    return x, max_iter, delta, False


def boruvka_round_graphs(n: int, a: np.ndarray, b: np.ndarray) -> list[tuple]:
    """The graph each Borůvka round starts from, as (vertices, tails, heads) with arcs
    both ways: what a Medusa-style framework, which cannot change the topology, must
    rebuild its buffers for once per round (Figure 5). ``a``, ``b``: the undirected edges
    in rank order (``direct.undirected_edges``)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    rank = np.arange(a.size, dtype=np.int64)  # edges stay in rank order: position = order
    out = []
    while a.size:
        out.append((n, np.r_[a, b], np.r_[b, a]))
        pos = np.arange(a.size, dtype=np.int64)
        best = np.full(n, a.size, np.int64)  # each supervertex's lightest edge
        np.minimum.at(best, a, pos)
        np.minimum.at(best, b, pos)
        pick = np.unique(best[best < a.size])
        m = sp.coo_array((np.ones(pick.size), (a[pick], b[pick])), shape=(n, n))
        n, label = connected_components(m, directed=False)
        a, b = label[a], label[b]
        keep = a != b
        a, b, rank = np.minimum(a, b)[keep], np.maximum(a, b)[keep], rank[keep]
        first = np.ones(a.size, bool)  # one edge per supervertex pair: the lightest
        # the rows are in rank order: a stable sort by the pair gives (a, b, rank)
        order = np.argsort(a * n + b, kind="stable")
        a, b, rank = a[order], b[order], rank[order]
        first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
        a, b, rank = a[first], b[first], rank[first]
        order = np.argsort(rank)
        a, b, rank = a[order], b[order], rank[order]
    return out


# ---- the CUDA baseline --------------------------------------------------------------------


def _k(name: str):
    return get_kernel(HERE / "medusa.cu", name)


def _grid(n: int) -> tuple[int]:
    return (max(1, -(-int(n) // BLOCK)),)


def _upload(cp, n: int, tails, heads, extra: int):
    """Build the layout on the host and copy it (the rebuild a topology change costs)."""
    t0 = time.perf_counter()
    indptr, slot, rindptr = layout(n, tails, heads)
    m = int(slot.size)
    need = 8 * (n + 1) + m * (4 + extra)
    memory.ensure_free(need, "the Medusa-style buffers")
    with memory.oom_as_typed("the Medusa-style buffers", need):
        dev = tuple(cp.asarray(a) for a in (indptr, slot, rindptr))
    cp.cuda.Stream.null.synchronize()
    return dev, time.perf_counter() - t0


def _static_layout(g: CSRGraph, key: str, arcs: Callable[[], tuple[np.ndarray, np.ndarray]],
                   extra: int):
    """The layout of ``arcs()`` built once per graph and device (DeviceGraph.derived):
    the buffers are static as long as the topology is, so a run on an unchanged map
    times the kernels only; what a topology change costs is the rebuild
    (:func:`upload_layout`, timed apart). Returns (device arrays, build seconds)."""
    import cupy as cp

    from ..device.csr import device_graph

    return device_graph(g).derived(key, lambda: _upload(cp, g.num_nodes, *arcs(), extra))


def upload_layout(g: CSRGraph, *, pagerank: bool = False):
    """(device indptr, slot, rindptr; seconds) of g's arcs (``pagerank``: of its simple
    digraph, made from the map's arcs first): the rebuild alone."""
    import cupy as cp

    if pagerank:
        return _upload(cp, g.num_nodes, *simple_arcs(g), 8)
    return _upload(cp, g.num_nodes, g.arc_sources(), g.indices, 16)


def boruvka_rebuilds_cuda(rounds: list[tuple]) -> float:
    """Seconds to rebuild and upload the buffers of every round's graph (arcs sorted by
    tail first, as a CSR would hold them)."""
    import cupy as cp

    total = 0.0
    for n, t, h in rounds:
        order = np.lexsort((h, t))
        total += _upload(cp, n, t[order], h[order], 16)[1]
    return total


def bellman_ford_medusa_cuda(g: CSRGraph, source: int, *, cancel=None):
    """(dist int64, -1 unreachable; telemetry; build_s) by the Medusa-style baseline."""
    import cupy as cp

    from ..errors import CancelledError

    n, m = g.num_nodes, g.num_arcs
    (indptr, slot, rindptr), build_s = _static_layout(
        g, "medusa:bf", lambda: (g.arc_sources(), g.indices), 8 + 4 + 4)
    with memory.oom_as_typed("the Medusa-style Bellman-Ford", m * 16):
        w = cp.asarray(g.weights, dtype=cp.int32)
        buf = cp.zeros(max(m, 1), cp.int64)
        stamp = cp.full(max(m, 1), -1, cp.int32)
        dist = cp.full(n, int(INF), cp.int64)
        dist[source] = 0
        active = cp.zeros(n, cp.uint8)
        active[source] = 1
        cnt = cp.zeros(2, cp.uint64)  # sent, changed
        rows = []
        changed, step = 1, 0
        n32 = np.int32(n)
        while changed:
            if cancel is not None and cancel():
                raise CancelledError(f"Medusa-style Bellman-Ford cancelled at superstep {step}")
            t0 = time.perf_counter()
            cnt.fill(0)
            _k("md_bf_send")(_grid(n), (BLOCK,), (n32, indptr, slot, w, dist, active, buf,
                                                  stamp, np.int32(step), cnt[0:]))
            _k("md_bf_recv")(_grid(n), (BLOCK,), (n32, rindptr, buf, stamp, dist, active,
                                                  np.int32(step), cnt[1:]))
            sent, changed = (int(c) for c in cnt.get())
            rows.append((step, changed, sent, m, (time.perf_counter() - t0) * 1e6))
            step += 1
        out = dist.get()
    out[out == INF] = -1
    return out, telemetry_rows(rows), build_s


def pagerank_medusa_cuda(g: CSRGraph, damping: float, tol: float, max_iter: int):
    """(rank, iterations, delta, converged, build_s) by the Medusa-style baseline."""
    import cupy as cp

    n = g.num_nodes
    (indptr, slot, rindptr), build_s = _static_layout(g, "medusa:pagerank",
                                                      lambda: simple_arcs(g), 8)
    m = int(slot.size)
    with memory.oom_as_typed("the Medusa-style PageRank", m * 8 + n * 16):
        buf = cp.zeros(max(m, 1), cp.float64)
        x = cp.full(n, 1.0 / n)
        par = cp.asarray([damping, 1.0 / n])
        agg = cp.zeros(2, cp.float64)  # dangling sum, L1 change
        n32 = np.int32(n)
        delta = float("nan")
        for it in range(1, max_iter + 1):
            agg.fill(0.0)
            _k("md_pr_send")(_grid(n), (BLOCK,), (n32, indptr, slot, x, buf, agg))
            _k("md_pr_recv")(_grid(n), (BLOCK,), (n32, rindptr, buf, par, x, agg))
            delta = float(agg[1].get())
            if delta < n * tol:
                return x.get(), it, delta, True, build_s
        return x.get(), max_iter, delta, False, build_s
