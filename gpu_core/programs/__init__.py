"""Vertex programs (seed 003): a Pregel-style engine with per-vertex message lists and
topology edits, and the paper's three programs on it.

Public API (``api``):

* :func:`bellman_ford` -- SSSP distances (equal to ``gpu_core.sssp.sssp(...).dist``);
* :func:`pagerank` -- networkx's PageRank definition, ``converged=False`` past max_iter;
* :func:`minimum_spanning_forest` -- parallel Borůvka with pointer jumping (the
  topology-changing program), or ``method="direct"`` (direct Borůvka kernels on the GPU,
  Kruskal on the CPU); Kruskal's tie order, so the edge set is unique.

Every result carries per-superstep telemetry (``SUPERSTEP_DTYPE``: superstep, active,
messages, arcs, time_us), streamed to ``on_superstep``; ``cancel`` is polled between
supersteps. Backends: the CPU engine (``cpu``, numba) and the CUDA engine (``cuda`` +
``programs.cu``, lists with Figure 4's randomised insertion); ``"auto"`` takes the GPU
when one is usable. Integer results are bit-identical across backends, PageRank agrees
to 1e-12.

Layout: ``cpu`` (engine: supersteps, double-buffered bump-allocated message pools, arc
edits), ``cpu_programs`` (the three programs), ``direct`` (Kruskal, CSR PageRank, the
undirected edge order), ``common`` (telemetry row, PoolExhaustedError); ``cuda`` +
``programs.cu``: the GPU engine (also ``mode="collision"``, the paper's ablation);
``medusa`` + ``medusa.cu``: the paper's Medusa-style baseline (static per-arc buffers). Semantics and how
to write a program: ``docs/architecture.md``, "Vertex programs (seed 003)".
"""

from .api import (
    BellmanFordResult,
    MSTResult,
    PageRankResult,
    bellman_ford,
    check_pagerank_args,
    choose_backend,
    minimum_spanning_forest,
    pagerank,
    telemetry_csv,
)
from .common import SUPERSTEP_DTYPE, PoolExhaustedError

__all__ = [
    "BellmanFordResult",
    "MSTResult",
    "PageRankResult",
    "PoolExhaustedError",
    "SUPERSTEP_DTYPE",
    "bellman_ford",
    "check_pagerank_args",
    "choose_backend",
    "minimum_spanning_forest",
    "pagerank",
    "telemetry_csv",
]
