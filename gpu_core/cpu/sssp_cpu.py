"""CPU backend of ``gpu_core.sssp`` (interim: every strategy answered by the scipy reference).

Being replaced by the numba strategies; until then each strategy returns the reference
result with one pseudo-phase, so the CLI and app work end to end.
"""

from __future__ import annotations

import time

import numpy as np

from ..keys import KEY_INF, KeySpace
from ..reference import keys_from_distances, predecessors_from_keys, scipy_distances
from ..telemetry import MODE_CODE, PhaseLog


def run(g, sources, strategy, opts, ks: KeySpace, *, on_phase=None, cancel=None):
    t0 = time.perf_counter()
    dist = scipy_distances(g, sources)
    key = keys_from_distances(g, sources, dist, ks)
    pred = predecessors_from_keys(g, key, ks)
    reached = int((key != KEY_INF).sum())
    phases = PhaseLog.from_columns(
        [reached], [g.num_arcs], [(time.perf_counter() - t0) * 1e6], [MODE_CODE["cpu"]]
    )
    if on_phase:
        on_phase(phases)
    return key, pred.astype(np.int32), phases
