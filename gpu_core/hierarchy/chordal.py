"""The topology of a customizable contraction hierarchy: the chordal supergraph of the
input's undirected simple graph under an elimination order, by simulated elimination.

Vertices are renamed to their rank (elimination position). Eliminating v makes its upward
neighbours a clique; it is enough to merge them into the elimination-tree parent (v's
lowest upward neighbour), since the parent's own elimination then spreads them on. So
each vertex's upward list is its own upward neighbours plus its children's lists (less
itself), and each list is read once, by the parent.

Edges {x, y} with x < y (ranks) are numbered by their position in x's sorted upward list
(``up_ptr``/``up_nb``): the CCH edge ids. Customization also needs each vertex's downward
neighbours (``dn_ptr``/``dn_src``, with the id ``dn_edge`` of the edge) and an order in
which a vertex comes after every lower neighbour: elimination-tree heights
(``lvl_ptr``/``lvl_vert``: height h is ``lvl_vert[lvl_ptr[h]:lvl_ptr[h+1]]``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .order import sort_unique


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
    """``_merge`` for a short a[a0:a1] (a vertex's own few upward neighbours) into a long
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
def upward_rows(n, ptr, adj, rank):
    """(optr int64 [n+1], onb int32): each rank's own upward neighbours (ranks, ascending),
    rows in rank order, so the elimination reads them in one sequential pass instead of
    chasing each vertex's row and its neighbours' ranks at random. Each row is written by
    its own vertex: parallel, and the same whatever the thread count."""
    optr = np.zeros(n + 1, np.int64)
    for v in prange(n):
        r = rank[v]
        c = 0
        for k in range(ptr[v], ptr[v + 1]):
            if rank[adj[k]] > r:
                c += 1
        optr[r + 1] = c
    for i in range(n):
        optr[i + 1] += optr[i]
    onb = np.empty(optr[n], np.int32)
    for v in prange(n):
        r = rank[v]
        o = optr[r]
        for k in range(ptr[v], ptr[v + 1]):
            x = rank[adj[k]]
            if x > r:
                onb[o] = x
                o += 1
        sort_unique(onb, optr[r], o)  # a simple graph: no repeats, only the sort
    return optr, onb


@njit(cache=True, nogil=True, inline="always")
def _merge_children(r, child, sibling, up_ptr, up_nb, total, kids, buf, buf2, runs, runs2):
    """The rows of r's ``kids`` (>= 2) children, less their first value, merged into
    buf[:runs[1]]: pairwise, round by round (the first round reads them in up_nb), so
    O(m log k) for k rows of m values. Returns (buf, buf2, runs, runs2), grown as needed."""
    buf = _room(buf, total, 0)
    buf2 = _room(buf2, total, 0)
    runs = _room(runs, kids + 2, 0)
    runs2 = _room(runs2, kids + 2, 0)
    m = 0
    nr = 0
    runs[0] = 0
    c = child[r]
    while c >= 0:
        c2 = sibling[c]
        if c2 >= 0:
            m = _merge(up_nb, up_ptr[c] + 1, up_ptr[c + 1],
                       up_nb, up_ptr[c2] + 1, up_ptr[c2 + 1], buf, m)
            c = sibling[c2]
        else:
            t = up_ptr[c + 1] - up_ptr[c] - 1
            buf[m : m + t] = up_nb[up_ptr[c] + 1 : up_ptr[c + 1]]
            m += t
            c = -1
        nr += 1
        runs[nr] = m
    while nr > 1:
        m = 0
        nr2 = 0
        runs2[0] = 0
        for i in range(0, nr, 2):
            if i + 1 < nr:
                m = _merge(buf, runs[i], runs[i + 1], buf, runs[i + 1], runs[i + 2], buf2, m)
            else:
                buf2[m : m + runs[i + 1] - runs[i]] = buf[runs[i] : runs[i + 1]]
                m += runs[i + 1] - runs[i]
            nr2 += 1
            runs2[nr2] = m
        buf, buf2 = buf2, buf
        runs, runs2 = runs2, runs
        nr = nr2
    return buf, buf2, runs, runs2


def eliminate(n, ptr, adj, rank, max_edges, progress):
    """(up_ptr int64 [n+1], up_nb int32 sorted per row) of the chordal supergraph, in ranks;
    ``ptr``/``adj`` the undirected simple graph in vertex ids. ``progress[0]`` receives the
    vertices done; ``progress[1]`` set to 1 (another thread) stops it; more than
    ``max_edges`` edges stop it with ``progress[1] = 2`` (a graph without small separators).
    Holds no GIL (a caller's thread polls ``progress`` meanwhile)."""
    optr, onb = upward_rows(n, ptr, adj, rank)
    return _eliminate_rows(n, optr, onb, adj.shape[0], max_edges, progress)


@njit(cache=True, nogil=True)
def _eliminate_rows(n, optr, onb, arcs, max_edges, progress):
    """``eliminate`` from each rank's own upward neighbours (``upward_rows``).

    Each row is a merge of sorted runs (no sort): the vertex's own upward neighbours
    and each child's row less its first value (the vertex itself: a child's parent is
    its lowest upward neighbour). One child, the common case, takes the own few values
    inserted into its row, straight into ``up_nb``; several children are merged first
    (``_merge_children``)."""
    # elimination-tree children as linked lists, filled as parents are found
    child = np.full(n, -1, np.int64)
    sibling = np.full(n, -1, np.int64)
    up_ptr = np.zeros(n + 1, np.int64)
    up_nb = np.empty(max(16, 2 * arcs + n), np.int32)
    buf = np.empty(1024, np.int32)  # the runs of a vertex of several children
    buf2 = np.empty(1024, np.int32)
    runs = np.empty(64, np.int64)  # run boundaries in buf
    runs2 = np.empty(64, np.int64)
    top = 0
    for r in range(n):
        o0, no = optr[r], optr[r + 1] - optr[r]
        kids = 0
        total = no
        c = child[r]
        while c >= 0:
            kids += 1
            total += up_ptr[c + 1] - up_ptr[c] - 1
            c = sibling[c]
        up_nb = _room(up_nb, top + total, top)
        if kids == 0:
            up_nb[top : top + no] = onb[o0 : o0 + no]
            end = top + no
        elif kids == 1:
            c = child[r]
            end = _insert(onb, o0, o0 + no, up_nb, up_ptr[c] + 1, up_ptr[c + 1], up_nb, top)
        else:
            buf, buf2, runs, runs2 = _merge_children(r, child, sibling, up_ptr, up_nb, total,
                                                     kids, buf, buf2, runs, runs2)
            end = _insert(onb, o0, o0 + no, buf, 0, runs[1], up_nb, top)
        cnt = end - top
        first = up_nb[top] if cnt > 0 else -1
        top = end
        up_ptr[r + 1] = top
        if top > max_edges:
            progress[1] = 2
            break
        if (r & 4095) == 0:
            progress[0] = r
            if progress[1] != 0:
                break
        if cnt > 0:
            sibling[r] = child[first]
            child[first] = r
    return up_ptr, up_nb[:top].copy()


def downward(n, up_ptr, up_nb, blocks: int | None = None):
    """The transpose: for each vertex its lower neighbours (ascending) and the edge ids.
    In parallel over ``blocks`` blocks of rows (one per thread, at most 16, by default;
    each block counts its edges to every vertex: int32 [blocks, n] for the while); the
    same whatever the block count."""
    import numba

    k = blocks or max(1, min(numba.get_num_threads(), 16, up_nb.shape[0] // 65536))
    # blocks of rows with about as many edges each
    xb = np.searchsorted(up_ptr, np.linspace(0, up_nb.shape[0], k + 1), side="left")
    xb[0], xb[-1] = 0, n
    return _downward(n, up_ptr, up_nb, xb.astype(np.int64))


@njit(cache=True, nogil=True, parallel=True)
def _downward(n, up_ptr, up_nb, xb):
    k = xb.shape[0] - 1
    cnt = np.zeros((k, n), np.int32)  # cnt[b, y]: block b's edges to y, then its offset
    for b in prange(k):
        for e in range(up_ptr[xb[b]], up_ptr[xb[b + 1]]):
            cnt[b, up_nb[e]] += 1
    dn_ptr = np.zeros(n + 1, np.int64)
    step = 4096
    for yb in prange((n + step - 1) // step):  # each vertex's blocks in order
        y0, y1 = yb * step, min(n, yb * step + step)
        for y in range(y0, y1):
            dn_ptr[y + 1] = 0
        for b in range(k):
            for y in range(y0, y1):
                c = cnt[b, y]
                cnt[b, y] = dn_ptr[y + 1]
                dn_ptr[y + 1] += c
    for y in range(n):
        dn_ptr[y + 1] += dn_ptr[y]
    dn_src = np.empty(up_nb.shape[0], np.int32)
    dn_edge = np.empty(up_nb.shape[0], np.int64)
    for b in prange(k):
        for x in range(xb[b], xb[b + 1]):
            for e in range(up_ptr[x], up_ptr[x + 1]):
                y = up_nb[e]
                p = dn_ptr[y] + cnt[b, y]
                cnt[b, y] += 1
                dn_src[p] = x
                dn_edge[p] = e
    return dn_ptr, dn_src, dn_edge


@njit(cache=True, nogil=True)
def heights(n, up_ptr, up_nb):
    """(lvl_ptr, lvl_vert): vertices grouped by 1 + the largest height of a lower
    neighbour (0 without one); every lower neighbour of a vertex is in an earlier group.
    That is the height in the elimination tree (every lower neighbour is a descendant,
    every child a lower neighbour), so only each row's first value is read."""
    h = np.zeros(n, np.int64)
    top = 0
    for x in range(n):  # children come first: h[x] is final here
        if h[x] + 1 > top:
            top = h[x] + 1
        if up_ptr[x] < up_ptr[x + 1]:
            p = up_nb[up_ptr[x]]
            if h[x] + 1 > h[p]:
                h[p] = h[x] + 1
    ptr = np.zeros(top + 1, np.int64)
    for x in range(n):
        ptr[h[x] + 1] += 1
    for i in range(top):
        ptr[i + 1] += ptr[i]
    fill = ptr[:-1].copy()
    vert = np.empty(n, np.int32)
    for x in range(n):
        vert[fill[h[x]]] = x
        fill[h[x]] += 1
    return ptr, vert


@njit(cache=True, inline="always")
def lower_bound(up_nb, lo, hi, y):
    """The first position in up_nb[lo:hi] (sorted) holding a value >= y (hi if none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if up_nb[mid] < y:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, inline="always")
def gallop(up_nb, lo, hi, y):
    """``lower_bound`` by exponential search from lo: O(log d) for a value d places on,
    so a walk through ascending values costs about the positions it passes, not a full
    binary search each (the customization's rows: mostly the next few places)."""
    if lo >= hi or up_nb[lo] >= y:
        return lo
    step = 1
    while lo + step < hi and up_nb[lo + step] < y:
        step <<= 1
    # up_nb[lo + step // 2] < y and (lo + step >= hi or up_nb[lo + step] >= y)
    return lower_bound(up_nb, lo + (step >> 1) + 1, min(lo + step, hi), y)


@njit(cache=True)
def find_edge(up_ptr, up_nb, x, y):
    """Id of the edge {x, y} (x < y) by binary search in x's sorted list; -1 if none."""
    lo = lower_bound(up_nb, up_ptr[x], up_ptr[x + 1], y)
    if lo < up_ptr[x + 1] and up_nb[lo] == y:
        return lo
    return -1


@njit(cache=True, parallel=True)
def arc_slots(n, indptr, indices, rank, up_ptr, up_nb):
    """For every arc u->v of a CSR graph: 2*edge (upward, rank u < rank v) or 2*edge + 1
    (downward); -1 for a self-loop; -2 for an arc on no edge of the topology (then the
    graph does not fit it)."""
    m = indices.shape[0]
    out = np.empty(m, np.int64)
    for u in prange(n):  # each arc's slot is its own: parallel (a re-customization's share)
        ru = rank[u]
        for a in range(indptr[u], indptr[u + 1]):
            rv = rank[indices[a]]
            if rv == ru:
                out[a] = -1
            elif ru < rv:
                e = find_edge(up_ptr, up_nb, ru, rv)
                out[a] = 2 * e if e >= 0 else -2
            else:
                e = find_edge(up_ptr, up_nb, rv, ru)
                out[a] = 2 * e + 1 if e >= 0 else -2
    return out
