"""Evaluation-value parallel Dijkstra (seed 004) on the GPU, host-driven (kernels in
``sssp_eval.cu``): D by parallel reduction, settle every open vertex with key <= D, relax
the settled vertices' arcs to non-settled heads."""

from __future__ import annotations

import time

import numpy as np

from .context import (
    BLOCK,
    ST_EDGES,
    ST_FRONTIER,
    ST_LIST,
    ST_LIST2,
    ST_TSTATUS,
    Ctx,
    Recorder,
    grid,
)


def run_eval(ctx: Ctx, rec: Recorder):
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
    n32, tgt, blk, gn = np.int32(n), np.int32(ctx.target), (BLOCK,), (grid(n),)
    # seed 004's layout: rows sorted by weight, so the lightest live arc is the first one
    sorted_flag = np.int32(1)
    n_open = int(ctx.src.size)
    for p, st, st_next in ctx.phases(rec):
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
        if n_open <= 0 or (ctx.target >= 0 and int(m[ST_TSTATUS]) == 2):
            break
    return C


def eval_dijkstra(g, sources, ks, opts, rec: Recorder):
    """The eval_dijkstra search: (key, pred) on the host."""
    ctx = Ctx(g, sources, ks, opts)
    return ctx.finish(run_eval(ctx, rec))
