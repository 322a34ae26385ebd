"""Group betweenness and greedy billboard placement (seed 002) on the CPU and the GPU.

Public API:

* :func:`billboards` -- generator yielding :class:`BillboardProgress` events and, last,
  the :class:`BillboardResult` (cancel with ``cancel=`` or by closing it);
* :func:`place_billboards` -- the same, blocking;
* :func:`group_betweenness` -- SB(R) and its pair count for a given group;
* :func:`graph_shape` / :func:`choose_kernel` -- the shape rule behind ``kernel="auto"``;
* :func:`sample_size` -- pairs sampled for a given epsilon, delta (sampled method);
* :func:`path_sampler` / :func:`draw_block` -- the sampled method's paths, one block of
  sample numbers at a time (how ``app.jobs.distributed`` spreads them over Dask workers).

Definitions (endpoints, directedness, ties, zero weights): see ``common``'s docstring.
"""

from .api import billboards, group_betweenness, path_sampler, place_billboards, sample_size
from .common import KERNELS, METHODS, MODES, BillboardProgress, BillboardResult
from .kernel_choice import GraphShape, choose_kernel, graph_shape
from .sampling import PathSampler, SamplePlan, draw_block

__all__ = [
    "BillboardProgress",
    "BillboardResult",
    "GraphShape",
    "KERNELS",
    "METHODS",
    "MODES",
    "PathSampler",
    "SamplePlan",
    "billboards",
    "choose_kernel",
    "draw_block",
    "graph_shape",
    "group_betweenness",
    "path_sampler",
    "place_billboards",
    "sample_size",
]
