"""CUDA side of ``gpu_core.sssp.costs``: ``auto``'s search, then ``sssp_costs.cu`` turns
its keys into costs and folds them on the device, and only the outputs' costs come back
(no predecessor pass, no key or predecessor download, no host pass over the keys)."""

from __future__ import annotations

import numpy as np

from ...device import get_kernel
from ...device.memory import ensure_free, oom_as_typed
from ...keys import KeySpace
from .auto import _give_back_workspace, _run_auto, _take_workspace
from .context import BLOCK, HERE, Ctx, Recorder, pinned

_SRC = HERE / "sssp_costs.cu"


def _blocks(count: int, ctx: Ctx) -> int:
    return max(1, min((count + BLOCK - 1) // BLOCK, ctx.fixed_grid))


def _device_fold(fold, ctx: Ctx, n: int):
    """(keep, extra, into) of ``fold`` on the current device, made once per device and
    kept with the fold (the same fold serves every search from its map)."""
    cp = ctx.cp
    dev = cp.cuda.runtime.getDevice()
    got = fold.device_arrays.get(dev)
    if got is None:
        mask = np.ones(n, dtype=bool)
        mask[fold.extra] = False
        keep = cp.asarray(np.flatnonzero(mask).astype(np.int32))
        got = (keep, cp.asarray(fold.extra.astype(np.int32)),
               cp.asarray(fold.into.astype(np.int32)))
        fold.device_arrays[dev] = got
    return got


def costs(g, sources: np.ndarray, ks: KeySpace, opts, fold, rec: Recorder) -> np.ndarray:
    """int64 least costs of the outputs (-1: unreached) of one ``auto`` search from
    ``sources``; ``fold`` a ``costs.CostFold`` or None (every vertex an output)."""
    ctx = Ctx(g, sources, ks, opts, stats=False)
    cp, n = ctx.cp, ctx.n
    ensure_free(n * 40, "the auto search workspace")  # as cuda.driver.run checks
    ws = ctx.ws = _take_workspace(ctx.dg)
    try:
        with oom_as_typed("the auto search", n * 40):
            C = _run_auto(ctx, rec)
        n_out = n if fold is None else n - int(fold.extra.shape[0])
        out = ctx.alloc(n_out, np.uint64, "folded costs")
        hb = np.int32(ks.hop_bits)
        keep = np.uint64(0)
        if fold is not None:
            keep, extra, into = _device_fold(fold, ctx, n)
        get_kernel(_SRC, "costs_gather")((_blocks(n_out, ctx),), (BLOCK,),
                                         (np.int32(n_out), keep, C, hb, out))
        if fold is not None and extra.size:
            get_kernel(_SRC, "costs_fold")((_blocks(extra.size, ctx),), (BLOCK,),
                                           (np.int32(extra.size), extra, into, C, hb, out))
        host = pinned(cp, out)
        out.get(out=host, stream=ctx.stream, blocking=False)
        ctx.stream.synchronize()  # the workspace (C, out) is free again after the copy
    finally:
        ctx.ws = None
    _give_back_workspace(ctx.dg, ws)
    return host.view(np.int64)
