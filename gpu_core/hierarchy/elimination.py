"""The simulated elimination behind ``chordal.eliminate``: each rank's row of higher
neighbours in the chordal supergraph, merged from sorted runs.

A row is the vertex's own higher neighbours (``rank_rows``) and its elimination-tree
children's rows less their first value (the vertex itself: a child's parent is its lowest
higher neighbour), so no row is sorted: one child, the common case, takes the own few
values inserted into its row (``_insert``); several children's rows are merged pairwise,
round by round, first (``_merge_children``).

The tree (Liu's algorithm, ``etree``) is known before any row: its subtrees of at most
1/``bins`` of the vertices are packed into bins eliminated side by side (each bin reads
only its own rows) in threads, the vertices above them (the top separators) after, one
by one; the rows are then copied into place. The result is the same whatever the bins
and threads (each row is a function of its subtree only).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..host.serial import serial_twin
from .order import sort_unique
from .sorted_rows import gallop


@njit(cache=True, nogil=True)
def _room(a, need, keep):
    """``a`` if it holds ``need`` values, else a copy of its first ``keep`` values in an
    array at least twice as long."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), a.dtype)
    b[:keep] = a[:keep]
    return b


@njit(cache=True, nogil=True, inline="always")
def _merge(a, a0, a1, b, b0, b1, out, o):
    """a[a0:a1] and b[b0:b1] (each ascending, no repeats) merged into out[o:] without
    repeats; returns the end position in ``out``."""
    while a0 < a1 and b0 < b1:
        x = a[a0]
        y = b[b0]
        if x <= y:
            out[o] = x
            a0 += 1
            if x == y:
                b0 += 1
        else:
            out[o] = y
            b0 += 1
        o += 1
    # one run left: a block copy (the long tail of a child's row)
    out[o : o + a1 - a0] = a[a0:a1]
    o += a1 - a0
    out[o : o + b1 - b0] = b[b0:b1]
    return o + b1 - b0


@njit(cache=True, nogil=True)
def _insert(a, a0, a1, b, b0, b1, out, o):
    """``_merge`` for a short a[a0:a1] (a vertex's own few higher neighbours) into a long
    b[b0:b1] (its children's rows): each value of a is placed by galloping in b, the
    stretches of b between them block-copied."""
    for i in range(a0, a1):
        x = a[i]
        j = gallop(b, b0, b1, x)
        out[o : o + j - b0] = b[b0:j]
        o += j - b0
        out[o] = x
        o += 1
        b0 = j + 1 if j < b1 and b[j] == x else j
    out[o : o + b1 - b0] = b[b0:b1]
    return o + b1 - b0


@njit(cache=True, nogil=True, parallel=True)
def rank_rows(n, ptr, adj, rank):
    """(optr, onb, lptr, lnb): each rank's higher neighbours (ranks, ascending) and its
    lower ones (in ``adj``'s order), rows in rank order, so the elimination and the tree
    read them in sequential passes instead of chasing each vertex's row and its
    neighbours' ranks at random. Each row is written by its own vertex: parallel, and
    the same whatever the thread count."""
    optr = np.zeros(n + 1, np.int64)
    lptr = np.zeros(n + 1, np.int64)
    for v in prange(n):
        r = rank[v]
        c = 0
        for k in range(ptr[v], ptr[v + 1]):
            if rank[adj[k]] > r:
                c += 1
        optr[r + 1] = c
        lptr[r + 1] = ptr[v + 1] - ptr[v] - c
    for i in range(n):
        optr[i + 1] += optr[i]
        lptr[i + 1] += lptr[i]
    onb = np.empty(optr[n], np.int32)
    lnb = np.empty(lptr[n], np.int32)
    for v in prange(n):
        r = rank[v]
        o, lo = optr[r], lptr[r]
        for k in range(ptr[v], ptr[v + 1]):
            x = rank[adj[k]]
            if x > r:
                onb[o] = x
                o += 1
            else:
                lnb[lo] = x
                lo += 1
        sort_unique(onb, optr[r], o)  # a simple graph: no repeats, only the sort
    return optr, onb, lptr, lnb


@njit(cache=True, nogil=True)
def etree(n, lptr, lnb):
    """(kptr, kids, parent): the elimination tree (Liu's algorithm with path compression
    over each rank's lower neighbours; parent -1 at roots) and each vertex's children
    ascending (``kids[kptr[v]:kptr[v+1]]``)."""
    parent = np.full(n, -1, np.int64)
    anc = np.full(n, -1, np.int64)
    for k in range(n):
        for p in range(lptr[k], lptr[k + 1]):
            i = lnb[p]
            while i != -1 and i < k:
                nxt = anc[i]
                anc[i] = k
                if nxt == -1:
                    parent[i] = k
                i = nxt
    kptr, kids = _group(parent, n)
    return kptr, kids, parent


@njit(cache=True, nogil=True)
def _group(key, m):
    """(gptr, items): the indices i with key[i] = g >= 0 grouped by g < m, each group
    ascending (``items[gptr[g]:gptr[g+1]]``); a counting sort."""
    gptr = np.zeros(m + 1, np.int64)
    for i in range(key.shape[0]):
        if key[i] >= 0:
            gptr[key[i] + 1] += 1
    for g in range(m):
        gptr[g + 1] += gptr[g]
    fill = gptr[:-1].copy()
    items = np.empty(gptr[m], np.int64)
    for i in range(key.shape[0]):
        if key[i] >= 0:
            items[fill[key[i]]] = i
            fill[key[i]] += 1
    return gptr, items


@njit(cache=True, nogil=True, inline="always")
def _merge_children(r, kptr, kids, loc, lp, nb, bufs, runs):
    """The rows of r's children (two or more; child c's row is nb[lp[loc[c]]:
    lp[loc[c] + 1]]), less their first value, merged into bufs[0][:runs[0][1]]:
    pairwise, round by round (the first round reads them in nb), so O(m log k) for k
    rows of m values. ``bufs``/``runs`` (two arrays each, grown as needed) are returned."""
    total = 0
    for i in range(kptr[r], kptr[r + 1]):
        total += lp[loc[kids[i]] + 1] - lp[loc[kids[i]]] - 1
    buf, buf2 = _room(bufs[0], total, 0), _room(bufs[1], total, 0)
    k = kptr[r + 1] - kptr[r]
    run, run2 = _room(runs[0], k + 2, 0), _room(runs[1], k + 2, 0)
    m = 0
    nr = 0
    run[0] = 0
    for i in range(kptr[r], kptr[r + 1], 2):
        c = loc[kids[i]]
        if i + 1 < kptr[r + 1]:
            c2 = loc[kids[i + 1]]
            m = _merge(nb, lp[c] + 1, lp[c + 1], nb, lp[c2] + 1, lp[c2 + 1], buf, m)
        else:
            t = lp[c + 1] - lp[c] - 1
            buf[m : m + t] = nb[lp[c] + 1 : lp[c + 1]]
            m += t
        nr += 1
        run[nr] = m
    while nr > 1:
        m = 0
        nr2 = 0
        run2[0] = 0
        for i in range(0, nr, 2):
            if i + 1 < nr:
                m = _merge(buf, run[i], run[i + 1], buf, run[i + 1], run[i + 2], buf2, m)
            else:
                buf2[m : m + run[i + 1] - run[i]] = buf[run[i] : run[i + 1]]
                m += run[i + 1] - run[i]
            nr2 += 1
            run2[nr2] = m
        buf, buf2 = buf2, buf
        run, run2 = run2, run
        nr = nr2
    return (buf, buf2), (run, run2)


@njit(cache=True, nogil=True)
def _rows(verts, k0, optr, onb, kptr, kids, loc, lp, nb, max_edges, progress, edges):
    """The rows of ``verts`` (ascending ranks; every child of one is in ``verts`` or
    among the k0 rows already in ``nb``), the i-th as local row k0 + i: nb[lp[k0 + i]:
    lp[k0 + i + 1]] (``loc`` maps rank -> local row; set here for ``verts``).
    Returns (nb grown as needed, the rows done: fewer when progress[1] is set (another
    thread's stop), or when this call's rows or ``edges[0]`` (every caller's edges so
    far, racy: a guard) pass ``max_edges``). progress[0] counts the vertices done
    (racy between threads: a display)."""
    bufs = (np.empty(1024, np.int32), np.empty(1024, np.int32))
    runs = (np.empty(64, np.int64), np.empty(64, np.int64))
    top = lp[k0]
    told = top
    for i in range(verts.shape[0]):
        r = verts[i]
        j = k0 + i
        loc[r] = j
        o0, o1 = optr[r], optr[r + 1]
        k = kptr[r + 1] - kptr[r]
        if k == 0:
            nb = _room(nb, top + o1 - o0, top)
            nb[top : top + o1 - o0] = onb[o0:o1]
            end = top + o1 - o0
        elif k == 1:
            c = loc[kids[kptr[r]]]
            nb = _room(nb, top + o1 - o0 + lp[c + 1] - lp[c], top)
            end = _insert(onb, o0, o1, nb, lp[c] + 1, lp[c + 1], nb, top)
        else:
            bufs, runs = _merge_children(r, kptr, kids, loc, lp, nb, bufs, runs)
            nb = _room(nb, top + o1 - o0 + runs[0][1], top)
            end = _insert(onb, o0, o1, bufs[0], 0, runs[0][1], nb, top)
        top = end
        lp[j + 1] = top
        if top > max_edges:
            return nb, i + 1
        if (i & 4095) == 0:  # the first row too: a stop asked before is seen at once
            progress[0] += 4096 if i else 0
            edges[0] += top - told
            told = top
            if progress[1] != 0 or edges[0] > max_edges:
                return nb, i + 1
    edges[0] += top - told
    return nb, verts.shape[0]


@njit(cache=True, nogil=True)
def plan_bins(n, kptr, kids, parent, bins):
    """(bptr, bverts, top): the subtrees of at most 1/``bins`` of the vertices, packed
    into bins of about that many (in ascending order of their roots), each bin's
    vertices ascending (``bverts[bptr[b]:bptr[b+1]]``); ``top``: the rest (ancestors of
    larger subtrees), ascending."""
    size = np.ones(n, np.int64)
    for r in range(n):  # parents rank higher
        if parent[r] != -1:
            size[parent[r]] += size[r]
    limit = max(1, n // max(1, bins))
    bin_of = np.full(n, -1, np.int64)
    nbin = 0
    fill = limit  # the open bin's vertices (full: the next root opens one)
    for r in range(n):
        if size[r] <= limit and (parent[r] == -1 or size[parent[r]] > limit):
            if fill >= limit:
                nbin += 1
                fill = 0
            bin_of[r] = nbin - 1
            fill += size[r]
    for r in range(n - 1, -1, -1):  # a bin's subtree below its root: the root's bin
        if bin_of[r] == -1 and parent[r] != -1 and size[r] <= limit:
            bin_of[r] = bin_of[parent[r]]
    bptr, bverts = _group(bin_of, nbin)
    top = np.flatnonzero(bin_of < 0)
    return bptr, bverts, top


@njit(cache=True, nogil=True)
def _roots(verts, lp, nb, parent, is_top):
    """(roots, rlp, rnb): the rows of a bin's vertices whose parent is a top vertex."""
    k = 0
    tot = 0
    for i in range(verts.shape[0]):
        p = parent[verts[i]]
        if p != -1 and is_top[p]:
            k += 1
            tot += lp[i + 1] - lp[i]
    roots = np.empty(k, np.int64)
    rlp = np.zeros(k + 1, np.int64)
    rnb = np.empty(tot, np.int32)
    k = 0
    for i in range(verts.shape[0]):
        p = parent[verts[i]]
        if p != -1 and is_top[p]:
            roots[k] = verts[i]
            rlp[k + 1] = rlp[k] + lp[i + 1] - lp[i]
            rnb[rlp[k] : rlp[k + 1]] = nb[lp[i] : lp[i + 1]]
            k += 1
    return roots, rlp, rnb


@njit(cache=True, nogil=True)
def _place(verts, lp, nb, up_ptr, up_nb):
    """The rows of ``verts`` (nb[lp[i]:lp[i+1]] the i-th's) copied to their place."""
    for i in range(verts.shape[0]):
        r = verts[i]
        up_nb[up_ptr[r] : up_ptr[r + 1]] = nb[lp[i] : lp[i + 1]]


def eliminate_rows(n, optr, onb, lptr, lnb, max_edges, progress, *, bins=None,
                   threads=None):
    """(up_ptr, up_nb) from ``rank_rows``; see ``chordal.eliminate``. ``bins``: how many
    bins of subtrees (2 per thread by default from 65,536 vertices; 1: one pass in rank
    order, as a single thread does)."""
    import numba

    kptr, kids, parent = etree(n, lptr, lnb)
    threads = threads or numba.get_num_threads()
    if bins is None:
        # 2 per thread: on the 3.2M and 6.4M-vertex generated maps, a model of the
        # schedule (each bin's rows' lengths, largest bins first, then the top's) gave
        # 1.9x on 2 threads, 3.9x on 16; more bins leave more to the top (8 per thread:
        # a third of the edges), fewer leave threads idle
        bins = 2 * threads if threads > 1 and n >= 1 << 16 else 1
    loc = np.full(n, -1, np.int64)
    edges = np.zeros(1, np.int64)
    if bins > 1:
        got = _in_bins(n, optr, onb, kptr, kids, parent, loc, max_edges, progress, edges,
                       bins, threads)
        if got is not None:
            return got
        # past max_edges: the pass in rank order, which stops where a row-by-row one does
        loc[:] = -1
        edges[0] = 0
        progress[0] = 0
    lp = np.zeros(n + 1, np.int64)
    nb = np.empty(max(16, 2 * (onb.shape[0] + lnb.shape[0]) + n), np.int32)
    nb, done = _rows(np.arange(n), 0, optr, onb, kptr, kids, loc, lp, nb, max_edges,
                     progress, edges)
    if lp[done] > max_edges:
        progress[1] = 2
    lp[done + 1:] = 0
    progress[0] = done
    return lp, nb[:lp[done]].copy()


def _in_bins(n, optr, onb, kptr, kids, parent, loc, max_edges, progress, edges, bins,
             threads):
    """The bins side by side in ``threads`` threads, then the top vertices, then every
    row copied into place (in the threads); None when the edges pass ``max_edges``,
    empty arrays when progress[1] asked to stop."""
    from concurrent.futures import ThreadPoolExecutor

    bptr, bverts, top = plan_bins(n, kptr, kids, parent, bins)
    nbin = bptr.shape[0] - 1
    is_top = np.zeros(n, np.bool_)
    is_top[top] = True
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray, int] | None] = [None] * nbin

    def one(b: int) -> None:
        verts = bverts[bptr[b]:bptr[b + 1]]
        lp = np.zeros(verts.shape[0] + 1, np.int64)
        nb = np.empty(max(1024, 8 * verts.shape[0]), np.int32)
        nb, done = _rows(verts, 0, optr, onb, kptr, kids, loc, lp, nb, max_edges,
                         progress, edges)
        out[b] = (verts, lp, nb, done)

    with ThreadPoolExecutor(max(1, threads)) as ex:
        list(ex.map(one, np.argsort(-np.diff(bptr), kind="stable").tolist()))  # largest first
        rows = [r for r in out if r is not None]  # every bin's (one() filled them all)
        out.clear()
        if progress[1] != 0:
            return np.zeros(n + 1, np.int64), np.empty(0, np.int32)  # stopped
        if any(d < v.shape[0] for v, _, _, d in rows):
            return None
        got = [_roots(v, lp, nb, parent, is_top) for v, lp, nb, _ in rows]
        roots = np.concatenate([g[0] for g in got] + [np.empty(0, np.int64)])
        k0 = roots.shape[0]
        tlp = np.zeros(k0 + top.shape[0] + 1, np.int64)
        tlp[1:k0 + 1] = np.cumsum(np.concatenate([np.diff(g[1]) for g in got]
                                                  + [np.empty(0, np.int64)]))
        tnb = np.concatenate([g[2] for g in got] + [np.empty(0, np.int32)])
        tnb = np.concatenate([tnb, np.empty(max(1024, tnb.shape[0]), np.int32)])
        del got
        loc[roots] = np.arange(k0)
        tnb, done = _rows(top, k0, optr, onb, kptr, kids, loc, tlp, tnb, max_edges,
                          progress, edges)
        if progress[1] != 0:
            return np.zeros(n + 1, np.int64), np.empty(0, np.int32)  # stopped
        if done < top.shape[0]:
            return None
        lens = np.zeros(n + 1, np.int64)
        for v, lp, _, _ in rows:
            lens[v + 1] = np.diff(lp)
        lens[top + 1] = np.diff(tlp[k0:])
        up_ptr = np.cumsum(lens)
        if up_ptr[n] > max_edges:
            return None
        up_nb = np.empty(up_ptr[n], np.int32)
        jobs = [(v, lp, nb) for v, lp, nb, _ in rows] + [(top, tlp[k0:], tnb)]
        rows.clear()
        list(ex.map(lambda j: _place(j[0], j[1], j[2], up_ptr, up_nb), jobs))
    progress[0] = n
    return up_ptr, up_nb


# serial twins (``host.serial``): a small map's build compiles without numba's parfor passes
rank_rows_serial = serial_twin(rank_rows)
