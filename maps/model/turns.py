"""Turn restrictions by node splitting: the graph stays node-based (issue 39).

For each restriction, every arc of the from-way that enters the via (a node, or the first
node of a via-way path) is led to a **copy** of its head instead: the copy has the same
out-arcs as the node it copies, except that at the last node of the via path the banned
ones (``no_*``: the to-way's; ``only_*``: all but the to-way's) are left out; along a via-way
path each step's arc leads to a copy of the next node. A copy whose only in-arc is the arc
being restricted is narrowed in place, so several restrictions on one approach make one
copy. The original node keeps every out-arc, so a search that *starts* at a restricted
junction may leave it in any direction, and arcs that reach it from elsewhere are untouched.
A u-turn at a node is allowed unless a relation forbids it (``no_u_turn``, or an
``only_*`` from that approach), as OSRM does. Cost = the sum of arc weights, unchanged.

Copies are numbered after the file's nodes (``n0 .. n0+c-1``); ``meta["turn_copies"]``
lists the original of each, so a node's answer is the minimum over itself and its copies
(:func:`fold`) and a path's copies map back to the file's nodes (:func:`to_original`;
copies carry their original's node id, so routes already read in the file's ids).
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import numpy as np

from .chains import Arcs


class _Graph:
    """The arc list made mutable where restrictions touch it: the file's nodes' out-arcs
    read from a sorted index when asked, copies' lists kept here (arcs ``>= m0`` are copies'
    arcs, nodes ``>= n0`` copies), in-degrees of copies, originals of everything."""

    def __init__(self, n: int, arcs: Arcs, ways: set[int]) -> None:
        tails = np.asarray(arcs.tails, dtype=np.int64)
        heads = np.asarray(arcs.heads, dtype=np.int64)
        self.t = tails.tolist()
        self.h = heads.tolist()
        self.src = np.asarray(arcs.source_ids, dtype=np.int64).tolist()
        self.n0, self.m0 = n, len(self.t)
        self._by_tail = np.argsort(tails, kind="stable")
        self._tail_ptr = np.searchsorted(tails[self._by_tail], np.arange(n + 1))
        self._by_head = np.argsort(heads, kind="stable")
        self._head_ptr = np.searchsorted(heads[self._by_head], np.arange(n + 1))
        self.parents: list[int] = []  # input arc of each copy arc
        self.origs: list[int] = []  # original of each copy node
        self.copy_out: list[list[int]] = []
        self.indeg: dict[int, int] = {}  # copies only
        self.dead: set[int] = set()
        on = np.flatnonzero(np.isin(np.asarray(arcs.source_ids, dtype=np.int64),
                                    np.fromiter(ways, dtype=np.int64, count=len(ways))))
        self.by_way: dict[int, list[int]] = {}
        for e in on.tolist():
            self.by_way.setdefault(self.src[e], []).append(e)

    def out(self, u: int) -> list[int]:
        if u >= self.n0:
            return self.copy_out[u - self.n0]
        return self._by_tail[self._tail_ptr[u]:self._tail_ptr[u + 1]].tolist()

    def into(self, u: int) -> list[int]:
        """Input arcs entering file node ``u`` (as the file has them)."""
        return self._by_head[self._head_ptr[u]:self._head_ptr[u + 1]].tolist()

    def orig(self, u: int) -> int:
        return u if u < self.n0 else self.origs[u - self.n0]

    def parent(self, e: int) -> int:
        return e if e < self.m0 else self.parents[e - self.m0]

    def alive(self, e: int) -> bool:
        return e not in self.dead

    def add_arc(self, u: int, v: int, like: int) -> int:
        e = len(self.t)
        self.t.append(u)
        self.h.append(v)
        self.src.append(self.src[like])
        self.parents.append(self.parent(like))
        self.copy_out[u - self.n0].append(e)
        if v >= self.n0:
            self.indeg[v] += 1
        if self.src[like] in self.by_way:
            self.by_way[self.src[like]].append(e)
        return e

    def own_head(self, e: int) -> int:
        """A node that only arc ``e`` enters, standing for e's head: the head itself when it
        is a copy entered only by ``e``, else a new copy of it (same out-arcs)."""
        c = self.h[e]
        if c >= self.n0 and self.indeg[c] == 1:
            return c
        k = self.n0 + len(self.origs)
        self.origs.append(self.orig(c))
        self.copy_out.append([])
        self.indeg[k] = 0
        for f in list(self.out(c)):
            if self.alive(f):
                self.add_arc(k, self.h[f], f)
        if c >= self.n0:
            self.indeg[c] -= 1
        self.indeg[k] += 1
        self.h[e] = k
        return k

    def drop(self, e: int) -> None:
        self.dead.add(e)
        if self.h[e] >= self.n0:
            self.indeg[self.h[e]] -= 1


def _via_path(g: _Graph, a: int, via_ways: tuple[int, ...], to_ways: set[int]) -> list[int]:
    """Input arcs along the via ways from node ``a`` to a node the to-way leaves (fewest
    arcs), or [] when there is none."""
    ways = set(via_ways)
    prev: dict[int, int] = {a: -1}
    todo = deque([a])
    while todo:
        u = todo.popleft()
        if u != a and any(g.src[f] in to_ways for f in g.out(u)):
            path = []
            while prev[u] != -1:
                path.append(prev[u])
                u = g.t[prev[u]]
            return path[::-1]
        for f in g.out(u):
            v = g.orig(g.h[f])
            if g.src[f] in ways and v not in prev:
                prev[v] = f
                todo.append(v)
    return []


def apply_restrictions(n: int, arcs: Arcs, node_index: dict[int, int],
                       restrictions, skipped: dict[str, list[int]]) -> tuple[Arcs, np.ndarray, int]:
    """Split nodes for every restriction (module doc). ``node_index``: OSM node id → node.
    Returns (arcs over n + c nodes, original of each copy (int64, c), applied count);
    restrictions that do not fit the graph are added to ``skipped`` by reason."""
    ways = {w for r in restrictions for w in (*r.from_ways, *r.to_ways, *r.via_ways)}
    g = _Graph(n, arcs, ways)
    applied = 0
    for r in restrictions:
        reason = _apply_one(g, r, node_index)
        if reason is None:
            applied += 1
        else:
            skipped.setdefault(reason, []).append(r.rel_id)
    alive = np.ones(len(g.t), dtype=bool)
    alive[list(g.dead)] = False
    keep = np.flatnonzero(alive)
    parent = np.r_[np.arange(g.m0, dtype=np.int64), np.asarray(g.parents, np.int64)][keep]
    out = replace(
        arcs,
        tails=np.asarray(g.t, dtype=np.int64)[keep],
        heads=np.asarray(g.h, dtype=np.int64)[keep],
        weights=np.asarray(arcs.weights)[parent],
        lengths=np.asarray(arcs.lengths)[parent],
        kinds=np.asarray(arcs.kinds)[parent],
        classes=np.asarray(arcs.classes)[parent],
        source_ids=np.asarray(arcs.source_ids)[parent],
        geometry=[arcs.geometry[int(p)] for p in parent] if arcs.geometry else arcs.geometry,
    )
    return out, np.asarray(g.origs, dtype=np.int64), applied


def _apply_one(g: _Graph, r, node_index: dict[int, int]) -> str | None:
    """Apply restriction ``r``; the reason it does not fit, or None when applied."""
    tos = set(r.to_ways)
    froms = set(r.from_ways)
    if r.via_node is not None:
        a = node_index.get(r.via_node)
        if a is None:
            return "via_outside_map"
        if not any(g.src[e] in froms for e in g.into(a)):
            return "from_way_not_at_via"
        paths: dict[int, list[int]] = {a: []}
    else:
        paths = {}
        for w in froms:
            for e in g.by_way.get(w, []):
                b = g.orig(g.h[e])
                if b not in paths:
                    paths[b] = _via_path(g, b, r.via_ways, tos)
        paths = {b: p for b, p in paths.items() if p}
        if not paths:
            return "via_ways_do_not_join"
    for a, p in paths.items():
        end = g.orig(g.h[p[-1]]) if p else a
        if not any(g.src[f] in tos for f in g.out(end)):
            return "to_way_not_at_via"
    # every live arc of the from-way into a start (copies of its tail duplicated it too)
    targets = [e for w in froms for e in list(g.by_way.get(w, []))
               if g.alive(e) and g.orig(g.h[e]) in paths]
    for e in targets:
        if g.alive(e):
            _restrict_from(g, e, paths[g.orig(g.h[e])], r.kind, tos)
    return None


def _restrict_from(g: _Graph, e: int, path: list[int], kind: str, tos: set[int]) -> None:
    for step in path:
        c = g.own_head(e)
        want_head, want_src = g.orig(g.h[step]), g.src[step]
        nxt = [f for f in g.out(c) if g.alive(f) and g.orig(g.h[f]) == want_head
               and g.src[f] == want_src]
        if not nxt:
            return
        e = nxt[0]
    c = g.own_head(e)
    for f in g.out(c):
        if g.alive(f) and ((g.src[f] in tos) == (kind == "no")):
            g.drop(f)


# ---- answers in the file's nodes ---------------------------------------------------------
def copies_of(net) -> np.ndarray | None:
    """The original node of each copy (copies are the last nodes), or None; read-only
    (the list in ``meta`` converted once per list: 2.8 ms a call for 58,909 copies, on
    every one-to-all and matrix of a turn-restricted map before)."""
    c = (getattr(net, "meta", None) or {}).get("turn_copies")
    if not c:
        return None
    if isinstance(c, np.ndarray):
        return c.astype(np.int64, copy=False)
    hit = _copies_arrays.get(id(c))
    if hit is not None and hit[0] is c and hit[1].shape[0] == len(c):
        return hit[1]
    a = np.asarray(c, dtype=np.int64)
    a.flags.writeable = False
    _copies_arrays[id(c)] = (c, a)
    while len(_copies_arrays) > _COPIES_KEPT:
        _copies_arrays.pop(next(iter(_copies_arrays)))
    return a


# id(meta["turn_copies"] list) -> (the list, its array): the latest few maps' (the list
# is held so that its id is not reused while the entry lives)
_copies_arrays: dict[int, tuple[list, np.ndarray]] = {}
_COPIES_KEPT = 4


def original_count(net) -> int:
    """How many nodes the file has (the network's nodes less the turn copies)."""
    c = copies_of(net)
    return net.num_nodes - (0 if c is None else c.shape[0])


def to_original(net, idx):
    """Node indices with every copy replaced by its original."""
    c = copies_of(net)
    a = np.asarray(idx, dtype=np.int64)
    if c is None:
        return a
    n0 = net.num_nodes - c.shape[0]
    return np.where(a >= n0, c[np.clip(a - n0, 0, None)], a)


def fold(net, values: np.ndarray, unreachable=-1) -> np.ndarray:
    """A per-node array over the file's nodes: each node's value is the least over itself
    and its copies, ``unreachable`` counting as no value."""
    c = copies_of(net)
    v = np.asarray(values)
    if c is None:
        return v
    n0 = v.shape[0] - c.shape[0]
    out = v[:n0].copy()
    cv = v[n0:]
    ok = cv != unreachable
    node, val = c[ok], cv[ok]
    # vectorised (a loop over the copies cost 0.3-0.7 s on the Kanto-sized map's 59K):
    # a node a copy reaches but itself is not starts at the largest value, then the least
    top = np.inf if out.dtype.kind == "f" else np.iinfo(out.dtype).max
    out[node[out[node] == unreachable]] = top
    np.minimum.at(out, node, val.astype(out.dtype, copy=False))
    return out


def best_copy(net, dist: np.ndarray, node: int, unreachable=-1) -> int:
    """The node or copy of ``node`` reached at the least cost (for reading a route back)."""
    c = copies_of(net)
    if c is None:
        return node
    n0 = net.num_nodes - c.shape[0]
    cands = [node] + (n0 + np.flatnonzero(c == node)).tolist()
    ok = [k for k in cands if dist[k] != unreachable]
    return min(ok, key=lambda k: dist[k]) if ok else node


def unrestricted_csr(net) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(indptr, indices, weights) of the map without its turn restrictions, over the file's
    nodes (an original keeps every out-arc; its heads mapped back from copies), or None
    when the map has no copies."""
    c = copies_of(net)
    if c is None:
        return None
    n0 = net.num_nodes - c.shape[0]
    end = int(net.indptr[n0])
    heads = to_original(net, net.indices[:end]).astype(np.int32)
    return net.indptr[: n0 + 1].copy(), heads, net.weights[:end].copy()


def with_copy_targets(net, targets) -> tuple[np.ndarray, np.ndarray] | None:
    """Destination columns for a matrix on a turn-restricted map: ``targets`` followed by
    every copy of them, and for each extra column the output column it folds into; None
    when no target has a copy."""
    c = copies_of(net)
    if c is None:
        return None
    t = np.asarray(targets, dtype=np.int64)
    n0 = net.num_nodes - c.shape[0]
    # the copies of a target first (a mask over the file's nodes: the Kanto-sized map's
    # 58,909 copies searched in the sorted targets took 1.3-3.6 ms a matrix), then every
    # (copy k, column j) with t[j] == c[k], copies in order, columns ascending
    mark = np.zeros(n0, dtype=bool)
    mark[t[(t >= 0) & (t < n0)]] = True
    hit = np.flatnonzero(mark[c])
    if hit.size == 0:
        return None
    order = np.argsort(t, kind="stable")
    ts = t[order]
    lo = np.searchsorted(ts, c[hit], side="left")
    cnt = np.searchsorted(ts, c[hit], side="right") - lo
    total = int(cnt.sum())
    k = np.repeat(hit.astype(np.int64), cnt)
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    cols = order[np.repeat(lo, cnt) + within].astype(np.int64)
    return np.r_[t, n0 + k], cols


def same_node(net, u: int) -> list[int]:
    """``u``'s original and every turn copy of it (``[u]`` on a map without copies)."""
    c = copies_of(net)
    if c is None:
        return [u]
    n0 = net.num_nodes - c.shape[0]
    o = int(to_original(net, [u])[0]) if u < net.num_nodes else u
    return [o, *(n0 + np.flatnonzero(c == o)).tolist()]


# ---- a search-internal numbering: each copy right after its original ---------------------
def interleaved_order(net) -> np.ndarray | None:
    """The vertex order (new position -> vertex) that puts each copy right after its
    original, the file's nodes keeping their relative order; None without copies. Only a
    search's own numbering (:func:`permuted_csr`): every answer is read back in the
    network's, where copies stay the last nodes."""
    c = copies_of(net)
    if c is None:
        return None
    n = net.num_nodes
    n0 = n - c.shape[0]
    counts = np.bincount(c, minlength=n0)
    before = np.cumsum(counts) - counts  # copies of nodes before v
    start = np.arange(n0, dtype=np.int64) + before
    order = np.empty(n, dtype=np.int64)
    order[start] = np.arange(n0, dtype=np.int64)
    idx = np.argsort(c, kind="stable")
    rank = np.arange(c.shape[0], dtype=np.int64) - before[c[idx]]
    order[start[c[idx]] + 1 + rank] = n0 + idx
    return order


def permuted_csr(indptr, indices, weights, order: np.ndarray):
    """(indptr, indices, weights) of the graph renumbered so that new vertex i is old
    vertex ``order[i]`` (each row's arcs in their order), and ``pos`` (old -> new)."""
    indptr = np.asarray(indptr, dtype=np.int64)
    pos = np.empty_like(order)
    pos[order] = np.arange(order.shape[0], dtype=np.int64)
    counts = np.diff(indptr)[order]
    out = np.zeros(order.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    sel = np.repeat(indptr[order] - out[:-1], counts) + np.arange(int(out[-1]))
    return (out.astype(np.int32) if out[-1] < 2**31 else out,
            pos[np.asarray(indices)[sel]].astype(np.asarray(indices).dtype),
            np.asarray(weights)[sel], pos)
