"""The mutable graph on the GPU (kernels in ``dynamic.cu``): device copies of the host
arrays of ``cpu.HostArcs``, each batch validated and applied in place on the device, and
the compaction to CSR on the device.

A batch costs one host-to-device copy (the edits packed in one int64 buffer, pinned and
kept between batches), three launches (checks, in-batch deletes, apply) and one wait,
for the first invalid edit's index the last launch writes to host-mapped memory; nothing
else is read back. Capacity grows on the device (a device copy into a larger array)
when the host's did. Every allocation is checked first (``device.memory``); CuPy's OOM
becomes GpuOutOfMemoryError.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

import numpy as np

from ..device import get_kernel, memory
from ..graph import CSRGraph
from .layout import ARC_DELETED, ARC_LIVE, sorted_csr

HERE = Path(__file__).resolve().parent
BLOCK = 256
# per arc id: tail, head, weight (int32), state (uint8), next_extra (int64) and the three
# uint64 stamps of the device validation (S, W, D in dynamic.cu)
ARC_BYTES = 4 * 3 + 1 + 8 + 3 * 8
_UNSET = 0xFFFFFFFFFFFFFFFF  # the host-mapped result word before the apply launch wrote it


def _kernel(name: str):
    return get_kernel(HERE / "dynamic.cu", name)


def _grid(count: int) -> tuple[int]:
    return (max(1, (int(count) + BLOCK - 1) // BLOCK),)


def batch_words(k: int, ji: int, jv: int) -> int:
    """int64 words of a packed batch of k edits, ji inserts, jv added vertices."""
    return 3 * k + ji + jv + (k + 7) // 8


class DeviceArcs:
    """Device arrays mirroring a HostArcs (same ids, same capacity)."""

    def __init__(self, host):
        import cupy as cp

        self.cp = cp
        cap, ncap = host.arc_capacity, host.node_capacity
        need = cap * ARC_BYTES + ncap * 8 + (host.n0 + 1) * 8
        memory.ensure_free(need, "the mutable device graph")
        with memory.oom_as_typed("the mutable device graph", need):
            self.tail = cp.asarray(host.tail)
            self.head = cp.asarray(host.head)
            self.weight = cp.asarray(host.weight)
            self.state = cp.asarray(host.state)
            self.next_extra = cp.asarray(host.next_extra)
            self.first_extra = cp.asarray(host.first_extra)
            self.base_indptr = cp.asarray(host.base_indptr)
            # last state writer, last weight writer, first delete of each id (stamped)
            self.stamps = cp.zeros((3, cap), dtype=cp.uint64)
            self.err = cp.zeros(1, dtype=cp.uint64)
        self.n0 = host.n0
        self.n, self.total = host.n, host.total
        self.epoch = 0  # batches sent to the device (the stamps' high word)
        # the apply launch's result word: pinned host memory, mapped at the same address
        # under unified addressing, so no copy back is queued
        self._result_mem = cp.cuda.alloc_pinned_memory(8)
        self._result = np.frombuffer(self._result_mem, np.uint64, 1)
        # a batch's pinned words (numpy view of _stage_mem), their device twin (CuPy)
        self._stage: np.ndarray | None = None
        self._stage_mem: Any = None
        self._buf: Any = None

    def staging(self, words: int) -> tuple[np.ndarray, Any]:
        """(pinned host int64 view, device int64 array) of at least ``words`` items, kept
        between batches: a pinned source copies at full speed, asynchronously, and neither
        side is allocated again for a batch no larger than the last. The caller must not
        write the host view while a batch that was packed in it is being applied."""
        cp = self.cp
        if self._buf is None or self._buf.size < words:
            # 512 KB at least: a 10,000-edit batch fits the first buffer
            cap = max(words, 2 * (0 if self._buf is None else self._buf.size), 1 << 16)
            memory.ensure_free(cap * 8, "an edit batch")
            with memory.oom_as_typed("an edit batch", cap * 8):
                self._stage = self._buf = None  # the old pair goes first
                self._stage_mem = cp.cuda.alloc_pinned_memory(cap * 8)
                self._stage = np.frombuffer(self._stage_mem, np.int64, cap)
                self._buf = cp.empty(cap, cp.int64)
        assert self._stage is not None  # made with _buf just above
        return self._stage[:words], self._buf[:words]

    def grow(self, arc_capacity: int, node_capacity: int) -> None:
        """Match the host's capacity (ids never move: a copy into larger arrays)."""
        cp = self.cp
        cap, ncap = arc_capacity, node_capacity
        old_cap, old_ncap = int(self.tail.shape[0]), int(self.first_extra.shape[0])
        need = (cap > old_cap) * cap * ARC_BYTES + (ncap > old_ncap) * ncap * 8
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
                self.stamps = None
                self.stamps = cp.zeros((3, cap), dtype=cp.uint64)  # any old stamp is stale
            if ncap > old_ncap:
                self.first_extra = grown(self.first_extra, ncap, -1)

    def apply_packed(self, k: int, ji: int, jv: int) -> int:
        """Validate and apply the batch packed in the staging buffer (``k`` edits, ``ji``
        inserts, ``jv`` added vertices; see ``dynamic.cu``) against the arrays as they are.
        Returns -1 when it was applied, else the index of its first invalid edit (then
        nothing was written)."""
        cp = self.cp
        words = batch_words(k, ji, jv)
        _, buf = self.staging(words)
        stream = cp.cuda.get_current_stream()
        buf.data.copy_from_host_async(ctypes.c_void_p(self._stage_mem.ptr), words * 8, stream)
        self.epoch += 1
        args = (buf, np.int64(k), np.int64(ji), np.int64(jv), np.int64(self.total),
                np.int64(self.n), np.uint64(self.epoch))
        s, w, d = self.stamps
        self._result[0] = _UNSET
        _kernel("dyn_check")(_grid(k + ji), (BLOCK,), args + (self.state, s, w, d, self.err))
        _kernel("dyn_check_deleted")(_grid(k), (BLOCK,), args + (d, self.err))
        _kernel("dyn_apply")(_grid(k + ji), (BLOCK,), args + (
            s, w, self.err, np.uint64(self._result_mem.ptr), self.state, self.weight,
            self.tail, self.head, self.first_extra, self.next_extra))
        stream.synchronize()
        ev = int(self._result[0])
        if ev == _UNSET:
            raise RuntimeError("the mutable graph's apply launch wrote no result")
        if ev >> 32 == self.epoch:
            return 0xFFFFFFFF - (ev & 0xFFFFFFFF)
        self.n += jv
        self.total += ji
        return -1

    def add_vertices(self, count: int) -> None:
        """Vertices without arcs: their list heads are -1 already (capacity fill)."""
        self.n += count

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
