"""A binary min-heap of (key, value) pairs for numba code: the sequential Dijkstra of the
CPU ``auto`` (an indexed heap: ``pos[v]`` tracks each value's slot) and the billboard
searches (a lazy heap: ``track=False``, stale entries skipped by the caller).

Keys live in ``heap_k`` beside the values in ``heap_v`` so a sift compares without an
indirection. Ties keep their order exactly as a textbook sift does (strict comparisons).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def sift_up(heap_k, heap_v, pos, track, i, k, v):
    """Place (k, v) at slot i or above (push: i = size; decrease-key: i = pos[v])."""
    while i > 0:
        p = (i - 1) >> 1
        if heap_k[p] <= k:
            break
        heap_k[i] = heap_k[p]
        heap_v[i] = heap_v[p]
        if track:
            pos[heap_v[i]] = i
        i = p
    heap_k[i] = k
    heap_v[i] = v
    if track:
        pos[v] = i


@njit(cache=True, inline="always")
def sift_down(heap_k, heap_v, pos, track, size, k, v):
    """Place (k, v) from the root down in a heap of ``size`` entries (pop: the last one)."""
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and heap_k[c + 1] < heap_k[c]:
            c += 1
        if heap_k[c] < k:
            heap_k[i] = heap_k[c]
            heap_v[i] = heap_v[c]
            if track:
                pos[heap_v[i]] = i
            i = c
        else:
            break
    heap_k[i] = k
    heap_v[i] = v
    if track:
        pos[v] = i


@njit(cache=True, inline="always")
def pop_min(heap_k, heap_v, pos, track, size):
    """Remove the root of a heap of ``size`` entries: (key, value, new size)."""
    k = heap_k[0]
    v = heap_v[0]
    size -= 1
    if size > 0:
        sift_down(heap_k, heap_v, pos, track, size, heap_k[size], heap_v[size])
    return k, v, size
