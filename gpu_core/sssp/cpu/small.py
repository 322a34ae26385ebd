"""Small work on the CPU without a compilation: ``auto`` as scipy's Dijkstra (issue 41).

On a fresh install the first ``auto`` search compiles the near-far kernel, the cycle
clock and the parent pass (~5-10 s on a 2-core machine) for a search that takes
milliseconds on a small map. With ``SSSPOptions(small_work=True)`` (the app sets it for
maps of at most ``app.jobs.common.SMALL_WORK_NODES`` nodes), ``auto`` runs
``scipy.sparse.csgraph.dijkstra`` on the key weights instead: the same composite keys
(distance, then hops: ``gpu_core.keys``), hence the same distances, and the parents by
the same rule as :func:`.driver.pred_from_keys` (the smallest tail that is tight), in
numpy. Bit-identical to the kernel (tests/core/test_sssp_small_work.py). scipy computes in
float64: used only while every key stays below 2**53 (exact), else None (the kernel runs).
Telemetry: one phase of mode ``cpu`` (a sequential heap Dijkstra).

Only while the near-far kernel is neither compiled in this process nor in numba's cache
(:func:`kernel_ready`): once it is, the kernel is quicker (0.5 ms against ~20 ms for a
route on the sample map) and costs no wait.
"""

from __future__ import annotations

import time

import numpy as np

from ...keys import KEY_INF, NO_PRED
from ...telemetry import MODE_CODE, PhaseLog

_EXACT = float(2**53)


def kernel_ready() -> bool:
    """True when ``auto``'s near-far kernel needs no compilation: compiled in this process
    or found in numba's cache for this source."""
    from osutil.numba_cache import ready

    from .delta import delta_batch

    return ready(delta_batch)


def key_weights(weights: np.ndarray, hb: int) -> np.ndarray:
    """Every arc's weight in key space: (w << hb) | 1, or w when hb == 0 (host.csr)."""
    kw = weights.astype(np.int64) << np.int64(hb)
    return kw | np.int64(1) if hb > 0 else kw


def search(indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray, hb: int,
           sources: np.ndarray) -> tuple[np.ndarray, np.ndarray, PhaseLog] | None:
    """(key int64[n], pred int32[n], PhaseLog) from ``sources``, or None when scipy's
    float64 could not be exact (a key could reach 2**53) or an arc weighs 0 in key space
    (scipy drops explicit zeros) or a weight is negative."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    n = indptr.shape[0] - 1
    m = indices.shape[0]
    if m and int(weights.min()) < 0:
        return None
    kw = key_weights(weights, hb)
    if m and (int(kw.min()) <= 0 or float(kw.max()) * max(n, 1) >= _EXACT):
        return None
    t0 = time.perf_counter()
    tails = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
    # parallel arcs: scipy would add them up; keep the lightest of each (u, v)
    order = np.lexsort((kw, indices, tails))
    u, v, w = tails[order], indices[order], kw[order]
    first = np.ones(m, dtype=bool)
    first[1:] = (u[1:] != u[:-1]) | (v[1:] != v[:-1])
    graph = csr_matrix((w[first].astype(np.float64), (u[first], v[first])), shape=(n, n))
    d = dijkstra(graph, directed=True, indices=np.asarray(sources, dtype=np.int64),
                 min_only=True)
    key = np.full(n, KEY_INF, dtype=np.int64)
    ok = np.isfinite(d)
    key[ok] = d[ok].astype(np.int64)
    pred = parents(tails, indices, kw, key)
    reached = int(ok.sum())
    edges = int(np.diff(indptr)[ok].sum())
    t_us = (time.perf_counter() - t0) * 1e6
    log = PhaseLog.from_columns(np.array([reached], np.int64), np.array([edges], np.int64),
                                np.array([t_us]), np.array([MODE_CODE["cpu"]], np.uint8))
    return key, pred, log


def parents(tails: np.ndarray, heads: np.ndarray, kw: np.ndarray, key: np.ndarray) -> np.ndarray:
    """pred[v] = the smallest u with key[u] + kw(u, v) == key[v] (as pred_from_keys)."""
    n = key.shape[0]
    pred = np.full(n, NO_PRED, dtype=np.int32)
    ku = key[tails]
    tight = (ku != KEY_INF) & (ku + kw == key[heads])
    pred_u = np.full(n, np.iinfo(np.int32).max, dtype=np.int64)
    np.minimum.at(pred_u, heads[tight], tails[tight].astype(np.int64))
    has = pred_u != np.iinfo(np.int32).max
    pred[has] = pred_u[has]
    return pred
