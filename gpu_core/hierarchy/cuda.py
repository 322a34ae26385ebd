"""GPU side of the contraction hierarchy: GPHAST sweeps (``phast.cu``), K sources per
batch, the upward searches walked on the device (``upward_cuda``), or on the CPU threads
(``cpu.upward_searches``) where the index's tree is too deep for the walk.

The hierarchy's arrays are copied to the device once per hierarchy (kept on the object).
Imported only when CuPy is usable.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeGuard

import cupy as cp
import numpy as np

from ..device import get_module, memory
from ..device.arrays import fill
from ..errors import CancelledError, GpuOutOfMemoryError
from .cpu import upward_searches
from .levels import splits

_SRC = Path(__file__).resolve().with_name("phast.cu")
BLOCK = 256
K_MAX = 1024  # sources per sweep: enough to keep every level's launch full
INF = 1 << 62


BIG32 = 1 << 30  # 32-bit sweeps are exact while costs stay below this (phast.cu)
# A sweep is one launch per level (Kanto-sized CCH: ~1,600): the level loop is captured
# once per block as a CUDA graph and replayed, so the levels follow each other without
# the host's per-launch cost (SIGNPOST_SWEEP_GRAPH=0: launch level by level)
SWEEP_GRAPH = os.environ.get("SIGNPOST_SWEEP_GRAPH", "1") != "0"
GRAPH_MIN_LEVELS = 64


def _captured(launch: Callable[[], None]):
    """The CUDA graph of what ``launch`` enqueues (captured on a stream of its own, in
    relaxed mode: other threads may compile or allocate meanwhile), or False where this
    CuPy or driver cannot capture it (the caller then launches directly)."""
    stream = cp.cuda.Stream(non_blocking=True)
    mode = getattr(cp.cuda.runtime, "streamCaptureModeRelaxed", 2)
    try:
        with stream:
            stream.begin_capture(mode)
            try:
                launch()
            finally:
                graph = stream.end_capture()
        return graph
    except Exception:  # noqa: BLE001 - any capture failure: level by level instead
        return False


def _valid(dev: dict[str, Any] | None, h) -> TypeGuard[dict[str, Any]]:
    """Whether the device copy ``dev`` shows ``h``'s downward lists (the same host arrays,
    on the current device): a partial re-customization patches a copy in place for the
    next Hierarchy (``patch_cuda``), and the one before it then uploads its own again."""
    if dev is None or dev["id"] != memory.current_device_id():
        return False
    refs = dev.get("host")
    return refs is not None and all(r() is a for r, a in zip(refs, (h.down_ptr, h.down_src,
                                                                       h.down_w), strict=True))


def host_refs(h) -> tuple:
    """Weak references to the host arrays a device copy shows (``_valid``)."""
    return tuple(weakref.ref(a) for a in (h.down_ptr, h.down_src, h.down_w))


def _device(h) -> dict[str, Any]:
    dev = getattr(h, "_device", None)
    if _valid(dev, h):
        return dev
    # copies of one Hierarchy (``copy.copy``) share this box: one upload serves them all
    box = getattr(h, "_device_box", None)
    if box is not None and _valid(box.get("dev"), h):
        h._device = box["dev"]
        return h._device
    fits32 = h.down_w.size == 0 or int(h.down_w.max()) < BIG32
    dev = {"id": memory.current_device_id(), "ptr": cp.asarray(h.down_ptr),
           "src": cp.asarray(h.down_src), "w": cp.asarray(h.down_w),
           "w32": cp.asarray(h.down_w.astype(np.int32)) if fits32 else None,
           "host": host_refs(h)}
    h._device = dev
    if box is not None:
        box["dev"] = dev
    return dev


def ready(h) -> None:
    """Put ``h``'s downward lists on the device now (the next sweep finds them there)."""
    _device(h)


def batch_width(n: int, ncols: int, total: int) -> int:
    """Sources per sweep (a multiple of 32): K_MAX, fewer when memory or the job is small,
    the ``total`` sources then spread evenly over the sweeps they need.

    The width is the most that fits, not a power of two: halving made it fall from 256 to
    128 on the 24M-node map for a few GB less free memory (a Dask worker's against one
    process's), twice the sweeps for the same rows (docs/perf/dask.md)."""
    free, _ = memory.free_memory()
    free += int(cp.get_default_memory_pool().free_bytes())
    fit = int(0.6 * free) // max((n + ncols) * 8, 1) // 32 * 32
    total = max(int(total), 1)
    k = max(32, min(K_MAX, fit, -(-total // 32) * 32))
    per = -(-total // -(-total // k))  # sources per sweep, spread evenly: 1100 as 2 x 550
    k = min(k, -(-per // 32) * 32)
    if (n + ncols) * k * 8 > 0.8 * free:
        raise GpuOutOfMemoryError((n + ncols) * k * 8, free, f"a GPHAST sweep of {k} sources")
    return k


def resident_width(h, ncols: int, total: int, walk: bool = True, full=None) -> int:
    """``batch_width`` once what a sweep of ``h`` reads is on the device (its downward
    lists, and the upward walk of ``full``, default ``h``): the width is chosen from the
    memory left beside them, the same in a process that swept before (a Dask worker after
    its warm-up) and one that did not (the index is ~6 GB on the 24M-node map: 448
    sources a sweep against 416 on an H200)."""
    from .upward_cuda import walker

    _device(h)
    walker(h if full is None else full, walk)
    return batch_width(h.n, ncols, total)


class Sweeper:
    """GPHAST sweeps of up to ``K`` sources at a time into one device block ``d`` [n, K]
    (sweep ids x source columns): what matrices and the billboard sampler read from.

    Costs are swept in 32 bits when the weights allow (half the memory traffic), and a
    batch whose costs reach 2^30 is swept again in 64 bits (``phast.cu`` says why that is
    exact); ``d.dtype`` says which block the last sweep filled."""

    def __init__(self, h, K: int, walk: bool = True, full=None):
        self.mod = get_module(_SRC)
        self.h = h
        self.K = K
        self.dev = _device(h)
        self.d32 = cp.empty(h.n * K, dtype=cp.int32) if self.dev["w32"] is not None else None
        self.d64 = None if self.d32 is not None else cp.empty(h.n * K, dtype=cp.int64)
        # the block the last sweep filled (CuPy; None only while sweep swaps it for d64)
        self.d: Any = self.d32 if self.d32 is not None else self.d64
        self.big = cp.zeros(1, dtype=cp.int32)
        self.lp = [int(x) for x in h.level_ptr]
        self.sweeps = 0
        self.wide_sweeps = 0  # batches swept in 64 bits after a 32-bit sweep overflowed
        from .upward_cuda import walker  # (read when called: tests replace it)

        self.full = h if full is None else full  # the index the upward searches climb
        # walk: make the device walk if there is none yet (else only a kept one is used)
        self.walk = walker(self.full, walk)
        self.loc = None  # the restricted sweep's local ids (device), for the walk
        self._graphs: dict[tuple, Any] = {}  # (block pointer, suffix) -> captured levels
        self.splits: list[tuple[int, int]] | None = None  # per level: (chunks, arcs each)

    def sweep(self, sources: np.ndarray) -> None:
        """Costs from ``sources`` (graph ids, at most K) into columns 0..len-1 of ``d``."""
        if self.walk is not None:
            seeds = cp.asarray(self.full.rank_of[sources].astype(np.int32))
            walk = self.walk
            narrow = self.d32 is not None and walk.w32 is not None

            def seed(d, suffix: str) -> None:
                walk.run(d, suffix == "32", seeds, self.K, self.big, self.loc)
        else:
            col, verts, dists = self._spaces(sources)
            col = cp.asarray(col)
            verts_d, dists_d = cp.asarray(verts), cp.asarray(dists)
            narrow = self.d32 is not None and (dists.size == 0 or int(dists.max()) < BIG32)

            def seed(d, suffix: str) -> None:
                cnt = int(verts_d.shape[0])
                if cnt:  # a restricted sweep may keep no entry (nothing reaches a target)
                    self.mod.get_function("phast_scatter" + suffix)(
                        ((cnt + BLOCK - 1) // BLOCK,), (BLOCK,),
                        (col, verts_d, dists_d, np.int64(cnt), d, np.int32(self.K)))
        if narrow:
            fill(self.big, 0)
            self._run(self.d32, "32", seed)
            if int(self.big.get()[0]) == 0:
                self.d = self.d32
                self.sweeps += 1
                return
            self.wide_sweeps += 1
        if self.d64 is None:
            self.d32 = self.d = None  # the wide block replaces it: long costs stay wide
            self.d64 = cp.empty(self.h.n * self.K, dtype=cp.int64)
        self._run(self.d64, "", seed)
        self.d = self.d64
        self.sweeps += 1

    def _spaces(self, sources: np.ndarray):
        """(column, sweep id, cost) of each source's upward search entries (host arrays)."""
        h = self.h
        offsets, verts, dists = upward_searches(h, h.rank_of[sources])
        col = np.repeat(np.arange(int(sources.shape[0]), dtype=np.int32), np.diff(offsets))
        return col, verts, dists

    def _run(self, d, suffix: str, seed: Callable) -> None:
        """Fill ``d`` with INF, ``seed`` it with the upward costs, sweep every level."""
        fill(d, INF if suffix == "" else 0x7FFFFFFF)  # (device.arrays: not CuPy's kernel)
        seed(d, suffix)
        if not SWEEP_GRAPH or len(self.lp) < GRAPH_MIN_LEVELS:
            self._levels(d, suffix)
            return
        key = (int(d.data.ptr), suffix)
        graph = self._graphs.get(key)
        if graph is None:
            graph = self._graphs[key] = _captured(lambda: self._levels(d, suffix))
        if graph is False:  # capture refused here: launch level by level
            self._levels(d, suffix)
        else:
            graph.launch(cp.cuda.get_current_stream())

    def _levels(self, d, suffix: str) -> None:
        """One launch per level, bottom to top (each level reads only the levels below);
        a narrow level of many arcs a vertex splits them over threads (``splits``)."""
        K, dev = self.K, self.dev
        level = self.mod.get_function("phast_level" + suffix)
        split = self.mod.get_function("phast_level_split" + suffix)
        w = dev["w32"] if suffix else dev["w"]
        lp = self.lp
        if self.splits is None:
            self.splits = splits(self.h.down_ptr, lp, K)
        for lv in range(len(lp) - 1):
            v0, v1 = lp[lv], lp[lv + 1]
            if v1 == v0:
                continue
            chunks, length = self.splits[lv]
            work = (v1 - v0) * K * chunks
            args = (dev["ptr"], dev["src"], w, d, np.int64(v0), np.int64(v1), np.int32(K))
            if chunks == 1:
                level(((work + BLOCK - 1) // BLOCK,), (BLOCK,), (*args, self.big))
            else:
                split(((work + BLOCK - 1) // BLOCK,), (BLOCK,),
                      (*args, np.int32(chunks), np.int32(length), self.big))

    def fold(self, out, s: int, keep: int, into) -> None:
        """out[j, into[k]] = least of it and out[j, keep + k] (-1 unreachable), j < s."""
        nextra = int(into.shape[0])
        self.mod.get_function("phast_fold")(((nextra + 31) // 32, (s + 31) // 32), (32, 32),
                                            (out, np.int32(out.shape[1]), np.int32(s),
                                             np.int32(keep), into, np.int32(nextra)))

    def extract(self, rows, s: int, out) -> None:
        """out[j, c] = cost of source column j at sweep id rows[c] (-1 unreached)."""
        ncols = int(rows.shape[0])
        name = "phast_extract32" if self.d.dtype == cp.int32 else "phast_extract"
        self.mod.get_function(name)(((ncols + 31) // 32, (s + 31) // 32), (32, 32),
                                    (self.d, rows, np.int32(ncols), np.int32(s),
                                     np.int32(self.K), out))


class RestrictedSweeper(Sweeper):
    """GPHAST over a target set's restricted sweep (``few.Restricted``: the same level
    kernels on the compact sub-range); the upward searches run on the full index and keep
    only the entries inside the selection."""

    def __init__(self, h, r, K: int, walk: bool = True):
        super().__init__(r, K, walk, full=h)
        if self.walk is not None:
            self.loc = cp.asarray(r.loc)

    def _spaces(self, sources: np.ndarray):
        from .few import source_spaces

        return self.h.local_spaces(*source_spaces(self.full, sources))


KEEP_SWEEPER_BYTES = 512 << 20  # a restricted sweep's block kept for the next job


def _kept_sweeper(h, r, K: int, walk: bool) -> Sweeper:
    """The restricted sweeper of ``r`` (kept with ``r``, which ``few.restrict`` keeps on
    ``h``) when its block is small: a job asking again for the same targets (an OD matrix
    re-run, a drag's rows) reuses its block, its local ids and its captured levels
    instead of uploading and capturing them again. Taken off ``r`` while a job uses it
    (a second job at the same time makes its own); the job gives it back
    (:func:`_give_back`)."""
    from .upward_cuda import walker

    kept = r.__dict__.pop("_sweeper", None)
    if (kept is not None and kept.K == K and kept.full is h
            and kept.dev["id"] == memory.current_device_id() and kept.walk is walker(h, walk)):
        return kept
    return RestrictedSweeper(h, r, K, walk)


def _give_back(r, sw: Sweeper) -> None:
    if r.n * sw.K * 4 <= KEEP_SWEEPER_BYTES:
        r._sweeper = sw


def iter_rows(h, sources: np.ndarray, targets: np.ndarray | None, *,
              cancel: Callable[[], bool] | None = None, stats: dict | None = None,
              restricted: bool = False, narrow: bool = False, fold=None,
              ) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, int64 block [k, cols]) for consecutive batches of ``sources``;
    ``restricted``: sweep only the targets' part of the index (RPHAST); ``narrow``: int32
    blocks, narrowed on the device (the caller knows every cost fits); ``fold``
    (``host.fold``): the extra target columns min'd into theirs on the device,
    only the asked-for columns copied back."""
    from .upward_cuda import BUILD_MIN_SOURCES

    S = int(sources.shape[0])
    # a partial update's new upward lists are uploaded for a job big enough to gain
    walk = S >= BUILD_MIN_SOURCES or not getattr(h, "customized", "").startswith("partial")
    if restricted:
        from .few import restrict

        assert targets is not None  # a restricted sweep is asked for with its targets
        r = restrict(h, targets)
        rows_host, n = r.rows, r.n
        K = resident_width(r, int(targets.shape[0]), S, walk, full=h)
        sw: Sweeper = _kept_sweeper(h, r, K, walk)
    else:
        rows_host = h.rank_of if targets is None else h.rank_of[targets]
        n = h.n
        K = resident_width(h, n if targets is None else int(targets.shape[0]), S, walk)
        sw = Sweeper(h, K, walk)
    ncols = int(rows_host.shape[0])
    rows = cp.asarray(rows_host.astype(np.int32))
    out = cp.empty((K, ncols), dtype=cp.int64)
    keep, into = ncols, None
    if fold is not None and len(fold[1]):
        keep, into = int(fold[0]), cp.asarray(np.asarray(fold[1], dtype=np.int32))
    try:
        for r0 in range(0, S, K):
            if cancel is not None and cancel():
                raise CancelledError("many-source search cancelled")
            src = sources[r0 : r0 + K]
            sw.sweep(src)
            sw.extract(rows, int(src.shape[0]), out)
            got = out[: src.shape[0]]
            if into is not None:
                sw.fold(out, int(src.shape[0]), keep, into)
                got = got[:, :keep]
            yield r0, cp.asnumpy(got.astype(cp.int32) if narrow else got)
    finally:
        if restricted:
            _give_back(r, sw)
    if stats is not None:
        stats.update(K=K, sweeps=sw.sweeps, levels=h.levels, wide_sweeps=sw.wide_sweeps,
                     bits=32 if sw.d.dtype == cp.int32 else 64, swept_nodes=n)
