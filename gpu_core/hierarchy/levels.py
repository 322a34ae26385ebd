"""Sweep levels of a hierarchy: a vertex can be finished once every higher-ranked vertex
it pulls from is, so level(v) = 1 + max level of its downward in-arcs' tails (0 if none);
and how the GPU's sweep splits a level's arcs over its threads (:func:`splits`)."""

from __future__ import annotations

import os

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


SPLIT_ARCS = 32  # a level's vertices of more in-arcs than this split them over threads
FILL = 1 << 21  # threads that fill an H100 (132 SMs x 2,048) twice: a wider level is not split
SPLIT = os.environ.get("SIGNPOST_SWEEP_SPLIT", "1") != "0"


def splits(ptr: np.ndarray, lp: list[int], K: int) -> list[tuple[int, int]]:
    """Per level: (chunks, arcs per chunk) of its vertices' in-arcs, one thread a chunk
    (``phast.cu`` level_split); (1, 0) where one thread a vertex does (few arcs, or a level
    wide enough to fill the device)."""
    ptr = np.asarray(ptr, dtype=np.int64)
    lpa = np.asarray(lp, dtype=np.int64)
    deg = np.diff(ptr)
    out = [(1, 0)] * (len(lp) - 1)
    if not SPLIT or deg.size == 0:
        return out
    nonempty = np.flatnonzero(lpa[1:] > lpa[:-1])
    most = np.maximum.reduceat(deg, lpa[nonempty]) if nonempty.size else np.zeros(0, np.int64)
    for lv, m in zip(nonempty.tolist(), most.tolist(), strict=True):
        width = int(lpa[lv + 1] - lpa[lv])
        chunks = min(-(-int(m) // SPLIT_ARCS), max(1, FILL // (width * K)))
        if chunks > 1:
            out[lv] = (chunks, -(-int(m) // chunks))
    return out
