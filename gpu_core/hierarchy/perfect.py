"""Perfect customization and arc removal (Dibbelt, Strasser, Wagner 2016, "Customizable
Contraction Hierarchies", sections on perfect customization and the metric-dependent CH):
the route index sweeps fewer arcs and fewer levels.

1. Perfect customization: top-down over the topology's sweep levels, every edge {x, y} is
   lowered through its upper and intermediate triangles (``metric._upper_level``, the
   same pass ``metric.prune`` runs). Afterwards every arc weighs exactly the distance
   between its ends in the graph (INF where there is no path).
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
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .chordal import lower_bound
from .contract import INF
from .metric import HierarchyArrays


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
                lo = lower_bound(up_nb, lo, up_ptr[y + 1], z)
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


def pruned_hierarchy(t, up: np.ndarray, down: np.ndarray):
    """The consumers' Hierarchy from a PERFECT metric (``perfect_metric`` or the device's
    ``metric_cuda.customize_perfect_device``): the arcs ``removable`` keeps, weighed by
    their ends' distance, in sweep levels of their own."""
    from .model import Hierarchy

    ku, kd = removable(t, up, down)
    h = Hierarchy(t.n, *pruned_arrays(t, up, down, ku, kd), "")
    h.method, h.shortcuts, h.cch_edges = "cch", t.fill, t.edges
    return h


__all__ = ["kept_layout", "perfect_metric", "pruned_arrays", "pruned_hierarchy", "removable",
           "topology_layout"]
