"""Near-far delta-stepping on the GPU, host-driven (kernels in ``sssp_bf.cu``): a phase
relaxes the near list, UPDATE splits the improved vertices into the next near list and
the far pile; when the near list runs dry the threshold moves past the lightest far key
on the device."""

from __future__ import annotations

import time

import numpy as np

from ...errors import InvalidArgumentError
from ...params import default_delta
from .context import (
    BLOCK,
    INF,
    ST_AUX,
    ST_EDGES,
    ST_FRONTIER,
    ST_LIST2,
    ST_TKEY,
    U64_INF,
    Ctx,
    Recorder,
    grid,
)


def run_delta(ctx: Ctx, rec: Recorder):
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
    n32, tgt, blk, gn = np.int32(n), np.int32(ctx.target), (BLOCK,), (grid(n),)
    null = np.uint64(0)
    cnt = int(ctx.src.size)
    for p, st, st_next in ctx.phases(rec):
        t0 = time.perf_counter()
        relax_list((grid(cnt),), blk, (np.int32(cnt), near_in, dg.indptr, dg.indices, kw, null,
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
        cnt = nn
        if done:
            break
    return C


def delta(g, sources, ks, opts, rec: Recorder):
    """The delta search: (key, pred) on the host."""
    ctx = Ctx(g, sources, ks, opts)
    return ctx.finish(run_delta(ctx, rec))
