"""What every CUDA strategy of ``gpu_core.sssp`` shares: the search context (device
graph, keys, per-phase statistics in host-mapped memory, allocation through the memory
checks), the phase recorder (cancel, ``on_phase`` chunks every FLUSH_S), cooperative
launches sized by occupancy, predecessors and copies to the host.

Negative arcs (``KeySpace.negative``, label-correcting strategies only): the device keys
are unsigned, so every key is stored plus ``BIAS`` = 2^62 (sources start at BIAS, not 0).
The key bound of ``keys._negative_key_space`` keeps biased keys inside (0, KEY_INF), so
the kernels' unsigned compares, atomicMin and wrapping additions of negative key weights
(two's complement) stay exact with no kernel change; ``finish`` removes the bias.

Host-driven phases: the last block of the phase's last kernel writes the phase statistics
to host-mapped memory, so the host only waits for the stream (no copy call); ``time_us``
of such a phase is host-measured, from before its first launch to after that wait.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ...device import device_graph, get_kernel
from ...device.memory import ensure_free, oom_as_typed
from ...errors import BackendUnavailableError, CancelledError
from ...graph import CSRGraph
from ...keys import KEY_INF, KeySpace
from ...telemetry import MODE_CODE, PhaseLog

HERE = Path(__file__).resolve().parent
BLOCK = 256
ST_SLOTS = 16
ST_FRONTIER, ST_EDGES, ST_LIST, ST_LIST2, ST_MINKEY = 0, 1, 2, 3, 4
ST_TKEY, ST_TSTATUS, ST_AUX = 6, 7, 9
INF = int(KEY_INF)
U64_INF = np.uint64(INF)
BIAS = 1 << 62  # added to every device key on graphs with negative arcs (see above)
# on_phase is called at least this often (seconds) for the host-driven strategies
FLUSH_S = 0.02


def cupy_module():
    try:
        import cupy
    except Exception as exc:  # pragma: no cover - only on machines without CuPy
        raise BackendUnavailableError(f"the cupy backend is not available: {exc}") from exc
    return cupy


def ptr(a):
    """A device array, or a null pointer for an absent one."""
    return np.uint64(0) if a is None else a


def grid(count: int) -> int:
    return max(1, (int(count) + BLOCK - 1) // BLOCK)


_SMS: dict[int, int] = {}


def sm_count(cp) -> int:
    dev = cp.cuda.runtime.getDevice()
    if dev not in _SMS:
        _SMS[dev] = int(cp.cuda.Device(dev).attributes["MultiProcessorCount"])
    return _SMS[dev]


class ArrayPool(Protocol):
    """Device arrays kept across searches (auto.Workspace), asked for by purpose."""

    arrays: dict[tuple, Any]  # the CuPy arrays held, by (purpose, shape, dtype)

    def get(self, ctx: Ctx, shape: Any, dtype: Any, what: str) -> Any: ...


class Ctx:
    """Device arrays and helpers shared by the strategies of one search."""

    def __init__(self, g: CSRGraph, sources: np.ndarray, ks: KeySpace, opts,
                 stats: bool = True):
        cp = cupy_module()
        self.cp = cp
        self.host = g
        self.dg = device_graph(g)
        self.n = self.dg.n
        self.kw = self.dg.key_weights(ks)
        self.ks = ks
        self.opts = opts
        self.bias = BIAS if ks.negative else 0
        # with negative arcs no key is final early: no early exit at a target (api.sssp)
        self.target = -1 if opts.target is None or self.bias else int(opts.target)
        self.src_host = np.asarray(sources, dtype=np.int32)
        self.src = cp.asarray(self.src_host)
        self.stream = cp.cuda.get_current_stream()
        self.sms = sm_count(cp)
        self.fixed_grid = self.sms * 8  # grid-stride kernels whose count lives on the device
        self.ws: ArrayPool | None = None  # auto's cached workspace (auto.Workspace), taken by auto.auto
        if not stats:  # auto keeps its statistics on the device: no per-phase buffers
            return
        # per-phase statistics: two device buffers (the phase's, and the next one, cleared
        # by the phase's last kernel) and one host-mapped mirror (pinned memory is mapped
        # at the same address under unified addressing)
        self.st = cp.zeros((2, ST_SLOTS), dtype=cp.uint64)
        self.reset_stats()
        self._mirror_mem = cp.cuda.alloc_pinned_memory(ST_SLOTS * 8)
        self.mirror = np.frombuffer(self._mirror_mem, dtype=np.uint64, count=ST_SLOTS)
        self.mirror[:] = 0
        self.mirror_ptr = np.uint64(self._mirror_mem.ptr)

    def reset_stats(self) -> None:
        self.st.fill(0)
        self.st[:, ST_MINKEY] = U64_INF
        self.st[:, 8] = U64_INF

    def k(self, func: str, file: str = "sssp_bf.cu"):
        """Kernel ``func`` of ``file`` (a .cu beside this module)."""
        return get_kernel(HERE / file, func)

    def alloc(self, shape, dtype, what: str):
        if self.ws is not None:
            return self.ws.get(self, shape, dtype, what)
        return self._alloc(shape, dtype, what)

    def _alloc(self, shape, dtype, what: str):
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        ensure_free(nbytes, what)
        with oom_as_typed(what, nbytes):
            return self.cp.empty(shape, dtype=dtype)

    def keys(self, with_u: bool, with_mask: bool, list_out=None):
        """C (and U, mask) initialised: KEY_INF except the sources (0)."""
        n = self.n
        C = self.alloc(n, np.uint64, "search keys")
        U = self.alloc(n, np.uint64, "tentative keys") if with_u else None
        mask = self.alloc(n, np.uint8, "frontier mask") if with_mask else None
        self.k("init_search")((grid(n),), (BLOCK,), (np.int32(n), C, ptr(U), ptr(mask)))
        ns = self.src.size
        self.k("init_sources")((grid(ns),), (BLOCK,),
                               (np.int32(ns), self.src, C, ptr(U), ptr(mask), ptr(list_out)))
        if self.bias:
            for a in (C, U):
                if a is not None:
                    a[self.src] = np.uint64(self.bias)
        return C, U, mask

    def zeros_i32(self, n: int, what: str):
        a = self.alloc(n, np.int32, what)
        a.fill(0)
        return a

    def sync(self) -> None:
        self.stream.synchronize()

    def cur(self, p: int):
        return self.st[p & 1], self.st[(p + 1) & 1]

    def phases(self, rec: Recorder):
        """(p, st, st_next) for the host-driven phases p = 0, 1, ..., cancel polled before
        each: st collects phase p's statistics, st_next is cleared for the next one. The
        caller breaks out when the search is done."""
        p = 0
        while True:
            rec.check_cancel()
            yield (p, *self.cur(p))
            p += 1

    def pred(self, C):
        """Predecessors from the final keys (the rule in ``keys.py``): one pass, atomicMin."""
        n, dg = self.n, self.dg
        pred = self.alloc(n, np.int32, "predecessors")
        pred.fill(np.int32(0x7FFFFFFF))
        self.k("pred_from_keys")((grid(n),), (BLOCK,),
                                 (np.int32(n), dg.indptr, dg.indices, self.kw, C, pred))
        self.k("pred_finish")((grid(n),), (BLOCK,), (np.int32(n), pred))
        return pred

    def finish(self, C) -> tuple[np.ndarray, np.ndarray]:
        """(key int64, pred int32) on the host for the final device keys ``C``."""
        pred = self.pred(C)
        key = to_host(self.cp, C, np.int64)
        if self.bias:
            key[key != INF] -= self.bias
        return key, to_host(self.cp, pred, np.int32)


class Recorder:
    """Collects phase rows, polls cancel, and hands chunks to on_phase every FLUSH_S."""

    def __init__(self, strategy: str, on_phase, cancel):
        self.strategy = strategy
        self.on_phase = on_phase
        self.cancel = cancel
        self.f: list[int] = []
        self.e: list[int] = []
        self.t: list[float] = []
        self.m: list[int] = []
        self.sent = 0
        self.last_flush = time.perf_counter()

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel():
            raise CancelledError(f"{self.strategy} search cancelled after {len(self.f)} phases")

    def add(self, frontier: int, edges: int, t_us: float, mode: str) -> None:
        self.f.append(int(frontier))
        self.e.append(int(edges))
        self.t.append(float(t_us))
        self.m.append(MODE_CODE[mode])
        if self.on_phase is not None and time.perf_counter() - self.last_flush >= FLUSH_S:
            self.flush()

    def flush(self) -> None:
        self.last_flush = time.perf_counter()
        if self.on_phase is None or self.sent == len(self.f):
            return
        a = self.sent
        self.sent = len(self.f)
        chunk = PhaseLog.from_columns(self.f[a:], self.e[a:], self.t[a:], self.m[a:], start=a)
        self.on_phase(chunk)

    def log(self) -> PhaseLog:
        self.flush()
        return PhaseLog.from_columns(self.f, self.e, self.t, self.m)


def coop_grid(ctx: Ctx, kern, blocks_per_sm: int, block: int = BLOCK) -> int:
    """Blocks of a cooperative launch: ``blocks_per_sm`` capped by the kernel's occupancy."""
    regs = max(1, int(kern.num_regs))
    smem = int(kern.shared_size_bytes)
    by_regs = 65536 // (regs * block)
    by_threads = 2048 // block
    by_smem = (227 * 1024) // (smem + 1024)
    bps = max(1, min(by_regs, by_threads, by_smem, int(blocks_per_sm)))
    return ctx.sms * bps


def coop_launch(ctx: Ctx, kern, args_fn, blocks_per_sm: int, block: int = BLOCK):
    """A cooperative launch with the occupancy-derived grid, halved while too large."""
    cp = ctx.cp
    state = {"grid": coop_grid(ctx, kern, blocks_per_sm, block)}

    def launch(*a):
        while True:
            try:
                kern((state["grid"],), (block,), args_fn(*a))
                return
            except cp.cuda.driver.CUDADriverError as exc:
                if "TOO_LARGE" in str(exc) and state["grid"] > ctx.sms:
                    state["grid"] = max(ctx.sms, state["grid"] // 2)
                    continue
                raise

    return launch


def pinned(cp, arr) -> np.ndarray:
    mem = cp.cuda.alloc_pinned_memory(arr.nbytes)
    return np.frombuffer(mem, dtype=arr.dtype, count=arr.size)


def to_host(cp, arr, dtype) -> np.ndarray:
    """Device -> host through pinned memory (about twice the pageable copy rate)."""
    out = pinned(cp, arr)
    arr.get(out=out)
    return out.view(dtype) if np.dtype(dtype) != arr.dtype else out
