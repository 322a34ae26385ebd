"""Host result arrays recycled between searches and repairs (the indexed one-to-all search
and the repair both fill them), and the device copies kept per result.

A repaired result needs new full-size ``key``/``pred``/``dist`` arrays (the previous result
stays valid). Fresh ``np.empty`` memory of a 1.5M-node map is ~30 MB of pages the kernel
zeroes on first touch: most of a small repair's host time. So the arrays of results
nobody holds any more are reused: an entry of the pool is free when no object but the
pool references its arrays (``sys.getrefcount`` equal to that of a probe entry held the
same way; a result, a view or a buffer export of an array each add a reference).
"""

from __future__ import annotations

import sys
import threading
import weakref

import numpy as np

POOL = 4  # entries kept (each three arrays of one size)
MIN_N = 1 << 15  # smaller arrays are cheap to allocate
_lock = threading.Lock()
_pool: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
# id(host key array) -> (weakref to it, device key, device pred) or (ref, None, None) once
# the host array was recycled for another result (cuda.remember / _device_previous)
device_results: dict[int, tuple] = {}


def _counts(trip) -> tuple[int, int, int]:
    return sys.getrefcount(trip[0]), sys.getrefcount(trip[1]), sys.getrefcount(trip[2])


_probe = [(np.empty(1, np.int64), np.empty(1, np.int32), np.empty(1, np.int64))]
_FREE = _counts(_probe[0])


def take(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key int64, pred int32, dist int64) arrays of length n, contents undefined."""
    if n < MIN_N:
        return np.empty(n, np.int64), np.empty(n, np.int32), np.empty(n, np.int64)
    with _lock:
        spare = -1
        for i, trip in enumerate(_pool):
            if _counts(trip) == _FREE:
                if trip[0].shape[0] == n:
                    k = id(trip[0])
                    if k in device_results:  # its device copies belong to a dead result
                        device_results[k] = (device_results[k][0], None, None)
                    return trip
                spare = i
        trip = (np.empty(n, np.int64), np.empty(n, np.int32), np.empty(n, np.int64))
        if len(_pool) < POOL:
            _pool.append(trip)
        elif spare >= 0:  # a free entry of another size makes room
            device_results.pop(id(_pool[spare][0]), None)
            _pool[spare] = trip
        return trip


def remember(key_host: np.ndarray, dkey, dpred) -> None:
    """Keep the device copies of a result (by its host key array) for the next repair."""
    k = id(key_host)
    with _lock:
        old = device_results.get(k)
        device_results[k] = (weakref.ref(key_host), dkey, dpred)
        if old is not None and old[0]() is key_host:
            return  # a recycled array: its finaliser is registered already
    weakref.finalize(key_host, device_results.pop, k, None)


def device_copies(key_host: np.ndarray):
    """(device key, device pred) kept for this host key array, or None."""
    with _lock:
        hit = device_results.get(id(key_host))
    if hit is None or hit[1] is None or hit[0]() is not key_host:
        return None
    return hit[1], hit[2]
