"""CUDA backend of ``gpu_core.sssp``: the driver every CUDA strategy runs under.

``run(g, sources, strategy, opts, ks, *, on_phase, cancel) -> (key, pred, PhaseLog)``
(numpy int64 / int32 on the host), the same contract and phase semantics as the CPU
driver. It trusts its inputs (``api.sssp`` / ``api.run_backend`` validated them), checks
the workspace fits, and calls the strategy's registry entry
(``registry.Strategy.cuda``): ``search(g, sources, ks, opts, rec) -> (key, pred)`` on the
current device, with ``rec`` (``context.Recorder``) collecting the phases. The strategies
live one family per module here (``bf``, ``adaptive``, ``delta``, ``eval``, ``auto``),
each beside its .cu file; what they share is in ``context``. Predecessors come from one
pass over all arcs with atomicMin (the rule in ``keys.py``).
"""

from __future__ import annotations

import numpy as np

from ...device.memory import ensure_free, oom_as_typed
from ...graph import CSRGraph
from ...keys import KeySpace
from ..registry import get
from .context import Recorder, cupy_module


def run(g: CSRGraph, sources: np.ndarray, strategy: str, opts, ks: KeySpace, *,
        on_phase=None, cancel=None):
    """(key int64[n], pred int32[n], PhaseLog) of one search on the current CUDA device;
    ``sources`` distinct int32 ids in range, ``opts.target`` in range or None."""
    entry = get(strategy)
    n = g.num_nodes
    src = np.asarray(sources, dtype=np.int32)
    cupy_module()  # BackendUnavailableError when CuPy cannot be imported
    search = entry.entry("cupy")
    # workspace estimate: keys, tentative keys, lists, stamps, flags, pred (+ graph if new)
    ensure_free(n * (8 + 8 + 4 + 4 + 4 + 4 + 4 + 1 + 1), f"the {strategy} search workspace")
    rec = Recorder(strategy, on_phase, cancel)
    with oom_as_typed(f"the {strategy} search", n * 40):
        key, pred = search(g, src, ks, opts, rec)
    return key, pred, rec.log()
