"""The graph's shape (hop diameter estimate, mean degree) and the kernel it calls for.

Seed 002, Figure 4: on a planar road network (large diameter, degree ~3) one block per
source with explicit frontier queues ("work-efficient") was 7.8x faster than one launch
per BFS level over all arcs ("edge-based"); on Twitter (diameter small, degree ~26) the
edge-based kernel stayed 1.7x faster, its few levels each filling the GPU.
"""

from __future__ import annotations

from ..shape import GraphShape, graph_shape

__all__ = ["EDGE_MAX_DIAMETER", "EDGE_MIN_DEGREE", "GraphShape", "choose_kernel", "graph_shape"]

# The seed's rule: edge-based for small-diameter, high-degree graphs (Twitter), else
# work-efficient. Measured (docs/perf/billboards.md), our work-efficient kernel was never
# slower, on road grids, a real road map, a Twitter-sized R-MAT (it keeps per-source rows
# across rounds) and a complete graph. So the edge branch is switched off
# (EDGE_MAX_DIAMETER = -1); set the two thresholds to re-enable it on a device/graph where
# edge-based wins (e.g. 3 and 64.0).
EDGE_MAX_DIAMETER = -1
EDGE_MIN_DEGREE = 64.0


def choose_kernel(shape: GraphShape) -> str:
    """'edge' when the diameter is at most EDGE_MAX_DIAMETER and the mean degree at least
    EDGE_MIN_DEGREE, else 'work_efficient' (the measured winner everywhere: see above)."""
    if shape.diameter_estimate <= EDGE_MAX_DIAMETER and shape.mean_degree >= EDGE_MIN_DEGREE:
        return "edge"
    return "work_efficient"
