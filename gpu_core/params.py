"""Strategy parameters shared by the CPU and CUDA backends.

Both backends must pick the same near-far ``delta`` for the same graph, otherwise the
per-phase telemetry of the ``delta`` strategy would differ between them; so the choice
lives here, computed from the host arrays only (no device, no numba).

Why a multiple of the mean arc weight: a near-far phase relaxes the vertices whose key is
below the threshold T; the bucket width delta sets how many arcs' worth of cost a phase
may advance. With delta ~ mean weight a phase covers about one arc layer of the search
front (close to Dijkstra's order: little re-relaxation, but many phases); with a much
larger delta fewer, wider phases do more redundant relaxations (Bellman-Ford-like).
``DELTA_MEAN_FACTOR`` was tuned with the CPU near-far on road-like graphs (see
docs/perf/sssp_cpu.md); on a GPU wider phases are cheaper, and the CUDA backend may pass
its own ``SSSPOptions.delta``, but the default is this one.
"""

from __future__ import annotations

import numpy as np

# delta = DELTA_MEAN_FACTOR x mean arc weight (see module doc and docs/perf/sssp_cpu.md)
DELTA_MEAN_FACTOR = 1.0

# Settle-round size of the CPU "auto" Dijkstra: one telemetry phase per this many pops.
CPU_ROUND_POPS = 1024

# CPU backend: hand phases to on_phase / poll cancel about this often (microseconds).
CPU_BATCH_US = 20_000.0


def default_delta(g) -> int:
    """The near-far bucket width (in cost units, >= 1) for graph ``g``.

    ``g`` is anything with a ``weights`` array (CSRGraph, RoadNetwork). Zero-weight arcs
    count in the mean; a graph without arcs (or only zero weights) gets 1.
    """
    w = np.asarray(g.weights)
    if w.size == 0:
        return 1
    mean = float(w.mean(dtype=np.float64))
    return max(1, int(round(DELTA_MEAN_FACTOR * mean)))
