"""The graph's shape: hop diameter estimate and mean degree. Road maps have hop depths in
the thousands, random and social graphs a few dozen; kernels and indexes are chosen by it
(``betweenness.kernel_choice.choose_kernel``, ``hierarchy.api.road_shaped``), not by size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order

from .graph import CSRGraph


@dataclass(frozen=True)
class GraphShape:
    nodes: int
    arcs: int
    mean_degree: float
    diameter_estimate: int  # hop eccentricity found by double sweeps (a lower bound)


def _ecc(mat: csr_matrix, s: int) -> tuple[int, int]:
    order, pred = breadth_first_order(mat, s, directed=True, return_predecessors=True)
    # depth of each reached vertex from its predecessor chain, in BFS order
    depth = np.zeros(mat.shape[0], dtype=np.int64)
    for v in order[1:]:
        depth[v] = depth[pred[v]] + 1
    far = int(order[np.argmax(depth[order])])
    return int(depth[order].max()), far


def graph_shape(graph: CSRGraph, sweeps: int = 2) -> GraphShape:
    """Double-sweep BFS lower bound of the hop diameter, from a high-degree start vertex."""
    g = CSRGraph.from_any(graph)
    n, m = g.num_nodes, g.num_arcs
    if n == 0:
        return GraphShape(0, 0, 0.0, 0)
    mat = csr_matrix((np.ones(m, np.int8), g.indices, g.indptr), shape=(n, n))
    s = int(np.argmax(np.diff(g.indptr)))
    best = 0
    for _ in range(max(1, sweeps)):
        ecc, far = _ecc(mat, s)
        if ecc <= best:
            break
        best, s = ecc, far
    return GraphShape(n, m, m / n, best)
