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

import numba
import numpy as np
from numba import njit, prange

from ..host.serial import SMALL_NODES, pick_build, serial_build, serial_twin
from .chordal import find_edge
from .contract import INF
from .plan import (
    SERIAL,
    SERIAL_WORK,
    SPLIT_WORK,
    TRIANGLES,
    UPPER,
    VERTICES,
    Plan,
    build_plan,
    reduce_slot,
    serial_plan,
)
from .sorted_rows import gallop


def initial(m_edges: int, slots: np.ndarray, weights: np.ndarray,
            indptr: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """up, down int64 [edges]: the least arc weight per edge and direction (``slots``:
    ``chordal.arc_slots``). With the graph's ``indptr`` the arcs are spread over the
    threads row by row: the arcs of one edge and direction share their tail, so no two
    threads write one slot (a 24M-node map: 8 s on one thread)."""
    up = np.empty(m_edges, np.int64)
    down = np.empty(m_edges, np.int64)
    n = SMALL_NODES + 1 if indptr is None else len(indptr) - 1
    pick_build(_fill_inf, _fill_inf_serial, n)(up, down)
    if indptr is None:
        _scatter(slots, weights, up, down, 0, slots.shape[0])
    else:
        pick_build(_scatter_rows, _scatter_rows_serial, n)(np.asarray(indptr, np.int64),
                                                           slots, weights, up, down)
    return up, down


@njit(cache=True, parallel=True, nogil=True)
def _fill_inf(up, down):
    """INF everywhere, in pieces side by side (first touch of the pages on every core)."""
    m = up.shape[0]
    pieces = 64
    for k in prange(pieces):
        for e in range(k * m // pieces, (k + 1) * m // pieces):
            up[e] = INF
            down[e] = INF


@njit(cache=True, nogil=True, inline="always")
def _scatter(slots, weights, up, down, a0, a1):
    for a in range(a0, a1):
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


@njit(cache=True, parallel=True, nogil=True)
def _scatter_rows(indptr, slots, weights, up, down):
    n = indptr.shape[0] - 1
    pieces = min(n, 256)
    for k in prange(pieces):
        _scatter(slots, weights, up, down, indptr[k * n // pieces],
                 indptr[(k + 1) * n // pieces])


@njit(cache=True, nogil=True, inline="always")
def _tri_range(u, k0, k1, shift, up_ptr, up_nb, dn_src, dn_edge, up, down, tu, td):
    """The lower triangles of u through its lower neighbours k0..k1 (of ``dn_src``),
    written into tu/td at edge id + ``shift`` (u's row itself, or a copy of it)."""
    for k in range(k0, k1):
        v = dn_src[k]
        a = dn_edge[k]
        da = down[a]
        ua = up[a]
        if da >= INF and ua >= INF:
            continue
        lo = up_ptr[u]
        for b in range(a + 1, up_ptr[v + 1]):  # v's neighbours above u (its list is sorted)
            w = up_nb[b]
            # f = {u, w}: in u's list from where the last one was found
            lo = gallop(up_nb, lo, up_ptr[u + 1], w)
            f = lo + shift
            if da < INF and up[b] < INF:
                c = da + up[b]
                if c < tu[f]:
                    tu[f] = c
            if ua < INF and down[b] < INF:
                c = down[b] + ua
                if c < td[f]:
                    td[f] = c


@njit(cache=True, nogil=True, inline="always")
def _up_range(x, i0, i1, shift, up_ptr, up_nb, up, down, tu, td):
    """Intermediate and upper triangles of x's edges i0..i1 (x->y via z, y and z above x),
    x's row read and written in tu/td at edge id + ``shift``, the other edges {y, z} in
    up/down; each value written is still the length of a real path."""
    p1 = up_ptr[x + 1]
    for i in range(i0, i1):
        y = up_nb[i]
        lo = up_ptr[y]
        ii = i + shift
        for j in range(i + 1, p1):
            z = up_nb[j]
            jj = j + shift
            # f = {y, z}, y < z: in y's list (the graph is chordal)
            lo = gallop(up_nb, lo, up_ptr[y + 1], z)
            f = lo
            if tu[jj] < INF and down[f] < INF and tu[jj] + down[f] < tu[ii]:
                tu[ii] = tu[jj] + down[f]  # x -> z -> y
            if up[f] < INF and td[jj] < INF and up[f] + td[jj] < td[ii]:
                td[ii] = up[f] + td[jj]  # y -> z -> x
            if tu[ii] < INF and up[f] < INF and tu[ii] + up[f] < tu[jj]:
                tu[jj] = tu[ii] + up[f]  # x -> y -> z
            if down[f] < INF and td[ii] < INF and down[f] + td[ii] < td[jj]:
                td[jj] = down[f] + td[ii]  # z -> y -> x


@njit(cache=True, nogil=True, inline="always")
def _task(kind, u, k0, k1, shift, up_ptr, up_nb, dn_src, dn_edge, up, down, tu, td):
    if kind == TRIANGLES:
        _tri_range(u, k0, k1, shift, up_ptr, up_nb, dn_src, dn_edge, up, down, tu, td)
    else:
        _up_range(u, k0, k1, shift, up_ptr, up_nb, up, down, tu, td)


@njit(cache=True, nogil=True)
def _whole(kind, u, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down):
    if kind == TRIANGLES:
        _tri_range(u, dn_ptr[u], dn_ptr[u + 1], 0, up_ptr, up_nb, dn_src, dn_edge, up, down,
                   up, down)
    else:
        _up_range(u, up_ptr[u], up_ptr[u + 1], 0, up_ptr, up_nb, up, down, up, down)


@njit(cache=True, parallel=True, nogil=True)
def _run(kind, lvl_ptr, lvl_vert, mode, bin_ptr, tk_v, tk_k0, tk_k1, tk_buf, red_ptr, red_v,
         red_off, red_m, red_pos, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down, su, sd):
    """Pass ``kind`` group by group as the plan (``plan.Plan``) says."""
    ways = bin_ptr.shape[1] - 1
    for h in range(lvl_ptr.shape[0] - 1):
        s, e = lvl_ptr[h], lvl_ptr[h + 1]
        if mode[h] == SERIAL:
            for i in range(s, e):
                _whole(kind, lvl_vert[i], up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down)
        elif mode[h] == VERTICES:
            for i in prange(s, e):
                _whole(kind, lvl_vert[i], up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down)
        else:
            for j in prange(ways):
                for q in range(bin_ptr[h, j], bin_ptr[h, j + 1]):
                    u = tk_v[q]
                    b = tk_buf[q]
                    if b < 0:
                        _task(kind, u, tk_k0[q], tk_k1[q], 0, up_ptr, up_nb, dn_src, dn_edge,
                              up, down, up, down)
                        continue
                    p0 = up_ptr[u]
                    for p in range(up_ptr[u + 1] - p0):  # this chunk's copy of u's row
                        su[b + p] = up[p0 + p]
                        sd[b + p] = down[p0 + p]
                    _task(kind, u, tk_k0[q], tk_k1[q], b - p0, up_ptr, up_nb, dn_src, dn_edge,
                          up, down, su, sd)
            r0, r1 = red_ptr[h], red_ptr[h + 1]
            if r1 == r0:  # no cut vertex: no second barrier
                continue
            for q in prange(red_pos[r0], red_pos[r1]):  # each cut row slot: min of its copies
                reduce_slot(q, r0, r1, red_pos, red_v, red_off, red_m, up_ptr, su, sd, up, down)


@njit(cache=True, nogil=True)
def _run_plain(kind, lvl_ptr, lvl_vert, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down):
    """Every group serially (``plan.serial_plan``): what ``_run`` does for SERIAL groups,
    without its parallel branches to compile (a small map's first index, issue 41)."""
    if lvl_ptr.shape[0] == 0:
        return
    for i in range(lvl_ptr[0], lvl_ptr[lvl_ptr.shape[0] - 1]):
        _whole(kind, lvl_vert[i], up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down)


@njit(cache=True, nogil=True)
def _serial(n, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down):
    for u in range(n):
        _whole(TRIANGLES, u, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, up, down)


def _plan(t, kind: int, lvl_ptr, lvl_vert, ways, serial_work: int, split_work: int, *,
          name: object = None, split_all: bool = False) -> Plan:
    """The topology's plan for this pass and thread count (cached on it under ``name``,
    by default ``kind``: another pass over other groups names its own)."""
    if ways is None and (serial_work, split_work) == (SERIAL_WORK, SPLIT_WORK) and (
            serial_build(t.n)):  # a small map or few threads: nothing to plan (issues 41, 43)
        return serial_plan(max(int(lvl_ptr.shape[0]) - 1, 0))
    ways = numba.get_num_threads() if ways is None else max(int(ways), 1)
    plans = getattr(t, "_plans", None)
    if plans is None:
        plans = t._plans = {}
    key = (kind if name is None else name, ways, serial_work, split_work)
    p = plans.get(key)
    if p is None:
        p = plans[key] = build_plan(kind, lvl_ptr, lvl_vert, t.up_ptr, t.dn_ptr, t.dn_src,
                                    t.dn_edge, ways, serial_work, split_work, split_all)
    return p


def _execute(kind: int, p: Plan, lvl_ptr, lvl_vert, t, up: np.ndarray,
             down: np.ndarray) -> None:
    if p.serial:
        _run_plain(kind, lvl_ptr, lvl_vert, t.up_ptr, t.up_nb, t.dn_ptr, t.dn_src, t.dn_edge,
                   up, down)
        return
    su = np.empty(p.scratch, np.int64)
    sd = np.empty(p.scratch, np.int64)
    _run(kind, lvl_ptr, lvl_vert, p.mode, p.bin_ptr, p.tk_v, p.tk_k0, p.tk_k1, p.tk_buf,
         p.red_ptr, p.red_v, p.red_off, p.red_m, p.red_pos, t.up_ptr, t.up_nb, t.dn_ptr,
         t.dn_src, t.dn_edge, up, down, su, sd)


def triangles(t, up: np.ndarray, down: np.ndarray, *, parallel: bool = True,
              ways: int | None = None, serial_work: int = SERIAL_WORK,
              split_work: int = SPLIT_WORK) -> None:
    """Apply every lower triangle of topology ``t`` to ``up``/``down`` in place, height by
    height (``plan``: a narrow, heavy height splits its vertices' lower neighbours over
    the threads). ``ways``: bins of a split height (default: numba's thread count; 1 runs
    serially); ``serial_work``/``split_work``: the plan's thresholds (tests force splits).
    The result does not depend on any of them, nor on ``parallel``."""
    if not parallel:
        _serial(t.n, t.up_ptr, t.up_nb, t.dn_ptr, t.dn_src, t.dn_edge, up, down)
        return
    p = _plan(t, TRIANGLES, t.lvl_ptr, t.lvl_vert, ways, serial_work, split_work)
    _execute(TRIANGLES, p, t.lvl_ptr, t.lvl_vert, t, up, down)


def prune(t, up: np.ndarray, down: np.ndarray, *, ways: int | None = None,
          serial_work: int = SERIAL_WORK,
          split_work: int = SPLIT_WORK) -> tuple[np.ndarray, np.ndarray]:
    """(keep_up, keep_down): the arcs that may lie on a shortest path. Top-down over the
    sweep levels (every edge among x's upper neighbours belongs to an earlier level), each
    arc is lowered through its intermediate and upper triangles; an arc that some other
    path beats (strictly) lies on no shortest path and goes. Every shortest path has an
    up-down twin in the basically customized CCH whose arcs each weigh their endpoints'
    distance, so none of its arcs goes: the sweep stays exact."""
    u2, d2 = upper_pass(t, up, down, ways=ways, serial_work=serial_work,
                        split_work=split_work)
    return (up < INF) & (u2 >= up), (down < INF) & (d2 >= down)


def upper_pass(t, up: np.ndarray, down: np.ndarray, *, ways: int | None = None,
               serial_work: int = SERIAL_WORK,
               split_work: int = SPLIT_WORK) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) lowered through every intermediate and upper triangle, top-down over
    the sweep levels (every edge among x's upper neighbours belongs to an earlier level):
    from the basic customization this is the perfect one, each arc weighing its ends'
    distance. The inputs are left as they are."""
    lay = getattr(t, "_sweep", None)
    if lay is None:
        lay = t._sweep = sweep_layout(t.n, t.up_ptr, t.up_nb)
    sweep, level_ptr = lay
    by_sweep = np.empty(t.n, np.int32)
    by_sweep[sweep] = np.arange(t.n, dtype=np.int32)
    u2, d2 = up.copy(), down.copy()
    p = _plan(t, UPPER, level_ptr, by_sweep, ways, serial_work, split_work)
    _execute(UPPER, p, level_ptr, by_sweep, t, u2, d2)
    return u2, d2


# (rank_of, up_ptr, up_dst, up_w, down_ptr, down_src, down_w, level_ptr): a Hierarchy's arrays
HierarchyArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                        np.ndarray, np.ndarray]


def sweep_layout(n, up_ptr, up_nb):
    """(sweep id of each rank, level_ptr): level(x) = 1 + the largest level of x's higher
    neighbours (0 without one), over every topology edge, so it holds for any metric;
    sweep ids sorted by level, then by falling rank (as ``api._layout`` orders them)."""
    return levels_over(n, up_ptr, up_nb, np.ones(up_nb.shape[0], np.bool_), False)


@njit(cache=True)
def levels_over(n, up_ptr, up_nb, keep, rising):
    """(sweep id of each rank, level_ptr) over the edges ``keep`` marks: level(x) = 1 +
    the largest level of x's higher neighbours y over a kept edge {x, y} (0 without one);
    sweep ids by level, then by rising or falling rank."""
    level = np.zeros(n, np.int64)
    top = 0
    for x in range(n - 1, -1, -1):
        lv = 0
        for e in range(up_ptr[x], up_ptr[x + 1]):
            if keep[e]:
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
    for k in range(n):
        x = k if rising else n - 1 - k
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
    pick_build(_count, _count_serial, n)(n, t.up_ptr, ku, kd, sweep, ucnt, dcnt)
    uptr, dptr = np.cumsum(ucnt), np.cumsum(dcnt)
    udst = np.empty(int(uptr[-1]), np.int32)
    uw = np.empty(int(uptr[-1]), np.int64)
    dsrc = np.empty(int(dptr[-1]), np.int32)
    dw = np.empty(int(dptr[-1]), np.int64)
    pick_build(_fill, _fill_serial, n)(n, t.up_ptr, t.up_nb, up, down, ku, kd, sweep, uptr, dptr,
                                 udst, uw, dsrc, dw)
    rank_of = sweep[t.rank].astype(np.int32)
    return rank_of, uptr, udst, uw, dptr, dsrc, dw, level_ptr


# serial twins (``host.serial``): a small map's passes compile without numba's parfor passes
_fill_inf_serial = serial_twin(_fill_inf)
_scatter_rows_serial = serial_twin(_scatter_rows)
_count_serial = serial_twin(_count)
_fill_serial = serial_twin(_fill)


__all__ = ["INF", "find_edge", "hierarchy_arrays", "initial", "laid_out", "levels_over",
           "prune", "sweep_layout", "triangles", "upper_pass"]
