"""Single-source shortest paths (seeds 001 and 004, and ours) on the CPU or the GPU.

``api`` holds the public function and result, ``options`` its knobs; ``registry`` declares every
strategy once; ``cpu/`` (numba) and ``cuda/`` (CuPy + .cu kernels) implement them.
"""

from .api import (
    CancelCheck,
    PhaseCallback,
    PreparedSearch,
    SSSPResult,
    prepare_graph,
    run_backend,
    sssp,
    warm_up,
)
from .options import AutoTuning, SSSPOptions
from .registry import COMPARE_STRATEGIES, REGISTRY, STRATEGIES, Strategy

__all__ = [
    "AutoTuning",
    "COMPARE_STRATEGIES",
    "CancelCheck",
    "PhaseCallback",
    "PreparedSearch",
    "REGISTRY",
    "SSSPOptions",
    "SSSPResult",
    "STRATEGIES",
    "Strategy",
    "prepare_graph",
    "run_backend",
    "sssp",
    "warm_up",
]
