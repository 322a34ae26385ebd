"""The sampled greedy's paths through a route index (GPU): GPHAST sweeps give each batch
of sampled sources its costs to every vertex at once, and ``sample_walk.cu`` walks each
pair's shortest path back from its target. Pairs with several shortest paths go to the
per-source sampler (``CudaSampler``) under their own sample numbers, so every pair gets
exactly the path the sampler alone would draw: the result is the same, only faster on
road maps with varied arc lengths, where most shortest paths are unique.

Imported only when CuPy is usable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..device.arrays import concat, gather_columns
from ..hierarchy.cpu import INF32
from ..hierarchy.cuda import INF, Sweeper, resident_width
from .cuda import CudaSampler, _module
from .indexed_cpu import tied_columns

# Tied pairs' columns copied to the host at a time (n x 4 or 8 bytes each: 6 MB on NE),
# into page-locked memory of at most TIED_PINNED bytes (fewer columns a copy on a bigger
# map). From pageable memory a 64-column copy ran at ~4.4 GB/s on an H100 host: 1.6 s of
# NE's 4 s K=20 run (issue 43); page-locked copies run at the link's speed.
TIED_COLUMNS = 64
TIED_PINNED = 512 << 20


class IndexedSampler:
    """``run(srcs, tgts, seed, base)`` like :class:`CudaSampler.run` (T = 1), then
    ``flush(seed)`` for the pairs it left to the per-source sampler."""

    def __init__(self, g, w, ri, rx, rw, hierarchy):
        import cupy as cp

        self.cp = cp
        self.n = g.num_nodes
        self.h = hierarchy
        # the sweep block first: the per-source sampler sizes its scratch by what is left
        self.K = resident_width(hierarchy, 0, 1 << 30)
        self.sweeper = Sweeper(hierarchy, self.K)
        self.rank_of = cp.asarray(hierarchy.rank_of.astype(np.int32))
        self.rank_host = np.ascontiguousarray(hierarchy.rank_of, dtype=np.int32)
        self.rev_host = (ri, rx, rw)
        self.fallback = CudaSampler(g, w, ri, rx, rw)
        self.mod = _module("sample_walk.cu")
        self.cap_per_sample = 2048
        self.ambiguous = 0  # pairs handed to the per-source sampler
        self.tied = 0  # pairs with several shortest paths drawn from their column
        self.pending: list = []  # (sources, targets, sample numbers) of those pairs
        self._pinned: Any = None  # page-locked host memory for tied columns (made at first use)
        self._pinned_bytes = 0

    def chunk_size(self, total: int) -> int:
        return self.K

    def run(self, srcs: np.ndarray, tgts: np.ndarray, seed: int, base: int):
        cp = self.cp
        ns = int(srcs.shape[0])
        fb = self.fallback
        self.sweeper.sweep(srcs)
        d_src = cp.asarray(srcs, dtype=cp.int32)
        d_tgt = cp.asarray(np.ascontiguousarray(tgts[:, 0]), dtype=cp.int32)
        reach = cp.zeros(ns, dtype=cp.uint8)
        amb = cp.zeros(ns, dtype=cp.uint8)
        while True:
            cap = ns * self.cap_per_sample
            out_s = cp.empty(cap, dtype=cp.int64)
            out_v = cp.empty(cap, dtype=cp.int32)
            counter = cp.zeros(1, dtype=cp.uint64)
            name = "sample_walk32" if self.sweeper.d.dtype == cp.int32 else "sample_walk"
            self.mod.get_function(name)(((ns + 127) // 128,), (128,),
                      (self.sweeper.d, np.int32(self.K), self.rank_of, fb.rindptr,
                       fb.rindices, fb.rw, d_src, d_tgt, np.int32(ns), np.int32(self.n),
                       np.int64(base), out_s, out_v, np.int64(cap), counter, reach, amb))
            used = int(counter.get()[0])
            if used <= cap:
                break
            self.cap_per_sample = -(-used // ns) * 2
        es, ev = out_s[:used], out_v[:used]
        idx = np.flatnonzero(cp.asnumpy(amb))
        if idx.size:
            t_s, t_v, left = self._tied(idx, srcs, tgts, seed, base)
            self.tied += int(idx.size - left.size)
            if t_s.size:
                es, ev = concat(cp, [es, t_s], np.int64), concat(cp, [ev, t_v], np.int32)
            if left.size:  # searched at the end, together: the sampler wants many in flight
                self.pending.append((srcs[left], tgts[left], base + left))
        return es, ev, reach  # reach: t != s and t reachable

    def _tied(self, idx: np.ndarray, srcs: np.ndarray, tgts: np.ndarray, seed: int,
              base: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Host entries of the tied pairs ``idx`` (columns of the last sweep) and the
        pairs among them left to the per-source sampler (a tight arc of cost 0)."""
        cp = self.cp
        block = self.sweeper.d
        inf = INF32 if block.dtype == cp.int32 else np.int64(INF)
        ri, rx, rw = self.rev_host
        parts_s, parts_v, left = [], [], []
        item = np.dtype(block.dtype).itemsize
        step = max(1, min(TIED_COLUMNS, TIED_PINNED // max(self.n * item, 1)))
        for lo in range(0, int(idx.size), step):
            sel = idx[lo:lo + step]
            cols = self._host_columns(block, sel)  # [n, len(sel)], C order
            e_s, e_v, bad = tied_columns(
                cols, self.rank_host, ri, rx, rw, np.ascontiguousarray(srcs[sel], np.int32),
                np.ascontiguousarray(tgts[sel, 0], np.int32), (base + sel).astype(np.int64),
                np.uint64(seed), inf)
            parts_s.append(e_s)
            parts_v.append(e_v)
            left.append(sel[bad.astype(bool)])
        return (np.concatenate(parts_s), np.concatenate(parts_v),
                np.concatenate(left).astype(np.int64))

    def _host_columns(self, block, sel: np.ndarray) -> np.ndarray:
        """Columns ``sel`` of the sweep block on the host, in page-locked memory (reused:
        valid until the next call)."""
        cp = self.cp
        got = gather_columns(cp, block, self.n, self.K, sel)
        if self._pinned_bytes < got.nbytes:
            self._pinned = cp.cuda.alloc_pinned_memory(got.nbytes)
            self._pinned_bytes = got.nbytes
        out = np.frombuffer(self._pinned, got.dtype, got.size).reshape(got.shape)
        return got.get(out=out)

    def flush(self, seed: int):
        """Entries of the pairs with several shortest paths, sampled by the per-source
        sampler under their own sample numbers (their reach was already counted)."""
        cp = self.cp
        if not self.pending:
            return cp.zeros(0, cp.int64), cp.zeros(0, cp.int32)
        srcs = np.concatenate([p[0] for p in self.pending])
        tgts = np.concatenate([p[1] for p in self.pending])
        gids = np.concatenate([p[2] for p in self.pending])
        self.pending = []
        self.ambiguous += int(srcs.shape[0])
        step = self.fallback.chunk_size(int(srcs.shape[0]))
        parts_s, parts_v = [], []
        for lo in range(0, srcs.shape[0], step):
            es, ev, _ = self.fallback.run(srcs[lo : lo + step], tgts[lo : lo + step], seed, 0,
                                          gids=gids[lo : lo + step])
            parts_s.append(es)
            parts_v.append(ev)
        return concat(cp, parts_s, np.int64), concat(cp, parts_v, np.int32)
