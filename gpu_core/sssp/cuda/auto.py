"""``auto`` on the GPU: the whole search in one persistent cooperative launch (or a few,
to poll ``cancel``): near-far buckets for spread weights, an unordered asynchronous
worklist otherwise, block-local shared-memory queues drained for many rounds per grid
barrier, device-side telemetry read back once per launch (see ``sssp_auto.cu``). Without
cooperative launches it queues one-phase launches in batches and reads a device-side
"done" flag once per batch. Its knobs are ``SSSPOptions.auto`` (``AutoTuning``);
measurements: docs/perf/sssp_gpu.md. Its device arrays are kept with the DeviceGraph and
reused by the next search on the same graph (``Workspace``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...device import get_kernel
from ...device.memory import ensure_free
from .context import HERE, INF, U64_INF, Ctx, Recorder, coop_launch, pinned

# auto's "by_weights" schedule: nearfar when the arc weights' coefficient of variation
# exceeds this, else the unordered worklist (docs/perf/sssp_gpu.md)
WEIGHT_CV_NEARFAR = 1.0


class Workspace:
    """auto's device arrays, kept with the DeviceGraph and reused by the next search on the
    same graph (no allocation, no memory check per call). A search takes one workspace
    from the graph's free list and gives it back when done, so two threads searching the
    same graph never share one. Arrays are keyed by their purpose; every search re-inits
    what it reads (the fills in _run_auto_*), so nothing leaks between searches."""

    def __init__(self):
        self.arrays: dict[tuple, Any] = {}  # CuPy arrays

    def get(self, ctx: Ctx, shape: Any, dtype: Any, what: str) -> Any:
        key = (what, tuple(np.atleast_1d(shape).tolist()), np.dtype(dtype).str)
        a = self.arrays.get(key)
        if a is None:
            a = ctx._alloc(shape, dtype, what)
            self.arrays[key] = a
        return a


def _take_workspace(dg) -> Workspace:
    with dg._lock:
        free = dg.__dict__.setdefault("_auto_ws", [])
        return free.pop() if free else Workspace()


def _give_back_workspace(dg, ws: Workspace) -> None:
    with dg._lock:
        free = dg.__dict__.setdefault("_auto_ws", [])
        if len(free) < 2:
            free.append(ws)


def _auto_kernel(t, func: str, cooperative: bool):
    """auto's kernel compiled for the tuning ``t`` (block size, lanes, precheck, ...)."""
    defines = (f"AUTO_BS={int(t.block)}", f"AUTO_G={int(t.lanes)}",
               f"AUTO_PRECHECK={1 if t.precheck else 0}",
               f"AUTO_SQ={int(t.local_queue)}", f"AUTO_STAGE={1 if t.stage else 0}")
    return get_kernel(HERE / "sssp_auto.cu", func, defines=defines, cooperative=cooperative)


def _run_auto(ctx: Ctx, rec: Recorder):
    """The fastest schedule (``opts.auto.schedule``, default ``by_weights``): near-far
    buckets for spread weights, an unordered asynchronous worklist otherwise, each in one
    persistent cooperative launch; without cooperative launches, batches of one-phase
    launches of the worklist kernel."""
    cp, t = ctx.cp, ctx.opts.auto
    schedule = t.schedule
    if schedule == "by_weights":
        schedule = "nearfar" if ctx.dg.weight_cv > WEIGHT_CV_NEARFAR else "bf"
    if t.cooperative:
        try:
            if schedule == "nearfar":
                return _run_auto_nf(ctx, rec)
            return _run_auto_bf(ctx, rec, coop=True)
        except cp.cuda.driver.CUDADriverError as exc:
            if "COOPERATIVE" not in str(exc) or len(rec.f):
                raise
            # no cooperative launch on this device/context: batches of one-phase launches
    return _run_auto_bf(ctx, rec, coop=False)


def _persistent(ctx: Ctx, rec: Recorder, launch, coop: bool) -> None:
    """Drive persistent launches (or batches) until the device says done.

    ``launch(p, it, steps, tele, cap, ctl)`` queues the work for phases p..p+steps-1.
    Telemetry rows per phase: [0:cap) work items at the phase start, [cap:2cap) arcs
    relaxed, [2cap:3cap) %globaltimer at the phase start (ns); ctl = [phase reached, -,
    done, iteration]. One read-back per launch/batch.
    """
    t = ctx.opts.auto
    lp = max(1, int(t.launch_phases if coop else t.batch_phases))
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


def _run_auto_nf(ctx: Ctx, rec: Recorder):
    cp, n, dg, kw, t = ctx.cp, ctx.n, ctx.dg, ctx.kw, ctx.opts.auto
    delta = max(1, int(round(float(t.delta_factor) * dg.mean_weight)))
    dp = delta << ctx.ks.hop_bits
    if dp >= (1 << 62):
        dp = 1 << 61
    nb = max(2, int(t.buckets))
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
    rounds = np.int32(max(1, int(t.local_rounds)))
    kern = _auto_kernel(t, "auto_nf", True)

    def args(p, it, lp, tele, cap, ctl):
        return (np.int32(n), dg.indptr, dg.indices, kw, C, near0, near1, cnt, stamp, buckets,
                bcnt, bstamp, np.int32(nb), over0, over1, ocnt, oflag, state, scratch,
                np.uint64(dp), np.int32(ctx.target), bar, np.int32(p), np.int32(p + lp),
                np.int32(it), rounds, tele, np.int32(cap), np.int32(p), ctl)

    _persistent(ctx, rec, coop_launch(ctx, kern, args, int(t.blocks_per_sm), int(t.block)),
                coop=True)
    return C


def _run_auto_bf(ctx: Ctx, rec: Recorder, coop: bool):
    cp, n, dg, kw, t = ctx.cp, ctx.n, ctx.dg, ctx.kw, ctx.opts.auto
    list0 = ctx.alloc(n, np.int32, "work list")
    list1 = ctx.alloc(n, np.int32, "next work list")
    C, _, _ = ctx.keys(False, False, list0)
    stamp = ctx.zeros_i32(n, "queued stamps")
    cnt = cp.zeros(3, dtype=cp.uint64)
    cnt[0] = np.uint64(ctx.src.size)
    bar = cp.zeros(2, dtype=cp.uint32)
    rounds = np.int32(max(1, int(t.bf_local_rounds)))
    base = (np.int32(n), dg.indptr, dg.indices, kw, C, list0, list1, cnt, stamp, bar)
    if coop:
        kern = _auto_kernel(t, "auto_bf", True)

        def args(p, it, lp, tele, cap, ctl):
            return base + (np.int32(p), np.int32(p + lp), rounds, np.int32(1), tele,
                           np.int32(cap), np.int32(p), ctl)

        launch = coop_launch(ctx, kern, args, int(t.blocks_per_sm), int(t.block))
    else:
        kern_nc = _auto_kernel(t, "auto_bf", False)
        grid = ctx.sms * 4
        bs = int(t.block)

        def launch(p, it, lp, tele, cap, ctl):
            for j in range(lp):
                kern_nc((grid,), (bs,),
                        base + (np.int32(p + j), np.int32(p + j + 1), rounds, np.int32(0),
                                tele, np.int32(cap), np.int32(p), ctl))

    _persistent(ctx, rec, launch, coop)
    return C


_COPY_STREAMS: dict[int, Any] = {}  # CuPy streams per device
_D2H = 2  # cudaMemcpyDeviceToHost


def _pred_and_copies(ctx: Ctx, C) -> tuple[np.ndarray, np.ndarray]:
    """Predecessor pass and both copies to pinned host memory, overlapped: the keys leave
    on a second stream while the predecessor pass runs on the search's stream; the host
    waits once for each stream (no synchronising copy calls)."""
    cp = ctx.cp
    rt = cp.cuda.runtime
    dev = cp.cuda.runtime.getDevice()
    side = _COPY_STREAMS.get(dev)
    if side is None:
        side = _COPY_STREAMS[dev] = cp.cuda.Stream(non_blocking=True)
    key_h = pinned(cp, C)
    done = ctx.stream.record()
    side.wait_event(done)
    rt.memcpyAsync(key_h.ctypes.data, C.data.ptr, C.nbytes, _D2H, side.ptr)
    pred = ctx.pred(C)
    pred_h = pinned(cp, pred)
    rt.memcpyAsync(pred_h.ctypes.data, pred.data.ptr, pred.nbytes, _D2H,
                   ctx.stream.ptr)
    # the workspace (pred, C) may be reused by the next search only after both copies
    ctx.stream.synchronize()
    side.synchronize()
    return key_h.view(np.int64), pred_h


def auto(g, sources, ks, opts, rec: Recorder):
    """The auto search: (key, pred) on the host; reuses the device arrays of the previous
    search on this graph."""
    ctx = Ctx(g, sources, ks, opts, stats=False)
    ws = ctx.ws = _take_workspace(ctx.dg)
    try:
        C = _run_auto(ctx, rec)
        key, pred_h = _pred_and_copies(ctx, C)
    finally:
        ctx.ws = None
    _give_back_workspace(ctx.dg, ws)
    return key, pred_h
