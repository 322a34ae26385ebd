"""A smaller graph with the same costs between a set of kept vertices (issue 41).

scipy's Dijkstra holds the GIL and visits every vertex of the map per source; a first
100 x 100 matrix on a 1.5M-node road map is ~26 s of it. Road maps are ~40% dead ends and
chain vertices (NE: 19% of degree 1, 22% of degree 2), which no search between kept
vertices needs as such: :func:`reduce_graph` drops them (numpy only, so a fresh install
with nothing compiled gets it) and the searches run on what is left.

Rules, on the undirected neighbourhood of each vertex that is not kept (sources and
targets are kept):
- a dead end (at most one distinct neighbour) is on no simple path between two other
  vertices: its arcs go (iteratively: trees are peeled from the leaves);
- a chain vertex x (exactly two distinct neighbours a, b) is replaced by shortcuts
  a->b (w(a->x) + w(x->b)) and b->a where both arcs exist, one-way arcs staying one-way;
  parallel arcs keep the minimum. Vertices contracted in one pass are independent (no two
  adjacent), chosen by a fixed random priority, so a chain of L vertices takes O(log L)
  passes.
Weights stay integers (int64) here; the caller applies scipy's zero-weight epsilon on the
result, so costs between kept vertices, unreachable pairs included, are exactly those of
the full graph.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph import CSRGraph

# Passes stop at this many, or when one removes less than MIN_GAIN of the arcs left: on
# NE a pass costs ~0.25 s, 1% fewer arcs saves ~0.1 s per 100 searches, and passes 5-9
# removed 2%, 1%, ... of them.
MAX_PASSES = 40
MIN_GAIN = 0.03


@dataclass
class Reduced:
    """The reduced graph (CSR, int64 weights) and where each original vertex went."""

    indptr: np.ndarray  # int64 [n' + 1]
    indices: np.ndarray  # int32 [m']
    weights: np.ndarray  # int64 [m']
    new_id: np.ndarray  # int64 [n]: the reduced id, -1 for a vertex removed
    passes: int

    @property
    def num_nodes(self) -> int:
        return int(self.indptr.shape[0] - 1)


def _min_dedupe(u: np.ndarray, v: np.ndarray, w: np.ndarray, n: int):
    """One arc per (u, v), the lightest, sorted by (u, v). scipy's csr_matrix would sum
    parallel arcs, so they are merged here."""
    if u.size == 0:
        return u, v, w
    key = u * n + v
    order = np.argsort(key, kind="stable")
    key = key[order]
    first = np.empty(key.size, dtype=bool)
    first[0] = True
    np.not_equal(key[1:], key[:-1], out=first[1:])
    start = np.flatnonzero(first)
    wmin = np.minimum.reduceat(w[order], start)
    one = order[start]
    return u[one], v[one], wmin


def _merge(u, v, w, key, nu, nv, nw, n: int):
    """Arcs (u, v, w) sorted by ``key`` = u * n + v, one per key, with the arcs (nu, nv, nw)
    added, parallel ones merged to the lightest: a search and an insert instead of sorting
    all of them again (the new shortcuts are few against the arcs left)."""
    nu, nv, nw = _min_dedupe(nu, nv, nw, n)
    if nu.size == 0:
        return u, v, w, key
    nk = nu * n + nv
    at = np.searchsorted(key, nk)
    hit = at < key.size
    hit[hit] = key[at[hit]] == nk[hit]
    w = w.copy()
    w[at[hit]] = np.minimum(w[at[hit]], nw[hit])  # ``nk`` unique: one write per arc
    miss = ~hit
    at = at[miss]
    return (np.insert(u, at, nu[miss]), np.insert(v, at, nv[miss]),
            np.insert(w, at, nw[miss]), np.insert(key, at, nk[miss]))


def _neighbour_counts(u: np.ndarray, v: np.ndarray, n: int):
    """(distinct undirected neighbours per vertex, the undirected pairs a < b)."""
    a = np.minimum(u, v)
    b = np.maximum(u, v)
    pair = np.sort(a * n + b)  # sort + mask: np.unique's hash was ~6x slower here (NE)
    pair = pair[np.r_[True, pair[1:] != pair[:-1]]] if pair.size else pair
    a, b = pair // n, pair % n
    deg = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
    return deg, a, b


def _two_slots(x: np.ndarray, other: np.ndarray, w: np.ndarray, pos: np.ndarray, k: int):
    """For each chosen vertex (pos[x] in 0..k-1) its up to two arcs' other ends and weights
    as [k, 2] arrays (-1: no arc). ``x`` is sorted."""
    ends = np.full((k, 2), -1, dtype=np.int64)
    ws = np.zeros((k, 2), dtype=np.int64)
    if x.size:
        first = np.r_[True, x[1:] != x[:-1]]
        slot = (~first).astype(np.int64)  # at most two arcs per x and direction
        ends[pos[x], slot] = other
        ws[pos[x], slot] = w
    return ends, ws


def reduce_graph(g: CSRGraph, keep: np.ndarray, *, max_passes: int = MAX_PASSES,
                 seed: int = 0x5EED) -> Reduced:
    """The graph without dead ends and chains of vertices not in ``keep`` (see the module
    comment); costs between kept vertices are those of ``g``."""
    n = g.num_nodes
    u = np.repeat(np.arange(n, dtype=np.int64), np.diff(g.indptr))
    v = g.indices.astype(np.int64)
    w = g.weights.astype(np.int64)
    loop = u == v  # a self-loop is on no shortest path
    u, v, w = _min_dedupe(u[~loop], v[~loop], w[~loop], n)
    key = u * n + v
    kept = np.zeros(n, dtype=bool)
    kept[np.asarray(keep, dtype=np.int64)] = True
    prio = np.random.default_rng(seed).permutation(n)
    passes = 0
    while passes < max_passes and u.size:
        passes += 1
        m0 = u.size
        deg, a, b = _neighbour_counts(u, v, n)
        free = ~kept
        dead = free & (deg == 1)
        chain = free & (deg == 2)
        # independent chain vertices: drop the higher priority end of each chain-chain pair
        both = chain[a] & chain[b]
        ab, bb = a[both], b[both]
        chosen = chain.copy()
        chosen[np.where(prio[ab] > prio[bb], ab, bb)] = False
        xs = np.flatnonzero(chosen)
        k = xs.size
        pos = np.full(n, -1, dtype=np.int64)
        pos[xs] = np.arange(k)
        into = chosen[v]  # arcs p -> x, sorted by (p, x): sort by x
        o = np.argsort(v[into], kind="stable")
        in_x, in_p, in_w = v[into][o], u[into][o], w[into][o]
        outof = chosen[u]  # arcs x -> q, already sorted by x
        out_x, out_q, out_w = u[outof], v[outof], w[outof]
        in_end, in_ws = _two_slots(in_x, in_p, in_w, pos, k)
        out_end, out_ws = _two_slots(out_x, out_q, out_w, pos, k)
        nu, nv, nw = [u[:0]], [v[:0]], [w[:0]]
        for i in (0, 1):
            for j in (0, 1):
                p, q = in_end[:, i], out_end[:, j]
                ok = (p >= 0) & (q >= 0) & (p != q)
                nu.append(p[ok])
                nv.append(q[ok])
                nw.append(in_ws[ok, i] + out_ws[ok, j])
        gone = chosen | dead
        stay = ~(gone[u] | gone[v])
        u, v, w, key = u[stay], v[stay], w[stay], key[stay]
        cu, cv, cw = np.concatenate(nu), np.concatenate(nv), np.concatenate(nw)
        # shortcuts ending at a dead end are dropped with it (it stays a dead end)
        alive = ~(dead[cu] | dead[cv])
        u, v, w, key = _merge(u, v, w, key, cu[alive], cv[alive], cw[alive], n)
        if m0 - u.size < MIN_GAIN * m0:
            break
    # relabel: the kept vertices and those with arcs left, in their original order
    present = kept.copy()
    present[u] = True
    present[v] = True
    new_id = np.full(n, -1, dtype=np.int64)
    ids = np.flatnonzero(present)
    new_id[ids] = np.arange(ids.size)
    nu_, nv_ = new_id[u], new_id[v]  # (u, v) sorted, so nu_ is sorted too
    indptr = np.zeros(ids.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(nu_, minlength=ids.size), out=indptr[1:])
    return Reduced(indptr, nv_.astype(np.int32), w, new_id, passes)
