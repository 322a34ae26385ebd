"""Array steps of preparing a big map, as numba kernels that release the GIL.

The window prepares a map (drawing geometry, snapping index, the route panel's parts) on
its loader thread while the GUI thread keeps painting. A numpy call that holds the GIL
for 50-130 ms on the 1.43M-node map (``np.repeat`` over 4.6M arcs, scipy's
``connected_components``) freezes the window that long (issue 27); these do the same work
without the GIL.

On a fresh install a kernel that is not in numba's cache would compile here, holding the
GIL for longer than the numpy call it replaces (0.3-2.6 s each on a 2-core machine, issue
41): until ``app.jobs.compile_ahead``'s child has compiled it, each function below runs its
numpy twin (the same array).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _tails(indptr, out):  # pragma: no cover - numba
    for v in range(indptr.shape[0] - 1):
        for a in range(indptr[v], indptr[v + 1]):
            out[a] = v
    return out


def _ready(kernel) -> bool:
    from osutil.numba_cache import ready

    return ready(kernel)


def arc_tails(indptr: np.ndarray) -> np.ndarray:
    """The tail node of every arc (int32): ``RoadNetwork.arc_sources`` without the GIL."""
    if not _ready(_tails):
        n = indptr.shape[0] - 1
        return np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
    return _tails(np.asarray(indptr), np.empty(int(indptr[-1]), dtype=np.int32))


@njit(cache=True, nogil=True)
def _find(parent, v):  # pragma: no cover - numba
    while parent[v] != v:
        parent[v] = parent[parent[v]]  # path halving
        v = parent[v]
    return v


@njit(cache=True, nogil=True)
def _weak(indptr, indices):  # pragma: no cover - numba
    n = indptr.shape[0] - 1
    parent = np.arange(n)
    for v in range(n):
        for a in range(indptr[v], indptr[v + 1]):
            r, s = _find(parent, v), _find(parent, indices[a])
            if r != s:
                if r < s:
                    parent[s] = r
                else:
                    parent[r] = s
    labels = np.empty(n, np.int32)
    k = 0
    for v in range(n):  # a root is the smallest node of its part: met before its members
        r = _find(parent, v)
        if r == v:
            labels[v] = k
            k += 1
        else:
            labels[v] = labels[r]
    return labels


def weak_components(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Weakly connected part of every node (labels 0..k-1 in order of each part's
    smallest node): union-find over the arcs, without the GIL."""
    if not _ready(_weak):
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components

        n = indptr.shape[0] - 1
        a = csr_matrix((np.ones(indices.shape[0], np.int8), indices, indptr), shape=(n, n))
        _, lab = connected_components(a, directed=True, connection="weak")
        # numbered in order of each part's smallest node, as the union-find numbers them
        _, first, inv = np.unique(lab, return_index=True, return_inverse=True)
        return np.argsort(np.argsort(first)).astype(np.int32)[inv]
    return _weak(np.asarray(indptr), np.asarray(indices))


@njit(cache=True, nogil=True, inline="always")
def _first_in_row(indptr, indices, u, v):  # pragma: no cover - numba
    for b in range(indptr[u], indptr[u + 1]):
        if indices[b] == v:
            return b
    return -1


@njit(cache=True, nogil=True)
def _pairs(indptr, indices):  # pragma: no cover - numba
    m = indices.shape[0]
    keep = np.zeros(m, np.bool_)
    for u in range(indptr.shape[0] - 1):
        for a in range(indptr[u], indptr[u + 1]):
            v = indices[a]
            if v == u:
                continue  # a loop draws nothing
            first = _first_in_row(indptr, indices, u, v)
            back = _first_in_row(indptr, indices, v, u)
            if back != -1 and back < first:
                first = back
            keep[a] = a == first
    return np.flatnonzero(keep)


def first_of_pairs(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The lowest arc of each undirected pair {u, v} (u != v), ascending (int64): what
    ``np.unique`` of the pairs' keys with ``return_index`` gives, sorted, loops left out,
    without the GIL or a sort (each arc's pair is looked up in its two rows)."""
    if not _ready(_pairs):
        tails = np.repeat(np.arange(indptr.shape[0] - 1, dtype=np.int64), np.diff(indptr))
        heads = np.asarray(indices, np.int64)
        keep = tails != heads
        lo, hi = np.minimum(tails, heads)[keep], np.maximum(tails, heads)[keep]
        _, first = np.unique(lo * (indptr.shape[0] - 1) + hi, return_index=True)
        return np.sort(np.flatnonzero(keep)[first]).astype(np.int64)
    return _pairs(np.asarray(indptr), np.asarray(indices)).astype(np.int64)


def compile_kernels(indptr: np.ndarray, indices: np.ndarray) -> None:
    """Compile (or load from numba's cache) the kernels above with the arrays of a map
    (a warm-up's, in a child process: until then the functions run their numpy twins)."""
    indptr, indices = np.asarray(indptr), np.asarray(indices)
    _tails(indptr, np.empty(int(indptr[-1]), dtype=np.int32))
    _weak(indptr, indices)
    _pairs(indptr, indices)
