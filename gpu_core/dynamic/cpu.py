"""The mutable graph's host arrays: the CPU backend itself, and the mirror every backend
validates against.

Layout (the paper's Figure 3(c) idea, kept cheap for the unedited bulk): arrays by arc id
(``tail``, ``head``, ``weight`` int32, ``state`` uint8) with spare capacity; the starting
graph's arcs keep their CSR rows (``base_indptr``: arc ids indptr[v]..indptr[v+1]-1 are
v's), inserted arcs hang in per-vertex linked lists (``first_extra[v]``, ``next_extra``).
A disabled or deleted arc stays where it is, its state byte says so. Capacity grows by
doubling (ids never move).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
from numba import njit

from ..graph import CSRGraph
from .layout import (
    ARC_DELETED,
    ARC_DISABLED,
    ARC_LIVE,
    ERR_DELETED,
    ERR_HEAD,
    ERR_ID,
    ERR_TAIL,
    ERR_WEIGHT,
    MAX_WEIGHT,
    OP_ADD_VERTEX,
    OP_DELETE,
    OP_DISABLE,
    OP_ENABLE,
    OP_INSERT,
    OP_SET_WEIGHT,
    base_subset_csr,
    sorted_csr,
)


@njit(cache=True, nogil=True)
def _apply(ops, a, b, c, tail, head, weight, state, mark, total, n, log_id, log_state,
           log_w):
    """Edits in order. Returns (error code, edit index, total, n, log length); on an
    error every change is undone (state/weight from the log; inserted arcs lie beyond the
    caller's total and are forgotten). The log holds (id, state, weight) of every arc that
    existed before the batch, at its first edit (``mark`` flags the logged ids; cleared
    again before returning). The sixth value is the touch pass's checksum (unused)."""
    # Touch pass: the arcs' state/mark/weight lines are loaded by independent loads whose
    # cache misses overlap; the edit loop below, whose steps depend on each other, then
    # finds them in the cache (10,000 random arcs of a 6M-arc graph: ~30% faster).
    touch = 0
    for i in range(ops.shape[0]):
        e = a[i]
        if ops[i] != OP_INSERT and ops[i] != OP_ADD_VERTEX and 0 <= e < total:
            touch += state[e] + mark[e] + weight[e]
    nlog = 0
    total0 = total
    for i in range(ops.shape[0]):
        op = ops[i]
        err = 0
        if op == OP_ADD_VERTEX:
            n += 1
            continue
        if op == OP_INSERT:
            if a[i] < 0 or a[i] >= n:
                err = ERR_TAIL
            elif b[i] < 0 or b[i] >= n:
                err = ERR_HEAD
            elif c[i] < 0 or c[i] > MAX_WEIGHT:
                err = ERR_WEIGHT
            else:
                tail[total] = a[i]
                head[total] = b[i]
                weight[total] = c[i]
                state[total] = ARC_LIVE
                total += 1
                continue
        else:
            e = a[i]
            if e < 0 or e >= total:
                err = ERR_ID
            elif state[e] == ARC_DELETED:
                err = ERR_DELETED
            elif op == OP_SET_WEIGHT and (c[i] < 0 or c[i] > MAX_WEIGHT):
                err = ERR_WEIGHT
            else:
                if e < total0 and mark[e] == 0:
                    mark[e] = 1
                    log_id[nlog] = e
                    log_state[nlog] = state[e]
                    log_w[nlog] = weight[e]
                    nlog += 1
                if op == OP_DISABLE:
                    state[e] = ARC_DISABLED
                elif op == OP_ENABLE:
                    state[e] = ARC_LIVE
                elif op == OP_DELETE:
                    state[e] = ARC_DELETED
                elif op == OP_SET_WEIGHT:
                    weight[e] = c[i]
                continue
        for k in range(nlog):
            state[log_id[k]] = log_state[k]
            weight[log_id[k]] = log_w[k]
            mark[log_id[k]] = 0
        for e in range(total0, total):
            state[e] = ARC_DELETED
        return err, i, total, n, 0, touch
    for k in range(nlog):
        mark[log_id[k]] = 0
    return 0, -1, total, n, nlog, touch


@njit(cache=True, nogil=True)
def _link(tail, first_extra, next_extra, lo, hi):
    """Push inserted arcs lo..hi-1 at the head of their tail's list."""
    for e in range(lo, hi):
        t = tail[e]
        next_extra[e] = first_extra[t]
        first_extra[t] = e


@njit(cache=True, nogil=True)
def _compact(n, total, tail, head, weight, state):
    """CSR of the live arcs with rows by (weight, head, id): a counting sort by tail (ids
    in order), then each row sorted stably (insertion sort, mergesort for long rows).
    The same order as ``layout.sorted_csr``, in O(m) for road-like degrees."""
    ptr = np.zeros(n + 1, np.int64)
    for e in range(total):
        if state[e] == ARC_LIVE:
            ptr[tail[e] + 1] += 1
    for v in range(n):
        ptr[v + 1] += ptr[v]
    pos = ptr[:n].copy()
    ids = np.empty(ptr[n], np.int64)
    for e in range(total):
        if state[e] == ARC_LIVE:
            ids[pos[tail[e]]] = e
            pos[tail[e]] += 1
    for v in range(n):
        lo, hi = ptr[v], ptr[v + 1]
        if hi - lo > 32:
            key = np.empty(hi - lo, np.int64)
            for i in range(lo, hi):
                key[i - lo] = (np.int64(weight[ids[i]]) << 31) | head[ids[i]]
            ids[lo:hi] = ids[lo:hi][np.argsort(key, kind="mergesort")]
            continue
        for i in range(lo + 1, hi):
            x = ids[i]
            j = i - 1
            while j >= lo and (weight[ids[j]] > weight[x] or
                               (weight[ids[j]] == weight[x] and head[ids[j]] > head[x])):
                ids[j + 1] = ids[j]
                j -= 1
            ids[j + 1] = x
    indices = np.empty(ids.shape[0], np.int32)
    weights = np.empty(ids.shape[0], np.int32)
    for i in range(ids.shape[0]):
        indices[i] = head[ids[i]]
        weights[i] = weight[ids[i]]
    return ptr.astype(np.int32), indices, weights, ids


PY_EDITS = 256  # edits of a batch that Python runs while the kernels are not compiled


_force = False  # set by api.compile_kernels: the kernels run (compile) even when not cached


@contextmanager
def forced() -> Iterator[None]:
    """The kernels run (compile) inside, cached or not (``api.compile_kernels``)."""
    global _force
    _force = True
    try:
        yield
    finally:
        _force = False


def _ready(kernel) -> bool:
    from osutil.numba_cache import ready

    return _force or ready(kernel)


def _batch_kernels(k: int) -> tuple[Callable, Callable]:
    """(apply, link) for a batch of ``k`` edits: the kernels once this process has them;
    for a small batch before that, the same code run by Python (a few steps per edit).
    A fresh install's kernels would compile holding the GIL (~2 s on a 2-core machine, in
    the window's thread); even from numba's cache, loading the two took the window's
    thread ~18 ms at its first closure, more than Python takes for 256 edits (issue 41)."""
    loaded = _force or (bool(getattr(_apply, "signatures", None))
                        and bool(getattr(_link, "signatures", None)))
    if k <= PY_EDITS and not loaded:
        return _apply.py_func, _link.py_func
    return _apply, _link


def _grown(a: np.ndarray, size: int, fill) -> np.ndarray:
    out = np.full(size, fill, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


class HostArcs:
    """Arc arrays by id with spare capacity, plus the inserted arcs' linked lists."""

    def __init__(self, g: CSRGraph, reserve_arcs: int, reserve_nodes: int):
        n, m = g.num_nodes, g.num_arcs
        self.n0, self.n, self.total = n, n, m
        self.base_indptr = g.indptr.astype(np.int64)
        cap, ncap = m + max(int(reserve_arcs), 1), n + max(int(reserve_nodes), 1)
        self.tail = np.zeros(cap, np.int32)
        self.head = np.zeros(cap, np.int32)
        self.weight = np.zeros(cap, np.int32)
        self.state = np.zeros(cap, np.uint8)
        self.mark = np.zeros(cap, np.uint8)  # scratch of _apply, all zero between batches
        self.tail[:m] = g.arc_sources()
        self.head[:m] = g.indices
        self.weight[:m] = g.weights
        self.state[:m] = ARC_LIVE
        self.first_extra = np.full(ncap, -1, np.int64)
        # read only along first_extra's chains, which hold inserted arcs (ids >= m): the
        # base arcs' entries are never read, so their pages are never touched (NE: 31 MB
        # of first writes, 0.03-0.08 s of every Scenario's making)
        self.next_extra = np.empty(cap, np.int64)
        self.next_extra[m:] = -1
        self._subset_rows = True  # compact() tries layout.base_subset_csr first

    @property
    def arc_capacity(self) -> int:
        return int(self.tail.shape[0])

    @property
    def node_capacity(self) -> int:
        return int(self.first_extra.shape[0])

    def reserve(self, arcs: int, nodes: int) -> bool:
        """Room for ``arcs`` ids and ``nodes`` vertices (doubling); True if it grew."""
        grew = False
        if arcs > self.arc_capacity:
            cap = max(int(arcs), 2 * self.arc_capacity)
            self.tail, self.head, self.weight = (_grown(x, cap, 0) for x in
                                                 (self.tail, self.head, self.weight))
            self.state = _grown(self.state, cap, ARC_DELETED)
            self.mark = _grown(self.mark, cap, 0)
            self.next_extra = _grown(self.next_extra, cap, -1)
            grew = True
        if nodes > self.node_capacity:
            self.first_extra = _grown(self.first_extra, max(int(nodes), 2 * self.node_capacity),
                                      -1)
            grew = True
        return grew

    def apply(self, ops, a, b, c):
        """(error code, edit index, (log ids, states, weights), total, n) -- see _apply."""
        inserts = int((ops == OP_INSERT).sum())
        self.reserve(self.total + inserts, self.n + int((ops == OP_ADD_VERTEX).sum()))
        k = ops.shape[0]
        log = (np.empty(k, np.int64), np.empty(k, np.uint8), np.empty(k, np.int32))
        apply, link = _batch_kernels(k)
        code, i, total, n, nlog, _ = apply(ops, a, b, c, self.tail, self.head, self.weight,
                                           self.state, self.mark, self.total, self.n, *log)
        if code:
            return int(code), int(i), None, int(total), int(n)
        link(self.tail, self.first_extra, self.next_extra, self.total, total)
        self.total, self.n = int(total), int(n)
        return 0, -1, tuple(x[:nlog] for x in log), self.total, self.n

    def out_arcs(self, v: int) -> np.ndarray:
        """Live out-arc ids of v: its base row, then its inserted arcs (newest first)."""
        ids: list[int] = []
        if v < self.n0:
            ids.extend(range(int(self.base_indptr[v]), int(self.base_indptr[v + 1])))
        e = int(self.first_extra[v])
        while e >= 0:
            ids.append(e)
            e = int(self.next_extra[e])
        out = np.asarray(ids, np.int64)
        return out[self.state[out] == ARC_LIVE] if out.size else out

    def compact(self) -> tuple[CSRGraph, np.ndarray]:
        m = int(self.base_indptr[-1])
        got = None
        if self.total == m and self.n == self.n0 and self._subset_rows:
            # nothing inserted (closures, weights): the live arcs in their rows, if in order
            got = base_subset_csr(self.base_indptr, self.head[:m], self.weight[:m],
                                  self.state[:m] == ARC_LIVE)
            self._subset_rows = got is not None  # a map whose rows are not: not again
        if got is not None:
            indptr, indices, weights, ids = got
        elif _ready(_compact):
            indptr, indices, weights, ids = _compact(self.n, self.total, self.tail,
                                                     self.head, self.weight, self.state)
        else:  # not compiled yet (a fresh install): numpy's stable sorts, the same CSR
            live = np.flatnonzero(self.state[:self.total] == ARC_LIVE)
            indptr, indices, weights, ids = sorted_csr(
                np, self.n, live, self.tail[live], self.head[live], self.weight[live])
        g = CSRGraph(indptr, indices, weights)
        # valid by construction (int32, monotone, heads in range, weights checked when the
        # edits were applied), as DeviceCSRGraph: gpu_core.graph.prepared must not pay an
        # O(m) check_csr per compaction, i.e. per edit (issue 38 benchmark: +10% compact)
        g._checked = True
        return g, ids
