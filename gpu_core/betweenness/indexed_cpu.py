"""The sampled greedy's paths through a route index on the CPU (issue 43): the CPU twin of
``indexed_sampling`` (GPU). A PHAST sweep (``hierarchy.cpu``) gives a block of sampled
sources its costs to every vertex at once, in one reused [n, k] block read in sweep order
(taking rows out in graph order cost more than the sweep itself on NE); each pair's
shortest path is then walked back from its target over tight arcs.

Where every vertex of the walk has exactly one tight in-arc there is one shortest path, and
the per-source sampler (``cpu.sample_paths``), which picks predecessor u of x with
probability sigma_su / sigma_sx, would draw exactly it. A pair meeting a vertex with two or
more tight in-arcs (several shortest paths, or a zero-cost cycle) is drawn by that sampler
under its own sample number: the entries are the sampler's, only sooner.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ..hierarchy.api import CPU_SWEEP_BYTES
from ..hierarchy.contract import INF
from ..hierarchy.cpu import sweep, upward_searches
from .cpu import grow_entries, sample_paths


@njit(cache=True, nogil=True)
def walk_back(d, rank_of, rindptr, rindices, rw, sources, targets, base):
    """(sample numbers, interior vertices, reached, ambiguous) of the pairs
    (sources[j], targets[j]) from the cost columns ``d[rank_of[v], j]`` (``INF``
    unreachable); an ambiguous pair has no entries here."""
    k = sources.shape[0]
    n = d.shape[0]
    reach = np.zeros(k, np.uint8)
    amb = np.zeros(k, np.uint8)
    out_s = np.empty(1024, np.int64)
    out_v = np.empty(1024, np.int32)
    cnt = 0
    for j in range(k):
        s = sources[j]
        t = targets[j]
        if t == s or d[rank_of[t], j] >= INF:
            continue
        reach[j] = 1
        start = cnt
        x = t
        step = 0
        while True:
            if step > n:  # a zero-cost cycle: the sampler's choice
                amb[j] = 1
                break
            dx = d[rank_of[x], j]
            c = 0
            pick = -1
            for e in range(rindptr[x], rindptr[x + 1]):
                u = rindices[e]
                du = d[rank_of[u], j]
                if du < INF and du + rw[e] == dx:
                    c += 1
                    pick = u
            if c != 1:
                amb[j] = 1
                break
            x = pick
            if x == s:
                break
            if cnt == out_s.shape[0]:
                out_s, out_v = grow_entries(out_s, out_v, cnt)
            out_s[cnt] = base + j
            out_v[cnt] = x
            cnt += 1
            step += 1
        if amb[j]:
            cnt = start
    return out_s[:cnt], out_v[:cnt], reach, amb


class CpuIndexedSampler:
    """``run(srcs, tgts, seed, base)`` as :func:`sampling._sample_cpu` (T = 1): the same
    entries, the unambiguous pairs walked over a PHAST block of the route index."""

    def __init__(self, g, w, unit: bool, ri, rx, rw, hierarchy):
        self.g, self.w, self.unit = g, w, unit
        self.rev = (ri, rx, rw)
        self.h = hierarchy
        self.ambiguous = 0  # pairs drawn by the per-source sampler
        self.rank_of = np.ascontiguousarray(hierarchy.rank_of, dtype=np.int32)
        self._block = np.empty((0, 0), np.int64)  # the [n, k] costs, reused between blocks

    def chunk_size(self, total: int) -> int:
        """Sources per sweep: the [n, k] block near ``CPU_SWEEP_BYTES``."""
        by_memory = CPU_SWEEP_BYTES // (8 * max(self.h.n, 1))
        return int(max(8, min(256, by_memory, total)))

    def run(self, srcs: np.ndarray, tgts: np.ndarray, seed: int, base: int):
        d = self._costs(srcs)
        ri, rx, rw = self.rev
        t0 = np.ascontiguousarray(tgts[:, 0])
        es, ev, reach, amb = walk_back(d, self.rank_of, ri, rx, rw, srcs, t0, np.int64(base))
        idx = np.flatnonzero(amb)
        if idx.size == 0:
            return es, ev, reach
        self.ambiguous += int(idx.size)
        more_s, more_v = self._by_sampler(srcs, tgts, idx, seed, base)
        return np.concatenate([es, more_s]), np.concatenate([ev, more_v]), reach

    def _costs(self, srcs: np.ndarray) -> np.ndarray:
        """[n, k] costs from ``srcs`` by sweep id (``INF`` unreachable)."""
        k = int(srcs.shape[0])
        if self._block.shape != (self.h.n, k):
            self._block = np.empty((self.h.n, k), np.int64)
        d = self._block
        d.fill(INF)
        offsets, verts, dists = upward_searches(self.h, self.rank_of[srcs])
        d[verts, np.repeat(np.arange(k), np.diff(offsets))] = dists
        sweep(d, self.h)
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
