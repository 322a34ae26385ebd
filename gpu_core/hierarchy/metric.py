"""Customization of a CCH topology with a metric (numba; the GPU twin is ``metric.cu``).

Every CCH edge {x, y}, x < y by rank, carries two weights: ``up[e]`` for the arc x->y
and ``down[e]`` for y->x. They start as the least input arc on that edge and direction
(INF where none), then the lower triangles are applied bottom-up: for each triangle
v < u < w (edges {v,u} = a, {v,w} = b, {u,w} = f)

    up[f]   = min(up[f],   down[a] + up[b])     # u -> v -> w
    down[f] = min(down[f], down[b] + up[a])     # w -> v -> u

Edge f belongs to its lower end u and is written only while u is processed, after all its
lower neighbours v (all of an earlier elimination-tree height), so the vertices of one
height run in parallel without races. Afterwards every pair has a shortest up-down path
(Dibbelt, Strasser, Wagner 2016, basic customization): PHAST over it is exact.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .chordal import find_edge, lower_bound
from .contract import INF


@njit(cache=True)
def initial(m_edges, slots, weights):
    """up, down int64 [edges]: the least arc weight per edge and direction."""
    up = np.full(m_edges, INF, np.int64)
    down = np.full(m_edges, INF, np.int64)
    for a in range(slots.shape[0]):
        s = slots[a]
        if s < 0:
            continue
        e = s >> 1
        w = np.int64(weights[a])
        if s & 1:
            if w < down[e]:
                down[e] = w
        else:
            if w < up[e]:
                up[e] = w
    return up, down


@njit(cache=True, nogil=True)
def _vertex(u, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down):
    """Every lower triangle of u's upward edges."""
    for k in range(dn_ptr[u], dn_ptr[u + 1]):
        v = dn_src[k]
        a = dn_edge[k]
        da = down[a]
        ua = up[a]
        if da >= INF and ua >= INF:
            continue
        lo = up_ptr[u]
        for b in range(a + 1, up_ptr[v + 1]):  # v's neighbours above u (its list is sorted)
            w = up_nb[b]
            # f = {u, w}: binary search in u's list from where the last one was found
            lo = lower_bound(up_nb, lo, up_ptr[u + 1], w)
            f = lo
            if da < INF and up[b] < INF:
                c = da + up[b]
                if c < up[f]:
                    up[f] = c
            if ua < INF and down[b] < INF:
                c = down[b] + ua
                if c < down[f]:
                    down[f] = c


@njit(cache=True, parallel=True, nogil=True)
def _height(lvl_vert, s, t, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down):
    for i in prange(s, t):
        _vertex(lvl_vert[i], up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down)


@njit(cache=True, nogil=True)
def _serial(n, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down):
    for u in range(n):
        _vertex(u, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down)


# Heights with fewer vertices than this run in the caller's thread (a parallel launch
# costs more than a handful of vertices).
PARALLEL_MIN = 2048


def triangles(t, up: np.ndarray, down: np.ndarray, *, parallel: bool = True) -> None:
    """Apply every lower triangle of topology ``t`` to ``up``/``down`` in place."""
    if not parallel:
        _serial(t.n, t.up_ptr, t.up_nb, t.dn_ptr, t.dn_src, t.dn_edge, up, down)
        return
    lp = t.lvl_ptr
    for h in range(lp.shape[0] - 1):
        s, e = int(lp[h]), int(lp[h + 1])
        if e - s >= PARALLEL_MIN:
            _height(t.lvl_vert, s, e, t.up_ptr, t.up_nb, t.dn_ptr, t.dn_src, t.dn_edge, up, down)
        else:
            _height_serial(t.lvl_vert, s, e, t.up_ptr, t.up_nb, t.dn_ptr, t.dn_src, t.dn_edge,
                           up, down)


@njit(cache=True, nogil=True)
def _height_serial(lvl_vert, s, t, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down):
    for i in range(s, t):
        _vertex(lvl_vert[i], up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down)


@njit(cache=True, nogil=True, inline="always")
def _upper(x, up_ptr, up_nb, up, down):
    """Intermediate and upper triangles of x's edges: x->y via z (y, z above x) with the
    weights as they are; each value written is still the length of a real path."""
    p0 = up_ptr[x]
    p1 = up_ptr[x + 1]
    for i in range(p0, p1):
        y = up_nb[i]
        lo = up_ptr[y]
        for j in range(i + 1, p1):
            z = up_nb[j]
            # f = {y, z}, y < z: in y's list (the graph is chordal)
            lo = lower_bound(up_nb, lo, up_ptr[y + 1], z)
            f = lo
            if up[j] < INF and down[f] < INF and up[j] + down[f] < up[i]:
                up[i] = up[j] + down[f]  # x -> z -> y
            if up[f] < INF and down[j] < INF and up[f] + down[j] < down[i]:
                down[i] = up[f] + down[j]  # y -> z -> x
            if up[i] < INF and up[f] < INF and up[i] + up[f] < up[j]:
                up[j] = up[i] + up[f]  # x -> y -> z
            if down[f] < INF and down[i] < INF and down[f] + down[i] < down[j]:
                down[j] = down[f] + down[i]  # z -> y -> x


@njit(cache=True, parallel=True, nogil=True)
def _upper_level(order, s, t, up_ptr, up_nb, up, down):
    for k in prange(s, t):
        _upper(order[k], up_ptr, up_nb, up, down)


def prune(t, up: np.ndarray, down: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(keep_up, keep_down): the arcs that may lie on a shortest path. Top-down over the
    sweep levels (every edge among x's upper neighbours belongs to an earlier level), each
    arc is lowered through its intermediate and upper triangles; an arc that some other
    path beats (strictly) lies on no shortest path and goes. Every shortest path has an
    up-down twin in the basically customized CCH whose arcs each weigh their endpoints'
    distance, so none of its arcs goes: the sweep stays exact."""
    lay = getattr(t, "_sweep", None)
    if lay is None:
        lay = t._sweep = sweep_layout(t.n, t.up_ptr, t.up_nb)
    sweep, level_ptr = lay
    by_sweep = np.empty(t.n, np.int64)
    by_sweep[sweep] = np.arange(t.n)
    u2, d2 = up.copy(), down.copy()
    for lv in range(level_ptr.shape[0] - 1):
        _upper_level(by_sweep, int(level_ptr[lv]), int(level_ptr[lv + 1]), t.up_ptr, t.up_nb,
                     u2, d2)
    return (up < INF) & (u2 >= up), (down < INF) & (d2 >= down)


# (rank_of, up_ptr, up_dst, up_w, down_ptr, down_src, down_w, level_ptr): a Hierarchy's arrays
HierarchyArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                        np.ndarray, np.ndarray]


@njit(cache=True)
def sweep_layout(n, up_ptr, up_nb):
    """(sweep id of each rank, level_ptr): level(x) = 1 + the largest level of x's higher
    neighbours (0 without one), over every topology edge, so it holds for any metric;
    sweep ids sorted by level, then by falling rank (as ``api._layout`` orders them)."""
    level = np.zeros(n, np.int64)
    top = 0
    for x in range(n - 1, -1, -1):
        lv = 0
        for e in range(up_ptr[x], up_ptr[x + 1]):
            c = level[up_nb[e]] + 1
            if c > lv:
                lv = c
        level[x] = lv
        if lv + 1 > top:
            top = lv + 1
    if n == 0:
        top = 0
    ptr = np.zeros(top + 1, np.int64)
    for x in range(n):
        ptr[level[x] + 1] += 1
    for i in range(top):
        ptr[i + 1] += ptr[i]
    fill = ptr[:-1].copy()
    sweep = np.empty(n, np.int32)
    for x in range(n - 1, -1, -1):
        sweep[x] = fill[level[x]]
        fill[level[x]] += 1
    return sweep, ptr


@njit(cache=True, parallel=True)
def _count(n, up_ptr, ku, kd, sweep, ucnt, dcnt):
    for x in prange(n):
        cu = 0
        cd = 0
        for e in range(up_ptr[x], up_ptr[x + 1]):
            if ku[e]:
                cu += 1
            if kd[e]:
                cd += 1
        ucnt[sweep[x] + 1] = cu
        dcnt[sweep[x] + 1] = cd


@njit(cache=True, parallel=True)
def _fill(n, up_ptr, up_nb, up, down, ku, kd, sweep, uptr, dptr, udst, uw, dsrc, dw):
    for x in prange(n):
        i = uptr[sweep[x]]
        j = dptr[sweep[x]]
        for e in range(up_ptr[x], up_ptr[x + 1]):
            y = sweep[up_nb[e]]
            if ku[e]:
                udst[i] = y
                uw[i] = up[e]
                i += 1
            if kd[e]:
                dsrc[j] = y
                dw[j] = down[e]
                j += 1


def hierarchy_arrays(t, up: np.ndarray, down: np.ndarray, keep=None) -> HierarchyArrays:
    """(rank_of, up_ptr, up_dst, up_w, down_ptr, down_src, down_w, level_ptr) of the
    Hierarchy: the finite arcs (those ``keep`` = (keep_up, keep_down) marks, when given)
    in sweep ids (the sweep layout is the topology's, cached on it)."""
    lay = getattr(t, "_sweep", None)
    if lay is None:
        lay = t._sweep = sweep_layout(t.n, t.up_ptr, t.up_nb)
    ku, kd = keep if keep is not None else (up < INF, down < INF)
    return laid_out(t, up, down, ku, kd, *lay)


def laid_out(t, up: np.ndarray, down: np.ndarray, ku: np.ndarray, kd: np.ndarray,
             sweep: np.ndarray, level_ptr: np.ndarray) -> HierarchyArrays:
    """The Hierarchy arrays of the arcs ``ku``/``kd`` keep (per edge, up and down), in the
    sweep ids ``sweep`` (per rank) of the levels ``level_ptr``."""
    n = t.n
    ucnt = np.zeros(n + 1, np.int64)
    dcnt = np.zeros(n + 1, np.int64)
    _count(n, t.up_ptr, ku, kd, sweep, ucnt, dcnt)
    uptr, dptr = np.cumsum(ucnt), np.cumsum(dcnt)
    udst = np.empty(int(uptr[-1]), np.int32)
    uw = np.empty(int(uptr[-1]), np.int64)
    dsrc = np.empty(int(dptr[-1]), np.int32)
    dw = np.empty(int(dptr[-1]), np.int64)
    _fill(n, t.up_ptr, t.up_nb, up, down, ku, kd, sweep, uptr, dptr, udst, uw, dsrc, dw)
    rank_of = sweep[t.rank].astype(np.int32)
    return rank_of, uptr, udst, uw, dptr, dsrc, dw, level_ptr


__all__ = ["INF", "find_edge", "hierarchy_arrays", "initial", "laid_out", "prune", "sweep_layout",
           "triangles"]
