"""Negative arc weights: which strategies take them, and where a negative cycle is.

The label-correcting strategies (``registry.Strategy.negative_weights``) run on graphs
with negative arcs; both backends detect a negative cycle reachable from the sources by
the Bellman-Ford bound (a Jacobi phase n that still lowers a key: with no such cycle the
keys are final after n-1 phases). The detection does not name the cycle, so
:func:`find_negative_cycle` locates one on the host, the same way for both backends (the
reported arc never depends on the backend): a FIFO label-correcting search with parent
pointers that checks the parent graph for a cycle every n relaxations (Cherkassky and
Goldberg's amortised walk-to-root; a cycle of parents is always negative, and once a
negative cycle is reachable the parent graph keeps one after finitely many steps).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import NegativeCycleError, NegativeWeightsError
from ..graph import CSRGraph
from .registry import NEGATIVE_SUGGESTION, get


def check_strategy(strategy: str, negative: bool) -> None:
    """NegativeWeightsError when ``strategy`` cannot run on a graph with negative arcs."""
    if negative and not get(strategy).negative_weights:
        raise NegativeWeightsError(
            f"strategy {strategy} needs non-negative arc weights and this map has negative "
            f"ones; use --strategy {NEGATIVE_SUGGESTION}"
        )


@njit(cache=True, nogil=True)
def _parent_cycle(parent, color, walk):
    """A vertex on a cycle of the parent graph, or -1 (colours stamped with walk ids)."""
    n = parent.shape[0]
    for s in range(n):
        if color[s] != 0:
            continue
        walk += 1
        v = s
        while v >= 0 and color[v] == 0:
            color[v] = walk
            v = parent[v]
        if v >= 0 and color[v] == walk:
            return v, walk
    return -1, walk


@njit(cache=True, nogil=True)
def _find(indptr, indices, weights, src):
    n = indptr.shape[0] - 1
    big = np.iinfo(np.int64).max
    d = np.full(n, big, np.int64)
    parent = np.full(n, -1, np.int64)
    inq = np.zeros(n, np.bool_)
    queue = np.empty(n + 1, np.int64)  # ring: at most n vertices queued at once
    head = 0
    tail = 0
    for s in src:
        if not inq[s]:
            d[s] = 0
            inq[s] = True
            queue[tail] = s
            tail = (tail + 1) % (n + 1)
    relaxed = 0
    while head != tail:
        u = queue[head]
        head = (head + 1) % (n + 1)
        inq[u] = False
        for a in range(indptr[u], indptr[u + 1]):
            v = indices[a]
            nd = d[u] + weights[a]
            if nd < d[v]:
                d[v] = nd
                parent[v] = u
                relaxed += 1
                if relaxed % n == 0:
                    color = np.zeros(n, np.int64)
                    c, _ = _parent_cycle(parent, color, 0)
                    if c >= 0:
                        return c, parent
                if not inq[v]:
                    inq[v] = True
                    queue[tail] = v
                    tail = (tail + 1) % (n + 1)
    color = np.zeros(n, np.int64)
    c, _ = _parent_cycle(parent, color, 0)
    return c, parent


def find_negative_cycle(graph, sources) -> list[int] | None:
    """Vertex indices of a negative cycle reachable from ``sources`` in arc order (the
    arc into the cycle's smallest vertex first), or None when there is none."""
    g = CSRGraph.from_any(graph, allow_negative=True)
    src = np.unique(np.atleast_1d(np.asarray(sources, dtype=np.int64)))
    if g.num_nodes == 0 or src.size == 0:
        return None
    c, parent = _find(g.indptr, g.indices, g.weights, src)
    if c < 0:
        return None
    walk = [int(c)]  # c, parent[c], ...: the cycle against the arc direction
    x = int(parent[c])
    while x != c:
        walk.append(x)
        x = int(parent[x])
    low = min(walk)
    i = walk.index(low)
    walk = walk[i:] + walk[:i]  # low, parent[low], ...
    cycle = walk[::-1]  # ..., parent[low], low: arc order
    return [cycle[-2], cycle[-1], *cycle[:-2]] if len(cycle) > 1 else cycle


def negative_cycle_error(graph, sources) -> NegativeCycleError:
    """The NegativeCycleError naming an arc of the cycle the searches detected."""
    cycle = find_negative_cycle(graph, sources)
    if cycle is None:  # the detection bound says there is one: never expected
        return NegativeCycleError()
    return NegativeCycleError((cycle[0], cycle[1 % len(cycle)]), cycle)
