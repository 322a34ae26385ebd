"""Perfect customization and arc removal (Dibbelt, Strasser, Wagner 2016, "Customizable
Contraction Hierarchies", sections on perfect customization and the metric-dependent CH):
the route index sweeps fewer arcs and fewer levels.

1. Perfect customization: top-down over the topology's sweep levels, every edge {x, y} is
   lowered through its upper and intermediate triangles (``metric.upper_pass``, the
   same pass ``metric.prune`` runs). Afterwards every arc weighs exactly the distance
   between its ends in the graph (INF where there is no path). On the CPU steps 1 and 2
   run as one pass (``perfect_and_kept``, "One pass" below).
2. Arc removal, per direction: the arc x->y goes when some z above min(x, y) (an upper or
   intermediate triangle) gives w(x->z) + w(z->y) == w(x->y) with BOTH legs > 0. RoutingKit
   (``build_contraction_hierarchy_using_perfect_witness_search``) drops only arcs that a
   triangle beats strictly; the equal case removes many more where roads tie (grids).
3. Sweep levels over what is left: level(x) = 1 + the largest level of the tails of x's
   KEPT downward in-arcs (0 without one). Only the downward arcs order the sweep
   (``cpu.sweep_block``, ``cuda.Sweeper``, ``few.restrict`` and ``indexed_sssp`` read
   ``down_*`` per level; the upward searches are Dijkstra and need no order), so the
   hierarchy gets its own sweep ids, ``rank_of`` and ``level_ptr``.

Why every query stays exact: take a shortest s-t path that is up-down in the perfectly
customized CCH H (one exists, as after basic customization). If it uses a removed arc
x->y with witness z, put x->z->y in its place (same length). Intermediate z: the path is
still up-down. Upper z: a valley z->v->v' (v below both) may follow; the chordal graph has
the edge {z, v'}, whose weight is their distance, so the valley merges into it without
getting longer, and so on up to the old top. The new path is simple (a repeated vertex
would close a cycle through a leg of length > 0 inside a shortest path), and it holds z,
higher than every vertex it lost, so sum(2^rank) over its vertices grew: the replacing
ends, at an up-down path of length d(s, t) on kept arcs only. With a zero-weight leg
two arcs could witness each other (x->y by x->z->y and z->y by z->x->y): hence the guard.

One pass (``perfect_and_kept``: steps 1 and 2 together, each triangle visited once). Let
b be the basic metric, d the distance, N the upper neighbours of x (a clique), and for
y in N let Q(x->y) = min over z in N - {y} of b(x->z) + d(z->y) (likewise Q(y->x) with
d(y->z) + b(z->x)); top-down, every d(z->y) with z, y above x is final when x is reached.
(a) d(x->y) = min(b(x->y), Q(x->y)): every term is a path's length; on a shortest x-y path
let z be the first vertex above x. Its prefix runs below x, so {x, z} is an edge and
b(x->z) <= the prefix (basic customization); z = y gives b, else the z term is <= d.
(b) When no edge weighs 0, x->y has an equal witness iff Q(x->y) <= b(x->y), so
keep = b < Q. If Q = d, its z is one: d(x->z) + d(z->y) <= b(x->z) + d(z->y) = d(x->y).
If Q > d = b and z is a witness: d(x->z) = b(x->z) gives Q <= d, a contradiction; else
d(x->z) = b(x->z') + d(z'->z) by (a), and z' != y gives Q <= b(x->z') + d(z'->y) <= d,
while z' = y gives d(y->z) + d(z->y) = 0. So both flags equal ``removable``'s bit for bit
(tested); when some edge weighs 0, ``removable`` decides (``_zero_edge``). The test reads
no value of x's row that the pass writes, so chunks of a heavy row need no order.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .contract import INF
from .metric import HierarchyArrays, _plan
from .plan import (
    SERIAL,
    SERIAL_WORK,
    SPLIT_WORK,
    UPPER,
    VERTICES,
    Plan,
    reduce_slot,
)
from .sorted_rows import gallop

UINF = np.uint64(INF)


def topology_layout(t) -> tuple[np.ndarray, np.ndarray]:
    """(sweep id of each rank, level_ptr) of the topology's own levels (every edge), cached
    on ``t``: the top-down order of perfect customization."""
    from .metric import sweep_layout

    lay = getattr(t, "_sweep", None)
    if lay is None:
        lay = t._sweep = sweep_layout(t.n, t.up_ptr, t.up_nb)
    return lay


def perfect_metric(t, up: np.ndarray, down: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) of the perfect customization from the basic one (``metric.triangles``'
    result; left unchanged): each arc's weight becomes its ends' distance."""
    from .metric import upper_pass

    return upper_pass(t, up, down)


@njit(cache=True, nogil=True, inline="always")
def _witness(a, b, c):
    """a + b == c through two legs of positive, finite length."""
    return a > 0 and b > 0 and a < INF and b < INF and a + b == c


@njit(cache=True, parallel=True, nogil=True)
def _mark(n, up_ptr, up_nb, up, down, ku, kd):
    """Clear ku/kd of the arcs some upper or intermediate triangle witnesses. Each vertex
    x writes only its own edges {x, y} and reads the perfect (final) weights: no races."""
    for x in prange(n):
        p0 = up_ptr[x]
        p1 = up_ptr[x + 1]
        for i in range(p0, p1):
            y = up_nb[i]
            lo = up_ptr[y]
            ui = up[i]
            di = down[i]
            for j in range(i + 1, p1):
                z = up_nb[j]
                lo = gallop(up_nb, lo, up_ptr[y + 1], z)
                f = lo  # {y, z}, y < z < ... (x's upper neighbours form a clique)
                uj = up[j]
                dj = down[j]
                uf = up[f]
                df = down[f]
                if _witness(uj, df, ui):  # x -> z -> y, z above y
                    ku[i] = False
                if _witness(uf, dj, di):  # y -> z -> x
                    kd[i] = False
                if _witness(ui, uf, uj):  # x -> y -> z, y between x and z
                    ku[j] = False
                if _witness(df, di, dj):  # z -> y -> x
                    kd[j] = False


def removable(t, up: np.ndarray, down: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(keep_up, keep_down) bool [edges] over a PERFECT metric: the finite arcs no upper or
    intermediate triangle of positive legs matches."""
    ku = up < INF
    kd = down < INF
    _mark(t.n, t.up_ptr, t.up_nb, up, down, ku, kd)
    return ku, kd


def kept_layout(n, up_ptr, up_nb, kd):
    """(sweep id of each rank, level_ptr) over the kept downward arcs only (``kd``):
    level(x) = 1 + the largest level of x's higher neighbours y with y->x kept; sweep ids
    by level, then by rising rank (any order within a level is a valid sweep; this one
    swept NE and the Kanto-sized map a little faster on the CPU than falling rank, within
    the 2-core machine's noise, docs/perf/index_build.md)."""
    from .metric import levels_over

    return levels_over(n, up_ptr, up_nb, kd, True)


def pruned_arrays(t, up: np.ndarray, down: np.ndarray, ku: np.ndarray,
                  kd: np.ndarray) -> HierarchyArrays:
    """(rank_of, up_ptr, up_dst, up_w, down_ptr, down_src, down_w, level_ptr) of the
    Hierarchy of the kept arcs, in sweep ids of their own levels."""
    from .metric import laid_out

    return laid_out(t, up, down, ku, kd, *kept_layout(t.n, t.up_ptr, t.up_nb, kd))


def pruned_hierarchy(t, up: np.ndarray, down: np.ndarray,
                     perfect: tuple[np.ndarray, np.ndarray] | list | None = None, *,
                     ways: int | None = None):
    """The consumers' Hierarchy from a BASIC metric (``metric.triangles``' result; left
    unchanged): the arcs the removal keeps, weighed by their ends' distance, in sweep
    levels of their own. ``perfect``: the perfect metric when it is already there; else
    the fused pass (``perfect_and_kept``) computes it with the removal. (A device build
    gets the keep flags with the perfect metric: ``cch._full_on_device``.)"""
    from .model import of_topology

    if perfect is None:
        pu, pd, ku, kd = perfect_and_kept(t, up, down, ways=ways)
    else:
        pu, pd = perfect
        ku, kd = kept_given(t, up, down, pu, pd, ways=ways)
    return of_topology(t, *pruned_arrays(t, pu, pd, ku, kd))


@njit(cache=True, nogil=True, inline="always")
def _q_range(x, i0, i1, shift, up_ptr, up_nb, bu, bd, pu, pd, qu, qd):
    """Q of x's edges i0..i1 ({x, y}): the least x->z->y (into qu at i + shift) and
    y->z->x (qd) over x's other upper neighbours z, the leg at x BASIC (bu/bd, x's row),
    the other PERFECT (pu/pd: rows above x, final); the same pairs give the entries of
    the z above y, x->y->z and z->y->x. Reads no value of qu/qd it writes but its own:
    a chunk of x's edges needs only its own copy of the row."""
    p1 = up_ptr[x + 1]
    for i in range(i0, i1):
        y = up_nb[i]
        lo = up_ptr[y]
        y1 = up_ptr[y + 1]
        bui = bu[i]
        bdi = bd[i]
        ii = i + shift
        qui = qu[ii]
        qdi = qd[ii]
        for j in range(i + 1, p1):
            z = up_nb[j]
            lo = gallop(up_nb, lo, y1, z)  # f = {y, z} (x's upper neighbours: a clique)
            uf = pu[lo]
            df = pd[lo]
            buj = bu[j]
            bdj = bd[j]
            jj = j + shift
            # unsigned: INF + INF = 2^63 still compares above every path, no test
            qui = min(qui, buj + df)  # x -> z -> y
            qdi = min(qdi, uf + bdj)  # y -> z -> x
            qu[jj] = min(qu[jj], bui + uf)  # x -> y -> z
            qd[jj] = min(qd[jj], df + bdi)  # z -> y -> x
        qu[ii] = qui
        qd[ii] = qdi


@njit(cache=True, nogil=True, inline="always")
def _settle(e, bu, bd, qu, qd, ku, kd):
    """Edge e's Q is complete: keep each arc its basic weight beats strictly, and leave
    the perfect weight min(basic, Q) in qu/qd."""
    b = bu[e]
    q = min(qu[e], UINF)  # a sum over an INF leg is INF
    ku[e] = b < q
    qu[e] = min(b, q)
    b = bd[e]
    q = min(qd[e], UINF)
    kd[e] = b < q
    qd[e] = min(b, q)


@njit(cache=True, nogil=True)
def _vertex(x, up_ptr, up_nb, bu, bd, pu, pd, qu, qd, ku, kd):
    p0, p1 = up_ptr[x], up_ptr[x + 1]
    _q_range(x, p0, p1, 0, up_ptr, up_nb, bu, bd, pu, pd, qu, qd)
    for e in range(p0, p1):
        _settle(e, bu, bd, qu, qd, ku, kd)


@njit(cache=True, parallel=True, nogil=True)
def _run(lvl_ptr, lvl_vert, mode, bin_ptr, tk_v, tk_k0, tk_k1, tk_buf, red_ptr, red_v, red_off,
         red_m, red_pos, up_ptr, up_nb, bu, bd, pu, pd, qu, qd, ku, kd, su, sd):
    """Q and the keep flags group by group as the plan (``plan.Plan``, kind UPPER) says;
    qu/qd start at INF. A cut vertex's chunks fill copies of its row (at INF), reduced by
    minimum and settled in one ``prange`` (so a group with a cut vertex has two
    barriers, as in ``metric._run``)."""
    ways = bin_ptr.shape[1] - 1
    for h in range(lvl_ptr.shape[0] - 1):
        s, e = lvl_ptr[h], lvl_ptr[h + 1]
        if mode[h] == SERIAL:
            for i in range(s, e):
                _vertex(lvl_vert[i], up_ptr, up_nb, bu, bd, pu, pd, qu, qd, ku, kd)
        elif mode[h] == VERTICES:
            for i in prange(s, e):
                _vertex(lvl_vert[i], up_ptr, up_nb, bu, bd, pu, pd, qu, qd, ku, kd)
        else:
            for j in prange(ways):
                for q in range(bin_ptr[h, j], bin_ptr[h, j + 1]):
                    u = tk_v[q]
                    b = tk_buf[q]
                    if b < 0:  # the whole vertex in one task
                        _vertex(u, up_ptr, up_nb, bu, bd, pu, pd, qu, qd, ku, kd)
                        continue
                    p0 = up_ptr[u]
                    for p in range(up_ptr[u + 1] - p0):
                        su[b + p] = UINF
                        sd[b + p] = UINF
                    _q_range(u, tk_k0[q], tk_k1[q], b - p0, up_ptr, up_nb, bu, bd, pu, pd,
                             su, sd)
            r0, r1 = red_ptr[h], red_ptr[h + 1]
            if r1 == r0:  # no cut vertex: no second barrier
                continue
            for q in prange(red_pos[r0], red_pos[r1]):  # each cut row slot: min of its copies
                f = reduce_slot(q, r0, r1, red_pos, red_v, red_off, red_m, up_ptr, su, sd, qu, qd)
                _settle(f, bu, bd, qu, qd, ku, kd)


@njit(cache=True, nogil=True)
def _run_plain(lvl_ptr, lvl_vert, up_ptr, up_nb, bu, bd, pu, pd, qu, qd, ku, kd):
    """Every group serially (``plan.serial_plan``): what ``_run`` does for SERIAL groups,
    without its parallel branches to compile (a small map's first index, issue 41)."""
    if lvl_ptr.shape[0] == 0:
        return
    for i in range(lvl_ptr[0], lvl_ptr[lvl_ptr.shape[0] - 1]):
        _vertex(lvl_vert[i], up_ptr, up_nb, bu, bd, pu, pd, qu, qd, ku, kd)


def _fused(t, p: Plan, lvl_ptr, lvl_vert, up, down, pu, pd) -> tuple[np.ndarray, ...]:
    """(qu, qd, ku, kd) of plan ``p``: Q settled into the perfect weights. The rows above
    each vertex are read from (pu, pd), or from (qu, qd) as they settle when None."""
    qu = np.full(t.edges, INF, np.int64)
    qd = np.full(t.edges, INF, np.int64)
    ku = np.empty(t.edges, np.bool_)
    kd = np.empty(t.edges, np.bool_)
    su = np.empty(p.scratch, np.uint64)
    sd = np.empty(p.scratch, np.uint64)
    # every weight is in [0, INF]: the same bits read as unsigned (see _q_range)
    bu, bd, vu, vd, wu, wd = (a.view(np.uint64) for a in (
        up, down, qu if pu is None else pu, qd if pd is None else pd, qu, qd))
    if p.serial:  # every group serial (plan.serial_plan): a small map
        _run_plain(lvl_ptr, lvl_vert, t.up_ptr, t.up_nb, bu, bd, vu, vd, wu, wd, ku, kd)
        return qu, qd, ku, kd
    _run(lvl_ptr, lvl_vert, p.mode, p.bin_ptr, p.tk_v, p.tk_k0, p.tk_k1, p.tk_buf, p.red_ptr,
         p.red_v, p.red_off, p.red_m, p.red_pos, t.up_ptr, t.up_nb, bu, bd, vu, vd, wu, wd,
         ku, kd, su, sd)
    return qu, qd, ku, kd


def _zero_edge(pu: np.ndarray, pd: np.ndarray) -> bool:
    """Some edge weighs 0 (a zero-weight path): the one-sided test may differ there."""
    return bool((pu == 0).any() or (pd == 0).any())


def perfect_and_kept(t, up: np.ndarray, down: np.ndarray, *, ways: int | None = None,
                     serial_work: int = SERIAL_WORK,
                     split_work: int = SPLIT_WORK) -> tuple[np.ndarray, ...]:
    """(perfect up, perfect down, keep_up, keep_down) from the BASIC metric (left as it
    is) in one pass: ``perfect_metric`` and ``removable`` fused (module docstring, "One
    pass"), top-down over the topology's levels as ``plan`` schedules them (heavy
    vertices' edges cut over the threads). Equal to the two passes bit for bit; where
    some edge weighs 0 the keep flags come from ``removable``."""
    sweep, level_ptr = topology_layout(t)
    by_sweep = np.empty(t.n, np.int32)
    by_sweep[sweep] = np.arange(t.n, dtype=np.int32)
    # every parallel group as tasks dealt heaviest first: a level's vertices by rank in
    # a static prange left the Kanto-sized map's bound at 16 threads 8.2x, tasks 12.8x
    p = _plan(t, UPPER, level_ptr, by_sweep, ways, serial_work, split_work, name="perfect",
              split_all=True)
    pu, pd, ku, kd = _fused(t, p, level_ptr, by_sweep, up, down, None, None)
    if _zero_edge(pu, pd):
        ku, kd = removable(t, pu, pd)
    return pu, pd, ku, kd


def kept_given(t, up: np.ndarray, down: np.ndarray, pu: np.ndarray, pd: np.ndarray, *,
               ways: int | None = None, serial_work: int = SERIAL_WORK,
               split_work: int = SPLIT_WORK) -> tuple[np.ndarray, np.ndarray]:
    """(keep_up, keep_down) = ``removable(t, pu, pd)`` from the basic (up, down) and the
    perfect (pu, pd) metric: the one-sided test needs no order, so every vertex is one
    group whose tasks (heavy vertices cut) are dealt to the threads at once."""
    if _zero_edge(pu, pd):
        return removable(t, pu, pd)
    ptr, verts = np.array([0, t.n], np.int64), np.arange(t.n, dtype=np.int32)
    p = _plan(t, UPPER, ptr, verts, ways, serial_work, split_work, name="removal",
              split_all=True)
    _, _, ku, kd = _fused(t, p, ptr, verts, up, down, pu, pd)
    return ku, kd


__all__ = ["kept_given", "kept_layout", "perfect_and_kept", "perfect_metric", "pruned_arrays",
           "pruned_hierarchy", "removable", "topology_layout"]
