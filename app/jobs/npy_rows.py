"""The distance-matrix ``.npy`` file: its one owner (issue 38). The dtype rule
(:func:`cost_dtype`: int32 when every cost fits, else int64; -1 unreachable), the header
and the file's size (:func:`create_npy`) and the rows (:class:`NpyRows`) are here; the
file is written under a temporary name beside the target and renamed when whole
(``osutil.atomic``, through the CLI's ``--out`` policy ``app.cli._atomic.out_paths``), so a
failed or cancelled run leaves no part of it. (``gpu_core.multi_source.all_pairs``, a
library call, keeps its own int64 memmap.)

Rows of a distance matrix written into a ``.npy`` file while the next rows are computed.

One writer for every place a matrix goes to ``.npy``: ``signpost matrix --out M.npy`` in one
process, the Dask workers that write their blocks in place (``dask_worker``) and the bench's
one-process baseline, so that their times compare the searches, not three writers. Rows go
in with ``os.pwrite`` at their offset (no memory map: no page faults, no file-sized
mapping), from a background thread, so the disk copy of one chunk overlaps the GPU search
of the next, by ``THREADS`` threads; at most ``DEPTH`` chunks wait (bounded memory: a worker's search then never
waits on a write that one slow page-cache fill held up). The unreachable pairs are counted
on that thread too (per ``tag``, e.g. a block's first row). Each chunk's disk write is started
at once (``posix_fadvise(DONTNEED)``: on Linux it begins the write-back and drops the pages
once written, so a matrix larger than memory does not crowd out the page cache), and
``finish`` waits for the rest (``fdatasync``) and returns the unreachable count: the flush
of a big matrix runs beside its searches instead of after them.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

DEPTH = 2  # chunks queued behind the one being written
# threads writing each chunk (row slices at their own offsets): one thread fills the page
# cache at ~1.1-1.3 GB/s, and a 30,000^2 matrix's writer was busier than its GPU search;
# two writers into one file gave 1.6-2x that on the H100 hosts (docs/perf/dask.md)
THREADS = 2


INT32_MAX = int(np.iinfo(np.int32).max)


def max_cost(weights: np.ndarray) -> int:
    """The most any path can cost on a map with these arc weights: their sum."""
    return int(np.asarray(weights, np.int64).sum())


def cost_dtype(most: int) -> np.dtype:
    """The dtype of a matrix whose costs are at most ``most`` (:func:`max_cost`): int32
    when that fits (half the bytes), else int64; -1 marks an unreachable pair in both."""
    return np.dtype(np.int32 if most <= INT32_MAX else np.int64)


def create_npy(path: str, shape: tuple[int, int], dtype: np.dtype | type) -> None:
    """Write the ``.npy`` header of a [F, T] matrix of ``dtype`` to ``path`` (a temporary
    of ``osutil.atomic``) and give the file its full size; the rows come later
    (:class:`NpyRows`, or Dask workers writing their blocks in place)."""
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.dtype(dtype), shape=shape)
    mm.flush()
    del mm  # closed: the writers open the file themselves


def npy_header(path: str) -> tuple[tuple[int, ...], np.dtype, int]:
    """(shape, dtype, where the array data starts) of the ``.npy`` file ``path``."""
    with open(path, "rb") as fh:
        fmt = np.lib.format
        major, _ = fmt.read_magic(fh)
        read = fmt.read_array_header_1_0 if major == 1 else fmt.read_array_header_2_0
        shape, _, dtype = read(fh)
        return shape, np.dtype(dtype), fh.tell()


def npy_data_offset(path: str) -> int:
    """Where the array data of the ``.npy`` file ``path`` starts (after its header)."""
    return npy_header(path)[2]


def pwrite_all(fd: int, data: memoryview, offset: int) -> None:
    """Write all of ``data`` at ``offset`` (pwrite may write less than asked)."""
    while len(data):
        n = os.pwrite(fd, data, offset)
        data, offset = data[n:], offset + n


class NpyRows:
    """Write row blocks into the existing ``.npy`` file ``path`` (made with
    :func:`create_npy`: its header says the dtype and shape); row
    ``r0`` of :meth:`put` lands at file row ``first + r0``. A context manager: leaving it
    without :meth:`finish` (an error) waits for the write in flight and closes the file."""

    def __init__(self, path: str, first: int = 0, *, count: bool = True):
        shape, self.dtype, self.start = npy_header(path)
        self.total, self.cols = int(shape[0]), int(shape[1])
        self.first = first
        self.count = count  # count the unreachable pairs (else the caller does)
        self.unreachable = 0
        self.by_tag: dict = {}  # unreachable pairs per put()'s tag (counted on the thread)
        self.write_s = 0.0  # seconds the writer threads spent converting and writing (summed)
        self._fd = os.open(path, os.O_WRONLY)
        self._pool = ThreadPoolExecutor(THREADS, thread_name_prefix="npy-rows")
        self._lock = threading.Lock()  # the counts, from every writer thread
        self._pending: deque[Future] = deque()

    def put(self, r0: int, block: np.ndarray, tag=None) -> None:
        """Queue ``block`` (any integer dtype, -1 unreachable) for rows ``r0``..; waits
        while ``DEPTH`` blocks are queued. Its unreachable pairs count under ``tag``."""
        if self.first + r0 + block.shape[0] > self.total or block.shape[1] != self.cols:
            raise ValueError(f"rows {self.first + r0}..{self.first + r0 + block.shape[0]} "
                             f"x {block.shape[1]} do not fit the {self.total} x {self.cols} file")
        while len(self._pending) > THREADS * (DEPTH - 1):
            self._pending.popleft().result()
        k = block.shape[0]
        cuts = [k * i // THREADS for i in range(THREADS + 1)]
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            if b > a:  # an empty block writes nothing (its tag counts 0)
                self._pending.append(self._pool.submit(self._write, r0 + a, block[a:b], tag))

    def _write(self, r0: int, block: np.ndarray, tag) -> None:
        t0 = time.perf_counter()
        buf = np.ascontiguousarray(block, dtype=self.dtype)
        lost = int(np.count_nonzero(buf < 0)) if self.count else 0
        row_bytes = self.cols * self.dtype.itemsize
        at = self.start + (self.first + r0) * row_bytes
        pwrite_all(self._fd, buf.data.cast("B"), at)
        if hasattr(os, "posix_fadvise"):  # start the disk write now (Linux: asynchronous)
            os.posix_fadvise(self._fd, at, buf.nbytes, os.POSIX_FADV_DONTNEED)
        with self._lock:
            self.unreachable += lost
            self.by_tag[tag] = self.by_tag.get(tag, 0) + lost
            self.write_s += time.perf_counter() - t0

    def _wait(self) -> None:
        while self._pending:
            self._pending.popleft().result()

    def finish(self, sync: bool = True) -> int:
        """Wait for the last write, flush the file to disk (``sync``) and close it; the
        unreachable pairs written."""
        try:
            self._wait()
            if sync:
                os.fdatasync(self._fd)
        finally:
            self.close()
        return self.unreachable

    def close(self) -> None:
        if self._fd >= 0:
            try:
                self._wait()
            finally:
                self._pool.shutdown(wait=True)
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> NpyRows:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
