"""Keys to distances on the host, in one parallel pass: this runs after every search and
its three numpy passes (compare, shift, putmask) cost ~3 ms on a 1.5M-node map, a third
of a GPU search."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

_KEY_INF = np.iinfo(np.int64).max


@njit(cache=True, parallel=True)
def _dist(key, hop_bits, unreachable, out):
    for i in prange(key.shape[0]):
        k = key[i]
        out[i] = unreachable if k == _KEY_INF else k >> hop_bits


def _ready() -> bool:
    from osutil.numba_cache import ready

    return ready(_dist)


def compile_kernel() -> None:
    """Compile (or load) the parallel pass and wake its threads (a warm-up's)."""
    n = 1 << 15
    _dist(np.zeros(n, np.int64), np.int64(0), np.int64(-1), np.empty(n, np.int64))


def dist_from_keys(key: np.ndarray, hop_bits: int, unreachable: int,
                   out: np.ndarray | None = None) -> np.ndarray:
    """int64 distances: ``key >> hop_bits``, ``unreachable`` where the key is KEY_INF
    (into ``out`` when given)."""
    if out is None:
        out = np.empty(key.shape[0], np.int64)
    # small maps: numpy is quicker than waking the threads; and numpy while the kernel is
    # not compiled (a fresh install: its compilation, 2-5 s holding the GIL, would stall
    # the window that searches, issue 41; a warm-up compiles it elsewhere)
    if key.shape[0] < 1 << 15 or not _ready():
        np.right_shift(key, hop_bits, out=out)
        np.putmask(out, key == _KEY_INF, unreachable)
        return out
    _dist(key, np.int64(hop_bits), np.int64(unreachable), out)
    return out
