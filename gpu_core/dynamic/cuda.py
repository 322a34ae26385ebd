"""The mutable graph on the GPU (kernels in ``dynamic.cu``): device copies of the host
arrays of ``cpu.HostArcs``, updated in place by each batch's net changes, and the
compaction to CSR on the device.

A batch costs one host-to-device copy (ids, states, weights of the touched arcs, ends of
the inserted ones, packed in one int64 buffer, pinned and kept between batches) and two
launches; capacity grows on the device (a device copy into a larger array) when the
host's did. Every allocation is
checked first (``device.memory``); CuPy's OOM becomes GpuOutOfMemoryError.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..device import get_kernel, memory
from ..graph import CSRGraph
from .layout import ARC_DELETED, ARC_LIVE, sorted_csr

HERE = Path(__file__).resolve().parent
BLOCK = 256


def _kernel(name: str):
    return get_kernel(HERE / "dynamic.cu", name)


def _grid(count: int) -> tuple[int]:
    return (max(1, (int(count) + BLOCK - 1) // BLOCK),)


class DeviceArcs:
    """Device arrays mirroring a HostArcs (same ids, same capacity)."""

    def __init__(self, host):
        import cupy as cp

        self.cp = cp
        cap, ncap = host.arc_capacity, host.node_capacity
        need = cap * (4 * 3 + 1 + 8) + ncap * 8 + (host.n0 + 1) * 8
        memory.ensure_free(need, "the mutable device graph")
        with memory.oom_as_typed("the mutable device graph", need):
            self.tail = cp.asarray(host.tail)
            self.head = cp.asarray(host.head)
            self.weight = cp.asarray(host.weight)
            self.state = cp.asarray(host.state)
            self.next_extra = cp.asarray(host.next_extra)
            self.first_extra = cp.asarray(host.first_extra)
            self.base_indptr = cp.asarray(host.base_indptr)
        self.n0 = host.n0
        self.n, self.total = host.n, host.total
        self._stage = self._buf = None  # a batch's pinned host buffer and its device twin

    def _staging(self, size: int):
        """(pinned host int64 view, device int64 array) of at least ``size`` items, kept
        between batches: a pinned source copies at full speed and neither side is
        allocated again for a batch no larger than the last."""
        cp = self.cp
        if self._buf is None or self._buf.size < size:
            cap = max(size, 2 * (0 if self._buf is None else self._buf.size), 4096)
            memory.ensure_free(cap * 8, "an edit batch")
            with memory.oom_as_typed("an edit batch", cap * 8):
                mem = cp.cuda.alloc_pinned_memory(cap * 8)
                self._stage = np.frombuffer(mem, np.int64, cap)
                self._buf = cp.empty(cap, cp.int64)
        return self._stage[:size], self._buf[:size]

    def _grow(self, host) -> None:
        cp = self.cp
        cap, ncap = host.arc_capacity, host.node_capacity
        old_cap, old_ncap = int(self.tail.shape[0]), int(self.first_extra.shape[0])
        need = (cap > old_cap) * cap * 21 + (ncap > old_ncap) * ncap * 8
        if not need:
            return
        memory.ensure_free(need, "a larger mutable device graph")

        def grown(a, size, fill):
            out = cp.full(size, fill, dtype=a.dtype)
            out[: a.shape[0]] = a
            return out

        with memory.oom_as_typed("a larger mutable device graph", need):
            if cap > old_cap:
                self.tail, self.head, self.weight = (grown(a, cap, 0) for a in
                                                     (self.tail, self.head, self.weight))
                self.state = grown(self.state, cap, ARC_DELETED)
                self.next_extra = grown(self.next_extra, cap, -1)
            if ncap > old_ncap:
                self.first_extra = grown(self.first_extra, ncap, -1)

    def sync(self, host, summary) -> None:
        """Apply a validated batch's net changes (``summary``) to the device arrays."""
        self._grow(host)
        ins = summary.inserted
        a, j = int(summary.arcs.size), int(ins.size)
        k = a + j
        if k:
            # one buffer: ids, states, weights (the summary's new values, then the inserted
            # arcs'), tails and heads of the inserted arcs; no second gather of the arcs
            packed, buf = self._staging(3 * k + 2 * j)
            packed[:a], packed[a:k] = summary.arcs, ins
            packed[k:k + a], packed[k + a:2 * k] = summary.new_state, host.state[ins]
            packed[2 * k:2 * k + a] = summary.new_weight
            packed[2 * k + a:3 * k] = host.weight[ins]
            packed[3 * k:3 * k + j], packed[3 * k + j:] = host.tail[ins], host.head[ins]
            buf.set(packed)  # pinned -> device, synchronous: the staging can be reused
            if j:
                _kernel("dyn_insert")(_grid(j), (BLOCK,), (
                    np.int64(j), np.int64(int(ins[0])), buf[3 * k:], buf[3 * k + j:],
                    self.tail, self.head, self.first_extra, self.next_extra))
            _kernel("dyn_scatter")(_grid(k), (BLOCK,), (
                np.int64(k), buf, buf[k:], buf[2 * k:], self.state, self.weight))
        self.n, self.total = host.n, host.total

    def live_out_degree(self):
        """int64 device array: live out-arcs per vertex, walked through the device lists."""
        cp = self.cp
        out = cp.zeros(max(self.n, 1), dtype=cp.int64)
        _kernel("dyn_live_out_degree")(_grid(self.n), (BLOCK,), (
            np.int64(self.n), np.int64(self.n0), self.base_indptr, self.first_extra,
            self.next_extra, self.state, out))
        return out[: self.n]

    def compact_device(self):
        """(indptr, indices, weights, arc ids) as CuPy arrays; see ``layout.sorted_csr``."""
        cp = self.cp
        k = self.total
        memory.ensure_free(k * 64 + (self.n + 1) * 16, "the compacted graph")
        with memory.oom_as_typed("the compacted graph", k * 64):
            ids = cp.flatnonzero(self.state[:k] == ARC_LIVE)
            return sorted_csr(cp, self.n, ids, self.tail[ids], self.head[ids],
                              self.weight[ids])

    def compact_host(self) -> tuple[CSRGraph, np.ndarray]:
        indptr, indices, weights, ids = self.compact_device()
        return CSRGraph(indptr.get(), indices.get(), weights.get()), ids.get()
