"""What every numba strategy of the CPU backend is handed (``CpuSearch``) and shares
(``MODES``, ``zeros``), apart from the driver that runs them (``driver.py``), so that a
strategy module never imports the driver."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...telemetry import MODE_CODE

if TYPE_CHECKING:  # annotations only, both below the strategies
    from ...graph import CSRGraph
    from ..options import SSSPOptions

# phases.M_* index -> MODE_CODE (order of phases.M_CONV..M_CPU)
MODES = np.array(
    [MODE_CODE[m] for m in ("conventional", "selection", "switch", "eval_dijkstra",
                            "bellman_ford_queue", "delta", "cpu")],
    dtype=np.uint8,
)


def zeros(n: int, dtype) -> np.ndarray:
    """np.zeros with its pages written now. np.zeros maps fresh memory to the shared zero
    page; kernels that scan such an array phase after phase while writing scattered
    entries ran ~6x slower on a first search (NE conventional: 19 s, then 3 s)."""
    a = np.empty(n, dtype)
    a.fill(0)
    return a


@dataclass
class CpuSearch:
    """What a strategy's ``setup`` gets: the graph, the keys, the options, the buffers."""

    g: CSRGraph  # params.default_delta reads it
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    hb: int  # hop bits of the key space
    key: np.ndarray  # int64 keys: KEY_INF, 0 at the sources
    src: np.ndarray  # int32 distinct sources
    opts: SSSPOptions
    target: int  # -1: none
    cpu: float  # cycle-counter ticks per microsecond (0.0: no counter)
    budget: int  # ticks per batch
    st: np.ndarray  # int64[8] scalar state; st[3] = done
    out: tuple  # (frontier, edges, ticks, mode) buffers of one batch

    @property
    def n(self) -> int:
        return int(self.key.shape[0])
