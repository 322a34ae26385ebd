"""The elimination order of a customizable contraction hierarchy (CCH): nested dissection.

1. The undirected simple graph of the input (directions, weights, self-loops and parallel
   arcs dropped: the order depends on the topology only).
2. Vertices of degree <= 2 are eliminated in rounds of independent sets (a vertex goes in
   a round when no neighbour of degree <= 2 has a smaller random priority), so a chain of
   L vertices takes O(log L) rounds and the elimination tree stays shallow. Eliminating a
   degree-2 vertex joins its two neighbours (its fill edge), which never raises a degree,
   so the adjacency shrinks in place.
3. The rest (the "core", with those fill edges) is ordered by METIS node nested dissection
   (``pymetis.nested_dissection``): separators last; a large core is first split in this
   process and its parts ordered in parallel (``dissect.py``).

The order: eliminated low-degree vertices first (round by round), the core after in
METIS's order. ``rank[v]`` is v's position. Without pymetis :func:`nested_dissection_order`
raises :class:`MetisUnavailableError` (``build_hierarchy(method="auto")`` then builds the
witness-search CH instead).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange

from ..errors import CancelledError, GpuCoreError
from ..host.serial import pick_build, serial_twin


class MetisUnavailableError(GpuCoreError):
    """pymetis is not installed (the customizable index needs its nested dissection)."""


def metis_available() -> bool:
    try:
        import pymetis  # noqa: F401
    except ImportError:
        return False
    return True


def undirected(n: int, indptr: np.ndarray, indices: np.ndarray, *,
               blocks: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(ptr int64 [n+1], adj int32, rows ascending) of the undirected simple graph of a
    CSR graph. In parallel over ``blocks`` blocks of rows (one per thread, at most 16, by
    default; each counts its arcs into every vertex: int32 [blocks, n] for the while);
    the same whatever the block count."""
    import numba

    indptr = indptr.astype(np.int64)
    m = int(indptr[-1]) if n else 0
    k = blocks or max(1, min(numba.get_num_threads(), 16, m // 65536))
    ub = np.searchsorted(indptr, np.linspace(0, m, k + 1), side="left").astype(np.int64)
    ub[0], ub[-1] = 0, n
    return pick_build(_undirected, _undirected_serial, n)(n, indptr, indices, ub)


@njit(cache=True, nogil=True, parallel=True)
def _undirected(n, indptr, indices, ub):
    k = ub.shape[0] - 1
    out_deg = np.zeros(n, np.int64)  # arcs out, self-loops dropped
    cnt = np.zeros((k, n), np.int32)  # cnt[b, v]: block b's arcs into v, then its offset
    for b in prange(k):
        for u in range(ub[b], ub[b + 1]):
            for a in range(indptr[u], indptr[u + 1]):
                v = indices[a]
                if v != u:
                    out_deg[u] += 1
                    cnt[b, v] += 1
    in_deg = np.zeros(n, np.int64)
    step = 4096
    for vb in prange((n + step - 1) // step):  # each vertex's blocks in order
        for b in range(k):
            for v in range(vb * step, min(n, vb * step + step)):
                c = cnt[b, v]
                cnt[b, v] = in_deg[v]
                in_deg[v] += c
    start = np.zeros(n + 1, np.int64)  # row u: its arcs out, then its arcs in
    for u in range(n):
        start[u + 1] = start[u] + out_deg[u] + in_deg[u]
    buf = np.empty(start[n], np.int32)
    for b in prange(k):
        for u in range(ub[b], ub[b + 1]):
            o = start[u]
            for a in range(indptr[u], indptr[u + 1]):
                v = indices[a]
                if v != u:
                    buf[o] = v
                    o += 1
                    buf[start[v] + out_deg[v] + cnt[b, v]] = u
                    cnt[b, v] += 1
    m = np.empty(n, np.int64)
    for u in prange(n):
        m[u] = sort_unique(buf, start[u], start[u + 1])
    ptr = np.zeros(n + 1, np.int64)
    for u in range(n):
        ptr[u + 1] = ptr[u] + m[u]
    adj = np.empty(ptr[n], np.int32)
    for u in prange(n):
        adj[ptr[u] : ptr[u + 1]] = buf[start[u] : start[u] + m[u]]
    return ptr, adj


@njit(cache=True, nogil=True)
def sort_unique(a, s, t):
    """Sort a[s:t] in place and drop repeats; returns how many distinct values lead it
    (insertion sort for the short rows of road graphs, the library sort past 32)."""
    if t - s > 32:
        a[s:t].sort()
    else:
        for i in range(s + 1, t):
            x = a[i]
            j = i - 1
            while j >= s and a[j] > x:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = x
    m = 0
    for i in range(s, t):
        if m == 0 or a[i] != a[s + m - 1]:
            a[s + m] = a[i]
            m += 1
    return m


@njit(cache=True)
def _mix(v, seed):
    x = np.uint64(v) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(seed)
    x ^= x >> np.uint64(31)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(29)
    return x


@njit(cache=True)
def _before(a, b, seed):
    """Whether a wins over b for a round (random priority, ties by id)."""
    pa, pb = _mix(a, seed), _mix(b, seed)
    return pa < pb or (pa == pb and a < b)


@njit(cache=True)
def _remove_nb(adj, start, deg, x, v):
    s = start[x]
    for i in range(s, s + deg[x]):
        if adj[i] == v:
            adj[i] = adj[s + deg[x] - 1]
            deg[x] -= 1
            return


@njit(cache=True)
def _replace_nb(adj, start, deg, x, v, y):
    """In x's list: v becomes y (or goes when y is there already)."""
    s = start[x]
    has_y = False
    for i in range(s, s + deg[x]):
        if adj[i] == y:
            has_y = True
            break
    if has_y:
        _remove_nb(adj, start, deg, x, v)
        return
    for i in range(s, s + deg[x]):
        if adj[i] == v:
            adj[i] = y
            return


@njit(cache=True)
def reduce_low_degree(n, ptr, adj_in, seed):
    """Eliminate degree <= 2 vertices in rounds. Returns (eliminated in order, the number
    of rounds, the remaining adjacency as (start, deg, adj) in place)."""
    adj = adj_in.copy()
    start = ptr[:-1].copy()
    deg = (ptr[1:] - ptr[:-1]).astype(np.int64)
    gone = np.zeros(n, np.bool_)
    out = np.empty(n, np.int32)
    nout = 0
    cand = np.empty(n, np.int32)
    nc = 0
    for v in range(n):
        if deg[v] <= 2:
            cand[nc] = v
            nc += 1
    inq = np.zeros(n, np.bool_)
    pick = np.empty(n, np.int32)
    nxt = np.empty(n, np.int32)
    rounds = 0
    while nc > 0:
        rounds += 1
        s = np.uint64(seed + rounds)
        npk = 0
        for i in range(nc):
            v = cand[i]
            inq[v] = False
            if gone[v] or deg[v] > 2:
                continue
            ok = True
            for k in range(start[v], start[v] + deg[v]):
                u = adj[k]
                if deg[u] <= 2 and _before(u, v, s):
                    ok = False
                    break
            if ok:
                pick[npk] = v
                npk += 1
        nn = 0
        # the picked set is independent among degree <= 2 vertices: eliminate them together
        for i in range(npk):
            v = pick[i]
            gone[v] = True
            out[nout] = v
            nout += 1
        for i in range(npk):
            v = pick[i]
            d = deg[v]
            if d == 1:
                _remove_nb(adj, start, deg, adj[start[v]], v)
            elif d == 2:
                a, b = adj[start[v]], adj[start[v] + 1]
                _replace_nb(adj, start, deg, a, v, b)
                _replace_nb(adj, start, deg, b, v, a)
            deg[v] = 0
            for k in range(start[v], start[v] + d):
                u = adj[k]
                if not gone[u] and deg[u] <= 2 and not inq[u]:
                    inq[u] = True
                    nxt[nn] = u
                    nn += 1
        # the unpicked candidates stay for the next round
        for i in range(nc):
            v = cand[i]
            if not gone[v] and deg[v] <= 2 and not inq[v]:
                inq[v] = True
                nxt[nn] = v
                nn += 1
        cand, nxt = nxt, cand
        nc = nn
    return out[:nout], rounds, start, deg, adj, gone


@njit(cache=True, parallel=True)
def _core_csr(n, start, deg, adj, gone, core_id):
    """The core's adjacency in core ids (rows copied in parallel: each its own)."""
    k = 0
    for v in range(n):
        if not gone[v]:
            core_id[v] = k
            k += 1
    ptr = np.zeros(k + 1, np.int64)
    for v in prange(n):
        if not gone[v]:
            ptr[core_id[v] + 1] = deg[v]
    for i in range(k):
        ptr[i + 1] += ptr[i]
    out = np.empty(ptr[k], np.int32)
    for v in prange(n):
        if not gone[v]:
            o = ptr[core_id[v]]
            for i in range(deg[v]):
                out[o + i] = core_id[adj[start[v] + i]]
    return ptr, out


def nested_dissection_order(n: int, ptr: np.ndarray, adj: np.ndarray, *,
                            seed: int = 1, stats: dict | None = None,
                            cancel: Callable[[], bool] | None = None,
                            depth: int | None = None,
                            workers: int | None = None) -> np.ndarray:
    """rank int32 [n] (vertex -> elimination position) of an undirected simple graph
    (:func:`undirected`). ``depth``: how often the core is split before METIS orders the
    parts in parallel (``dissect.order_core``; by default by its size) in ``workers`` processes
    (``os.cpu_count()`` by default). ``stats`` receives ``core`` (vertices METIS ordered),
    ``rounds`` and ``order_core``'s."""
    try:
        import pymetis  # noqa: F401
    except ImportError:
        raise MetisUnavailableError(
            "the customizable route index needs pymetis (pip install pymetis); "
            "build_hierarchy(method='ch') builds the witness-search index without it"
        ) from None
    elim, rounds, start, deg, radj, gone = reduce_low_degree(n, ptr, adj, seed)
    if cancel is not None and cancel():
        raise CancelledError("building the route index was cancelled")
    core_id = np.full(n, -1, np.int64)
    cptr, cadj = pick_build(_core_csr, _core_csr_serial, n)(n, start, deg, radj, gone, core_id)
    k = cptr.shape[0] - 1
    core_vertices = np.flatnonzero(~gone).astype(np.int32)  # core id -> vertex
    if k > 1 and cadj.shape[0] > 0:
        from .dissect import order_core

        core_order = core_vertices[order_core(cptr, cadj, seed=seed, depth=depth,
                                              cancel=cancel, stats=stats, workers=workers)]
    else:
        core_order = core_vertices
    order = np.concatenate([elim, core_order]).astype(np.int32)
    # a permutation: n values in [0, n) leaving no rank unset (np.unique took 1.7 s of
    # the 3.2M-vertex map's order: a hash of every value)
    bad = order.shape[0] != n or (n > 0 and (order.min() < 0 or order.max() >= n))
    rank = np.full(n, -1, np.int32)
    if not bad:
        rank[order] = np.arange(n, dtype=np.int32)
    if bad or (rank < 0).any():
        raise GpuCoreError("nested dissection gave no permutation of the vertices")
    if stats is not None:
        stats.update(core=int(k), rounds=int(rounds))
    return rank


# serial twins (``host.serial``): a small map's build compiles without numba's parfor passes
_undirected_serial = serial_twin(_undirected)
_core_csr_serial = serial_twin(_core_csr)
