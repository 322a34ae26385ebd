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
def _push(buf, m, x):
    """buf[m] = x, the buffer doubled first when full; returns the buffer."""
    if m == buf.shape[0]:
        buf2 = np.empty(2 * m, np.int32)
        buf2[:m] = buf[:m]
        buf = buf2
    buf[m] = x
    return buf


@njit(cache=True, nogil=True)
def eliminate(n, ptr, adj, rank, max_edges, progress):
    """(up_ptr int64 [n+1], up_nb int32 sorted per row) of the chordal supergraph, in ranks;
    ``ptr``/``adj`` the undirected simple graph in vertex ids. ``progress[0]`` receives the
    vertices done; ``progress[1]`` set to 1 (another thread) stops it; more than
    ``max_edges`` edges stop it with ``progress[1] = 2`` (a graph without small separators)."""
    order = np.empty(n, np.int64)
    for v in range(n):
        order[rank[v]] = v
    # elimination-tree children as linked lists, filled as parents are found
    child = np.full(n, -1, np.int64)
    sibling = np.full(n, -1, np.int64)
    up_ptr = np.zeros(n + 1, np.int64)
    cap = max(16, 2 * adj.shape[0] + n)
    up_nb = np.empty(cap, np.int32)
    buf = np.empty(max(16, n), np.int32)
    top = 0
    for r in range(n):
        v = order[r]
        m = 0
        for k in range(ptr[v], ptr[v + 1]):
            x = rank[adj[k]]
            if x > r:
                buf = _push(buf, m, x)
                m += 1
        c = child[r]
        while c >= 0:
            for k in range(up_ptr[c], up_ptr[c + 1]):
                x = up_nb[k]
                if x != r:
                    buf = _push(buf, m, x)
                    m += 1
            c = sibling[c]
        cnt = sort_unique(buf, 0, m)
        if top + cnt > up_nb.shape[0]:
            nb2 = np.empty(max(2 * up_nb.shape[0], top + cnt), np.int32)
            nb2[:top] = up_nb[:top]
            up_nb = nb2
        up_nb[top : top + cnt] = buf[:cnt]
        top += cnt
        up_ptr[r + 1] = top
        if top > max_edges:
            progress[1] = 2
            break
        if (r & 4095) == 0:
            progress[0] = r
            if progress[1] != 0:
                break
        if cnt > 0:
            p = buf[0]
            sibling[r] = child[p]
            child[p] = r
    return up_ptr, up_nb[:top].copy()


@njit(cache=True)
def downward(n, up_ptr, up_nb):
    """The transpose: for each vertex its lower neighbours (ascending) and the edge ids."""
    cnt = np.zeros(n + 1, np.int64)
    for e in range(up_nb.shape[0]):
        cnt[up_nb[e] + 1] += 1
    for i in range(n):
        cnt[i + 1] += cnt[i]
    dn_ptr = cnt.copy()
    fill = cnt[:-1].copy()
    dn_src = np.empty(up_nb.shape[0], np.int32)
    dn_edge = np.empty(up_nb.shape[0], np.int64)
    for x in range(n):
        for e in range(up_ptr[x], up_ptr[x + 1]):
            y = up_nb[e]
            dn_src[fill[y]] = x
            dn_edge[fill[y]] = e
            fill[y] += 1
    return dn_ptr, dn_src, dn_edge


@njit(cache=True)
def heights(n, dn_ptr, dn_src):
    """(lvl_ptr, lvl_vert): vertices grouped by 1 + the largest height of a lower
    neighbour (0 without one); every lower neighbour of a vertex is in an earlier group."""
    h = np.zeros(n, np.int64)
    top = 0
    for x in range(n):
        best = -1
        for k in range(dn_ptr[x], dn_ptr[x + 1]):
            if h[dn_src[k]] > best:
                best = h[dn_src[k]]
        h[x] = best + 1
        if h[x] + 1 > top:
            top = h[x] + 1
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
