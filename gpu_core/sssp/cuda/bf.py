"""The Bellman-Ford family on the GPU, host-driven (kernels in ``sssp_bf.cu``):
conventional and selection (seed 001), bellman_ford_queue (seed 004) and adaptive with a
target or the time signal (``adaptive.py`` runs the frontier signal on the device).

One phase = RELAX (+ list maintenance) then UPDATE, two or three launches; C = keys at the
start of the phase, U = tentative keys (U == C between phases). On a graph with negative
arcs (``ctx.bias``) a phase n that still lowers a key raises NegativeCycleError.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...errors import NegativeCycleError
from .context import (
    BLOCK,
    ST_EDGES,
    ST_FRONTIER,
    ST_LIST,
    ST_LIST2,
    ST_MINKEY,
    ST_TKEY,
    Ctx,
    Recorder,
    grid,
)


@dataclass(frozen=True)
class BfVariant:
    """How one Bellman-Ford strategy runs its phases: the registry names the entry point
    (``bf:selection``), this says what it does, so no code here reads strategy names."""

    lists: bool = False  # relax from the frontier list (seed 001's selection)
    adapts: bool = False  # switch between full and list phases by a signal (adaptive)
    queue: bool = False  # flag array compacted to the changed vertices (seed 004)


CONVENTIONAL = BfVariant()
SELECTION = BfVariant(lists=True)
ADAPTIVE = BfVariant(lists=True, adapts=True)
QUEUE = BfVariant(queue=True)


def run_bf(ctx: Ctx, variant: BfVariant, rec: Recorder, device_run=None):
    """The host-driven Jacobi phases of ``variant``; C, the final device keys.

    ``device_run`` (adaptive with the frontier signal) takes over after the arrays are
    set up: ``device_run(ctx, rec, lin, lout, C, U, mask, stamp, cnt, thr) -> C``."""
    n, dg, kw, opts = ctx.n, ctx.dg, ctx.kw, ctx.opts  # opts checked at the API
    lin = ctx.alloc(n, np.int32, "frontier list")
    lout = ctx.alloc(n, np.int32, "next frontier list")
    C, U, mask = ctx.keys(True, True, lin)
    stamp = ctx.zeros_i32(n, "scheduled stamps")
    flag = None
    if variant.queue:
        flag = ctx.alloc(n, np.uint8, "update flags")
        flag.fill(0)
    relax_full, update_full = ctx.k("relax_full"), ctx.k("update_full")
    relax_list, update_list = ctx.k("relax_list"), ctx.k("update_list")
    relax_flag, compact = ctx.k("relax_flag"), ctx.k("compact_flags")
    n32, tgt = np.int32(n), np.int32(ctx.target)
    gn = (grid(n),)
    blk = (BLOCK,)
    mir = ctx.mirror_ptr
    null = np.uint64(0)
    cnt = int(ctx.src.size)  # size of the current frontier
    list_mode = variant.lists or variant.queue
    switch_pending = False
    thr = int(opts.frontier_fraction * n)
    prev_dt = None
    if device_run is not None:  # adaptive decided on the device (adaptive.py)
        return device_run(ctx, rec, lin, lout, C, U, mask, stamp, cnt, thr)
    for p, st, st_next in ctx.phases(rec):
        t0 = time.perf_counter()
        if variant.queue:
            relax_flag((grid(cnt),), blk,
                       (np.int32(cnt), lin, dg.indptr, dg.indices, kw, C, U, flag, st))
            compact(gn, blk, (n32, flag, np.int32(1), np.int32(1), C, U, lout, st[ST_LIST:],
                              st, st_next, mir, tgt))
            mode, fslot = "bellman_ford_queue", ST_LIST
        elif list_mode:
            mode = "selection"
            if switch_pending:
                # seed 001 SWITCH kernel: rebuild the list NRa from the mask Ma
                compact(gn, blk, (n32, mask, np.int32(0), np.int32(0), C, U, lin, st[ST_LIST2:],
                                  st, st_next, null, tgt))
                switch_pending = False
                mode = "switch"
            relax_list((grid(cnt),), blk, (np.int32(cnt), lin, dg.indptr, dg.indices, kw, mask,
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
        if list_mode or variant.queue:
            lin, lout = lout, lin
        cnt = frontier
        if variant.adapts:
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
        if ctx.bias and p + 1 >= n:  # phase n lowered a key: a negative cycle
            raise NegativeCycleError()  # (api.run_backend locates it)
        if ctx.target >= 0 and int(m[ST_MINKEY]) >= int(m[ST_TKEY]):
            break
    return C


def _search(name: str, variant: BfVariant):
    def search(g, sources, ks, opts, rec: Recorder):
        ctx = Ctx(g, sources, ks, opts)
        return ctx.finish(run_bf(ctx, variant, rec))

    search.__name__ = name
    search.__doc__ = f"The {name} search: (key, pred) on the host."
    return search


# the registry's CUDA entry points ("bf:conventional" ...)
conventional = _search("conventional", CONVENTIONAL)
selection = _search("selection", SELECTION)
bellman_ford_queue = _search("bellman_ford_queue", QUEUE)
