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

import numpy as np
from numba import njit

from .chordal import lower_bound
from .contract import INF

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


@njit(cache=True)
def update(seeds, tails, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, base_up, base_down, up,
           down):
    """Bring ``up``/``down`` (customized for the old inputs) to the new inputs ``base_up``/
    ``base_down``, which differ only on the edges ``seeds`` (ascending). Returns the edges
    whose value changed (ascending) and their old (up, down)."""
    heap = [np.int64(x) for x in seeds]
    heapq.heapify(heap)
    queued = set(heap)
    changed = []
    old_up = []
    old_down = []
    while len(heap) > 0:
        f = heapq.heappop(heap)
        u = tails[f]
        w = up_nb[f]
        nu, nd = _recompute(f, u, w, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, base_up,
                            base_down, up, down)
        if nu == up[f] and nd == down[f]:
            continue
        changed.append(f)
        old_up.append(up[f])
        old_down.append(down[f])
        up[f] = nu
        down[f] = nd
        # f is the triangle edge {u, w} of every edge {w, y} / {y, w} with y above u
        for k in range(up_ptr[u], up_ptr[u + 1]):
            y = up_nb[k]
            if y == w:
                continue
            g = _has(up_ptr, up_nb, w, y) if w < y else _has(up_ptr, up_nb, y, w)
            if g not in queued:
                queued.add(g)
                heapq.heappush(heap, g)
    out = np.empty(len(changed), np.int64)
    ou = np.empty(len(changed), np.int64)
    od = np.empty(len(changed), np.int64)
    for i in range(len(changed)):
        out[i] = changed[i]
        ou[i] = old_up[i]
        od[i] = old_down[i]
    return out, ou, od


@njit(cache=True)
def _rewrite(dirty_s, by_sweep, up_ptr, up_nb, up, down, sweep, optr, odst, ow, nptr, ndst,
             nw, upward, structural):
    """New sweep lists (one direction): every vertex's segment copied from the old lists
    except the ``dirty_s`` ones (sweep ids, ascending), which are written from the
    topology. Not ``structural`` (the same arcs): only the weights ``nw`` (a copy of the
    old ones) are rewritten."""
    w_of = up if upward else down
    prev = 0
    for i in range(dirty_s.shape[0] + 1):
        s = dirty_s[i] if i < dirty_s.shape[0] else optr.shape[0] - 1
        if structural:  # the clean run prev..s-1 moves as one block
            a0, a1 = optr[prev], optr[s]
            b0 = nptr[prev]
            ndst[b0:b0 + a1 - a0] = odst[a0:a1]
            nw[b0:b0 + a1 - a0] = ow[a0:a1]
        if i == dirty_s.shape[0]:
            break
        x = by_sweep[s]
        j = nptr[s]
        for e in range(up_ptr[x], up_ptr[x + 1]):
            if w_of[e] < INF:
                if structural:
                    ndst[j] = sweep[up_nb[e]]
                nw[j] = w_of[e]
                j += 1
        prev = s + 1


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


def try_partial(t, base_up: np.ndarray, base_down: np.ndarray, prune: bool = False):
    """(Hierarchy, changed edges) from the kept metric of ``t`` and the new inputs, updating
    the kept metric in place; None when there is none or too much changed (then the caller
    customizes in full). While no customized weight changed, ``prune`` gives back the
    pruned hierarchy of that metric (kept from the last full customization, or made
    now); otherwise the result is unpruned
    (patched from the kept unpruned one, made here the first time it is needed). The
    caller holds ``lock_for(t)``."""
    m: Metric | None = getattr(t, "_metric", None)
    if m is None or m.base_up.shape != base_up.shape:
        return None
    seeds = np.flatnonzero((m.base_up != base_up) | (m.base_down != base_down))
    if seeds.shape[0] * PARTIAL_MAX_SHARE > max(t.edges, 1):
        return None
    if getattr(t, "_tails", None) is None:
        t._tails = edge_tails(t.n, t.up_ptr)
    m.base_up, m.base_down = base_up, base_down
    changed = seeds[:0]
    if seeds.shape[0]:
        if m.hierarchy is None:  # before the update: it shows the old values
            m.hierarchy = _unpruned(t, m.up, m.down)
        changed, ou, od = update(seeds.astype(np.int64), t._tails, t.up_ptr, t.up_nb,
                                 t.dn_ptr, t.dn_src, t.dn_edge, base_up, base_down, m.up,
                                 m.down)
    if changed.shape[0]:
        m.hierarchy = patch_hierarchy(t, m.hierarchy, changed, ou, od, m.up, m.down)
        m.pruned = None  # its distances changed
    elif prune:  # the same metric: its pruned hierarchy (made now if the last was not)
        if m.pruned is None:
            from .perfect import perfect_metric, pruned_hierarchy

            m.pruned = pruned_hierarchy(t, *perfect_metric(t, m.up, m.down))
        return copy.copy(m.pruned), changed
    if m.hierarchy is None:
        m.hierarchy = _unpruned(t, m.up, m.down)
    return copy.copy(m.hierarchy), changed


def keep(t, base_up, base_down, up, down, h, pruned=None) -> None:
    """Remember a full customization of ``t`` for the next partial one (``h``: its
    unpruned Hierarchy, None to make it when first needed; ``pruned``: the pruned one
    it served)."""
    t._metric = Metric(base_up, base_down, up, down, h, pruned)
