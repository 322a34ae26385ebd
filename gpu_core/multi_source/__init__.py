"""Many-source shortest paths and distance matrices (seed 000) on the CPU or the GPU.

``api`` holds the public functions and the result; ``cpu`` (scipy's Dijkstra in chunks)
and ``cuda`` (CuPy + ``multi_source.cu``) implement them.
"""

from .api import (
    VARIANTS,
    CancelCheck,
    MatrixTooLargeError,
    MultiSourceResult,
    ProgressCallback,
    all_pairs,
    available_memory,
    default_max_bytes,
    distance_matrix,
    iter_distance_rows,
    multi_source_sssp,
    open_npy_memmap,
)

__all__ = [
    "VARIANTS",
    "CancelCheck",
    "MatrixTooLargeError",
    "MultiSourceResult",
    "ProgressCallback",
    "all_pairs",
    "available_memory",
    "default_max_bytes",
    "distance_matrix",
    "iter_distance_rows",
    "multi_source_sssp",
    "open_npy_memmap",
]
