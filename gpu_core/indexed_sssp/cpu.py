"""CPU side of the indexed one-to-all search (numba): the upward search from the sources,
the PHAST sweep of one source set in sweep ids, then keys, distances and predecessors in
the graph's own ids.

Every work vector lives in :class:`CpuOneToAll` and is reused between calls (the app
searches once per click): the upward search's cost array stays INF between calls (only
the vertices it touched are reset), and the sweep writes every entry of ``d`` once, in
sweep order, so nothing O(n) is cleared per call.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit, prange

from ..hierarchy.contract import INF as UP_INF
from ..hierarchy.cpu import upward  # the upward search, shared with PHAST's
from ..host.clock import cycles

KEY_INF = np.iinfo(np.int64).max


@njit(cache=True, nogil=True)
def reset(up, touched, nt):
    for i in range(nt):
        up[touched[i]] = UP_INF


@njit(cache=True, nogil=True)
def sweep(up, d, down_ptr, down_src, down_w, level_ptr, ticks):
    """d[v] = min(up[v], min over downward in-arcs (u, w) of d[u] + w), in sweep order
    (every in-arc comes from a smaller id); ticks[l] = cycle-counter ticks of level l."""
    for lv in range(level_ptr.shape[0] - 1):
        t0 = cycles()
        for v in range(level_ptr[lv], level_ptr[lv + 1]):
            best = up[v]
            for e in range(down_ptr[v], down_ptr[v + 1]):
                c = d[down_src[e]] + down_w[e]
                if c < best:
                    best = c
            d[v] = best
        ticks[lv] = cycles() - t0


@njit(cache=True, nogil=True, inline="always")
def _key_of(d, rank_of, hb, unreachable, key, dist, v):
    x = d[rank_of[v]]
    if x >= UP_INF:
        key[v] = KEY_INF
        dist[v] = unreachable
    else:
        key[v] = x
        dist[v] = x >> hb


@njit(cache=True, nogil=True, parallel=True)
def keys_of(d, rank_of, hb, unreachable, key, dist):
    """key[v] (KEY_INF when unreached) and dist[v] in the graph's ids."""
    for v in prange(key.shape[0]):
        _key_of(d, rank_of, hb, unreachable, key, dist, v)


@njit(cache=True, nogil=True)
def keys_of_seq(d, rank_of, hb, unreachable, key, dist):
    for v in range(key.shape[0]):
        _key_of(d, rank_of, hb, unreachable, key, dist, v)


# pred[v] = the smallest u with key[u] + w'(u, v) == key[v] over v's in-arcs (the rule of
# gpu_core.keys), -1 at sources and unreached vertices. A row lists its in-arcs by tail
# (api._Pair), so the first tight one is the answer; kv - w' cannot overflow and never
# equals KEY_INF. The loop is written out in both kernels: through an inlined helper
# numba compiled it 4-5x slower (kanto: 77 vs 17 ms).
@njit(cache=True, nogil=True, parallel=True)
def preds(rptr, rsrc, rw, hb, key, pred):
    one = min(hb, 1)
    for v in prange(key.shape[0]):
        kv = key[v]
        p = -1
        if kv != KEY_INF:
            for e in range(rptr[v], rptr[v + 1]):
                if key[rsrc[e]] == kv - ((np.int64(rw[e]) << hb) | one):
                    p = rsrc[e]
                    break
        pred[v] = p


@njit(cache=True, nogil=True)
def preds_seq(rptr, rsrc, rw, hb, key, pred):
    one = min(hb, 1)
    for v in range(key.shape[0]):
        kv = key[v]
        p = -1
        if kv != KEY_INF:
            for e in range(rptr[v], rptr[v + 1]):
                if key[rsrc[e]] == kv - ((np.int64(rw[e]) << hb) | one):
                    p = rsrc[e]
                    break
        pred[v] = p


# below this many vertices the two passes run on one thread: waking numba's threads
# costs more than they save (and far more on a loaded machine)
PARALLEL_MIN_N = 1 << 17


@njit(cache=True, nogil=True)
def _gather_rows(ptr, nbr, w, order, new_of, p, out_nbr, out_w):
    for i in range(order.shape[0]):
        a, q = ptr[order[i]], p[i]
        for k in range(p[i + 1] - q):
            out_nbr[q + k] = new_of[nbr[a + k]]
            out_w[q + k] = w[a + k]


def _renumber(ptr, nbr, w, order, new_of):
    """A CSR graph (rows by old id) with its rows in ``order`` and neighbours renamed.
    The gather runs in numba without the GIL: numpy's fancy indexing of millions of arcs
    held it for 0.3-0.5 s on a 1.43M-node map, freezing the app's GUI thread while its
    index worker got a search ready."""
    cnt = np.diff(ptr)[order]
    p = np.zeros(order.shape[0] + 1, np.int64)
    np.cumsum(cnt, out=p[1:])
    out_nbr = np.empty(int(p[-1]), np.int32)
    out_w = np.empty(int(p[-1]), w.dtype)
    _gather_rows(ptr, nbr, w, order, new_of, p, out_nbr, out_w)
    return p, out_nbr, out_w


@njit(cache=True, nogil=True)
def _in_arcs(indptr, indices, weights, rptr, rsrc, rw):  # pragma: no cover - numba
    n = indptr.shape[0] - 1
    for a in range(indices.shape[0]):
        rptr[indices[a] + 1] += 1
    for v in range(n):
        rptr[v + 1] += rptr[v]
    at = rptr[:-1].copy()
    for u in range(n):  # arcs in CSR order: each head's in-arcs by tail, as a stable sort
        for a in range(indptr[u], indptr[u + 1]):
            k = at[indices[a]]
            rsrc[k] = u
            rw[k] = weights[a]
            at[indices[a]] = k + 1


def in_arcs(indptr, indices, weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rptr int64, tails int32, weights int32): the graph's in-arcs, rows by head, each
    row by tail (``np.argsort(indices, kind="stable")``'s order). One counting pass
    without the GIL: the argsort and gathers held it ~60 ms on the 1.43M-node map while
    the app's index worker got its first search ready, the window frozen meanwhile."""
    n, m = indptr.shape[0] - 1, indices.shape[0]
    rptr = np.zeros(n + 1, np.int64)
    rsrc = np.empty(m, np.int32)
    rw = np.empty(m, np.int32)
    _in_arcs(indptr, indices, weights, rptr, rsrc, rw)
    return rptr, rsrc, rw


class Layout:
    """The hierarchy in the CPU sweep's own vertex order: by level as the sweep ids are,
    but within a level by graph id instead of rank. Road maps number vertices roughly
    by place, so a level's consecutive vertices pull from nearby entries of the levels
    above, and the final gather into graph ids reads one ascending run per level (the
    sweep is bound by memory latency; any order by level is a valid PHAST order)."""

    def __init__(self, h):
        n = h.n
        vertex = np.empty(n, np.int64)  # sweep id -> graph id
        vertex[h.rank_of] = np.arange(n)
        level = np.repeat(np.arange(h.levels), np.diff(h.level_ptr))
        order = np.lexsort((vertex, level))  # new id -> sweep id
        new_of = np.empty(n, np.int32)  # sweep id -> new id
        new_of[order] = np.arange(n, dtype=np.int32)
        self.n = n
        self.levels = h.levels
        self.level_ptr = h.level_ptr
        self.rank_of = np.ascontiguousarray(new_of[h.rank_of])  # graph id -> new id
        self.up_ptr, self.up_dst, self.up_w = _renumber(h.up_ptr, h.up_dst, h.up_w, order,
                                                        new_of)
        self.down_ptr, self.down_src, self.down_w = _renumber(h.down_ptr, h.down_src,
                                                              h.down_w, order, new_of)


class CpuOneToAll:
    """The reusable CPU state of one (key hierarchy, graph) pair; one search at a time."""

    def __init__(self, h, rptr: np.ndarray, rsrc: np.ndarray, rw: np.ndarray):
        h = Layout(h)
        self.h = h
        self.rptr, self.rsrc, self.rw = rptr, rsrc, rw
        n = h.n
        self.up = np.full(n, UP_INF, np.int64)
        self.touched = np.empty(n, np.int32)
        cap = int(h.up_dst.shape[0]) + n + 1  # pushes are at most sources + arcs scanned
        self.hk = np.empty(cap, np.int64)  # np.empty: pages only touched when used
        self.hv = np.empty(cap, np.int32)
        self.pos = np.empty(1, np.int64)
        self.d = np.empty(n, np.int64)
        self.ticks = np.zeros(max(h.levels, 1), np.int64)
        self.lock = threading.Lock()

    def upward(self, sources: np.ndarray) -> tuple[int, int]:
        """Upward search from ``sources`` (graph ids) into ``self.up``: (reached, arcs)."""
        h = self.h
        src = np.ascontiguousarray(h.rank_of[sources], dtype=np.int32)
        return upward(src, h.up_ptr, h.up_dst, h.up_w, self.up, self.touched, self.hk,
                      self.hv, self.pos)

    def run(self, sources: np.ndarray, hb: int, unreachable: int, key: np.ndarray,
            pred: np.ndarray, dist: np.ndarray) -> tuple[tuple[int, int], int, int]:
        """One search into key/pred/dist: ((reached, arcs) of the upward search, upward
        ticks, pred ticks); ``self.ticks`` holds the sweep's per-level ticks."""
        h = self.h
        with self.lock:
            c0 = cycles()
            reached, arcs = self.upward(sources)
            c1 = cycles()
            try:
                sweep(self.up, self.d, h.down_ptr, h.down_src, h.down_w, h.level_ptr,
                      self.ticks)
            finally:
                reset(self.up, self.touched, reached)
            c2 = cycles()
            par = h.n >= PARALLEL_MIN_N
            (keys_of if par else keys_of_seq)(self.d, h.rank_of, np.int64(hb),
                                               np.int64(unreachable), key, dist)
            (preds if par else preds_seq)(self.rptr, self.rsrc, self.rw, np.int64(hb), key,
                                          pred)
            c3 = cycles()
        return (reached, arcs), c1 - c0, c3 - c2
