"""Evaluation-value parallel Dijkstra (seed 004) on the CPU."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...host.clock import _readcyclecounter
from ...host.csr import INF, key_weight, rows_weight_sorted
from .phases import M_EVAL, first_decrease, record
from .search import MODES, CpuSearch, zeros


@njit(cache=True, nogil=True)
def eval_batch(indptr, indices, weights, hb, sorted_rows, key, status, olist, slist,
               stamp, st, target, budget, modes, out_f, out_e, out_t, out_m):
    """Evaluation-value parallel Dijkstra (seed 004), phases in bulk.

    status: 0 unreached, 1 open, 2 settled; ``olist[:st[0]]`` the open vertices.
    D = min over open u of key[u] + w' of u's lightest arc to a non-settled head;
    S = open vertices with key <= D are settled, then their arcs to non-settled heads
    are relaxed. st: [0] open count, [1] phase counter (stamps), [3] done.
    """
    cap = out_f.shape[0]
    start = _readcyclecounter()
    k = 0
    while k < cap and st[3] == 0:
        t0 = _readcyclecounter()
        no = st[0]
        d = INF
        for i in range(no):
            u = olist[i]
            best = INF
            for a in range(indptr[u], indptr[u + 1]):
                if status[indices[a]] != 2:
                    w = key_weight(weights, a, hb)
                    if w < best:
                        best = w
                    if sorted_rows:
                        break  # rows sorted by weight: the first non-settled arc is lightest
            if best != INF and key[u] + best < d:
                d = key[u] + best
        ns = 0
        keep = 0
        for i in range(no):
            u = olist[i]
            if key[u] <= d:
                slist[ns] = u
                ns += 1
                status[u] = 2
            else:
                olist[keep] = u
                keep += 1
        no = keep
        st[1] += 1
        ph = st[1]
        edges = 0
        cnt = 0
        for i in range(ns):
            u = slist[i]
            ku = key[u]
            for a in range(indptr[u], indptr[u + 1]):
                h = indices[a]
                if status[h] == 2:
                    continue
                edges += 1
                nk = ku + key_weight(weights, a, hb)
                if nk < key[h]:
                    key[h] = nk
                    cnt += first_decrease(stamp, h, ph)
                    if status[h] == 0:
                        status[h] = 1
                        olist[no] = h
                        no += 1
        st[0] = no
        t1 = _readcyclecounter()
        k = record(out_f, out_e, out_t, out_m, k, cnt, edges, t1 - t0, modes[M_EVAL])
        if no == 0 or (target >= 0 and status[target] == 2):
            st[3] = 1
        if t1 - start > budget:
            break
    return k


def eval_dijkstra(s: CpuSearch):
    n, src = s.n, s.src
    status = zeros(n, np.int8)
    status[src] = 1
    olist = zeros(n, np.int32)
    olist[: src.size] = src
    slist = zeros(n, np.int32)
    stamp = zeros(n, np.int64)
    s.st[0] = src.size
    sorted_rows = bool(rows_weight_sorted(s.indptr, s.weights))
    out_f, out_e, out_t, out_m = s.out

    def step() -> int:
        return eval_batch(s.indptr, s.indices, s.weights, s.hb, sorted_rows, s.key, status,
                          olist, slist, stamp, s.st, s.target, s.budget, MODES,
                          out_f, out_e, out_t, out_m)

    return step
