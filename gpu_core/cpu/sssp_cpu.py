"""CPU backend of ``gpu_core.sssp``: every strategy compiled with numba.

Same phase semantics as the CUDA backend (documented in ``gpu_core.sssp`` and
``gpu_core.cpu.kernels``), so ``dist``, ``pred`` and the per-phase frontier/edges agree
between backends for every strategy but ``auto``. Phases run in compiled batches of about
``params.CPU_BATCH_US``; between batches this driver polls ``cancel`` and hands the new
phases to ``on_phase`` (so a callback costs nothing per phase). Phase times come from the
CPU cycle counter read inside the compiled loop (``clock.py``).

``auto`` on the CPU is the near-far search with ``params.default_delta`` (the fastest
exact method measured here: about 2x scipy's Dijkstra on road maps, see
docs/perf/sssp_cpu.md); its phases carry mode ``delta``. The sequential binary-heap
Dijkstra (settle rounds of ``params.CPU_ROUND_POPS`` pops, mode ``cpu``) stays available
as ``AUTO_METHOD = "heap"`` for comparison.
"""

from __future__ import annotations

import time

import numpy as np

from ..errors import CancelledError, InvalidArgumentError
from ..keys import KEY_INF, NO_PRED, KeySpace
from ..params import CPU_BATCH_US, CPU_ROUND_POPS, default_delta
from ..telemetry import MODE_CODE, PhaseLog
from . import kernels as K
from .clock import cycles_per_us

STRATEGIES = (
    "conventional",
    "selection",
    "adaptive",
    "eval_dijkstra",
    "bellman_ford_queue",
    "delta",
    "auto",
)
_BF = {
    "conventional": K.BF_CONVENTIONAL,
    "selection": K.BF_SELECTION,
    "adaptive": K.BF_ADAPTIVE,
    "bellman_ford_queue": K.BF_QUEUE,
}
# kernels.M_* index -> MODE_CODE (order of kernels.M_CONV..M_CPU)
_MODES = np.array(
    [MODE_CODE[m] for m in ("conventional", "selection", "switch", "eval_dijkstra",
                            "bellman_ford_queue", "delta", "cpu")],
    dtype=np.uint8,
)

# What "auto" runs on the CPU: "delta" (near-far, default delta) or "heap" (Dijkstra).
AUTO_METHOD = "delta"

# Phases per compiled batch at most (tests lower it to poll cancel/on_phase every phase).
BATCH_MAX_PHASES = 4096


def _graph_arrays(g) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        np.ascontiguousarray(g.indptr, dtype=np.int32),
        np.ascontiguousarray(g.indices, dtype=np.int32),
        np.ascontiguousarray(g.weights, dtype=np.int32),
    )


def _zeros(n: int, dtype) -> np.ndarray:
    """np.zeros with its pages written now. np.zeros maps fresh memory to the shared zero
    page; kernels that scan such an array phase after phase while writing scattered
    entries ran ~6x slower on a first search (NE conventional: 19 s, then 3 s)."""
    a = np.empty(n, dtype)
    a.fill(0)
    return a


def _check_sources(sources, n: int) -> np.ndarray:
    src = np.atleast_1d(np.asarray(sources, dtype=np.int64))
    if src.size == 0:
        raise InvalidArgumentError("no source given")
    if src.min() < 0 or src.max() >= n:
        bad = int(src[(src < 0) | (src >= n)][0])
        raise InvalidArgumentError(f"source {bad} is outside 0..{n - 1}")
    return np.unique(src).astype(np.int32)


def run(g, sources, strategy, opts, ks: KeySpace, *, on_phase=None, cancel=None):
    """(key int64[n], pred int32[n], PhaseLog) of one search; see ``gpu_core.sssp.sssp``."""
    if strategy not in STRATEGIES:
        raise InvalidArgumentError(
            f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}"
        )
    indptr, indices, weights = _graph_arrays(g)
    n = indptr.shape[0] - 1
    src = _check_sources(sources, n)
    target = -1 if getattr(opts, "target", None) is None else int(opts.target)
    if target >= n or target < -1:
        raise InvalidArgumentError(f"target {target} is outside 0..{n - 1}")
    hb = int(ks.hop_bits)
    key = np.full(n, KEY_INF, dtype=np.int64)
    key[src] = 0

    cpu = cycles_per_us()
    budget = int(CPU_BATCH_US * cpu) if cpu > 0 else int(KEY_INF)
    cap = max(1, int(BATCH_MAX_PHASES))
    out_f = np.zeros(cap, np.int64)
    out_e = np.zeros(cap, np.int64)
    out_t = np.zeros(cap, np.int64)
    out_m = np.zeros(cap, np.uint8)
    st = np.zeros(8, np.int64)

    if strategy in _BF:
        U = key.copy()
        M = _zeros(n, np.bool_)
        M[src] = True
        flist = _zeros(n, np.int32)
        flist[: src.size] = src
        nlist = _zeros(n, np.int32)
        sched = _zeros(n, np.bool_)
        st[0] = src.size
        st[1] = 1  # adaptive starts with the frontier list (seed 001: sch = true)
        use_frontier = opts.adaptive_signal == "frontier" or cpu <= 0
        if opts.adaptive_signal not in ("time", "frontier"):
            raise InvalidArgumentError(
                f"adaptive_signal {opts.adaptive_signal!r}: choose 'time' or 'frontier'"
            )
        up = int(opts.switch_up_us * cpu)
        down = int(opts.switch_down_us * cpu)
        thr = int(opts.frontier_fraction * n)
        strat = _BF[strategy]

        def step() -> int:
            return K.bf_batch(indptr, indices, weights, hb, key, U, M, flist, nlist, sched,
                              st, strat, up, down, use_frontier, thr, target, budget,
                              _MODES, out_f, out_e, out_t, out_m)

    elif strategy == "eval_dijkstra":
        status = _zeros(n, np.int8)
        status[src] = 1
        olist = _zeros(n, np.int32)
        olist[: src.size] = src
        slist = _zeros(n, np.int32)
        stamp = _zeros(n, np.int64)
        st[0] = src.size
        sorted_rows = bool(K.rows_weight_sorted(indptr, weights))

        def step() -> int:
            return K.eval_batch(indptr, indices, weights, hb, sorted_rows, key, status, olist,
                                slist, stamp, st, target, budget, _MODES,
                                out_f, out_e, out_t, out_m)

    elif strategy == "delta" or (strategy == "auto" and AUTO_METHOD == "delta"):
        delta = opts.delta if opts.delta is not None else default_delta(g)
        if int(delta) < 1:
            raise InvalidArgumentError(f"delta must be >= 1 (cost units), got {delta}")
        dprime = int(delta) << hb
        if dprime >= (1 << 62):
            raise InvalidArgumentError(f"delta {delta} is too large for exact keys")
        U = key.copy()
        flist = _zeros(n, np.int32)
        flist[: src.size] = src
        nlist = _zeros(n, np.int32)
        sched = _zeros(n, np.bool_)
        far = _zeros(n, np.int8)
        farlist = _zeros(n, np.int32)
        infar = _zeros(n, np.bool_)
        st[0] = src.size
        st[1] = dprime  # T
        st[2] = 0

        def step() -> int:
            return K.delta_batch(indptr, indices, weights, hb, key, U, flist, nlist, sched,
                                 far, farlist, infar, st, dprime, target, budget, _MODES,
                                 out_f, out_e, out_t, out_m)

    else:  # auto, AUTO_METHOD == "heap"
        heap = _zeros(n, np.int32)
        heap[: src.size] = src  # all keys 0: already a heap
        pos = np.full(n, -1, np.int32)
        pos[src] = np.arange(src.size, dtype=np.int32)
        stamp = _zeros(n, np.int64)
        st[0] = src.size

        def step() -> int:
            return K.dijkstra_batch(indptr, indices, weights, hb, key, heap, pos, stamp, st,
                                    CPU_ROUND_POPS, target, budget, _MODES,
                                    out_f, out_e, out_t, out_m)

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

    log = PhaseLog(np.concatenate(chunks)) if chunks else PhaseLog()
    pred = np.full(n, NO_PRED, dtype=np.int32)
    K.pred_from_keys(indptr, indices, weights, hb, key, pred)
    return key, pred, log


def warm_up() -> None:
    """Load (or, on a cold cache, compile) every CPU kernel and calibrate the clock.

    The first search in a process otherwise pays ~0.7 s here (numba import and LLVM
    start-up, cache loads), 3 s with a cold cache; the app can call this from a
    background thread at start so the first click does not.
    """
    from ..graph import CSRGraph
    from ..keys import key_space_for
    from ..sssp import SSSPOptions

    g = CSRGraph.from_edges(2, [0], [1], [1])
    ks = key_space_for(g.weights, 2)
    src = np.array([0], np.int32)
    for s in STRATEGIES:
        run(g, src, s, SSSPOptions(), ks)
