"""Partial re-customization (Dibbelt, Strasser, Wagner 2016, "partial updates"): when only
a few input arcs change (closures, reopenings, new weights), only the CCH edges whose value
can change are recomputed, and only the sweep lists of their lower ends are rewritten.

The value of edge f = {u, w} (u < w by rank) is a function of its input weight and of the
edges {v, u}, {v, w} of its lower triangles (v < u): ``metric.triangles`` takes the minimum
over all of them. Here the edges whose input changed are seeded in a heap keyed by edge id
(edges are numbered by lower end, so that is rank order of the lower end); each popped edge
is recomputed from scratch over its lower triangles (whose edges all have a smaller lower
end, so they are final already), and only an edge whose value changed pushes the edges it
feeds: {x, y} for every other upper neighbour y of its lower end. The minimum does not
depend on the order it is taken in, so the result equals a full customization bit for bit.
"""

from __future__ import annotations

import copy
import heapq
import threading
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from .chordal import find_edge, gallop, lower_bound
from .contract import INF
from .metric import _tri_range
from .plan import SPLIT_WORK, TRIANGLES, _cut, run_of, vertex_work

# More changed input edges than edges / PARTIAL_MAX_SHARE: the full (parallel) pass is
# cheaper than the worklist.
PARTIAL_MAX_SHARE = 64


@dataclass
class Metric:
    """The last customization over a topology: per edge its input weights (``metric.
    initial``) and its customized weights, and the Hierarchy built from them."""

    base_up: np.ndarray  # int64 [edges]
    base_down: np.ndarray
    up: np.ndarray  # int64 [edges]: customized
    down: np.ndarray
    hierarchy: object  # the Hierarchy of (up, down), unpruned (None: made when first needed)
    pruned: object = None  # the pruned Hierarchy a full customization served, while valid


_LOCKS: dict = {}
_LOCKS_GUARD = threading.Lock()


def lock_for(t) -> threading.Lock:
    """One lock per topology object: its kept metric is updated in place."""
    with _LOCKS_GUARD:
        lk = getattr(t, "_metric_lock", None)
        if lk is None:
            lk = t._metric_lock = threading.Lock()
        return lk


@njit(cache=True)
def edge_tails(n, up_ptr):
    """int32 [edges]: the lower end of every edge."""
    out = np.empty(up_ptr[n], np.int32)
    for x in range(n):
        for e in range(up_ptr[x], up_ptr[x + 1]):
            out[e] = x
    return out


@njit(cache=True, inline="always")
def _has(up_ptr, up_nb, x, y):
    """Edge id of {x, y} (x < y), -1 if none."""
    p = lower_bound(up_nb, up_ptr[x], up_ptr[x + 1], y)
    if p < up_ptr[x + 1] and up_nb[p] == y:
        return p
    return -1


@njit(cache=True)
def _recompute(f, u, w, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, base_up, base_down, up, down):
    """(up, down) of edge f = {u, w} from its input and all its lower triangles."""
    nu = base_up[f]
    nd = base_down[f]
    # walk the shorter lower-neighbour list; find the triangle's other edge by search
    if dn_ptr[u + 1] - dn_ptr[u] <= dn_ptr[w + 1] - dn_ptr[w]:
        for k in range(dn_ptr[u], dn_ptr[u + 1]):
            v = dn_src[k]
            b = _has(up_ptr, up_nb, v, w)
            if b < 0:
                continue
            a = dn_edge[k]
            if down[a] < INF and up[b] < INF and down[a] + up[b] < nu:
                nu = down[a] + up[b]  # u -> v -> w
            if up[a] < INF and down[b] < INF and down[b] + up[a] < nd:
                nd = down[b] + up[a]  # w -> v -> u
    else:
        for k in range(dn_ptr[w], dn_ptr[w + 1]):
            v = dn_src[k]
            if v >= u:
                break  # lower neighbours ascend: no triangle below u is left
            a = _has(up_ptr, up_nb, v, u)
            if a < 0:
                continue
            b = dn_edge[k]
            if down[a] < INF and up[b] < INF and down[a] + up[b] < nu:
                nu = down[a] + up[b]
            if up[a] < INF and down[b] < INF and down[b] + up[a] < nd:
                nd = down[b] + up[a]
    return nu, nd


# Recomputing one edge walks a lower-neighbour list with a binary search per item: about
# this many of a row recomputation's inner steps (``plan.vertex_work``) per item.
EDGE_STEP_COST = 4


@njit(cache=True, parallel=True, nogil=True)
def _edges(fs, u, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, base_up, base_down, up, down, nu,
           nd):
    """nu/nd[f - up_ptr[u]] for the edges ``fs`` of u's row, each from its lower triangles
    (all below u, so final)."""
    p0 = up_ptr[u]
    for i in prange(fs.shape[0]):
        f = fs[i]
        nu[f - p0], nd[f - p0] = _recompute(f, u, up_nb[f], up_ptr, up_nb, dn_ptr, dn_src,
                                            dn_edge, base_up, base_down, up, down)


@njit(cache=True, parallel=True, nogil=True)
def _row(u, wk_u, ways, split_work, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, base_up,
         base_down, up, down, nu, nd, cuts, su, sd):
    """nu/nd[0..deg): u's whole row from its inputs and all its lower triangles; a heavy
    row's lower neighbours cut into chunks over the threads (as ``metric.triangles`` does),
    each into its own copy, reduced by minimum."""
    p0, p1 = up_ptr[u], up_ptr[u + 1]
    deg = p1 - p0
    for p in range(deg):
        nu[p] = base_up[p0 + p]
        nd[p] = base_down[p0 + p]
    k0, k1 = dn_ptr[u], dn_ptr[u + 1]
    m = min(ways, wk_u // max(split_work, 2 * deg, 1), k1 - k0)
    if m < 2:
        _tri_range(u, k0, k1, -p0, up_ptr, up_nb, dn_src, dn_edge, up, down, nu, nd)
        return
    m = _cut(TRIANGLES, u, m, wk_u, up_ptr, dn_ptr, dn_src, dn_edge, cuts)
    for c in prange(m):
        b = c * deg
        for p in range(deg):
            su[b + p] = nu[p]
            sd[b + p] = nd[p]
        _tri_range(u, cuts[c], cuts[c + 1], b - p0, up_ptr, up_nb, dn_src, dn_edge, up, down,
                   su, sd)
    for p in prange(deg):
        a, d = nu[p], nd[p]
        for c in range(m):
            a = min(a, su[c * deg + p])
            d = min(d, sd[c * deg + p])
        nu[p], nd[p] = a, d


@njit(cache=True)
def _mark(u, w, i, up_ptr, up_nb, dirty, queued, heap):
    """Edge f = {u, w} (at i in u's row) changed: mark every edge it is a triangle leg of,
    {w, y} / {y, w} for the other y of u's row, and queue their lower ends."""
    p0, p1 = up_ptr[u], up_ptr[u + 1]
    lo = up_ptr[w]
    for k in range(p0, p1):
        y = up_nb[k]
        if k < i:  # u < y < w: {y, w} in y's row
            g = find_edge(up_ptr, up_nb, y, w)
            x = y
        elif k > i:  # w < y: {w, y} in w's row, ascending with y
            lo = gallop(up_nb, lo, up_ptr[w + 1], y)
            g = lo
            x = w
        else:
            continue
        if not dirty[g]:
            dirty[g] = True
            if not queued[x]:
                queued[x] = True
                heapq.heappush(heap, np.int64(x))


@njit(cache=True)
def update(seeds, tails, wk, ways, split_work, up_ptr, up_nb, dn_ptr, dn_src, dn_edge,
           base_up, base_down, up, down, stats):
    """Bring ``up``/``down`` (customized for the old inputs) to the new inputs ``base_up``/
    ``base_down``, which differ only on the edges ``seeds`` (ascending). Returns the edges
    whose value changed (ascending) and their old (up, down).

    Rows go bottom-up from a heap of lower ends; each row's marked edges are recomputed
    one by one (in parallel when there are several), or, when that costs more than the row
    (``wk``: ``plan.vertex_work``; the top separators' rows, thousands of edges marked at
    once), the whole row from its lower triangles, cut over ``ways`` threads. ``stats``
    (int64 [3]) counts the rows done whole, the parallel edge batches and the edges done
    one by one."""
    n = up_ptr.shape[0] - 1
    dirty = np.zeros(up_nb.shape[0], np.bool_)
    queued = np.zeros(n, np.bool_)
    heap = [np.int64(0) for _ in range(0)]
    for f in seeds:
        dirty[f] = True
        if not queued[tails[f]]:
            queued[tails[f]] = True
            heap.append(np.int64(tails[f]))
    heapq.heapify(heap)
    maxdeg = 1
    for x in range(n):
        maxdeg = max(maxdeg, up_ptr[x + 1] - up_ptr[x], dn_ptr[x + 1] - dn_ptr[x] + 1)
    nu = np.empty(maxdeg, np.int64)
    nd = np.empty(maxdeg, np.int64)
    fs = np.empty(maxdeg, np.int64)
    cuts = np.empty(ways + 1, np.int64)
    su = np.empty(0, np.int64)
    sd = np.empty(0, np.int64)
    changed = []
    old_up = []
    old_down = []
    while len(heap) > 0:
        u = heapq.heappop(heap)
        p0, p1 = up_ptr[u], up_ptr[u + 1]
        du = dn_ptr[u + 1] - dn_ptr[u]
        q = 0
        cost = 0
        for f in range(p0, p1):
            if dirty[f]:
                fs[q] = f
                q += 1
                w = up_nb[f]
                cost += min(du, dn_ptr[w + 1] - dn_ptr[w]) * EDGE_STEP_COST
        if cost > wk[u]:
            if su.shape[0] < ways * (p1 - p0):
                su = np.empty(ways * maxdeg, np.int64)
                sd = np.empty(ways * maxdeg, np.int64)
            _row(u, wk[u], ways, split_work, up_ptr, up_nb, dn_ptr, dn_src, dn_edge,
                 base_up, base_down, up, down, nu, nd, cuts, su, sd)
            q = p1 - p0
            for i in range(q):
                fs[i] = p0 + i
            stats[0] += 1
        elif q > 1 and cost >= split_work:
            _edges(fs[:q], u, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, base_up, base_down,
                   up, down, nu, nd)
            stats[1] += 1
        else:
            stats[2] += q
            for i in range(q):
                f = fs[i]
                nu[f - p0], nd[f - p0] = _recompute(f, u, up_nb[f], up_ptr, up_nb, dn_ptr,
                                                    dn_src, dn_edge, base_up, base_down, up,
                                                    down)
        for i in range(q):
            f = fs[i]
            dirty[f] = False
            a, d = nu[f - p0], nd[f - p0]
            if a == up[f] and d == down[f]:
                continue
            changed.append(f)
            old_up.append(up[f])
            old_down.append(down[f])
            up[f] = a
            down[f] = d
            _mark(u, up_nb[f], f, up_ptr, up_nb, dirty, queued, heap)
    out = np.empty(len(changed), np.int64)
    ou = np.empty(len(changed), np.int64)
    od = np.empty(len(changed), np.int64)
    for i in range(len(changed)):
        out[i] = changed[i]
        ou[i] = old_up[i]
        od[i] = old_down[i]
    return out, ou, od


# Clean runs of the sweep lists are copied in pieces of this many arcs, side by side (the
# dirty vertices of a closure sit near the top: one run after them holds most arcs).
COPY_PIECE = 1 << 16


@njit(cache=True, parallel=True)
def _rewrite(dirty_s, by_sweep, up_ptr, up_nb, up, down, sweep, optr, odst, ow, nptr, ndst,
             nw, upward, structural):
    """New sweep lists (one direction): every vertex's segment copied from the old lists
    except the ``dirty_s`` ones (sweep ids, ascending), which are written from the
    topology. Not ``structural`` (the same arcs): only the weights ``nw`` (a copy of the
    old ones) are rewritten."""
    w_of = up if upward else down
    nd = dirty_s.shape[0]
    for i in prange(nd):
        x = by_sweep[dirty_s[i]]
        j = nptr[dirty_s[i]]
        for e in range(up_ptr[x], up_ptr[x + 1]):
            if w_of[e] < INF:
                if structural:
                    ndst[j] = sweep[up_nb[e]]
                nw[j] = w_of[e]
                j += 1
    if not structural:
        return
    # clean run r: sweep ids dirty_s[r - 1] + 1 .. dirty_s[r] - 1, moved as one block
    pieces = np.zeros(nd + 2, np.int64)
    for r in range(nd + 1):
        a0 = optr[dirty_s[r - 1] + 1] if r > 0 else 0
        a1 = optr[dirty_s[r]] if r < nd else optr[optr.shape[0] - 1]
        pieces[r + 1] = pieces[r] + (a1 - a0 + COPY_PIECE - 1) // COPY_PIECE
    for q in prange(pieces[nd + 1]):
        lo = run_of(pieces, 0, nd + 1, q)
        prev = dirty_s[lo - 1] + 1 if lo > 0 else 0
        a0 = optr[prev] + (q - pieces[lo]) * COPY_PIECE
        a1 = min(a0 + COPY_PIECE, optr[dirty_s[lo]] if lo < nd else optr[optr.shape[0] - 1])
        b0 = nptr[prev] + a0 - optr[prev]
        ndst[b0:b0 + a1 - a0] = odst[a0:a1]
        nw[b0:b0 + a1 - a0] = ow[a0:a1]


def patch_hierarchy(t, h, changed: np.ndarray, old_up: np.ndarray, old_down: np.ndarray,
                    up: np.ndarray, down: np.ndarray):
    """A new Hierarchy for the customized (up, down) from the old one ``h``, which showed the
    old values of the ``changed`` edges: the arrays no change touches are shared (the
    Hierarchy's arrays are never written once built), the others copied and patched."""
    from .model import Hierarchy

    sweep, _ = t._sweep
    by_sweep = getattr(t, "_by_sweep", None)
    if by_sweep is None:
        by_sweep = t._by_sweep = np.argsort(sweep).astype(np.int32)
    tails = t._tails
    parts = []
    for upward, new, old, ptr, nb, w in ((True, up, old_up, h.up_ptr, h.up_dst, h.up_w),
                                         (False, down, old_down, h.down_ptr, h.down_src,
                                          h.down_w)):
        moved = new[changed] != old
        if not moved.any():
            parts.append((ptr, nb, w))
            continue
        e = changed[moved]
        owner = sweep[tails[e]].astype(np.int64)
        dirty = np.unique(owner)
        delta = np.zeros(t.n + 1, np.int64)
        np.add.at(delta, owner + 1, (new[e] < INF).astype(np.int64) - (old[moved] < INF))
        structural = bool(((new[e] < INF) != (old[moved] < INF)).any())
        if structural:
            nptr = ptr + np.cumsum(delta)
            nnb = np.empty(int(nptr[-1]), np.int32)
            nw = np.empty(int(nptr[-1]), np.int64)
        else:  # the same arcs: only weights change
            nptr, nnb, nw = ptr, nb, w.copy()
        _rewrite(dirty, by_sweep, t.up_ptr, t.up_nb, up, down, sweep, ptr, nb, w, nptr, nnb,
                 nw, upward, structural)
        parts.append((nptr, nnb, nw))
    (uptr, udst, uw), (dptr, dsrc, dw) = parts
    out = Hierarchy(t.n, h.rank_of, uptr, udst, uw, dptr, dsrc, dw, h.level_ptr, "")
    out.method, out.shortcuts, out.cch_edges = "cch", t.fill, t.edges
    return out


def _unpruned(t, up: np.ndarray, down: np.ndarray):
    """The unpruned Hierarchy of the customized (up, down): what partial updates patch."""
    from .metric import hierarchy_arrays
    from .model import Hierarchy

    h = Hierarchy(t.n, *hierarchy_arrays(t, up, down), "")
    h.method, h.shortcuts, h.cch_edges = "cch", t.fill, t.edges
    return h


def try_partial(t, base_up: np.ndarray, base_down: np.ndarray, prune: bool = False, *,
                ways: int | None = None, split_work: int = SPLIT_WORK,
                stats: np.ndarray | None = None):
    """(Hierarchy, changed edges) from the kept metric of ``t`` and the new inputs, updating
    the kept metric in place; None when there is none or too much changed (then the caller
    customizes in full). While no customized weight changed, ``prune`` gives back the
    pruned hierarchy of that metric (kept from the last full customization, or made
    now); otherwise the result is unpruned
    (patched from the kept unpruned one, made here the first time it is needed). The
    caller holds ``lock_for(t)``. ``ways`` (default: numba's threads), ``split_work`` and
    ``stats``: as ``update`` takes them (tests force the parallel paths); the result does
    not depend on them."""
    m: Metric | None = getattr(t, "_metric", None)
    if m is None or m.base_up.shape != base_up.shape:
        return None
    seeds = np.flatnonzero((m.base_up != base_up) | (m.base_down != base_down))
    if seeds.shape[0] * PARTIAL_MAX_SHARE > max(t.edges, 1):
        return None
    if getattr(t, "_tails", None) is None:
        t._tails = edge_tails(t.n, t.up_ptr)
    if getattr(t, "_work", None) is None:
        t._work = vertex_work(TRIANGLES, t.n, t.up_ptr, t.dn_ptr, t.dn_src, t.dn_edge)
    m.base_up, m.base_down = base_up, base_down
    changed = seeds[:0]
    if seeds.shape[0]:
        if m.hierarchy is None:  # before the update: it shows the old values
            m.hierarchy = _unpruned(t, m.up, m.down)
        ways = numba.get_num_threads() if ways is None else max(int(ways), 1)
        changed, ou, od = update(seeds.astype(np.int64), t._tails, t._work, ways,
                                 max(int(split_work), 1), t.up_ptr, t.up_nb, t.dn_ptr,
                                 t.dn_src, t.dn_edge, base_up, base_down, m.up, m.down,
                                 np.zeros(3, np.int64) if stats is None else stats)
    if changed.shape[0]:
        m.hierarchy = patch_hierarchy(t, m.hierarchy, changed, ou, od, m.up, m.down)
        m.pruned = None  # its distances changed
    elif prune:  # the same metric: its pruned hierarchy (made now if the last was not)
        if m.pruned is None:
            from .perfect import pruned_hierarchy

            m.pruned = pruned_hierarchy(t, m.up, m.down)
        return copy.copy(m.pruned), changed
    if m.hierarchy is None:
        m.hierarchy = _unpruned(t, m.up, m.down)
    return copy.copy(m.hierarchy), changed


def keep(t, base_up, base_down, up, down, h, pruned=None) -> None:
    """Remember a full customization of ``t`` for the next partial one (``h``: its
    unpruned Hierarchy, None to make it when first needed; ``pruned``: the pruned one
    it served)."""
    t._metric = Metric(base_up, base_down, up, down, h, pruned)
