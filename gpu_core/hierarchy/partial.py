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
import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
from numba import njit, prange

from .chordal import find_edge
from .contract import INF
from .metric import _tri_range
from .patch import patch_hierarchy, spares_of, unpruned
from .plan import TRIANGLES, _cut, vertex_work
from .sorted_rows import gallop, lower_bound

if TYPE_CHECKING:
    from .inputs import KeptInputs

log = logging.getLogger(__name__)

# More changed input edges than edges / PARTIAL_MAX_SHARE: the full (parallel) pass is
# cheaper than the worklist.
PARTIAL_MAX_SHARE = 64
# A row (or a batch of a row's edges) is cut over the threads only above this much work
# (inner steps, ~8 ns each; the full pass cuts at plan.SPLIT_WORK = 8192): each cut is a
# parallel region of its own, and on the loaded 2-core machine one cost milliseconds. NE,
# 10 closures that reach 218 rows near the top: 0.70-0.82 s of update at SPLIT_WORK.
PARTIAL_SPLIT_WORK = 1 << 16
# Partial updates of topologies with at least this many edges run on the device when the
# caller asks for it (``partial_cuda``; the cupy backend): the host's worklist took 3-29
# ms for 10 closures on NE on the H100 host, the device's one launch less. Below it the
# launch and the copies cost more than the host's rows.
PARTIAL_DEVICE_MIN_EDGES = 1 << 21


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
    inputs: KeptInputs | None = None  # the graph base_up/base_down come from
    version: int = 0  # bumped by every host-side update (a device copy of another is stale)
    device: object = None  # partial_cuda.DeviceMetric: the device copy, when made


_LOCKS: dict = {}
_LOCKS_GUARD = threading.Lock()


def lock_for(t) -> threading.Lock:
    """One lock per topology object: its kept metric is updated in place."""
    with _LOCKS_GUARD:
        lk = getattr(t, "_metric_lock", None)
        if lk is None:
            lk = t._metric_lock = threading.Lock()
        return lk


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


def try_partial(t, base_up: np.ndarray, base_down: np.ndarray, prune: bool = False, *,
                ways: int | None = None, split_work: int | None = None,
                stats: np.ndarray | None = None, device: bool = False):
    """(Hierarchy, changed edges) from the kept metric of ``t`` and the new inputs, updating
    the kept metric in place; None when there is none or too much changed (then the caller
    customizes in full). While no customized weight changed, ``prune`` gives back the
    pruned hierarchy of that metric (kept from the last full customization, or made
    now); otherwise the result is unpruned
    (patched from the kept unpruned one, made here the first time it is needed). The
    caller holds ``lock_for(t)``. ``ways`` (default: numba's threads), ``split_work``
    (default ``PARTIAL_SPLIT_WORK``) and ``stats``: as ``update`` takes them (tests force the parallel paths); the result does
    not depend on them. ``device``: the result's downward lists are on the GPU when
    this returns (``patch_cuda.follow``: only what changed is uploaded)."""
    m: Metric | None = getattr(t, "_metric", None)
    if m is None or m.base_up.shape != base_up.shape:
        return None
    seeds = np.flatnonzero((m.base_up != base_up) | (m.base_down != base_down))
    if seeds.shape[0] * PARTIAL_MAX_SHARE > max(t.edges, 1):
        return None
    m.base_up, m.base_down = base_up, base_down
    m.inputs = None  # inputs given without their graph: the next graph is slotted in full
    return _partial(t, m, seeds, prune, ways,
                    PARTIAL_SPLIT_WORK if split_work is None else split_work, stats, device)


def partial_from_graph(t, g, prune: bool = False, device: bool = False):
    """``try_partial`` for the graph ``g`` itself: its changed input weights are found by
    comparing its rows with the graph the kept metric was made from (``inputs``: no arc's
    edge is searched again, only those of the rows that differ). None when that graph is
    not known, too much changed or ``g`` does not fit (the caller customizes in full, and
    says why). The caller holds ``lock_for(t)``; ``device`` as ``try_partial``."""
    from .inputs import KeptInputs, changed_inputs

    m: Metric | None = getattr(t, "_metric", None)
    if m is None or m.inputs is None:
        return None
    diff = changed_inputs(t, m.inputs, g, m.base_up, m.base_down)
    if diff is None:
        return None
    seeds, rows = diff
    if rows:  # what the next graph is compared with (and the lazy graph key hashes)
        m.inputs = KeptInputs.of(g, spares_of(t))
    if seeds.shape[0] * PARTIAL_MAX_SHARE > max(t.edges, 1):
        t._metric = None  # its base shows g already: the full path keeps a new one
        return None
    return _partial(t, m, seeds, prune, None, PARTIAL_SPLIT_WORK, None, device)


def _partial(t, m: Metric, seeds: np.ndarray, prune: bool, ways, split_work, stats,
             device: bool):
    """The worklist from the edges ``seeds`` whose input (``m.base_*``, already the new
    one) changed, and the Hierarchy patched to it."""
    changed = seeds[:0]
    if seeds.shape[0]:
        if m.hierarchy is None:  # before the update: it shows the old values
            m.hierarchy = unpruned(t, m.up, m.down)
        got = _update_on_device(t, m, seeds) if device else None
        if got is None:
            if getattr(t, "_work", None) is None:
                t._work = vertex_work(TRIANGLES, t.n, t.up_ptr, t.dn_ptr, t.dn_src,
                                      t.dn_edge)
            ways = numba.get_num_threads() if ways is None else max(int(ways), 1)
            m.version += 1  # a device copy no longer mirrors it
            got = update(seeds.astype(np.int64), t.tails(), t._work, ways,
                         max(int(split_work), 1), t.up_ptr, t.up_nb, t.dn_ptr, t.dn_src,
                         t.dn_edge, m.base_up, m.base_down, m.up, m.down,
                         np.zeros(3, np.int64) if stats is None else stats)
        changed, ou, od = got
    if changed.shape[0]:
        old = m.hierarchy
        m.hierarchy, info = patch_hierarchy(t, old, changed, ou, od, m.up, m.down)
        m.pruned = None  # its distances changed
        if device:
            from .patch_cuda import follow

            follow(old, m.hierarchy, info)
    elif prune:  # the same metric: its pruned hierarchy (made now if the last was not)
        if m.pruned is None:
            from .perfect import pruned_hierarchy

            m.pruned = pruned_hierarchy(t, m.up, m.down)
        return copy.copy(m.pruned), changed
    if m.hierarchy is None:
        m.hierarchy = unpruned(t, m.up, m.down)
    if device and not changed.shape[0]:
        from .cuda import ready

        ready(m.hierarchy)
    return copy.copy(m.hierarchy), changed


def _update_on_device(t, m: Metric, seeds: np.ndarray):
    """``partial_cuda.update_device`` for a large topology; None (the host updates) for
    a small one, or when the device has no room for the metric's copy or fails (the
    host's arrays are written only once the device is done, so the host's update after
    a failure starts from the same state)."""
    if t.edges < PARTIAL_DEVICE_MIN_EDGES:
        return None
    from ..errors import GpuOutOfMemoryError
    from .partial_cuda import update_device

    try:
        return update_device(t, m, seeds)
    except GpuOutOfMemoryError:
        m.device = None
        return None
    except Exception as exc:  # a launch or driver error: the host's update is exact too
        log.warning("re-customizing on the device failed (%s); the host updates", exc)
        m.device = None
        return None


def prepare(t, backend: str = "cpu") -> bool:
    """Get the next partial update of ``t``'s kept metric ready while no edit waits: its
    unpruned Hierarchy (a pruned full customization has none yet; NE: 0.7-2 s on the
    2-core machine), spare buffers for the patched lists (``patch.Spares``) and, on the
    cupy backend, the lists on the device. False when ``t`` keeps no metric."""
    with lock_for(t):
        m: Metric | None = getattr(t, "_metric", None)
        if m is None:
            return False
        if m.hierarchy is None:
            m.hierarchy = unpruned(t, m.up, m.down)
        spares_of(t).ready(t.n, t.edges, sets=2)
        if m.inputs is not None:
            m.inputs.stock(spares_of(t))
        _warm(t, m)
        if backend == "cupy":
            from .cuda import ready

            ready(m.hierarchy)
            from ..device import get_module
            from .patch_cuda import _SRC

            get_module(_SRC)  # compiled, or read from CuPy's cache, before a closure waits
            if t.edges >= PARTIAL_DEVICE_MIN_EDGES:
                from ..errors import GpuOutOfMemoryError
                from .partial_cuda import warm

                try:
                    warm(t, m)  # the metric's device copy made, the kernels loaded
                except GpuOutOfMemoryError:
                    pass  # the host updates
        return True


def _warm(t, m: Metric) -> None:
    """Run the jitted passes of the next update once on empty work (numba loads each
    from its disk cache on a process's first call: the first closure on NE spent ~50 ms
    more than the next ones, on the H100 host). Nothing is written."""
    from .inputs import _diff_rows, _rebase
    from .patch import _copy, _rewrite, _shift

    h: Any = m.hierarchy
    ki = m.inputs
    e64 = np.empty(0, np.int64)
    if ki is not None:
        _diff_rows(0, ki.indptr, ki.indices, ki.weights, ki.indptr, ki.indices, ki.weights,
                   np.empty(0, np.uint8))
        _rebase(e64, t.rank, t.up_ptr, t.up_nb, ki.indptr, ki.indices, ki.indptr,
                ki.indices, ki.weights, m.base_up, m.base_down)
        for a in (ki.indptr, ki.indices, ki.weights):
            _copy(a[:0], a[:0].copy())
    if h is None or getattr(t, "_sweep", None) is None:
        return
    _shift(h.up_ptr[:1], e64, e64, np.empty(1, np.int64))
    for w in (h.up_w, h.down_w):
        _copy(w[:0], w[:0].copy())
    by_sweep = getattr(t, "_by_sweep", None)
    if by_sweep is None:
        by_sweep = t._by_sweep = np.argsort(t._sweep[0]).astype(np.int32)
    for upward in (True, False):
        _rewrite(e64, by_sweep, t.up_ptr, t.up_nb, m.up, m.down, t._sweep[0], h.up_ptr,
                 h.up_dst, h.up_w, h.up_ptr, h.up_dst, h.up_w[:0].copy(), upward, False)


def keep(t, base_up, base_down, up, down, h, pruned=None, g=None) -> None:
    """Remember a full customization of ``t`` for the next partial one (``h``: its
    unpruned Hierarchy, None to make it when first needed; ``pruned``: the pruned one
    it served; ``g``: the graph of its inputs, copied, so the next graph is compared
    with it row by row)."""
    from .inputs import KeptInputs

    t._metric = Metric(base_up, base_down, up, down, h, pruned,
                       None if g is None else KeptInputs.of(g))
