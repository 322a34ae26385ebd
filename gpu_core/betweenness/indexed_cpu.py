"""The sampled greedy's paths through a route index on the CPU (issue 43): the CPU twin of
``indexed_sampling`` (GPU). A PHAST sweep (``hierarchy.cpu``) gives a block of sampled
sources its costs to every vertex at once, in one reused [n, k] block read in sweep order
(taking rows out in graph order cost more than the sweep itself on NE); each pair's
shortest path is then walked back from its target over tight arcs.

Where every vertex of the walk has exactly one tight in-arc there is one shortest path, and
the per-source sampler (``cpu.sample_paths``), which picks predecessor u of x with
probability sigma_su / sigma_sx, would draw exactly it. A pair meeting a vertex with two or
more tight in-arcs (several shortest paths) is drawn from its column too: the sigma the
sampler would use are counted on the pair's s-t DAG alone (``_tied_walk``), then the same
walk with the same draws; only a tight arc of cost 0 (a zero-cost cycle may hide there)
sends a pair to the per-source sampler under its own sample number. The entries are the
sampler's, only sooner (sigma beyond 2^53, where float sums depend on their order, aside:
the sampler sums in settle order, ``_tied_walk`` in reverse-arc order).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ..hierarchy.contract import INF
from ..hierarchy.cpu import INF32, down_w32, sweep_fresh, upward_searches
from .cpu import _u01, grow_entries, sample_paths

# Bytes of the [n, k] cost block: wider blocks read the down arcs once for more columns
# (NE, 2-core CPU, shared: 88 columns ~12 ms a column, 44 columns ~19 ms); NE: 176
# columns of 32-bit costs (88 of 64-bit ones)
SAMPLE_SWEEP_BYTES = 1 << 30


@njit(cache=True, nogil=True)
def _tied_walk(d, j, rank_of, rindptr, rindices, rw, s, t, seed, gid, mark, coll, sig,
               out_s, out_v, cnt, inf):
    """The per-source sampler's path for pair j (several shortest paths) from column j:
    the s-t DAG (vertices reached back from t over tight arcs) gets its path counts sigma
    in increasing cost (Brandes' count, restricted to it: every shortest s-u path of a u
    on it lies in it), then the walk back draws as ``cpu.sample_paths`` does, with its
    draws ``_u01(seed, gid, 0, step)``. Returns (out_s, out_v, cnt); cnt = -1 where a
    tight arc costs 0 (a zero-cost cycle may hide there: the sampler's)."""
    stamp = np.int32(j + 1)
    coll[0] = t
    mark[t] = stamp
    head, tail = 0, 1
    while head < tail:
        x = coll[head]
        head += 1
        if x == s:
            continue
        dx = d[rank_of[x], j]
        for e in range(rindptr[x], rindptr[x + 1]):
            u = rindices[e]
            du = d[rank_of[u], j]
            if du < inf and du + rw[e] == dx:
                if rw[e] == 0:
                    return out_s, out_v, -1
                if mark[u] != stamp:
                    mark[u] = stamp
                    coll[tail] = u
                    tail += 1
    keys = np.empty(tail, np.int64)
    for i in range(tail):
        keys[i] = d[rank_of[coll[i]], j]
    order = np.argsort(keys)  # arcs cost > 0: a vertex's tight preds cost less
    for i in range(tail):
        x = coll[order[i]]
        if x == s:
            sig[x] = 1.0
            continue
        dx = keys[order[i]]
        acc = 0.0
        for e in range(rindptr[x], rindptr[x + 1]):
            u = rindices[e]
            du = d[rank_of[u], j]
            if du < inf and du + rw[e] == dx:
                acc += sig[u]
        sig[x] = acc
    x = t
    step = 0
    while True:
        r = _u01(seed, gid, 0, step) * sig[x]
        dx = d[rank_of[x], j]
        acc = 0.0
        pick = -1
        for e in range(rindptr[x], rindptr[x + 1]):
            u = rindices[e]
            du = d[rank_of[u], j]
            if du < inf and du + rw[e] == dx:
                acc += sig[u]
                pick = u
                if acc > r:
                    break
        x = pick
        if x == s or x < 0:
            break
        if cnt == out_s.shape[0]:
            out_s, out_v = grow_entries(out_s, out_v, cnt)
        out_s[cnt] = gid
        out_v[cnt] = x
        cnt += 1
        step += 1
    return out_s, out_v, cnt


@njit(cache=True, nogil=True)
def walk_back(d, rank_of, rindptr, rindices, rw, sources, targets, base, seed, inf):
    """(sample numbers, interior vertices, reached, ambiguous, tied) of the pairs
    (sources[j], targets[j]) from the cost columns ``d[rank_of[v], j]`` (``inf``, the
    block's INF, unreachable). A pair with several shortest paths (tied) is drawn by
    ``_tied_walk``; an
    ambiguous pair (a tight arc of cost 0) has no entries here."""
    k = sources.shape[0]
    n = d.shape[0]
    reach = np.zeros(k, np.uint8)
    amb = np.zeros(k, np.uint8)
    tied = np.zeros(k, np.uint8)
    out_s = np.empty(1024, np.int64)
    out_v = np.empty(1024, np.int32)
    mark = np.zeros(0, np.int32)  # the tied walks' scratch, made at the first
    coll = np.empty(0, np.int32)
    sig = np.empty(0, np.float64)
    cnt = 0
    for j in range(k):
        s = sources[j]
        t = targets[j]
        if t == s or d[rank_of[t], j] >= inf:
            continue
        reach[j] = 1
        start = cnt
        x = t
        while True:
            dx = d[rank_of[x], j]
            c = 0
            pick = -1
            for e in range(rindptr[x], rindptr[x + 1]):
                u = rindices[e]
                du = d[rank_of[u], j]
                if du < inf and du + rw[e] == dx:
                    c += 1
                    pick = u
            if c != 1 or cnt - start > n:  # several paths (or a zero-cost cycle)
                tied[j] = 1
                break
            x = pick
            if x == s:
                break
            if cnt == out_s.shape[0]:
                out_s, out_v = grow_entries(out_s, out_v, cnt)
            out_s[cnt] = base + j
            out_v[cnt] = x
            cnt += 1
        if tied[j]:
            if mark.shape[0] == 0:
                mark = np.zeros(n, np.int32)
                coll = np.empty(n, np.int32)
                sig = np.empty(n, np.float64)
            out_s, out_v, got = _tied_walk(d, j, rank_of, rindptr, rindices, rw, s, t,
                                           seed, base + j, mark, coll, sig, out_s, out_v,
                                           start, inf)
            if got < 0:
                amb[j] = 1
                tied[j] = 0
                cnt = start
            else:
                cnt = got
    return out_s[:cnt], out_v[:cnt], reach, amb, tied


@njit(cache=True, nogil=True)
def tied_columns(d, rank_of, rindptr, rindices, rw, sources, targets, gids, seed, inf):
    """(sample numbers, interior vertices, left) of pairs j = 0..k-1 with several shortest
    paths, drawn by ``_tied_walk`` from the cost columns ``d[rank_of[v], j]`` under their
    sample numbers ``gids[j]``: the GPU sampler's tied pairs, their columns copied here
    (``indexed_sampling``). ``left[j]`` = 1: a tight arc of cost 0, no entries (the
    per-source sampler's)."""
    k = sources.shape[0]
    n = d.shape[0]
    left = np.zeros(k, np.uint8)
    out_s = np.empty(1024, np.int64)
    out_v = np.empty(1024, np.int32)
    mark = np.zeros(n, np.int32)  # stamps j + 1: fresh for each call
    coll = np.empty(n, np.int32)
    sig = np.empty(n, np.float64)
    cnt = 0
    for j in range(k):
        out_s, out_v, got = _tied_walk(d, j, rank_of, rindptr, rindices, rw, sources[j],
                                       targets[j], seed, gids[j], mark, coll, sig, out_s,
                                       out_v, cnt, inf)
        if got < 0:
            left[j] = 1
        else:
            cnt = got
    return out_s[:cnt], out_v[:cnt], left


def warm_tied() -> None:
    """Compile (or load from numba's cache) :func:`tied_columns` for the GPU sampler's
    columns (int32 costs, C order), on a two-vertex column: its tied pairs' first call."""
    d = np.array([[0], [1]], np.int32)
    one = np.ones(1, np.int32)
    tied_columns(d, np.arange(2, dtype=np.int32), np.array([0, 0, 1], np.int32),
                 np.zeros(1, np.int32), np.ones(1, np.int64), np.zeros(1, np.int32), one,
                 np.zeros(1, np.int64), np.uint64(0), INF32)


class CpuIndexedSampler:
    """``run(srcs, tgts, seed, base)`` as :func:`sampling._sample_cpu` (T = 1): the same
    entries, every pair walked over a PHAST block of the route index (ties included; only
    a tight arc of cost 0 leaves its pair to the per-source sampler)."""

    def __init__(self, g, w, unit: bool, ri, rx, rw, hierarchy):
        self.g, self.w, self.unit = g, w, unit
        self.rev = (ri, rx, rw)
        self.h = hierarchy
        self.ambiguous = 0  # pairs drawn by the per-source sampler
        self.tied = 0  # pairs with several shortest paths drawn from their column
        self.rank_of = np.ascontiguousarray(hierarchy.rank_of, dtype=np.int32)
        # the [n, k] costs: one flat buffer for every k up to the widest (a new block per
        # shape paid its page faults again at each round's short last block)
        self._flat = np.empty(0, np.uint8)
        self._seeded = np.zeros(hierarchy.n, np.bool_)
        # 32-bit costs while the arcs allow; ``wide`` once a block's costs reached 2^30
        self.w32 = down_w32(hierarchy)
        self.wide = self.w32 is None

    def chunk_size(self, total: int) -> int:
        """Sources per sweep: the [n, k] block near ``SAMPLE_SWEEP_BYTES``, ``total`` in
        blocks of (nearly) equal width (512 in 44-column blocks left a 28-column one)."""
        per_cost = 8 if self.wide else 4
        cap = int(max(8, min(256, SAMPLE_SWEEP_BYTES // (per_cost * max(self.h.n, 1)))))
        blocks = -(-max(int(total), 1) // cap)
        return -(-max(int(total), 1) // blocks)

    def run(self, srcs: np.ndarray, tgts: np.ndarray, seed: int, base: int):
        d = self._costs(srcs)
        if d is None:  # a 32-bit block overflowed: 64 bits from now on, in halves
            self.wide = True
            half = int(srcs.shape[0]) // 2
            if half == 0:
                return self.run(srcs, tgts, seed, base)
            parts = [self.run(srcs[:half], tgts[:half], seed, base),
                     self.run(srcs[half:], tgts[half:], seed, base + half)]
            return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))
        ri, rx, rw = self.rev
        t0 = np.ascontiguousarray(tgts[:, 0])
        inf = INF if d.dtype == np.int64 else INF32
        es, ev, reach, amb, tied = walk_back(d, self.rank_of, ri, rx, rw, srcs, t0,
                                             np.int64(base), np.uint64(seed), inf)
        self.tied += int(tied.sum())
        idx = np.flatnonzero(amb)
        if idx.size == 0:
            return es, ev, reach
        self.ambiguous += int(idx.size)
        more_s, more_v = self._by_sampler(srcs, tgts, idx, seed, base)
        return np.concatenate([es, more_s]), np.concatenate([ev, more_v]), reach

    def _costs(self, srcs: np.ndarray) -> np.ndarray | None:
        """[n, k] costs from ``srcs`` by sweep id (int32, INF32 unreachable, or int64,
        INF); None where a 32-bit block met a cost of 2^30 or more."""
        k, n = int(srcs.shape[0]), self.h.n
        dtype = np.dtype(np.int64 if self.wide else np.int32)
        size = n * k * dtype.itemsize
        if self._flat.shape[0] < size:
            self._flat = np.empty(size, np.uint8)
        d = self._flat[:size].view(dtype).reshape(n, k)
        offsets, verts, dists = upward_searches(self.h, self.rank_of[srcs])
        if not sweep_fresh(d, self.h, offsets, verts, dists, self._seeded, self.w32):
            return None
        return d

    def flush(self, seed: int) -> None:
        """Nothing deferred: :meth:`run` draws its ambiguous pairs itself."""
        return None

    def _by_sampler(self, srcs, tgts, idx, seed, base):
        """The per-source sampler's entries for pairs ``idx`` (each under its own sample
        number base + j), split over the cores (it releases the GIL)."""
        g, (ri, rx, rw) = self.g, self.rev

        def one(j: int):
            return sample_paths(g.indptr, g.indices, self.w, self.unit, ri, rx, rw,
                                srcs[j : j + 1], tgts[j : j + 1], np.uint64(seed),
                                base + int(j))[:2]

        workers = max(1, min(os.cpu_count() or 1, int(idx.size)))
        if workers == 1:
            parts = [one(int(j)) for j in idx]
        else:
            with ThreadPoolExecutor(workers) as pool:
                parts = list(pool.map(one, (int(j) for j in idx)))
        return (np.concatenate([p[0] for p in parts]),
                np.concatenate([p[1] for p in parts]))
