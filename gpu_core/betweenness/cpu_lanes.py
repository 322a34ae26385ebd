"""The exact CPU greedy's two lane kernels and their drivers (issue 41).

A round's sources are split over :data:`LANES` lanes (``sources[lane::lanes]``, in order):

- :func:`lane_search` searches a lane's sources not kept yet and writes each one's
  tight-arc DAG (settle order, tight out-degrees, heads) to its row of the chunk buffers;
- :func:`lane_replay` pushes each source's path counts over its DAG (a chunk row, or the
  kept pools) and back-traces it, adding the gains to the lane's sums.

Two kernels instead of one (``lane_gains`` before) so that a fresh install compiles the
search first and round 1's searches run (nogil, kept DAGs) while another thread compiles
the replay and back-trace (:func:`compile_replay_ahead`): on 2 cores about a second of
compilation overlaps work. The replay gives the search's counts bit for bit (``cpu``
module doc) and every lane sums its sources in the same order, so the gains are those of
a search followed by its back-trace."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import njit, types
from numba.extending import overload

from .cpu import _backtrace, _replay, _search, _search_dial, _tight_dag

LANES = 8


def _queue_search(indptr, indices, w, s, unit, dist, sigma, sbar, order, in_r, bhead, bbits,
                  enext, heap_k, heap_v):
    """``_search_dial`` when ``bhead`` is an array, ``_search`` when it is None: chosen by
    its type when a caller compiles (numba compiles only the chosen one; a plain branch
    on ``bhead is None`` compiles both)."""
    if bhead is None:
        return _search(indptr, indices, w, s, unit, dist, sigma, sbar, order, in_r, heap_k,
                       heap_v)
    return _search_dial(indptr, indices, w, s, dist, sigma, sbar, order, in_r, bhead, bbits,
                        enext, heap_v)


@overload(_queue_search)
def _ol_queue_search(indptr, indices, w, s, unit, dist, sigma, sbar, order, in_r, bhead,
                     bbits, enext, heap_k, heap_v):
    if isinstance(bhead, (types.NoneType, types.Omitted)):
        def heap(indptr, indices, w, s, unit, dist, sigma, sbar, order, in_r, bhead, bbits,
                 enext, heap_k, heap_v):
            return _search(indptr, indices, w, s, unit, dist, sigma, sbar, order, in_r,
                           heap_k, heap_v)

        return heap

    def dial(indptr, indices, w, s, unit, dist, sigma, sbar, order, in_r, bhead, bbits,
             enext, heap_k, heap_v):
        return _search_dial(indptr, indices, w, s, dist, sigma, sbar, order, in_r, bhead,
                            bbits, enext, heap_v)

    return dial


@njit(cache=True, nogil=True)
def lane_search(indptr, indices, w, unit, in_r, a, sources, lane, lanes, kept, c_order,
                c_deg, c_heads, c_len, bhead, bbits, work):
    """Lane ``lane``: each source ``sources[j]`` (j in ``lane::lanes``) not in R, of demand
    > 0 and not ``kept`` searched, its DAG written to row j of ``c_order/c_deg/c_heads``
    and its lengths (vertices, heads) to ``c_len[j]`` (0 rows for the others). ``bhead``
    (this lane's Dial buckets: a power of two above the largest arc length): searches by
    ``_search_dial``; None: by a heap (or a BFS when ``unit``): one queue's search is
    compiled per map (issue 41). ``work``: the lane's search buffers (:func:`search_buffers`),
    allocated by numpy so that numba compiles no ``np.empty`` (issue 41)."""
    dist, sigma, sbar, order, heap_k, heap_v, enext = work
    for j in range(lane, sources.shape[0], lanes):
        s = sources[j]
        c_len[j, 0] = 0
        c_len[j, 1] = 0
        if in_r[s] or a[s] == 0.0 or kept[s]:
            continue
        cnt = _queue_search(indptr, indices, w, s, unit, dist, sigma, sbar, order, in_r,
                            bhead, bbits, enext, heap_k, heap_v)
        o_c = c_order[j]
        for i in range(cnt):
            o_c[i] = order[i]
        c_len[j, 0] = cnt
        c_len[j, 1] = _tight_dag(indptr, indices, w, dist, order, cnt, c_deg[j], c_heads[j])


@njit(cache=True, nogil=True)
def lane_replay(in_r, a, b, sources, lane, lanes, p_order, p_deg, p_heads, p_off, c_order,
                c_deg, c_heads, c_len, work, net, pl):
    """Lane ``lane`` of a greedy round: the sources ``sources[lane::lanes]`` in order, their
    gains/losses added to ``net`` and pairs lost to ``pl``; returns their (SB(R), P(R)).
    Source j's DAG is row j of the chunk buffers where ``c_len[j, 0] > 0`` (searched in
    this chunk), else the kept one: settle order and tight out-degrees at
    ``p_order/p_deg[p_off[s, 0]:][:p_off[s, 1]]``, heads at ``p_heads[p_off[s, 2]:][:p_off[s, 3]]``.
    ``work``: (sigma, sbar, dbar) of the graph's size."""
    sigma, sbar, dbar = work
    sb = 0.0
    pp = 0.0
    for j in range(lane, sources.shape[0], lanes):
        s = sources[j]
        if in_r[s] or a[s] == 0.0:
            continue
        cnt = c_len[j, 0]
        if cnt > 0:
            nh = c_len[j, 1]
            o = c_order[j]
            d = c_deg[j]
            h = c_heads[j]
            ov = 0
            oh = 0
        else:
            ov, cnt, oh, nh = p_off[s, 0], p_off[s, 1], p_off[s, 2], p_off[s, 3]
            o = p_order
            d = p_deg
            h = p_heads
        o_s = o[ov:ov + cnt]
        d_s = d[ov:ov + cnt]
        h_s = h[oh:oh + nh]
        _replay(s, in_r, o_s, d_s, h_s, cnt, sigma, sbar)
        x, y = _backtrace(s, a[s], b, in_r, o_s, d_s, h_s, cnt, nh, sigma, sbar, dbar, net,
                          pl)
        sb += x
        pp += y
    return sb, pp


def search_buffers(n: int, m: int, heap: bool) -> tuple:
    """One lane's buffers for :func:`lane_search`: dist, sigma, sbar, order, and the queue's
    arrays (the heap's keys, its vertices or Dial's entries, Dial's links)."""
    return (np.empty(n, np.int64), np.empty(n), np.empty(n), np.empty(n, np.int32),
            np.empty(m + 1 if heap else 0, np.int64), np.empty(m + 1, np.int32),
            np.empty(0 if heap else m + 1, np.int32))


_POOLS: dict[int, ThreadPoolExecutor] = {}


def _each_lane(fn, lanes: int) -> list:
    """``fn(lane)`` for every lane, in lane order, on ``numba.get_num_threads()`` Python
    threads (the kernels release the GIL): a lane waits in a queue, not in a spinning
    OpenMP barrier, so a preempted thread on a busy machine holds up no other."""
    threads = min(numba.get_num_threads(), lanes)
    if threads <= 1:
        return [fn(i) for i in range(lanes)]
    pool = _POOLS.get(threads)
    if pool is None:
        pool = _POOLS[threads] = ThreadPoolExecutor(threads, "billboards")
    return list(pool.map(fn, range(lanes)))


def search_rows(indptr, indices, w, unit, in_r, a, sources, lanes, kept, c_order, c_deg,
                c_heads, c_len, buckets) -> None:
    """:func:`lane_search` over every lane: the DAG rows of ``sources`` not ``kept``."""
    n = indptr.shape[0] - 1

    def lane(i: int) -> None:
        # None: a heap; Dial's buckets (at least 64: whole words of occupancy bits)
        nb = max(buckets, 64)
        bhead = np.empty(nb, np.int32) if buckets > 0 else None
        bbits = np.empty(nb >> 6, np.uint64) if buckets > 0 else None
        work = search_buffers(n, indices.shape[0], bhead is None)
        lane_search(indptr, indices, w, unit, in_r, a, sources, i, lanes, kept, c_order,
                    c_deg, c_heads, c_len, bhead, bbits, work)

    _each_lane(lane, lanes)


def replay_rows(in_r, a, b, sources, lanes, p_order, p_deg, p_heads, p_off, c_order, c_deg,
                c_heads, c_len):
    """One greedy round's partials over ``sources`` from their DAGs (:func:`lane_replay`):
    (net gain, pairs lost, SB(R), P(R)). Lanes are summed in lane order: the same floats
    whatever the thread count."""
    n = in_r.shape[0]
    net2 = np.zeros((lanes, n))
    pl2 = np.zeros((lanes, n))

    def lane(i: int) -> tuple[float, float]:
        work = (np.empty(n), np.empty(n), np.empty(n))
        return lane_replay(in_r, a, b, sources, i, lanes, p_order, p_deg, p_heads, p_off,
                           c_order, c_deg, c_heads, c_len, work, net2[i], pl2[i])

    parts = _each_lane(lane, lanes)
    net = np.zeros(n)
    pl = np.zeros(n)
    sb = 0.0
    pp = 0.0
    for i in range(lanes):
        net += net2[i]
        pl += pl2[i]
        sb += parts[i][0]
        pp += parts[i][1]
    return net, pl, sb, pp


# the GIL switch interval while the replay kernel compiles beside the searches: numba
# compiles in Python holding the GIL, and a search lane waits for it at its call and its
# return, by default up to 5 ms each time (a lane's sources take ~15 ms on the sample map)
COMPILE_SWITCH_S = 0.0005


def _compile_replay(dtypes: tuple) -> None:
    """:func:`_replay_one` with a short GIL switch interval meanwhile (then the one before)."""
    import sys

    was = sys.getswitchinterval()
    sys.setswitchinterval(min(was, COMPILE_SWITCH_S))
    try:
        _replay_one(dtypes)
    finally:
        sys.setswitchinterval(was)


def _replay_one(dtypes: tuple) -> None:
    """:func:`lane_replay` on a one-vertex DAG with the map's DAG dtypes: compiles it (or
    loads it from numba's cache) with the types a round passes."""
    vo, dg, hd = dtypes
    one = np.ones(1)
    c_len = np.zeros((1, 2), np.int64)
    c_len[0, 0] = 1
    lane_replay(np.zeros(1, np.bool_), one, one, np.zeros(1, np.int32), 0, 1,
                np.zeros(0, vo), np.zeros(0, dg), np.zeros(0, hd), np.zeros((1, 4), np.int64),
                np.zeros((1, 1), vo), np.zeros((1, 1), dg), np.zeros((1, 1), hd), c_len,
                (np.empty(1), np.empty(1), np.empty(1)), np.zeros(1), np.zeros(1))


_AHEAD: dict[tuple, threading.Thread] = {}


def compile_replay_ahead(dtypes: tuple) -> threading.Thread:
    """Compile :func:`lane_replay` for ``dtypes`` on a thread (once per process): a caller
    whose searches are compiled runs them meanwhile. numba compiles holding the GIL for
    its Python part (LLVM's part lets it go), but compiled nogil kernels run beside it,
    so on 2 cores round 1's searches and this compilation share the machine instead of
    one core idling while the other compiles (issue 41). A call of ``lane_replay`` before
    it ends waits for it (numba's compiler lock) and compiles nothing twice."""
    key = tuple(np.dtype(x).str for x in dtypes)
    th = _AHEAD.get(key)
    if th is None:
        th = _AHEAD[key] = threading.Thread(target=_compile_replay, args=(dtypes,),
                                            name="signpost-compile-replay", daemon=True)
        th.start()
    return th


def compile_search(index_dtypes: tuple, dtypes: tuple, dial: bool) -> None:
    """Compile :func:`lane_search` (or load it from numba's cache) for a map whose
    ``indptr``/``indices`` have ``index_dtypes``, its DAG ``dtypes`` and its queue (Dial's
    buckets or a heap), on a 2-vertex graph."""
    vo, dg, hd = dtypes
    indptr = np.array([0, 1, 2], index_dtypes[0])
    indices = np.array([1, 0], index_dtypes[1])
    w = np.ones(2, np.int64)
    c_len = np.zeros((1, 2), np.int64)
    search_rows(indptr, indices, w, False, np.zeros(2, np.bool_), np.ones(2),
                np.zeros(1, np.int32), 1, np.zeros(2, np.bool_), np.zeros((1, 2), vo),
                np.zeros((1, 2), dg), np.zeros((1, 2), hd), c_len, 64 if dial else 0)
