"""Contraction of a graph into a contraction hierarchy (Geisberger et al. 2008), in numba.

Vertices are contracted one at a time in a greedy order (lazy priority queue: edge
difference, contracted neighbours and depth); contracting v adds a shortcut u->w of weight
a+b for every pair of arcs u->v (a), v->w (b) unless a witness search from u that avoids v
finds a path of length <= a+b. A witness search that hits its settle limit counts as "no
witness": the hierarchy gets a shortcut it may not need, never a wrong distance, so costs
stay exact whatever the limits.

When v is contracted its current arcs all lead to higher-ranked vertices, and they never
change again: its out-list is its part of the upward graph, its in-list its part of the
downward graph (the arcs PHAST's sweep pulls from). Adjacency lists live in one pool per
direction with per-vertex capacity, moved to the pool's end when they overflow.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..host.heap import pop_min, sift_down, sift_up

INF = np.int64(1) << 62


@njit(cache=True)
def _reserve(start, ln, cap, nb, wt, top, v, extra):
    """Room for ``extra`` more entries in v's list (moving it to the pool's end)."""
    need = ln[v] + extra
    if need <= cap[v]:
        return nb, wt
    newcap = max(4, 2 * cap[v], need)
    if top[0] + newcap > nb.shape[0]:
        size = max(2 * nb.shape[0], top[0] + newcap)
        nb2 = np.empty(size, np.int32)
        wt2 = np.empty(size, np.int64)
        nb2[: top[0]] = nb[: top[0]]
        wt2[: top[0]] = wt[: top[0]]
        nb, wt = nb2, wt2
    s, t = start[v], top[0]
    for i in range(ln[v]):
        nb[t + i] = nb[s + i]
        wt[t + i] = wt[s + i]
    start[v] = t
    cap[v] = newcap
    top[0] += newcap
    return nb, wt


@njit(cache=True)
def _upsert(start, ln, cap, nb, wt, top, v, x, w):
    """Arc v->x of weight w: lower an existing one, else append."""
    s = start[v]
    for i in range(s, s + ln[v]):
        if nb[i] == x:
            if w < wt[i]:
                wt[i] = w
            return nb, wt
    nb, wt = _reserve(start, ln, cap, nb, wt, top, v, 1)
    i = start[v] + ln[v]
    nb[i] = x
    wt[i] = w
    ln[v] += 1
    return nb, wt


@njit(cache=True)
def _remove(start, ln, nb, wt, v, x):
    s = start[v]
    for i in range(s, s + ln[v]):
        if nb[i] == x:
            last = s + ln[v] - 1
            nb[i] = nb[last]
            wt[i] = wt[last]
            ln[v] -= 1
            return


@njit(cache=True)
def _witness(u, skip, maxd, limit, ostart, oln, onb, owt, dist, touched, hk, hv, pos):
    """Dijkstra from u avoiding ``skip``, up to distance maxd or ``limit`` settled
    vertices; leaves distances in ``dist`` and returns how many entries it touched (the
    caller resets them). A full heap ends the search early, which is safe (see above)."""
    nt = 0
    dist[u] = 0
    touched[nt] = u
    nt += 1
    size = 0
    sift_up(hk, hv, pos, False, size, np.int64(0), np.int32(u))
    size += 1
    settled = 0
    cap = hk.shape[0]
    while size > 0:
        d, x, size = pop_min(hk, hv, pos, False, size)
        if d > dist[x]:
            continue
        if d > maxd:
            break
        settled += 1
        if settled > limit:
            break
        s = ostart[x]
        for e in range(s, s + oln[x]):
            y = onb[e]
            if y == skip:
                continue
            nd = d + owt[e]
            if nd < dist[y] and nd <= maxd:
                if dist[y] == INF:
                    if nt == touched.shape[0]:
                        return nt
                    touched[nt] = y
                    nt += 1
                dist[y] = nd
                if size == cap:
                    return nt
                sift_up(hk, hv, pos, False, size, nd, np.int32(y))
                size += 1
    return nt


@njit(cache=True)
def _shortcuts(v, add, limit, ost, oln, ocap, onb, owt, ist, iln, icap, inb, iwt, otop, itop,
               dist, touched, hk, hv, pos):
    """Shortcuts that contracting v needs (added when ``add``); returns (count, pools)."""
    count = 0
    for ii in range(iln[v]):
        u = inb[ist[v] + ii]
        a = iwt[ist[v] + ii]
        maxb = np.int64(-1)
        for oi in range(oln[v]):
            if onb[ost[v] + oi] != u and owt[ost[v] + oi] > maxb:
                maxb = owt[ost[v] + oi]
        if maxb < 0:
            continue
        nt = _witness(u, v, a + maxb, limit, ost, oln, onb, owt, dist, touched, hk, hv, pos)
        for oi in range(oln[v]):
            w = onb[ost[v] + oi]
            if w == u:
                continue
            c = a + owt[ost[v] + oi]
            if dist[w] > c:
                count += 1
                if add:
                    onb, owt = _upsert(ost, oln, ocap, onb, owt, otop, u, w, c)
                    inb, iwt = _upsert(ist, iln, icap, inb, iwt, itop, w, u, c)
        for t in range(nt):
            dist[touched[t]] = INF
    return count, onb, owt, inb, iwt


@njit(cache=True)
def _pool(n, indptr, heads, w, extra):
    """Adjacency pool of one direction from CSR rows (parallel arcs kept at their minimum,
    self-loops dropped: neither changes a shortest distance)."""
    start = np.empty(n, np.int64)
    ln = np.zeros(n, np.int64)
    cap = np.empty(n, np.int64)
    size = indptr[n] + extra * n
    nb = np.empty(size, np.int32)
    wt = np.empty(size, np.int64)
    top = 0
    for v in range(n):
        start[v] = top
        c = indptr[v + 1] - indptr[v] + extra
        cap[v] = c
        top += c
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            x = heads[e]
            if x == v:
                continue
            s = start[v]
            found = False
            for i in range(s, s + ln[v]):
                if nb[i] == x:
                    if w[e] < wt[i]:
                        wt[i] = w[e]
                    found = True
                    break
            if not found:
                nb[s + ln[v]] = x
                wt[s + ln[v]] = w[e]
                ln[v] += 1
    return start, ln, cap, nb, wt, np.array([top], np.int64)


@njit(cache=True)
def _room(qk, qv, qsize):
    """The order queue's arrays with room for one more entry (doubled when full)."""
    if qsize < qk.shape[0]:
        return qk, qv
    qk2 = np.empty(2 * qk.shape[0], np.int64)
    qv2 = np.empty(2 * qk.shape[0], np.int32)
    qk2[:qsize] = qk[:qsize]
    qv2[:qsize] = qv[:qsize]
    return qk2, qv2


@njit(cache=True)
def _priority(v, sc, oln, iln, deleted, depth):
    return 2 * (sc - oln[v] - iln[v]) + deleted[v] + depth[v]


@njit(cache=True, nogil=True)
def contract(n, indptr, indices, weights, rindptr, rindices, rweights, limit_sim, limit,
             max_shortcuts, progress_every, progress):
    """Contract every vertex. Returns rank, the up pool (out-lists) and the down pool
    (in-lists) as (start, len, nb, wt) each, and the number of shortcuts added.
    ``progress[0]`` receives the vertices contracted so far; setting ``progress[1]`` to 1
    from another thread stops early (the rank then has -1 entries); more than
    ``max_shortcuts`` shortcuts stop it too, with ``progress[1] = 2`` (a dense graph)."""
    ost, oln, ocap, onb, owt, otop = _pool(n, indptr, indices, weights, 2)
    ist, iln, icap, inb, iwt, itop = _pool(n, rindptr, rindices, rweights, 2)
    dist = np.full(n, INF, np.int64)
    touched = np.empty(max(16, min(n, 1 << 16)), np.int32)
    hk = np.empty(1 << 16, np.int64)
    hv = np.empty(1 << 16, np.int32)
    pos = np.empty(1, np.int64)
    deleted = np.zeros(n, np.int64)
    depth = np.zeros(n, np.int64)
    prio = np.empty(n, np.int64)
    # the order queue: a lazy heap of (priority, vertex)
    qk = np.empty(4 * n + 16, np.int64)
    qv = np.empty(4 * n + 16, np.int32)
    qsize = 0
    for v in range(n):
        sc, onb, owt, inb, iwt = _shortcuts(v, False, limit_sim, ost, oln, ocap, onb, owt, ist,
                                            iln, icap, inb, iwt, otop, itop, dist, touched,
                                            hk, hv, pos)
        prio[v] = _priority(v, sc, oln, iln, deleted, depth)
        sift_up(qk, qv, pos, False, qsize, prio[v], np.int32(v))
        qsize += 1
    rank = np.full(n, -1, np.int32)
    added = 0
    r = 0
    while qsize > 0:
        p = qk[0]
        v = qv[0]
        qsize -= 1
        if qsize > 0:
            sift_down(qk, qv, pos, False, qsize, qk[qsize], qv[qsize])
        if rank[v] >= 0 or p != prio[v]:
            continue
        # lazy update: re-evaluate; contract only if it is still the smallest
        sc, onb, owt, inb, iwt = _shortcuts(v, False, limit_sim, ost, oln, ocap, onb, owt, ist,
                                            iln, icap, inb, iwt, otop, itop, dist, touched,
                                            hk, hv, pos)
        np_ = _priority(v, sc, oln, iln, deleted, depth)
        if qsize > 0 and np_ > qk[0]:
            prio[v] = np_
            qk, qv = _room(qk, qv, qsize)
            sift_up(qk, qv, pos, False, qsize, np_, np.int32(v))
            qsize += 1
            continue
        sc, onb, owt, inb, iwt = _shortcuts(v, True, limit, ost, oln, ocap, onb, owt, ist,
                                            iln, icap, inb, iwt, otop, itop, dist, touched,
                                            hk, hv, pos)
        added += sc
        if added > max_shortcuts:
            progress[1] = 2
            break
        rank[v] = r
        r += 1
        if progress_every > 0 and r % progress_every == 0:
            progress[0] = r
            if progress[1] != 0:
                break
        # v leaves its neighbours' lists; they get new priorities
        for oi in range(oln[v]):
            w = onb[ost[v] + oi]
            _remove(ist, iln, inb, iwt, w, v)
        for ii in range(iln[v]):
            u = inb[ist[v] + ii]
            _remove(ost, oln, onb, owt, u, v)
        for side in range(2):
            cnt = oln[v] if side == 0 else iln[v]
            for k in range(cnt):
                x = onb[ost[v] + k] if side == 0 else inb[ist[v] + k]
                if rank[x] >= 0:
                    continue
                deleted[x] += 1
                if depth[v] + 1 > depth[x]:
                    depth[x] = depth[v] + 1
                sc, onb, owt, inb, iwt = _shortcuts(x, False, limit_sim, ost, oln, ocap, onb,
                                                    owt, ist, iln, icap, inb, iwt, otop, itop,
                                                    dist, touched, hk, hv, pos)
                npx = _priority(x, sc, oln, iln, deleted, depth)
                if npx != prio[x]:
                    prio[x] = npx
                    qk, qv = _room(qk, qv, qsize)
                    sift_up(qk, qv, pos, False, qsize, npx, np.int32(x))
                    qsize += 1
    return rank, ost, oln, onb, owt, ist, iln, inb, iwt, added
