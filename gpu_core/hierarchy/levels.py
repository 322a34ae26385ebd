"""Sweep levels of a hierarchy: a vertex can be finished once every higher-ranked vertex
it pulls from is, so level(v) = 1 + max level of its downward in-arcs' tails (0 if none)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def levels(n, rank, dn_ptr, dn_src):
    order = np.empty(n, np.int64)
    for v in range(n):
        order[n - 1 - rank[v]] = v  # highest rank first
    level = np.zeros(n, np.int64)
    for i in range(n):
        v = order[i]
        lv = 0
        for e in range(dn_ptr[v], dn_ptr[v + 1]):
            lu = level[dn_src[e]] + 1
            if lu > lv:
                lv = lu
        level[v] = lv
    return level
