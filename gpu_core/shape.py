"""The graph's shape: hop diameter estimate and mean degree. Road maps have hop depths in
the thousands, random and social graphs a few dozen; kernels and indexes are chosen by it
(``betweenness.kernel_choice.choose_kernel``, ``hierarchy.api.road_shaped``), not by size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .graph import CSRGraph


@dataclass(frozen=True)
class GraphShape:
    nodes: int
    arcs: int
    mean_degree: float
    diameter_estimate: int  # hop eccentricity found by double sweeps (a lower bound)


@njit(cache=True, nogil=True)
def _bfs_ecc(indptr, indices, s):  # pragma: no cover - numba
    """BFS from ``s`` over out-arcs, each row's heads in ascending order (scipy's
    ``breadth_first_order`` on the canonical CSR matrix visits them so): (the deepest
    hop depth, the first vertex in BFS order at that depth)."""
    n = indptr.shape[0] - 1
    depth = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    depth[s] = 0
    queue[0] = s
    head, tail = 0, 1
    best, far = 0, s
    while head < tail:
        v = queue[head]
        head += 1
        d = depth[v]
        if d > best:
            best, far = d, v
        row = np.sort(indices[indptr[v]:indptr[v + 1]])
        for u in row:
            if depth[u] < 0:
                depth[u] = d + 1
                queue[tail] = u
                tail += 1
    return best, far


def _ecc(g: CSRGraph, s: int) -> tuple[int, int]:
    """(hop eccentricity of ``s``, the first vertex in BFS order that far). Without the
    GIL: the app finds a map's shape on a worker while its window paints (issue 27:
    scipy's BFS and its validation held the GIL 40-60 ms on the 1.43M-node map)."""
    from osutil.numba_cache import ready

    if not ready(_bfs_ecc):
        return _bfs_ecc_scipy(g, s)
    ecc, far = _bfs_ecc(g.indptr, g.indices, np.int64(s))
    return int(ecc), int(far)


# Graphs take scipy's BFS while ``_bfs_ecc`` is neither compiled nor in numba's cache (a
# fresh install: ~0.5 s of compiling on 2 cores for a BFS of milliseconds on a small map;
# on the 1.5M-node NE map 2.9 s of compiling against ~0.3 s per scipy sweep, issue 41);
# the route index's background child compiles it (``compile_bfs``) for the next command.


def compile_bfs() -> None:
    """Compile ``_bfs_ecc`` into numba's cache (on a 2-vertex graph)."""
    _bfs_ecc(np.array([0, 1, 1], np.int32), np.array([1], np.int32), np.int64(0))


def _bfs_ecc_scipy(g: CSRGraph, s: int) -> tuple[int, int]:
    """:func:`_bfs_ecc` by scipy's ``breadth_first_order`` on the canonical CSR matrix
    (each row's heads ascending, as ``_bfs_ecc`` visits them): the same answer."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order

    n = g.num_nodes
    # copies: sum_duplicates works in place, and the graph's arrays are not to change
    m = csr_matrix((np.ones(g.num_arcs, np.int8), g.indices.copy(), g.indptr.copy()),
                   shape=(n, n))
    m.sum_duplicates()  # sorted heads, one entry per head
    order, pred = breadth_first_order(m, s, directed=True, return_predecessors=True)
    # BFS order holds the levels one after another, and the positions of the vertices'
    # predecessors never decrease along it: level k + 1 is the run of vertices whose
    # predecessors lie in level k (one searchsorted per level, no per-vertex Python).
    pos = np.empty(n, np.int64)
    pos[order] = np.arange(order.size)
    parent_pos = pos[pred[order[1:]]]
    lo, hi, best = 0, 1, 0
    while hi < order.size:
        lo, hi = hi, 1 + int(np.searchsorted(parent_pos, hi, side="left"))
        best += 1
    return best, int(order[lo])


def graph_shape(graph: CSRGraph, sweeps: int = 2) -> GraphShape:
    """Double-sweep BFS lower bound of the hop diameter, from a high-degree start vertex."""
    g = CSRGraph.from_any(graph)
    n, m = g.num_nodes, g.num_arcs
    if n == 0:
        return GraphShape(0, 0, 0.0, 0)
    s = int(np.argmax(np.diff(g.indptr)))
    best = 0
    for _ in range(max(1, sweeps)):
        ecc, far = _ecc(g, s)
        if ecc <= best:
            break
        best, s = ecc, far
    return GraphShape(n, m, m / n, best)
