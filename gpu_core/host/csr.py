"""numba helpers over CSR arrays shared by the CPU kernels: exact key weights, row order."""

from __future__ import annotations

import numpy as np
from numba import njit

INF = np.iinfo(np.int64).max  # KEY_INF, and "unreached" of the int64 distance arrays


@njit(cache=True, inline="always")
def key_weight(weights, a, hb):
    """Arc a's weight in key space (``gpu_core.keys``): (w << hb) | 1, or w when hb == 0;
    branch-free, the "| 1" term is loop-invariant."""
    return (np.int64(weights[a]) << hb) | min(hb, 1)


@njit(cache=True, nogil=True)
def rows_weight_sorted(indptr, weights) -> bool:
    """True when every CSR row lists its arcs by non-decreasing weight."""
    n = indptr.shape[0] - 1
    for u in range(n):
        for a in range(indptr[u] + 1, indptr[u + 1]):
            if weights[a] < weights[a - 1]:
                return False
    return True
