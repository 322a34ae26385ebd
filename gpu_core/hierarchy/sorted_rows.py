"""Searches in a sorted row of a CSR list (a CCH vertex's upward neighbours): a module of
its own so that the topology's passes (``chordal``, ``elimination``) and the
customization's (``metric``, ``perfect``, ``partial``) share them without importing each
other."""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def lower_bound(up_nb, lo, hi, y):
    """The first position in up_nb[lo:hi] (sorted) holding a value >= y (hi if none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if up_nb[mid] < y:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, inline="always")
def gallop(up_nb, lo, hi, y):
    """``lower_bound`` by exponential search from lo: O(log d) for a value d places on,
    so a walk through ascending values costs about the positions it passes, not a full
    binary search each (the customization's rows: mostly the next few places)."""
    if lo >= hi or up_nb[lo] >= y:
        return lo
    step = 1
    while lo + step < hi and up_nb[lo + step] < y:
        step <<= 1
    # up_nb[lo + step // 2] < y and (lo + step >= hi or up_nb[lo + step] >= y)
    return lower_bound(up_nb, lo + (step >> 1) + 1, min(lo + step, hi), y)
