"""The elimination tree of a route index's upward graph (Liu's algorithm): the structure
that lets an upward search run without a priority queue.

The upward arcs form a DAG (to higher-ranked vertices; the sweep ids order the downward
arcs only: the two directions are pruned apart). Eliminate the vertices bottom-up in a
topological order of it: the tree's parent of x is the first vertex above x that x's
fill reaches, and every upward arc of x (fill or not) ends at an ancestor of x. So x's upward search space lies on the path from x to its root, in the
order the path climbs, and one pass up that path, each vertex pushing its upward arcs,
finishes every cost: a vertex's in-arcs from the search space all come from below it on
the path (the elimination-tree query of Dibbelt, Strasser, Wagner's CCH, 2016).
The GPU's upward searches walk it (``upward_cuda``); the path's positions are the depths,
so a search's costs fit an array indexed by depth.

A CCH's own tree (each vertex's lowest upward neighbour in the chordal topology) holds for
every metric of that topology, pruned or patched; any other index gets the tree of its own
arcs (Liu's algorithm), which holds for any Hierarchy.
"""

from __future__ import annotations

import weakref

import numpy as np
from numba import njit

KEPT_NUMBERINGS = 4  # trees kept per topology (one per sweep numbering in use)


@njit(cache=True, nogil=True)
def _liu(n, up_ptr, up_dst):
    """(parent int32 [n], -1 at roots; depth int32 [n]) of the upward DAG's arcs."""
    # the arcs reversed: for each vertex the tails of its upward in-arcs
    cnt = np.zeros(n + 1, np.int64)
    for x in range(n):
        for e in range(up_ptr[x], up_ptr[x + 1]):
            cnt[up_dst[e] + 1] += 1
    for i in range(n):
        cnt[i + 1] += cnt[i]
    tails = np.empty(cnt[n], np.int32)
    pos = cnt[:n].copy()
    for x in range(n):
        for e in range(up_ptr[x], up_ptr[x + 1]):
            y = up_dst[e]
            tails[pos[y]] = x
            pos[y] += 1
    # a top-down order (Kahn): a vertex after every head of its upward arcs
    left = np.empty(n, np.int64)
    order = np.empty(n, np.int32)
    k = 0
    for x in range(n):
        left[x] = up_ptr[x + 1] - up_ptr[x]
        if left[x] == 0:
            order[k] = x
            k += 1
    head = 0
    while head < k:
        y = order[head]
        head += 1
        for e in range(cnt[y], cnt[y + 1]):
            x = tails[e]
            left[x] -= 1
            if left[x] == 0:
                order[k] = x
                k += 1
    parent = np.full(n, -1, np.int32)
    if k < n:  # not a DAG: no hierarchy (the caller gets depth -1)
        return parent, np.full(n, -1, np.int32)
    anc = np.full(n, -1, np.int32)  # path-compressed "current root" pointers
    for at in range(n - 1, -1, -1):  # elimination: bottom-up
        i = order[at]
        for e in range(cnt[i], cnt[i + 1]):
            v = tails[e]
            while True:
                a = anc[v]
                if a == i:
                    break
                anc[v] = i
                if a == -1:
                    parent[v] = i
                    break
                v = a
    depth = np.zeros(n, np.int32)
    for at in range(n):  # parents come first in the order
        x = order[at]
        if parent[x] >= 0:
            depth[x] = depth[parent[x]] + 1
    return parent, depth


@njit(cache=True, nogil=True)
def _chordal(n, up_ptr, up_nb, sweep_of_rank):
    """The tree of a CCH topology (ranks: a vertex's parent is its lowest upward
    neighbour) in a Hierarchy's sweep ids."""
    parent = np.full(n, -1, np.int32)
    depth = np.zeros(n, np.int32)
    for x in range(n - 1, -1, -1):  # parents rank higher: their depth is set first
        sx = sweep_of_rank[x]
        if up_ptr[x] < up_ptr[x + 1]:
            p = up_nb[up_ptr[x]]
            parent[sx] = sweep_of_rank[p]
            depth[sx] = depth[sweep_of_rank[p]] + 1
    return parent, depth


def known_tree(h) -> tuple[np.ndarray, np.ndarray] | None:
    """``h``'s tree when it costs no search: its topology's, the one read with it, or
    Liu's made already; None otherwise."""
    ref = getattr(h, "_topology", None)
    if ref is not None and ref() is not None:
        return elimination_tree(h)
    tp = getattr(h, "tree_parent", None)
    if tp is not None and tp.shape[0] == h.n and h.n:
        return tp, h.tree_depth
    got = getattr(h, "_etree", None)
    if got is not None and got[0]() is h.up_ptr and got[1]() is h.up_dst:
        return got[2], got[3]
    return None


def elimination_tree(h) -> tuple[np.ndarray, np.ndarray]:
    """(parent, depth) of ``h``'s upward graph (sweep ids). A Hierarchy of a CCH topology
    (``model.of_topology``) takes the topology's tree, which holds for every metric, so
    closures re-customizing it reuse it (kept on the topology per sweep numbering); any
    other is the tree saved with it (``Hierarchy.tree_parent``: a file written from a CCH
    keeps its topology's) or Liu's on its own arcs, kept while its arrays stay (0.12 s on
    the 1.43M-node Kanto-sized index on 2 cores)."""
    ref = getattr(h, "_topology", None)
    t = ref() if ref is not None else None
    if t is not None:
        kept = t.__dict__.setdefault("_etrees", [])  # the pruned and the patched numbering
        kept[:] = [k for k in kept if k[0]() is not None]
        for ref_rank, parent, depth in kept:
            if ref_rank() is h.rank_of:
                return parent, depth
        sweep_of_rank = np.ascontiguousarray(h.rank_of[t.order], dtype=np.int32)
        parent, depth = _chordal(int(t.n), t.up_ptr, t.up_nb, sweep_of_rank)
        kept.append((weakref.ref(h.rank_of), parent, depth))
        del kept[:-KEPT_NUMBERINGS]
        return parent, depth
    got = known_tree(h)
    if got is not None:
        return got
    parent, depth = _liu(int(h.n), h.up_ptr, h.up_dst)
    h._etree = (weakref.ref(h.up_ptr), weakref.ref(h.up_dst), parent, depth)
    return parent, depth
