"""Signpost's compute core: shortest paths, betweenness and telemetry on GPU or CPU.

Takes plain CSR arrays (see ``gpu_core.graph``), returns numpy arrays plus telemetry.
One package per capability, each the same shape (``api.py``; ``cpu``; ``cuda`` beside its
.cu files): ``sssp``, ``multi_source``, ``betweenness``; ``device`` holds what every
kernel shares, ``host`` the shared numba helpers. Imports numpy (and CuPy when present),
never Qt or shapely.
"""

# before numba loads: compiled functions kept in a user cache folder (issue 41)
from osutil.numba_cache import USER_CACHE as _NUMBA_CACHE  # noqa: F401  (sets it on import)

from .backend import BACKENDS, cupy_status, describe_backend, resolve_backend
from .errors import (
    BackendUnavailableError,
    CancelledError,
    GpuCoreError,
    GpuOutOfMemoryError,
    InvalidArgumentError,
)
from .graph import CSRGraph
from .keys import NO_PRED, UNREACHABLE
from .sssp import STRATEGIES, SSSPOptions, SSSPResult, sssp
from .telemetry import MODE_NAMES, PhaseLog

__all__ = [
    "BACKENDS",
    "BackendUnavailableError",
    "CSRGraph",
    "CancelledError",
    "GpuCoreError",
    "GpuOutOfMemoryError",
    "InvalidArgumentError",
    "MODE_NAMES",
    "NO_PRED",
    "PhaseLog",
    "SSSPOptions",
    "SSSPResult",
    "STRATEGIES",
    "UNREACHABLE",
    "cupy_status",
    "describe_backend",
    "resolve_backend",
    "sssp",
]
