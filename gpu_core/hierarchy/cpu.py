"""CPU side of the contraction hierarchy: the upward searches (numba, parallel over
sources) that both backends use, and the PHAST downward sweep for the CPU backend.

Vertex ids here are the hierarchy's sweep order (``Hierarchy.order``): every downward arc
goes from a smaller id to a larger one, so one pass over the ids in increasing order, each
vertex pulling from its in-arcs, completes every distance (Delling et al., PHAST).
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from ..host.heap import pop_min, sift_up
from .contract import INF


@njit(cache=True, nogil=True)
def _settle(size, nt, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos):
    """Dijkstra in the upward graph from the ``size`` entries already in the heap (their
    vertices the first ``nt`` of ``touched``); returns (vertices reached, arcs scanned)."""
    arcs = 0
    while size > 0:
        d, x, size = pop_min(hk, hv, pos, False, size)
        if d > dist[x]:
            continue
        arcs += up_ptr[x + 1] - up_ptr[x]
        for e in range(up_ptr[x], up_ptr[x + 1]):
            y = up_dst[e]
            nd = d + up_w[e]
            if nd < dist[y]:
                if dist[y] == INF:
                    touched[nt] = y
                    nt += 1
                dist[y] = nd
                sift_up(hk, hv, pos, False, size, nd, np.int32(y))
                size += 1
    return nt, arcs


@njit(cache=True, nogil=True)
def upward(src, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos):
    """Dijkstra from every vertex of ``src`` (sweep ids, cost 0) in the upward graph;
    ``dist`` (INF outside the search) receives the costs. Returns (vertices reached, arcs
    scanned); their ids are ``touched[:reached]`` (the caller resets ``dist``)."""
    nt = 0
    size = 0
    for i in range(src.shape[0]):
        s = src[i]
        if dist[s] != 0:
            dist[s] = 0
            touched[nt] = s
            nt += 1
            sift_up(hk, hv, pos, False, size, np.int64(0), np.int32(s))
            size += 1
    return _settle(size, nt, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos)


@njit(cache=True)
def _upward_one(s, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos):
    """Dijkstra from s in the upward graph; returns how many vertices it reached (their ids
    in ``touched``, distances in ``dist``; the caller resets ``dist``)."""
    touched[0] = s
    dist[s] = 0
    sift_up(hk, hv, pos, False, 0, np.int64(0), np.int32(s))
    return _settle(1, 1, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos)[0]


@njit(cache=True, parallel=True)
def _upward_many(sources, up_ptr, up_dst, up_w, n, counts, verts, dists, offsets, fill,
                 nthreads):
    """Two passes (``fill`` False: count; True: write at ``offsets``) over all sources."""
    per = (sources.shape[0] + nthreads - 1) // nthreads
    m = up_dst.shape[0]
    for t in prange(nthreads):
        dist = np.full(n, INF, np.int64)
        touched = np.empty(n, np.int32)
        hk = np.empty(m + 1, np.int64)
        hv = np.empty(m + 1, np.int32)
        pos = np.empty(1, np.int64)
        for i in range(t * per, min(sources.shape[0], (t + 1) * per)):
            nt = _upward_one(sources[i], up_ptr, up_dst, up_w, dist, touched, hk, hv, pos)
            if fill:
                o = offsets[i]
                for k in range(nt):
                    verts[o + k] = touched[k]
                    dists[o + k] = dist[touched[k]]
            else:
                counts[i] = nt
            for k in range(nt):
                dist[touched[k]] = INF


def upward_searches(h, sources: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each source (sweep ids): (offsets [S+1], vertices, distances) of its upward
    search space, concatenated."""
    src = np.ascontiguousarray(sources, dtype=np.int32)
    S = src.shape[0]
    counts = np.zeros(S, np.int64)
    empty_i = np.empty(0, np.int32)
    empty_d = np.empty(0, np.int64)
    nth = max(1, min(get_num_threads(), S))
    _upward_many(src, h.up_ptr, h.up_dst, h.up_w, h.n, counts, empty_i, empty_d,
                 np.empty(0, np.int64), False, nth)
    offsets = np.zeros(S + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    verts = np.empty(int(offsets[-1]), np.int32)
    dists = np.empty(int(offsets[-1]), np.int64)
    _upward_many(src, h.up_ptr, h.up_dst, h.up_w, h.n, counts, verts, dists, offsets, True,
                 nth)
    return offsets, verts, dists


@njit(cache=True, parallel=True)
def _sweep(d, down_ptr, down_src, down_w, lanes):
    """d [n, k]: each thread sweeps every vertex for its ``lanes`` columns."""
    n, k = d.shape
    nblk = (k + lanes - 1) // lanes
    for b in prange(nblk):
        j0 = b * lanes
        j1 = min(k, j0 + lanes)
        for v in range(n):
            for e in range(down_ptr[v], down_ptr[v + 1]):
                u = down_src[e]
                w = down_w[e]
                for j in range(j0, j1):
                    c = d[u, j] + w
                    if c < d[v, j]:
                        d[v, j] = c


def sweep_block(h, sources: np.ndarray, targets: np.ndarray | None) -> np.ndarray:
    """int64 [len(sources), cols] costs (-1 unreachable) for sources/targets given in the
    graph's own ids."""
    k = int(sources.shape[0])
    offsets, verts, dists = upward_searches(h, h.rank_of[sources])
    d = np.full((h.n, k), INF, np.int64)
    col = np.repeat(np.arange(k), np.diff(offsets))
    d[verts, col] = dists
    lanes = max(1, -(-k // max(1, get_num_threads())))
    _sweep(d, h.down_ptr, h.down_src, h.down_w, min(lanes, 16))
    rows = h.rank_of if targets is None else h.rank_of[targets]
    out = d[rows].T
    return np.where(out >= INF, -1, out)
