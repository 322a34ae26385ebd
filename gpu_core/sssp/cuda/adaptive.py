"""adaptive (seed 001) on the GPU. With the frontier signal and no target every phase is
decided on the device: one cooperative launch (``adaptive_device``, or ``adaptive_fused``
with ``SSSPOptions.adaptive_fused``, in ``sssp_adaptive.cu``) runs up to
``opts.adaptive_launch_phases`` Jacobi phases, each full (|V| threads over the mask) or
list mode as the previous phase's frontier count says, with device-side telemetry
(frontier, arcs, mode, ``%globaltimer``) read back once per launch: the same phases,
frontiers, arcs and modes as the host-driven loop and the CPU backend (tests/gpu compare
them). With a target, or seed 001's time signal (host-measured), it stays host-driven
(``bf.run_bf``).
"""

from __future__ import annotations

import numpy as np

from ...device import get_kernel
from ...errors import NegativeCycleError
from .bf import ADAPTIVE, run_bf
from .context import HERE, Ctx, Recorder, coop_launch

_AD_MODES = ("conventional", "selection", "switch")


def run_on_device(ctx: Ctx, rec: Recorder, lin, lout, C, U, mask, stamp, cnt: int, thr: int):
    """adaptive with the frontier signal, every decision on the device (``adaptive_device``
    in sssp_adaptive.cu): one cooperative launch runs up to opts.adaptive_launch_phases phases,
    full or list as the previous frontier says; the host reads the telemetry once per
    launch (and polls cancel / feeds on_phase between launches)."""
    cp, n, dg, kw = ctx.cp, ctx.n, ctx.dg, ctx.kw
    pmax = max(1, int(ctx.opts.adaptive_launch_phases))
    cap = pmax + 1
    tele = cp.zeros(4 * cap + 4, dtype=cp.uint64)
    ctl = tele[4 * cap:]
    lc = cp.zeros(3, dtype=cp.uint64)
    lc_host = np.zeros(3, dtype=np.uint64)
    bar = cp.zeros(2, dtype=cp.uint32)
    fused = bool(ctx.opts.adaptive_fused)
    kern = get_kernel(HERE / "sssp_adaptive.cu",
                      "adaptive_fused" if fused else "adaptive_device", cooperative=True)
    launch = coop_launch(ctx, kern, lambda args_: args_, blocks_per_sm=4)
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
        # negative arcs: stop at phase n exactly (the negative-cycle bound, as in bf.run_bf)
        lim = max(1, min(pmax, n - p)) if ctx.bias else pmax
        tail = (a_lists[0], a_lists[1], lc, bar, np.int32(p), np.int32(lim), np.uint64(thr),
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
        if ctx.bias and p >= n:  # phase n lowered a key: a negative cycle
            raise NegativeCycleError()


def adaptive(g, sources, ks, opts, rec: Recorder):
    """The adaptive search: (key, pred) on the host."""
    ctx = Ctx(g, sources, ks, opts)
    on_device = opts.adaptive_signal == "frontier" and ctx.target < 0
    return ctx.finish(run_bf(ctx, ADAPTIVE, rec, run_on_device if on_device else None))
