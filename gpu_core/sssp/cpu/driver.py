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

import dataclasses
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from ...errors import CancelledError, NegativeCycleError
from ...host.clock import cycles_per_us
from ...host.csr import key_weight
from ...keys import KEY_INF, NO_PRED, KeySpace
from ...params import CPU_BATCH_US, default_delta
from ...telemetry import PhaseLog
from ..registry import get
from .search import CpuSearch


@njit(cache=True, nogil=True)
def pred_from_keys(indptr, indices, weights, hb, key, pred, dist, unreachable):
    """pred[v] = smallest u with key[u] + w'(u,v) == key[v] (one pass, u ascending).
    When ``dist`` has n entries, the same pass over the keys writes the distances too
    (``key >> hb``, ``unreachable`` where KEY_INF: what ``host.distances.dist_from_keys``
    makes after a search, not a second pass over the keys); an empty ``dist``: none."""
    n = key.shape[0]
    with_dist = dist.shape[0] == n
    for u in range(n):
        ku = key[u]
        if ku == KEY_INF:
            if with_dist:
                dist[u] = unreachable
            continue
        if with_dist:
            dist[u] = ku >> hb
        for a in range(indptr[u], indptr[u + 1]):
            h = indices[a]
            if ku + key_weight(weights, a, hb) == key[h] and pred[h] < 0:
                pred[h] = u


_NO_DIST = np.zeros(0, np.int64)  # pred_from_keys' ``dist`` when none is asked for


def _graph_arrays(g) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        np.ascontiguousarray(g.indptr, dtype=np.int32),
        np.ascontiguousarray(g.indices, dtype=np.int32),
        np.ascontiguousarray(g.weights, dtype=np.int32),
    )


class CpuPlan:
    """One graph's CPU searches with one strategy and options, resolved once (issue 38:
    a click goes straight to the search): the registry entry (``auto``'s choice made
    through its ``resolve``), the contiguous arrays, ``delta``'s default width, the cycle
    counter's rate and the batch budget. :meth:`search` runs one search from validated
    sources."""

    def __init__(self, g, strategy: str, opts, ks: KeySpace) -> None:
        setup: Callable = get(strategy).entry("cpu")
        choose = getattr(setup, "resolve", None)  # a strategy that only picks another
        self.setup: Callable = choose(opts) if choose is not None else setup
        self.g, self.strategy, self.ks = g, strategy, ks
        self.indptr, self.indices, self.weights = _graph_arrays(g)
        self.n = self.indptr.shape[0] - 1
        self.opts = _with_width(self.setup, g, opts)
        # with negative arcs no key is final early: no early exit at a target (api.sssp)
        self.target = -1 if opts.target is None or ks.negative else int(opts.target)
        # small work: scipy until the near-far kernel needs no compilation (issue 41);
        # once it is compiled or cached it stays so, and is not asked again
        self.small = (opts.small_work and strategy == "auto" and opts.cpu_auto == "delta"
                      and not ks.negative)
        self._kernel_ready = False
        self.cpu: float | None = None  # the clock's rate, at the first compiled search
        self.budget = 0
        self.cap = max(1, int(opts.cpu_batch_phases))

    def search(self, sources, *, on_phase=None, cancel=None, dist: np.ndarray | None = None):
        """(key int64[n], pred int32[n], PhaseLog) from ``sources`` (distinct int32 in
        range: trusted). ``dist`` (int64[n]): filled with the distances too, ``ks``'s
        unreachable value where none (``api.PreparedSearch.run``: made in the predecessor
        pass, not in a pass of its own after the search)."""
        indptr, indices, weights, n = self.indptr, self.indices, self.weights, self.n
        src = np.asarray(sources, dtype=np.int32)
        if self.small and not self._kernel_ready:
            from .small import kernel_ready, search  # no numba: nothing to compile (issue 41)

            self._kernel_ready = kernel_ready()
            got = None if self._kernel_ready else search(indptr, indices, weights,
                                                         int(self.ks.hop_bits), src)
            if got is not None:
                if on_phase is not None:
                    on_phase(got[2])
                if dist is not None:
                    from ...host.distances import dist_from_keys

                    dist_from_keys(got[0], self.ks.hop_bits, self.ks.unreachable, out=dist)
                return got
        if self.cpu is None:  # (not before: the small path compiles nothing, the clock too)
            self.cpu = cycles_per_us()
            self.budget = int(CPU_BATCH_US * self.cpu) if self.cpu > 0 else int(KEY_INF)
        key = np.full(n, KEY_INF, dtype=np.int64)
        key[src] = 0
        cpu, cap = self.cpu, self.cap
        out = (np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
               np.zeros(cap, np.uint8))
        st = np.zeros(8, np.int64)
        step = self.setup(CpuSearch(self.g, indptr, indices, weights, int(self.ks.hop_bits),
                                    key, src, self.opts, self.target, cpu, self.budget, st,
                                    out))
        out_f, out_e, out_t, out_m = out

        chunks: list[np.ndarray] = []
        done_phases = 0
        while st[3] == 0:
            if cancel is not None and cancel():
                raise CancelledError(f"{self.strategy} search cancelled after {done_phases} phases")
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

        if self.ks.negative and st[7]:  # bf.bf_batch: phase n still lowered a key
            raise NegativeCycleError()  # api.run_backend locates the cycle
        log = PhaseLog(np.concatenate(chunks)) if chunks else PhaseLog()
        pred = np.full(n, NO_PRED, dtype=np.int32)
        pred_from_keys(indptr, indices, weights, int(self.ks.hop_bits), key, pred,
                       _NO_DIST if dist is None else dist, int(self.ks.unreachable))
        return key, pred, log


def _with_width(setup: Callable, g, opts):
    """``opts`` with ``delta``'s default bucket width filled in when ``setup`` is the
    near-far search and none was given (``params.default_delta``: once per plan)."""
    from .delta import delta

    if setup is delta and opts.delta is None:
        return dataclasses.replace(opts, delta=default_delta(g))
    return opts


def run(g, sources, strategy, opts, ks: KeySpace, *, on_phase=None, cancel=None):
    """(key int64[n], pred int32[n], PhaseLog) of one search; see ``gpu_core.sssp.sssp``.
    Trusts its inputs (``api.sssp`` / ``api.run_backend`` validated them): distinct int32
    sources in range, a target in range or None, a strategy that takes these weights."""
    return CpuPlan(g, strategy, opts, ks).search(sources, on_phase=on_phase, cancel=cancel)
