"""The input weights of a kept metric brought to a new graph without finding every arc's
CCH edge again (issue 26): a partial re-customization after a few closures spent ~0.12 s
of its ~0.25 s on NE in ``chordal.arc_slots``, a binary search per arc.

The kept metric remembers the graph its input weights came from (``KeptInputs``: our own
copies of its CSR arrays, so a caller that later writes its arrays in place changes
nothing here). A new graph is compared with it row by row (one streaming pass, parallel
over vertices, no search); only the rows that differ are looked up in the topology. Every
(edge, direction) slot is fed by the arcs of ONE tail vertex (up: the lower end's arcs to
the upper, down: the upper end's arcs to the lower), so the new input weight of a slot a
changed row fed, before or after, is the minimum over that row's new arcs alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from .chordal import find_edge
from .contract import INF

# More changed rows than vertices / ROWS_MAX_SHARE: the caller finds every slot again
# (cheaper than looking up so many rows one by one) and customizes in full.
ROWS_MAX_SHARE = 64


@dataclass
class KeptInputs:
    """Copies of the CSR arrays a metric's input weights were made from."""

    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray

    @classmethod
    def of(cls, g, spares=None) -> KeptInputs:
        """Copies of ``g``'s arrays; with ``spares`` (``patch.Spares``) in its recycled,
        touched buffers (NE's 60 MB into fresh memory took 4-6 ms on the H100 host, most
        of it page faults), each handed out again only once nothing holds this copy."""
        if spares is None:
            return cls(np.array(g.indptr, copy=True), np.array(g.indices, copy=True),
                       np.array(g.weights, copy=True))
        return cls(*(spares.copy_of(np.ascontiguousarray(a))
                     for a in (g.indptr, g.indices, g.weights)))

    def stock(self, spares, count: int = 2) -> None:
        """Buffers for ``count`` more copies of a graph of this one's size in ``spares``."""
        for a in (self.indptr, self.indices, self.weights):
            spares.stock(a.dtype, spares.capacity(a.shape[0]), count)


@njit(cache=True, parallel=True, nogil=True)
def _diff_rows(n, optr, oidx, ow, nptr, nidx, nw, flag):
    """flag[u] = 1 where u's row (heads and weights, in order) differs; returns how many."""
    for u in prange(n):
        a0, b0 = optr[u], nptr[u]
        d = nptr[u + 1] - b0
        same = optr[u + 1] - a0 == d
        if same:
            for i in range(d):
                if oidx[a0 + i] != nidx[b0 + i] or ow[a0 + i] != nw[b0 + i]:
                    same = False
                    break
        flag[u] = 0 if same else 1
    return flag.sum()


@njit(cache=True, inline="always")
def _slot(u, v, rank, up_ptr, up_nb):
    """2*edge (upward) or 2*edge + 1 (downward) of the arc u->v; -1 self-loop, -2 none."""
    ru, rv = rank[u], rank[v]
    if ru == rv:
        return -1
    if ru < rv:
        e = find_edge(up_ptr, up_nb, ru, rv)
        return 2 * e if e >= 0 else -2
    e = find_edge(up_ptr, up_nb, rv, ru)
    return 2 * e + 1 if e >= 0 else -2


@njit(cache=True, nogil=True)
def _rebase(rows, rank, up_ptr, up_nb, optr, oidx, nptr, nidx, nw, base_up, base_down):
    """Recompute the input weight of every slot the ``rows`` fed before or feed now, in
    ``base_up``/``base_down`` in place. Returns (the edges whose input changed, ascending
    and unique; False when a new arc lies on no edge of the topology, nothing written)."""
    cnt = 0
    for u in rows:
        cnt += optr[u + 1] - optr[u] + nptr[u + 1] - nptr[u]
    slots = np.empty(cnt, np.int64)
    k = 0
    for u in rows:
        for a in range(nptr[u], nptr[u + 1]):
            s = _slot(u, nidx[a], rank, up_ptr, up_nb)
            if s == -2:
                return np.empty(0, np.int64), False
            slots[k] = s
            k += 1
        for a in range(optr[u], optr[u + 1]):
            slots[k] = _slot(u, oidx[a], rank, up_ptr, up_nb)  # the old graph fitted
            k += 1
    uniq = np.unique(slots[:k])
    uniq = uniq[uniq >= 0]
    val = np.full(uniq.shape[0], INF, np.int64)
    for u in rows:
        for a in range(nptr[u], nptr[u + 1]):
            s = _slot(u, nidx[a], rank, up_ptr, up_nb)
            if s >= 0:
                i = np.searchsorted(uniq, s)
                w = np.int64(nw[a])
                if w < val[i]:
                    val[i] = w
    seeds = np.empty(uniq.shape[0], np.int64)
    q = 0
    for i in range(uniq.shape[0]):
        s = uniq[i]
        e = s >> 1
        base = base_down if s & 1 else base_up
        if base[e] != val[i]:
            base[e] = val[i]
            if q == 0 or seeds[q - 1] != e:  # both slots of one edge are adjacent
                seeds[q] = e
                q += 1
    return seeds[:q], True


def _differing_rows(t, kept: KeptInputs, g) -> tuple[np.ndarray, int] | None:
    """(a flag per vertex whose row of arcs differs between the graph ``kept`` holds and
    ``g``, how many), or None when the rows cannot be compared (another vertex count or
    weight type) or too many differ (``ROWS_MAX_SHARE``)."""
    n = t.n
    if (g.num_nodes != n or kept.indptr.shape[0] != n + 1
            or kept.weights.dtype != g.weights.dtype):
        return None
    flag = np.empty(n, np.uint8)
    rows = int(_diff_rows(n, kept.indptr, kept.indices, kept.weights, g.indptr, g.indices,
                          g.weights, flag))
    if rows * ROWS_MAX_SHARE > max(n, 1):
        return None
    return flag, rows


def changed_inputs(t, kept: KeptInputs, g, base_up: np.ndarray,
                   base_down: np.ndarray) -> tuple[np.ndarray, int] | None:
    """(the edges whose input weight differs between the graph ``kept`` holds and ``g``,
    how many rows differ), with ``base_up``/``base_down`` (made from ``kept``'s graph)
    brought to ``g`` in place; None, nothing written, when the rows cannot be compared
    (another vertex count or weight type), too many differ (``ROWS_MAX_SHARE``), or an
    arc of ``g`` lies on no edge of ``t`` (the caller's full path says which)."""
    got = _differing_rows(t, kept, g)
    if got is None:
        return None
    flag, rows = got
    if rows == 0:
        return np.empty(0, np.int64), 0
    seeds, ok = _rebase(np.flatnonzero(flag).astype(np.int64), t.rank, t.up_ptr, t.up_nb,
                        kept.indptr, kept.indices, g.indptr, g.indices, g.weights, base_up,
                        base_down)
    return (seeds, rows) if ok else None


def rows_fit(t, kept: KeptInputs, g) -> bool | None:
    """Whether every arc of ``g`` lies on an edge of ``t``, known from the rows where it
    differs from the graph ``kept`` holds (whose arcs all did: a metric was made from
    it): True or False, or None when the rows cannot be compared or too many differ (the
    caller finds every arc's edge, ``cch.slots_for``: on NE 0.12 s, this 0.03 s). The
    few differing rows are looked up by numpy, no kernel."""
    got = _differing_rows(t, kept, g)
    if got is None:
        return None
    for u in np.flatnonzero(got[0]):
        ru = int(t.rank[u])
        for v in g.indices[int(g.indptr[u]):int(g.indptr[u + 1])]:
            rv = int(t.rank[v])
            if ru == rv:
                continue  # a self-loop feeds no edge
            lo, hi = min(ru, rv), max(ru, rv)
            row = t.up_nb[int(t.up_ptr[lo]):int(t.up_ptr[lo + 1])]  # ascending
            p = int(np.searchsorted(row, hi))
            if p == row.shape[0] or int(row[p]) != hi:
                return False
    return True
