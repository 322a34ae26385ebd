"""Seed 004's sequential baselines (Section 5.3), for ``signpost bench seed004`` only.

* :func:`plain_bellman_ford`: "the traditionally stated naive Bellman-Ford": |V|-1 rounds,
  each relaxing every arc in CSR order (Gauss-Seidel, as a plain loop does), no early exit
  unless asked. The thesis's Table 5-2 times fit exactly that: 14 ns per arc and round on
  all five graphs (e.g. 68.5 s = 9,999 rounds x 489,476 arcs on Simple Graph 03).
* :func:`pool_dijkstra`: Dijkstra "optimised with an open-node pool": the next vertex is
  the minimum of a linear scan over the opened (labelled, unsettled) vertices instead of
  over all of V; no heap.

Both take negative weights only as far as their algorithm does (the pool Dijkstra needs
non-negative ones) and return int64 distances with -1 (or what the caller asks) where
unreached. They are not
strategies: no keys, no predecessors, no phases.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..graph import CSRGraph

_INF = np.iinfo(np.int64).max


@njit(cache=True, nogil=True)
def _plain_bf(indptr, indices, weights, src, early_exit):
    n = indptr.shape[0] - 1
    d = np.full(n, _INF, np.int64)
    d[src] = 0
    rounds = 0
    for _ in range(max(n - 1, 0)):
        rounds += 1
        changed = False
        for u in range(n):
            du = d[u]
            if du == _INF:
                continue
            for a in range(indptr[u], indptr[u + 1]):
                v = indices[a]
                nd = du + weights[a]
                if nd < d[v]:
                    d[v] = nd
                    changed = True
        if early_exit and not changed:
            break
    return d, rounds


@njit(cache=True, nogil=True)
def _pool_dijkstra(indptr, indices, weights, src):
    n = indptr.shape[0] - 1
    d = np.full(n, _INF, np.int64)
    where = np.full(n, -1, np.int64)  # slot in the pool, -1 outside, -2 settled
    pool = np.empty(n, np.int64)
    size = 0
    d[src] = 0
    pool[0] = src
    where[src] = 0
    size = 1
    while size > 0:
        best = 0
        for i in range(1, size):  # the open-node pool: the search domain of the minimum
            if d[pool[i]] < d[pool[best]]:
                best = i
        u = pool[best]
        size -= 1
        last = pool[size]
        pool[best] = last
        where[last] = best
        where[u] = -2
        du = d[u]
        for a in range(indptr[u], indptr[u + 1]):
            v = indices[a]
            if where[v] == -2:
                continue
            nd = du + weights[a]
            if nd < d[v]:
                d[v] = nd
                if where[v] == -1:
                    pool[size] = v
                    where[v] = size
                    size += 1
    return d


def _dist(d: np.ndarray, unreachable: int = -1) -> np.ndarray:
    d = d.copy()
    d[d == _INF] = unreachable
    return d


def plain_bellman_ford(graph, source: int, *, early_exit: bool = False,
                       unreachable: int = -1) -> tuple[np.ndarray, int]:
    """(int64 distances, ``unreachable`` where unreached; rounds run) of the plain
    |V|-1-round Bellman-Ford (negative arcs allowed; no negative-cycle check)."""
    g = CSRGraph.from_any(graph, allow_negative=True)
    d, rounds = _plain_bf(g.indptr, g.indices, g.weights, int(source), bool(early_exit))
    return _dist(d, unreachable), int(rounds)


def pool_dijkstra(graph, source: int) -> np.ndarray:
    """int64 distances (-1 unreached) of Dijkstra with an open-node pool (weights >= 0)."""
    g = CSRGraph.from_any(graph)
    return _dist(_pool_dijkstra(g.indptr, g.indices, g.weights, int(source)))
