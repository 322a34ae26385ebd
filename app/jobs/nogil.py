"""Array steps of preparing a big map, as numba kernels that release the GIL.

The window prepares a map (drawing geometry, snapping index, the route panel's parts) on
its loader thread while the GUI thread keeps painting. A numpy call that holds the GIL
for 50-130 ms on the 1.43M-node map (``np.repeat`` over 4.6M arcs, scipy's
``connected_components``) freezes the window that long (issue 27); these do the same work
without the GIL.
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


def arc_tails(indptr: np.ndarray) -> np.ndarray:
    """The tail node of every arc (int32): ``RoadNetwork.arc_sources`` without the GIL."""
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
    return _pairs(np.asarray(indptr), np.asarray(indices)).astype(np.int64)
