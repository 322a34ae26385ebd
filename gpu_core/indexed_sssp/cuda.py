"""CUDA side of the indexed one-to-all search: the upward search on the host (numba, a
few hundred vertices), then ``one_to_all.cu``'s single cooperative launch (scatter, the
sweep as a dataflow without level barriers, keys and predecessors in the graph's ids),
then the downloads of key and pred into pinned host arrays, the distances made from the
keys while pred is still on its way.

Device buffers (the hierarchy's downward graph, the graph's in-arcs, ``up``/``d``/``key``/
``pred``) are made once per (index, graph, device) and reused by every call. The result
arrays are pinned host memory recycled once no result references them (the download
runs at the pinned rate and never touches fresh pages). Imported only when CuPy is usable.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import cupy as cp
import numpy as np

from ..device import get_kernel, memory
from ..host.distances import dist_from_keys
from .cpu import CpuOneToAll, reset
from .groups import level_groups

_SRC = Path(__file__).resolve().with_name("one_to_all.cu")
BLOCK = 256
BLOCKS_PER_SM = 4  # NE on an H100: 0.80 ms (4), 1.08 (2), 1.43 (1): more lanes waiting at once
INF = 1 << 62
POOL = 4  # result triples kept: pinned key and pred, a dist array


def device_id() -> int:
    return memory.current_device_id()


class CudaOneToAll:
    """The device state of one (key hierarchy, graph) pair on the current device."""

    def __init__(self, h, host: CpuOneToAll):
        self.device = device_id()
        self.h = h
        self.host = host  # the pair's CPU engine: its upward search and vertex order
        lay = host.h  # cpu.Layout
        rptr, rsrc, rw = host.rptr, host.rsrc, host.rw
        n, m_down, m = h.n, int(h.down_src.shape[0]), int(rsrc.shape[0])
        need = (8 * (n + 1) + 12 * m_down + 8 * (n + 1) + 8 * m + 8 * 4 * n + 4 * n
                + 8 * h.level_ptr.shape[0])
        memory.ensure_free(need, "the indexed search's device buffers")
        with memory.oom_as_typed("the indexed search's device buffers", need):
            self.level_ptr = cp.asarray(lay.level_ptr.astype(np.int64))
            self.down_ptr = cp.asarray(lay.down_ptr.astype(np.int64))
            self.down_src = cp.asarray(lay.down_src.astype(np.int32))
            self.down_w = cp.asarray(lay.down_w.astype(np.int64))
            self.rank_of = cp.asarray(lay.rank_of.astype(np.int32))
            self.rptr = cp.asarray(rptr.astype(np.int64))
            self.rsrc = cp.asarray(rsrc)
            self.rw = cp.asarray(rw)
            self.up = cp.full(n, INF, dtype=cp.int64)
            self.d = cp.empty(n, dtype=cp.int64)
            self.key = cp.empty(n, dtype=cp.int64)
            self.pred = cp.empty(n, dtype=cp.int32)
            self.up_vert = cp.empty(max(n, 1), dtype=cp.int32)
            self.up_cost = cp.empty(max(n, 1), dtype=cp.int64)
            self.bar = cp.zeros(2, dtype=cp.uint32)
            self.times = cp.zeros(h.levels + 3, dtype=cp.uint64)
        self.kern = get_kernel(_SRC, "ota_search", cooperative=True)
        sms = cp.cuda.Device().attributes["MultiProcessorCount"]
        regs = max(1, int(self.kern.num_regs))
        per_sm = max(1, min(BLOCKS_PER_SM, 2048 // BLOCK, 65536 // (regs * BLOCK)))
        self.grid = sms * per_sm
        self._set_groups()
        self.min_grid = sms
        self.pool: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.lock = threading.Lock()  # one search at a time on these buffers

    def _set_groups(self) -> None:
        """Lanes per vertex of each level for the current grid (``groups.level_groups``)."""
        lay = self.host.h
        lanes = np.full(self.h.levels, self.grid * BLOCK, np.int64)
        self.level_g = cp.asarray(level_groups(lay.level_ptr, lay.down_ptr, lanes))

    def _results(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(key, pred) pinned and dist host arrays no result references any more (the
        pool's entries are free when only the pool holds them), or new ones."""
        for trip in self.pool:
            if (sys.getrefcount(trip[0]) == _FREE and sys.getrefcount(trip[1]) == _FREE
                    and sys.getrefcount(trip[2]) == _FREE):
                return trip
        mk = cp.cuda.alloc_pinned_memory(8 * n)
        mp = cp.cuda.alloc_pinned_memory(4 * n)
        dist = np.empty(n, np.int64)
        dist.fill(0)  # its pages now, not on the first search's pass
        trip = (np.frombuffer(mk, np.int64, n), np.frombuffer(mp, np.int32, n), dist)
        if len(self.pool) < POOL:
            self.pool.append(trip)
        return trip

    def run(self, sources: np.ndarray, hb: int, unreachable: int):
        """(key, pred, dist, telemetry row values) of one search from ``sources``."""
        with self.lock:
            return self._run(sources, hb, unreachable)

    def _run(self, sources: np.ndarray, hb: int, unreachable: int):
        h, eng = self.h, self.host
        n = h.n
        t0 = time.perf_counter()
        with eng.lock:
            reached, arcs = eng.upward(sources)
            verts = eng.touched[:reached].copy()
            costs = eng.up[verts]
            reset(eng.up, eng.touched, reached)
        self.up_vert[:reached].set(verts)
        self.up_cost[:reached].set(costs)
        up_us = (time.perf_counter() - t0) * 1e6
        args = (self.level_ptr, self.level_g, np.int32(h.levels), self.down_ptr,
                self.down_src,
                self.down_w, self.up_vert, self.up_cost, np.int32(reached), self.up, self.d,
                self.rank_of, np.int32(n), self.rptr, self.rsrc, self.rw, np.int32(hb),
                self.key, self.pred, self.bar, self.times)
        self._launch(args)
        key, pred, dist = self._results(n)
        stream = cp.cuda.get_current_stream()
        self.key.get(out=key, stream=stream, blocking=False)  # after the kernel, in order
        keys_here = stream.record()
        self.pred.get(out=pred, stream=stream, blocking=False)
        keys_here.synchronize()
        dist_from_keys(key, hb, unreachable, out=dist)  # while pred downloads
        stamps = self.times.get(stream=stream).astype(np.int64)  # waits for pred too
        level_us = np.diff(stamps[1 : h.levels + 2]) / 1e3
        pred_us = (stamps[h.levels + 2] - stamps[h.levels + 1]) / 1e3 if h.levels else 0.0
        return key, pred, dist, (reached, arcs, up_us, level_us, pred_us)

    def _launch(self, args) -> None:
        while True:
            try:
                self.kern((self.grid,), (BLOCK,), args)
                return
            except cp.cuda.driver.CUDADriverError as exc:
                # fewer blocks when the device refuses the cooperative grid as too large
                if "TOO_LARGE" in str(exc) and self.grid > self.min_grid:
                    self.grid = max(self.min_grid, self.grid // 2)
                    self._set_groups()
                    args = (args[0], self.level_g, *args[2:])
                    continue
                raise


# the reference count of a pool entry that only the pool (a list of tuples) holds
_probe = [(np.empty(1, np.int64), np.empty(1, np.int32), np.empty(1, np.int64))]
_FREE = sys.getrefcount(_probe[0][0])
