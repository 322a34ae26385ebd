"""CUDA backend of ``gpu_core.sssp``: every strategy as kernels in the .cu files beside this.

``run(g, sources, strategy, opts, ks, *, on_phase, cancel) -> (key, pred, PhaseLog)``
(numpy int64 / int32 on the host), the same contract and phase semantics as
``gpu_core.cpu.sssp_cpu.run`` (see ``gpu_core.sssp``):

* ``conventional`` / ``selection`` / ``adaptive`` / ``bellman_ford_queue`` / ``delta`` /
  ``eval_dijkstra`` follow the seeds: the host drives one phase at a time (two or three
  launches), and the last block of the phase's last kernel writes the phase statistics to
  host-mapped memory, so the host only waits for the stream (no copy call). ``time_us`` of
  such a phase is host-measured: from before its first launch to after that wait, Python
  launch overhead included (that is what seed 001's adaptive switch reads).
* ``adaptive`` with ``adaptive_signal="frontier"`` (and no target) decides every phase on
  the device: one cooperative launch (``adaptive_device`` in ``sssp_adaptive.cu``) runs up
  to ADAPTIVE_LAUNCH_PHASES Jacobi phases, each full (|V| threads over the mask) or list
  mode as the previous phase's frontier count says, with device-side telemetry (frontier,
  arcs, mode, ``%globaltimer``) read back once per launch. Same phases, frontiers, arcs
  and modes as the host-driven loop and the CPU backend (tests/gpu compare them). With a
  target it stays host-driven; the time signal stays as seed 001 describes (host-measured).
* ``auto`` runs the whole search in one persistent cooperative launch (or a few, to poll
  ``cancel``): near-far buckets for spread weights, an unordered asynchronous worklist
  otherwise, block-local shared-memory queues drained for many rounds per grid barrier,
  device-side telemetry read back once per launch (see ``sssp_auto.cu``). Without
  cooperative launches it queues one-phase launches in batches and reads a device-side
  "done" flag once per batch. Measurements: docs/perf/sssp_gpu.md.

Predecessors come from one pass over all arcs with atomicMin (the rule in ``keys.py``).
"""

from __future__ import annotations

import os
import time

import numpy as np

from ..errors import BackendUnavailableError, CancelledError, InvalidArgumentError
from ..graph import CSRGraph, device_graph
from ..keys import KEY_INF, KeySpace
from ..telemetry import MODE_CODE, PhaseLog
from .device import ensure_free, oom_as_typed
from .kernels import get_kernel

STRATEGIES = (
    "conventional",
    "selection",
    "adaptive",
    "eval_dijkstra",
    "bellman_ford_queue",
    "delta",
    "auto",
)
BLOCK = 256
ST_SLOTS = 16
ST_FRONTIER, ST_EDGES, ST_LIST, ST_LIST2, ST_MINKEY = 0, 1, 2, 3, 4
ST_TKEY, ST_TSTATUS, ST_AUX = 6, 7, 9
INF = int(KEY_INF)
U64_INF = np.uint64(INF)

# Knobs of ``auto`` (the benchmark sweeps them; defaults are the measured best, see
# docs/perf/sssp_gpu.md). blocks_per_sm is capped by the kernel's occupancy.
AUTO_TUNING = {
    # "nearfar" (buckets), "bf" (unordered asynchronous worklist) or "by_weights": nearfar
    # when the arc weights are spread (coefficient of variation > WEIGHT_CV_NEARFAR, e.g.
    # seed 001's walking times), else bf (e.g. uniform 1..1000 on DIMACS NE); measured in
    # docs/perf/sssp_gpu.md
    "schedule": "by_weights",
    "delta_factor": 16.0,  # bucket width = this x mean arc weight
    "buckets": 64,  # ring of bucket lists (n int32 each) before the overflow list
    "local_queue": 128,  # entries of a block's shared-memory queue per round
    "block": 256,  # threads per block of the persistent kernels
    "lanes": 4,  # threads per work item (a vertex's arcs side by side)
    # read a head's key before its atomicMin (nearfar only; auto_bf always prechecks).
    # Off: one dependent L2 read less per hop; H200 sweep 2026-11-22: kanto device 8.23 vs
    # 8.90 ms, same relaxations (docs/perf/sssp_gpu.md)
    "precheck": False,
    "stage": True,  # nearfar: stage far-bucket pushes in shared memory (see sssp_auto.cu)
    "blocks_per_sm": 2,
    "local_rounds": 64,  # nearfar; bf uses bf_local_rounds
    "bf_local_rounds": 32,  # H200 sweep 2026-11-22: NE device 6.74 ms vs 7.75 with 64
    "launch_phases": 8192,  # phases per persistent launch (cancel/on_phase between them)
    "batch_phases": 64,  # one-phase launches queued per read-back when not cooperative
    "cooperative": True,
}
WEIGHT_CV_NEARFAR = 1.0
# adaptive with the frontier signal runs its list-mode stretches in one persistent launch
ADAPTIVE_PERSISTENT = True
# ... and, better, every phase of it (full ones too) decided and run on the device
ADAPTIVE_DEVICE = True
ADAPTIVE_LAUNCH_PHASES = 1024  # phases per launch (cancel / on_phase between launches)
# adaptive_fused (one grid barrier per phase, no UPDATE pass) instead of adaptive_device
# (two barriers): both exact and tested; fused measured slower on kanto (82 vs 69 ms on the
# H200, docs/perf/sssp_gpu.md: its full phases pay a stamp atomic per improved head), so
# off unless SIGNPOST_ADAPTIVE_FUSED=1
ADAPTIVE_FUSED = os.environ.get("SIGNPOST_ADAPTIVE_FUSED", "0") == "1"
# on_phase is called at least this often (seconds) for the host-driven strategies
FLUSH_S = 0.02


def _cp():
    try:
        import cupy
    except Exception as exc:  # pragma: no cover - only on machines without CuPy
        raise BackendUnavailableError(f"the cupy backend is not available: {exc}") from exc
    return cupy


def _p(a):
    """A device array, or a null pointer for an absent one."""
    return np.uint64(0) if a is None else a


def _grid(count: int) -> int:
    return max(1, (int(count) + BLOCK - 1) // BLOCK)


_SMS: dict[int, int] = {}


def _sm_count(cp) -> int:
    dev = cp.cuda.runtime.getDevice()
    if dev not in _SMS:
        _SMS[dev] = int(cp.cuda.Device(dev).attributes["MultiProcessorCount"])
    return _SMS[dev]


class _Ctx:
    """Device arrays and helpers shared by the strategies of one search."""

    def __init__(self, g: CSRGraph, sources: np.ndarray, ks: KeySpace, opts,
                 stats: bool = True):
        cp = _cp()
        self.cp = cp
        self.host = g
        self.dg = device_graph(g)
        self.n = self.dg.n
        self.kw = self.dg.key_weights(ks)
        self.ks = ks
        self.opts = opts
        self.target = -1 if opts.target is None else int(opts.target)
        self.src_host = np.asarray(sources, dtype=np.int32)
        self.src = cp.asarray(self.src_host)
        self.stream = cp.cuda.get_current_stream()
        self.sms = _sm_count(cp)
        self.fixed_grid = self.sms * 8  # grid-stride kernels whose count lives on the device
        self.ws = None  # auto's cached workspace (see _Workspace), taken by _run_auto
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
        return get_kernel(file, func)

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
        self.k("init_search")((_grid(n),), (BLOCK,), (np.int32(n), C, _p(U), _p(mask)))
        ns = self.src.size
        self.k("init_sources")((_grid(ns),), (BLOCK,),
                               (np.int32(ns), self.src, C, _p(U), _p(mask), _p(list_out)))
        return C, U, mask

    def zeros_i32(self, n: int, what: str):
        a = self.alloc(n, np.int32, what)
        a.fill(0)
        return a

    def sync(self) -> None:
        self.stream.synchronize()

    def cur(self, p: int):
        return self.st[p & 1], self.st[(p + 1) & 1]


class _Workspace:
    """auto's device arrays, kept with the DeviceGraph and reused by the next search on the
    same graph (no allocation, no memory check per call). A search takes one workspace
    from the graph's free list and gives it back when done, so two threads searching the
    same graph never share one. Arrays are keyed by their purpose; every search re-inits
    what it reads (the fills in _run_auto_*), so nothing leaks between searches."""

    def __init__(self):
        self.arrays: dict[tuple, object] = {}

    def get(self, ctx: _Ctx, shape, dtype, what: str):
        key = (what, tuple(np.atleast_1d(shape).tolist()), np.dtype(dtype).str)
        a = self.arrays.get(key)
        if a is None:
            a = ctx._alloc(shape, dtype, what)
            self.arrays[key] = a
        return a


def _take_workspace(dg) -> _Workspace:
    with dg._lock:
        free = dg.__dict__.setdefault("_auto_ws", [])
        return free.pop() if free else _Workspace()


def _give_back_workspace(dg, ws: _Workspace) -> None:
    with dg._lock:
        free = dg.__dict__.setdefault("_auto_ws", [])
        if len(free) < 2:
            free.append(ws)


class _Recorder:
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


# ------------------------------------------------------------------ Bellman-Ford family


def _run_bf(ctx: _Ctx, strategy: str, rec: _Recorder):
    n, dg, kw, opts = ctx.n, ctx.dg, ctx.kw, ctx.opts
    if opts.adaptive_signal not in ("time", "frontier"):
        raise InvalidArgumentError(
            f"adaptive_signal {opts.adaptive_signal!r}: choose 'time' or 'frontier'"
        )
    lin = ctx.alloc(n, np.int32, "frontier list")
    lout = ctx.alloc(n, np.int32, "next frontier list")
    C, U, mask = ctx.keys(True, True, lin)
    stamp = ctx.zeros_i32(n, "scheduled stamps")
    flag = None
    if strategy == "bellman_ford_queue":
        flag = ctx.alloc(n, np.uint8, "update flags")
        flag.fill(0)
    relax_full, update_full = ctx.k("relax_full"), ctx.k("update_full")
    relax_list, update_list = ctx.k("relax_list"), ctx.k("update_list")
    relax_flag, compact = ctx.k("relax_flag"), ctx.k("compact_flags")
    n32, tgt = np.int32(n), np.int32(ctx.target)
    gn = (_grid(n),)
    blk = (BLOCK,)
    mir = ctx.mirror_ptr
    null = np.uint64(0)
    cnt = int(ctx.src.size)  # size of the current frontier
    list_mode = strategy in ("selection", "adaptive", "bellman_ford_queue")
    switch_pending = False
    thr = int(opts.frontier_fraction * n)
    prev_dt = None
    persistent_lists = (strategy == "adaptive" and opts.adaptive_signal == "frontier"
                        and ctx.target < 0 and ADAPTIVE_PERSISTENT)
    if persistent_lists and ADAPTIVE_DEVICE:
        return _run_adaptive_device(ctx, rec, lin, lout, C, U, mask, stamp, cnt, thr)
    if persistent_lists:
        pmax = 256
        pcap = pmax + 1
        ptele = ctx.cp.zeros(3 * pcap + 4, dtype=ctx.cp.uint64)
        pctl = ptele[3 * pcap:]
        lc = ctx.cp.zeros(3, dtype=ctx.cp.uint64)
        lc_host = np.zeros(3, dtype=np.uint64)
        pbar = ctx.cp.zeros(2, dtype=ctx.cp.uint32)
        pkern = get_kernel("sssp_adaptive.cu", "adaptive_list_persistent", cooperative=True)
        plaunch = _coop_launch(ctx, pkern, lambda p_, args_: args_, blocks_per_sm=4)
    p = 0
    while True:
        rec.check_cancel()
        st, st_next = ctx.cur(p)
        t0 = time.perf_counter()
        if strategy == "bellman_ford_queue":
            relax_flag((_grid(cnt),), blk,
                       (np.int32(cnt), lin, dg.indptr, dg.indices, kw, C, U, flag, st))
            compact(gn, blk, (n32, flag, np.int32(1), np.int32(1), C, U, lout, st[ST_LIST:],
                              st, st_next, mir, tgt))
            mode, fslot = "bellman_ford_queue", ST_LIST
        elif list_mode and persistent_lists:
            # ours: the whole list-mode stretch in one persistent launch (see .cu file)
            mode = "selection"
            if switch_pending:
                compact(gn, blk, (n32, mask, np.int32(0), np.int32(0), C, U, lin, st[ST_LIST2:],
                                  st, st_next, null, tgt))
                switch_pending = False
                mode = "switch"
            lc_host[:] = 0
            lc_host[p % 3] = cnt
            lc.set(lc_host)
            ptele.fill(0)
            a_lists = (lin, lout) if p % 2 == 0 else (lout, lin)
            plaunch(p, (n32, dg.indptr, dg.indices, kw, mask, C, U, stamp, a_lists[0],
                        a_lists[1], lc, pbar, np.int32(p), np.int32(pmax), np.uint64(thr),
                        ptele, np.int32(pcap), pctl))
            host = ptele.get()
            k, reason, last = (int(x) for x in host[3 * pcap:3 * pcap + 3])
            tt = host[2 * pcap:3 * pcap]
            for i in range(k):
                rec.add(int(host[i]), int(host[pcap + i]), (int(tt[i + 1]) - int(tt[i])) / 1e3,
                        mode if i == 0 else "selection")
            p += k
            if k % 2:
                lin, lout = lout, lin
            cnt = last
            if reason == 1:
                break
            if reason == 2:
                list_mode = False
            ctx.reset_stats()  # host-driven phases follow: both statistics buffers clean
            continue
        elif list_mode:
            mode = "selection"
            if switch_pending:
                # seed 001 SWITCH kernel: rebuild the list NRa from the mask Ma
                compact(gn, blk, (n32, mask, np.int32(0), np.int32(0), C, U, lin, st[ST_LIST2:],
                                  st, st_next, null, tgt))
                switch_pending = False
                mode = "switch"
            relax_list((_grid(cnt),), blk, (np.int32(cnt), lin, dg.indptr, dg.indices, kw, mask,
                                            C, U, stamp, np.int32(p + 1), lout, st))
            update_list((ctx.fixed_grid,), blk, (lout, C, U, mask, st, st_next, mir, tgt))
            fslot = ST_FRONTIER
        else:
            relax_full(gn, blk, (n32, dg.indptr, dg.indices, kw, mask, C, U, st))
            update_full(gn, blk, (n32, C, U, mask, st, st_next, mir, tgt))
            mode, fslot = "conventional", ST_FRONTIER
        ctx.sync()
        dt = (time.perf_counter() - t0) * 1e6
        m = ctx.mirror
        frontier, edges = int(m[fslot]), int(m[ST_EDGES])
        rec.add(frontier, edges, dt, mode)
        p += 1
        if list_mode or strategy == "bellman_ford_queue":
            lin, lout = lout, lin
        cnt = frontier
        if strategy == "adaptive":
            # seed 001: mean of this and the previous phase time against two thresholds
            # (hysteresis), or our frontier signal (UPDATE's count, known for free)
            if opts.adaptive_signal == "frontier":
                go_full = frontier > thr
                go_list = not go_full
            else:
                mean = dt if prev_dt is None else (dt + prev_dt) / 2
                go_full = mean > opts.switch_up_us
                go_list = mean < opts.switch_down_us
            if list_mode and go_full:
                list_mode = False
            elif not list_mode and go_list:
                list_mode = True
                switch_pending = True
            prev_dt = dt
        if frontier == 0:
            break
        if ctx.target >= 0 and int(m[ST_MINKEY]) >= int(m[ST_TKEY]):
            break
    return C


_AD_MODES = ("conventional", "selection", "switch")


def _run_adaptive_device(ctx: _Ctx, rec: _Recorder, lin, lout, C, U, mask, stamp, cnt: int,
                         thr: int):
    """adaptive with the frontier signal, every decision on the device (``adaptive_device``
    in sssp_adaptive.cu): one cooperative launch runs up to ADAPTIVE_LAUNCH_PHASES phases,
    full or list as the previous frontier says; the host reads the telemetry once per
    launch (and polls cancel / feeds on_phase between launches)."""
    cp, n, dg, kw = ctx.cp, ctx.n, ctx.dg, ctx.kw
    pmax = max(1, int(ADAPTIVE_LAUNCH_PHASES))
    cap = pmax + 1
    tele = cp.zeros(4 * cap + 4, dtype=cp.uint64)
    ctl = tele[4 * cap:]
    lc = cp.zeros(3, dtype=cp.uint64)
    lc_host = np.zeros(3, dtype=np.uint64)
    bar = cp.zeros(2, dtype=cp.uint32)
    fused = ADAPTIVE_FUSED
    kern = get_kernel("sssp_adaptive.cu", "adaptive_fused" if fused else "adaptive_device",
                      cooperative=True)
    launch = _coop_launch(ctx, kern, lambda args_: args_, blocks_per_sm=4)
    if fused:
        mask1 = ctx.alloc(n, np.uint8, "second frontier mask")
        mask1.fill(0)
    full = prev_full = 0  # adaptive starts in list mode (seed 001)
    p = 0
    while True:
        rec.check_cancel()
        lc_host[:] = 0
        lc_host[p % 3] = cnt
        lc.set(lc_host)
        if p:
            tele.fill(0)
        a_lists = (lin, lout) if p % 2 == 0 else (lout, lin)
        tail = (a_lists[0], a_lists[1], lc, bar, np.int32(p), np.int32(pmax), np.uint64(thr),
                np.int32(full), np.int32(prev_full), tele, np.int32(cap), ctl)
        if fused:  # keys C/U and masks alternate by phase parity on the device
            launch((np.int32(n), dg.indptr, dg.indices, kw, mask, mask1, C, U, stamp) + tail)
        else:
            launch((np.int32(n), dg.indptr, dg.indices, kw, mask, C, U, stamp) + tail)
        host = tele.get()  # the one read-back of this launch
        k, reason, last, last_full = (int(x) for x in host[4 * cap:4 * cap + 4])
        tt = host[2 * cap:3 * cap]
        for i in range(k):
            rec.add(int(host[i]), int(host[cap + i]), (int(tt[i + 1]) - int(tt[i])) / 1e3,
                    _AD_MODES[int(host[3 * cap + i])])
        rec.flush()
        p += k
        if k % 2:
            lin, lout = lout, lin
        cnt = last
        prev_full, full = last_full, (1 if last > thr else 0)
        if reason == 1 or k == 0:
            return C  # fused: C and U are equal once the last phase changed nothing


# ---------------------------------------------------------------------------- near-far


def _run_delta(ctx: _Ctx, rec: _Recorder):
    from ..params import default_delta

    cp, n, dg, kw, opts = ctx.cp, ctx.n, ctx.dg, ctx.kw, ctx.opts
    delta = opts.delta if opts.delta is not None else default_delta(ctx.host)
    if int(delta) < 1:
        raise InvalidArgumentError(f"delta must be >= 1 (cost units), got {delta}")
    dprime = int(delta) << ctx.ks.hop_bits
    if dprime >= (1 << 62):
        raise InvalidArgumentError(f"delta {delta} is too large for exact keys")
    near_in = ctx.alloc(n, np.int32, "near list")
    near_out = ctx.alloc(n, np.int32, "next near list")
    cand = ctx.alloc(n, np.int32, "candidate list")
    C, U, _ = ctx.keys(True, False, near_in)
    stamp = ctx.zeros_i32(n, "scheduled stamps")
    far = ctx.alloc(n, np.uint8, "far pile flags")
    far.fill(0)
    dstate = cp.zeros(8, dtype=cp.uint64)  # [T, far count, far min, split count, min scratch]
    dstate[0] = np.uint64(dprime)
    relax_list, update_nf = ctx.k("relax_list"), ctx.k("update_nf")
    far_min, far_split, set_u64 = ctx.k("far_min"), ctx.k("far_split"), ctx.k("set_u64")
    list_min = ctx.k("list_min")
    n32, tgt, blk, gn = np.int32(n), np.int32(ctx.target), (BLOCK,), (_grid(n),)
    null = np.uint64(0)
    cnt = int(ctx.src.size)
    p = 0
    while True:
        rec.check_cancel()
        st, st_next = ctx.cur(p)
        t0 = time.perf_counter()
        relax_list((_grid(cnt),), blk, (np.int32(cnt), near_in, dg.indptr, dg.indices, kw, null,
                                        C, U, stamp, np.int32(p + 1), cand, st))
        update_nf((ctx.fixed_grid,), blk, (cand, C, U, far, near_out, dstate, st, st_next,
                                           ctx.mirror_ptr, tgt))
        ctx.sync()
        m = ctx.mirror
        frontier, edges = int(m[ST_FRONTIER]), int(m[ST_EDGES])
        nn, nfar = int(m[ST_LIST2]), int(m[ST_AUX])
        if nn == 0 and nfar > 0:
            # advance T past the lightest far key; a step that only moves T is no phase
            set_u64((1,), (1,), (dstate, np.int32(2), U64_INF))
            set_u64((1,), (1,), (dstate, np.int32(3), np.uint64(0)))
            far_min(gn, blk, (n32, far, C, dstate[2:]))
            far_split(gn, blk, (n32, far, C, near_out, dstate, np.uint64(dprime)))
            nn = int(dstate[3].get())
        near_in, near_out = near_out, near_in
        done = nn == 0
        if not done and ctx.target >= 0 and int(m[ST_TKEY]) != INF:
            set_u64((1,), (1,), (dstate, np.int32(4), U64_INF))
            list_min((ctx.fixed_grid,), blk, (np.int32(nn), near_in, C, dstate[4:]))
            far_min(gn, blk, (n32, far, C, dstate[4:]))
            done = int(dstate[4].get()) >= int(m[ST_TKEY])
        dt = (time.perf_counter() - t0) * 1e6
        rec.add(frontier, edges, dt, "delta")
        p += 1
        cnt = nn
        if done:
            break
    return C


# ------------------------------------------------------------------- eval Dijkstra


def _run_eval(ctx: _Ctx, rec: _Recorder):
    n, dg, kw = ctx.n, ctx.dg, ctx.kw
    sidx, skw = dg.sorted_rows(ctx.ks, ctx.host)
    C, _, _ = ctx.keys(False, False, None)
    status = ctx.zeros_i32(n, "vertex states")
    status[ctx.src] = 1
    slist = ctx.alloc(n, np.int32, "settle list")
    stamp = ctx.zeros_i32(n, "decrease stamps")
    k_d = ctx.k("eval_d", "sssp_eval.cu")
    k_settle = ctx.k("eval_settle", "sssp_eval.cu")
    k_relax = ctx.k("eval_relax", "sssp_eval.cu")
    n32, tgt, blk, gn = np.int32(n), np.int32(ctx.target), (BLOCK,), (_grid(n),)
    # seed 004's layout: rows sorted by weight, so the lightest live arc is the first one
    sorted_flag = np.int32(1)
    n_open = int(ctx.src.size)
    p = 0
    while True:
        rec.check_cancel()
        st, st_next = ctx.cur(p)
        t0 = time.perf_counter()
        k_d(gn, blk, (n32, dg.indptr, sidx, skw, sorted_flag, C, status, st))
        k_settle(gn, blk, (n32, C, status, slist, st))
        k_relax((ctx.fixed_grid,), blk, (slist, dg.indptr, dg.indices, kw, C, status, stamp,
                                         np.int32(p + 1), st, st_next, ctx.mirror_ptr, tgt))
        ctx.sync()
        dt = (time.perf_counter() - t0) * 1e6
        m = ctx.mirror
        n_open += int(m[ST_LIST]) - int(m[ST_LIST2])
        rec.add(int(m[ST_FRONTIER]), int(m[ST_EDGES]), dt, "eval_dijkstra")
        p += 1
        if n_open <= 0 or (ctx.target >= 0 and int(m[ST_TSTATUS]) == 2):
            break
    return C


# -------------------------------------------------------------------------------- auto


def _auto_kernel(func: str, cooperative: bool):
    """auto's kernel compiled for the current AUTO_TUNING (block size, lanes, precheck)."""
    t = AUTO_TUNING
    defines = (f"AUTO_BS={int(t['block'])}", f"AUTO_G={int(t['lanes'])}",
               f"AUTO_PRECHECK={1 if t['precheck'] else 0}",
               f"AUTO_SQ={int(t['local_queue'])}", f"AUTO_STAGE={1 if t['stage'] else 0}")
    return get_kernel("sssp_auto.cu", func, defines=defines, cooperative=cooperative)


def _auto_grid(ctx: _Ctx, kern, blocks_per_sm: int | None = None, block: int = BLOCK) -> int:
    """Blocks of a cooperative launch: tuning's blocks/SM capped by the kernel's occupancy."""
    regs = max(1, int(kern.num_regs))
    smem = int(kern.shared_size_bytes)
    by_regs = 65536 // (regs * block)
    by_threads = 2048 // block
    by_smem = (227 * 1024) // (smem + 1024)
    want = int(AUTO_TUNING["blocks_per_sm"]) if blocks_per_sm is None else int(blocks_per_sm)
    bps = max(1, min(by_regs, by_threads, by_smem, want))
    return ctx.sms * bps


def _run_auto(ctx: _Ctx, rec: _Recorder):
    """The fastest schedule (``AUTO_TUNING['schedule']``, default ``by_weights``): near-far
    buckets for spread weights, an unordered asynchronous worklist otherwise, each in one
    persistent cooperative launch; without cooperative launches, batches of one-phase
    launches of the worklist kernel."""
    cp = ctx.cp
    schedule = AUTO_TUNING.get("schedule", "by_weights")
    if schedule == "by_weights":
        schedule = "nearfar" if ctx.dg.weight_cv > WEIGHT_CV_NEARFAR else "bf"
    if AUTO_TUNING["cooperative"]:
        try:
            if schedule == "nearfar":
                return _run_auto_nf(ctx, rec)
            return _run_auto_bf(ctx, rec, coop=True)
        except cp.cuda.driver.CUDADriverError as exc:
            if "COOPERATIVE" not in str(exc) or len(rec.f):
                raise
            # no cooperative launch on this device/context: batches of one-phase launches
    return _run_auto_bf(ctx, rec, coop=False)


def _persistent(ctx: _Ctx, rec: _Recorder, launch, coop: bool) -> None:
    """Drive persistent launches (or batches) until the device says done.

    ``launch(p, it, steps, tele, cap, ctl)`` queues the work for phases p..p+steps-1.
    Telemetry rows per phase: [0:cap) work items at the phase start, [cap:2cap) arcs
    relaxed, [2cap:3cap) %globaltimer at the phase start (ns); ctl = [phase reached, -,
    done, iteration]. One read-back per launch/batch.
    """
    lp = max(1, int(AUTO_TUNING["launch_phases"] if coop else AUTO_TUNING["batch_phases"]))
    cap = lp + 1
    tele = ctx.alloc(3 * cap + 4, np.uint64, "auto telemetry")
    ctl = tele[3 * cap:]
    starts_t: dict[int, int] = {}
    starts_f: dict[int, int] = {}
    edges: dict[int, int] = {}
    emitted = 0
    p = it = 0
    while True:
        rec.check_cancel()
        tele.fill(0)
        launch(p, it, lp, tele, cap, ctl)
        host = tele.get()  # the one read-back of this launch / batch
        tf, te, tt, hctl = host[:cap], host[cap:2 * cap], host[2 * cap:3 * cap], host[3 * cap:]
        reached, done, it = int(hctl[0]), bool(hctl[2]), int(hctl[3])
        # phases processed; their start records are 0..n_proc (the start of the following
        # phase is recorded only when the search stopped inside this launch/batch)
        n_proc = reached - p if (coop or done) else lp
        for i in range(0, min(n_proc, cap - 1) + 1):
            if tt[i]:
                starts_t[p + i] = int(tt[i])
                starts_f[p + i] = int(tf[i])
        for i in range(min(n_proc, cap)):
            edges[p + i] = int(te[i])
        new_p = p + n_proc
        while emitted + 1 in starts_t and emitted < new_p:
            t_us = (starts_t[emitted + 1] - starts_t[emitted]) / 1000.0
            rec.add(starts_f[emitted], edges.get(emitted, 0), t_us, "persistent")
            emitted += 1
        rec.flush()
        p = new_p
        if done:
            return


def _coop_launch(ctx: _Ctx, kern, args_fn, blocks_per_sm: int | None = None,
                 block: int = BLOCK):
    """A cooperative launch with the occupancy-derived grid, halved while too large."""
    cp = ctx.cp
    state = {"grid": _auto_grid(ctx, kern, blocks_per_sm, block)}

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


def _run_auto_nf(ctx: _Ctx, rec: _Recorder):
    cp, n, dg, kw = ctx.cp, ctx.n, ctx.dg, ctx.kw
    delta = max(1, int(round(float(AUTO_TUNING["delta_factor"]) * dg.mean_weight)))
    dp = delta << ctx.ks.hop_bits
    if dp >= (1 << 62):
        dp = 1 << 61
    nb = max(2, int(AUTO_TUNING["buckets"]))
    if ctx.ws is None or not ctx.ws.arrays:  # a reused workspace holds them already
        ensure_free(nb * n * 4 + n * 40, "auto's bucket lists")
    near0 = ctx.alloc(n, np.int32, "near list")
    near1 = ctx.alloc(n, np.int32, "next near list")
    C, _, _ = ctx.keys(False, False, near0)
    stamp = ctx.zeros_i32(n, "queued stamps")
    buckets = ctx.alloc(nb * n, np.int32, "bucket lists")
    bcnt = cp.zeros(nb, dtype=cp.uint64)
    bstamp = ctx.alloc(n, np.int64, "bucket stamps")
    bstamp.fill(np.int64(INF))
    over0 = ctx.alloc(n, np.int32, "overflow list")
    over1 = ctx.alloc(n, np.int32, "next overflow list")
    ocnt = cp.zeros(2, dtype=cp.uint64)
    oflag = ctx.zeros_i32(n, "overflow flags")
    state = cp.zeros(16, dtype=cp.uint64)
    scratch = cp.full(2, U64_INF, dtype=cp.uint64)
    cnt = cp.zeros(3, dtype=cp.uint64)
    cnt[0] = np.uint64(ctx.src.size)
    bar = cp.zeros(2, dtype=cp.uint32)
    rounds = np.int32(max(1, int(AUTO_TUNING["local_rounds"])))
    kern = _auto_kernel("auto_nf", True)

    def args(p, it, lp, tele, cap, ctl):
        return (np.int32(n), dg.indptr, dg.indices, kw, C, near0, near1, cnt, stamp, buckets,
                bcnt, bstamp, np.int32(nb), over0, over1, ocnt, oflag, state, scratch,
                np.uint64(dp), np.int32(ctx.target), bar, np.int32(p), np.int32(p + lp),
                np.int32(it), rounds, tele, np.int32(cap), np.int32(p), ctl)

    _persistent(ctx, rec, _coop_launch(ctx, kern, args, block=int(AUTO_TUNING["block"])),
                coop=True)
    return C


def _run_auto_bf(ctx: _Ctx, rec: _Recorder, coop: bool):
    cp, n, dg, kw = ctx.cp, ctx.n, ctx.dg, ctx.kw
    list0 = ctx.alloc(n, np.int32, "work list")
    list1 = ctx.alloc(n, np.int32, "next work list")
    C, _, _ = ctx.keys(False, False, list0)
    stamp = ctx.zeros_i32(n, "queued stamps")
    cnt = cp.zeros(3, dtype=cp.uint64)
    cnt[0] = np.uint64(ctx.src.size)
    bar = cp.zeros(2, dtype=cp.uint32)
    rounds = np.int32(max(1, int(AUTO_TUNING["bf_local_rounds"])))
    base = (np.int32(n), dg.indptr, dg.indices, kw, C, list0, list1, cnt, stamp, bar)
    if coop:
        kern = _auto_kernel("auto_bf", True)

        def args(p, it, lp, tele, cap, ctl):
            return base + (np.int32(p), np.int32(p + lp), rounds, np.int32(1), tele,
                           np.int32(cap), np.int32(p), ctl)

        launch = _coop_launch(ctx, kern, args, block=int(AUTO_TUNING["block"]))
    else:
        kern_nc = _auto_kernel("auto_bf", False)
        grid = ctx.sms * 4
        bs = int(AUTO_TUNING["block"])

        def launch(p, it, lp, tele, cap, ctl):
            for j in range(lp):
                kern_nc((grid,), (bs,),
                        base + (np.int32(p + j), np.int32(p + j + 1), rounds, np.int32(0),
                                tele, np.int32(cap), np.int32(p), ctl))

    _persistent(ctx, rec, launch, coop)
    return C


# ------------------------------------------------------------------------------- entry


def _pred(ctx: _Ctx, C):
    n, dg = ctx.n, ctx.dg
    pred = ctx.alloc(n, np.int32, "predecessors")
    pred.fill(np.int32(0x7FFFFFFF))
    ctx.k("pred_from_keys")((_grid(n),), (BLOCK,),
                            (np.int32(n), dg.indptr, dg.indices, ctx.kw, C, pred))
    ctx.k("pred_finish")((_grid(n),), (BLOCK,), (np.int32(n), pred))
    return pred


def _pinned(cp, arr) -> np.ndarray:
    mem = cp.cuda.alloc_pinned_memory(arr.nbytes)
    return np.frombuffer(mem, dtype=arr.dtype, count=arr.size)


_COPY_STREAMS: dict[int, object] = {}
_D2H = 2  # cudaMemcpyDeviceToHost


def _pred_and_copies(ctx: _Ctx, C) -> tuple[np.ndarray, np.ndarray]:
    """Predecessor pass and both copies to pinned host memory, overlapped: the keys leave
    on a second stream while the predecessor pass runs on the search's stream; the host
    waits once for each stream (no synchronising copy calls)."""
    cp = ctx.cp
    rt = cp.cuda.runtime
    dev = cp.cuda.runtime.getDevice()
    side = _COPY_STREAMS.get(dev)
    if side is None:
        side = _COPY_STREAMS[dev] = cp.cuda.Stream(non_blocking=True)
    key_h = _pinned(cp, C)
    done = ctx.stream.record()
    side.wait_event(done)
    rt.memcpyAsync(key_h.ctypes.data, C.data.ptr, C.nbytes, _D2H, side.ptr)
    pred = _pred(ctx, C)
    pred_h = _pinned(cp, pred)
    rt.memcpyAsync(pred_h.ctypes.data, pred.data.ptr, pred.nbytes, _D2H,
                   ctx.stream.ptr)
    # the workspace (pred, C) may be reused by the next search only after both copies
    ctx.stream.synchronize()
    side.synchronize()
    return key_h.view(np.int64), pred_h


def _to_host(cp, arr, dtype) -> np.ndarray:
    """Device -> host through pinned memory (about twice the pageable copy rate)."""
    out = _pinned(cp, arr)
    arr.get(out=out)
    return out.view(dtype) if np.dtype(dtype) != arr.dtype else out


def run(g, sources, strategy: str, opts, ks: KeySpace, *, on_phase=None, cancel=None):
    """(key int64[n], pred int32[n], PhaseLog) of one search on the current CUDA device."""
    if strategy not in STRATEGIES:
        raise InvalidArgumentError(
            f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}"
        )
    g = CSRGraph.from_any(g)
    n = g.num_nodes
    src = np.unique(np.atleast_1d(np.asarray(sources, dtype=np.int64)))
    if src.size == 0:
        raise InvalidArgumentError("no source given")
    if src.min() < 0 or src.max() >= n:
        bad = int(src[(src < 0) | (src >= n)][0])
        raise InvalidArgumentError(f"source {bad} is outside 0..{n - 1}")
    if opts.target is not None and not (0 <= int(opts.target) < n):
        raise InvalidArgumentError(f"target {opts.target} is outside 0..{n - 1}")
    cp = _cp()
    # workspace estimate: keys, tentative keys, lists, stamps, flags, pred (+ graph if new)
    ensure_free(n * (8 + 8 + 4 + 4 + 4 + 4 + 4 + 1 + 1), f"the {strategy} search workspace")
    rec = _Recorder(strategy, on_phase, cancel)
    with oom_as_typed(f"the {strategy} search", n * 40):
        ctx = _Ctx(g, src.astype(np.int32), ks, opts, stats=strategy != "auto")
        if strategy == "auto":
            # auto reuses its device arrays from the previous search on this graph
            ws = ctx.ws = _take_workspace(ctx.dg)
            try:
                C = _run_auto(ctx, rec)
                key, pred_h = _pred_and_copies(ctx, C)
            finally:
                ctx.ws = None
            _give_back_workspace(ctx.dg, ws)
            return key, pred_h, rec.log()
        if strategy in ("conventional", "selection", "adaptive", "bellman_ford_queue"):
            C = _run_bf(ctx, strategy, rec)
        elif strategy == "delta":
            C = _run_delta(ctx, rec)
        elif strategy == "eval_dijkstra":
            C = _run_eval(ctx, rec)
        pred = _pred(ctx, C)
        key = _to_host(cp, C, np.int64)
        pred_h = _to_host(cp, pred, np.int32)
    return key, pred_h, rec.log()


def launch_overhead_note() -> str:
    """How phase times are measured on this backend (for reports)."""
    return (
        "host-driven strategies: perf_counter around the phase's launches and a stream "
        "synchronize (statistics arrive in host-mapped memory); auto: %globaltimer on "
        "the device between phase starts"
    )


__all__ = ["run", "STRATEGIES", "AUTO_TUNING"]
