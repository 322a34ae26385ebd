"""CPU backend of ``gpu_core.sssp``: the driver every numba strategy runs under.

``run(g, sources, strategy, opts, ks, *, on_phase, cancel) -> (key, pred, PhaseLog)``.
The strategy's registry entry (``registry.Strategy.cpu``) is a ``setup(s: CpuSearch)``
that allocates its state and returns ``step() -> int``, one compiled batch of phases
(about ``params.CPU_BATCH_US`` long, at most ``opts.cpu_batch_phases``). Between batches
this driver polls ``cancel`` and hands the new phases to ``on_phase`` (so a callback
costs nothing per phase). Phase times come from the CPU cycle counter read inside the
compiled loop (``host.clock``). Same phase semantics as the CUDA backend, so ``dist``,
``pred`` and the per-phase frontier/edges agree between backends for every strategy but
``auto``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ...errors import CancelledError, NegativeCycleError
from ...host.clock import cycles_per_us
from ...keys import KEY_INF, NO_PRED, KeySpace
from ...params import CPU_BATCH_US
from ...telemetry import PhaseLog
from ..registry import get
from .phases import pred_from_keys
from .search import CpuSearch


def _graph_arrays(g) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        np.ascontiguousarray(g.indptr, dtype=np.int32),
        np.ascontiguousarray(g.indices, dtype=np.int32),
        np.ascontiguousarray(g.weights, dtype=np.int32),
    )


def run(g, sources, strategy, opts, ks: KeySpace, *, on_phase=None, cancel=None):
    """(key int64[n], pred int32[n], PhaseLog) of one search; see ``gpu_core.sssp.sssp``.
    Trusts its inputs (``api.sssp`` / ``api.run_backend`` validated them): distinct int32
    sources in range, a target in range or None, a strategy that takes these weights."""
    setup: Callable = get(strategy).entry("cpu")
    indptr, indices, weights = _graph_arrays(g)
    n = indptr.shape[0] - 1
    src = np.asarray(sources, dtype=np.int32)
    # with negative arcs no key is final early: no early exit at a target (api.sssp)
    target = -1 if opts.target is None or ks.negative else int(opts.target)
    if opts.small_work and strategy == "auto" and opts.cpu_auto == "delta" and not ks.negative:
        from .small import kernel_ready, search  # no numba: nothing to compile (issue 41)

        got = None if kernel_ready() else search(indptr, indices, weights, int(ks.hop_bits), src)
        if got is not None:
            if on_phase is not None:
                on_phase(got[2])
            return got
    key = np.full(n, KEY_INF, dtype=np.int64)
    key[src] = 0

    cpu = cycles_per_us()
    budget = int(CPU_BATCH_US * cpu) if cpu > 0 else int(KEY_INF)
    cap = max(1, int(opts.cpu_batch_phases))
    out = (np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
           np.zeros(cap, np.uint8))
    st = np.zeros(8, np.int64)
    step = setup(CpuSearch(g, indptr, indices, weights, int(ks.hop_bits), key, src, opts,
                           target, cpu, budget, st, out))
    out_f, out_e, out_t, out_m = out

    chunks: list[np.ndarray] = []
    done_phases = 0
    while st[3] == 0:
        if cancel is not None and cancel():
            raise CancelledError(f"{strategy} search cancelled after {done_phases} phases")
        t0 = time.perf_counter()
        k = int(step())
        wall_us = (time.perf_counter() - t0) * 1e6
        if cpu > 0:
            t_us = out_t[:k] / cpu
        else:  # no cycle counter: share the batch's wall time by work done
            work = (out_e[:k] + out_f[:k] + 1).astype(np.float64)
            t_us = wall_us * work / work.sum()
        chunk = PhaseLog.from_columns(out_f[:k].copy(), out_e[:k].copy(), t_us,
                                      out_m[:k].copy(), start=done_phases)
        done_phases += k
        chunks.append(chunk.rows)
        if on_phase is not None and k:
            on_phase(chunk)

    if ks.negative and st[7]:  # bf.bf_batch: phase n still lowered a key
        raise NegativeCycleError()  # api.run_backend locates the cycle
    log = PhaseLog(np.concatenate(chunks)) if chunks else PhaseLog()
    pred = np.full(n, NO_PRED, dtype=np.int32)
    pred_from_keys(indptr, indices, weights, int(ks.hop_bits), key, pred)
    return key, pred, log
