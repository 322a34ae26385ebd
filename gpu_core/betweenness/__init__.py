"""Group betweenness and greedy billboard placement (seed 002) on the CPU and the GPU.

Public API:

* :func:`billboards` -- generator yielding :class:`BillboardProgress` events and, last,
  the :class:`BillboardResult` (cancel with ``cancel=`` or by closing it);
* :func:`place_billboards` -- the same, blocking;
* :func:`group_betweenness` -- SB(R) and its pair count for a given group;
* :func:`graph_shape` / :func:`choose_kernel` -- the shape rule behind ``kernel="auto"``;
* :func:`sample_size` -- pairs sampled for a given epsilon, delta (sampled method).

Definitions (endpoints, directedness, ties, zero weights): see ``common``'s docstring.
"""

from .api import billboards, group_betweenness, place_billboards, sample_size
from .common import KERNELS, METHODS, MODES, BillboardProgress, BillboardResult
from .shape import GraphShape, choose_kernel, graph_shape

__all__ = [
    "BillboardProgress",
    "BillboardResult",
    "GraphShape",
    "KERNELS",
    "METHODS",
    "MODES",
    "billboards",
    "choose_kernel",
    "graph_shape",
    "group_betweenness",
    "place_billboards",
    "sample_size",
]
