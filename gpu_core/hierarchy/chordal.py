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

from ..host.serial import pick_build, serial_twin
from .sorted_rows import lower_bound


def eliminate(n, ptr, adj, rank, max_edges, progress, *, bins: int | None = None):
    """(up_ptr int64 [n+1], up_nb int32 sorted per row) of the chordal supergraph, in ranks;
    ``ptr``/``adj`` the undirected simple graph in vertex ids. ``progress[0]`` receives
    about the vertices done; ``progress[1]`` set to 1 (another thread) stops it; more
    than ``max_edges`` edges stop it with ``progress[1] = 2`` (a graph without small
    separators), the rows then those up to the first past the limit. Holds the GIL
    only between its steps (a caller's thread polls ``progress`` meanwhile).

    Rows merged from sorted runs, subtrees of the elimination tree side by side in
    ``bins`` bins (``elimination``); the same result whatever ``bins`` and threads."""
    from .elimination import eliminate_rows, rank_rows, rank_rows_serial

    optr, onb, lptr, lnb = pick_build(rank_rows, rank_rows_serial, n)(n, ptr, adj, rank)
    return eliminate_rows(n, optr, onb, lptr, lnb, max_edges, progress, bins=bins)


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
    return pick_build(_downward, _downward_serial, n)(n, up_ptr, up_nb, xb.astype(np.int64))


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


# serial twins (``host.serial``): a small map's build compiles without numba's parfor passes
_downward_serial = serial_twin(_downward)
arc_slots_serial = serial_twin(arc_slots)
