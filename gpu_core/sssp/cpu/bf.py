"""The Bellman-Ford family on the CPU: conventional, selection, adaptive (seed 001) and
bellman_ford_queue (seed 004), one numba batch kernel with a strategy code."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...host.clock import _readcyclecounter
from ...host.csr import INF
from .phases import M_CONV, M_QUEUE, M_SEL, M_SWITCH, record, relax_list, relax_row
from .search import MODES, CpuSearch, zeros

# the ``strat`` argument of ``bf_batch``
BF_CONVENTIONAL = 0
BF_SELECTION = 1
BF_ADAPTIVE = 2
BF_QUEUE = 3


@njit(cache=True, nogil=True)
def bf_batch(indptr, indices, weights, hb, C, U, M, flist, nlist, sched, st, strat,  # noqa: C901  (one compiled batch loop: a call per phase would cost more than it reads)
             up_cyc, down_cyc, use_frontier, frontier_thr, target, budget, modes,
             out_f, out_e, out_t, out_m):
    """Jacobi Bellman-Ford phases (conventional / selection / adaptive / queue).

    C: keys, U: tentative keys (== C between phases), M: mask of the current frontier
    F. In list modes ``flist[:st[0]]`` also holds F. st: [0] |F| in the list, [1] list
    mode now (adaptive), [2] previous phase ticks, [3] done, [4] list must be rebuilt from
    M before the next list phase (SWITCH), [5] a previous phase exists.
    """
    n = C.shape[0]
    cap = out_f.shape[0]
    start = _readcyclecounter()
    k = 0
    while k < cap and st[3] == 0:
        t0 = _readcyclecounter()
        edges = 0
        cnt = 0
        mn = INF
        list_mode = strat == BF_SELECTION or (strat == BF_ADAPTIVE and st[1] == 1)
        if strat == BF_QUEUE:
            # seed 004: compact the flag array to the changed vertices, then relax them
            nf = 0
            for v in range(n):
                if M[v]:
                    M[v] = False
                    flist[nf] = v
                    nf += 1
            mode = modes[M_QUEUE]
        elif list_mode:
            if st[4] == 1:
                # seed 001 SWITCH kernel: rebuild the frontier list from the mask
                nf = 0
                for v in range(n):
                    if M[v]:
                        flist[nf] = v
                        nf += 1
                st[4] = 0
                mode = modes[M_SWITCH]
            else:
                nf = st[0]
                mode = modes[M_SEL]
        else:
            nf = -1
            mode = modes[M_CONV]
        if nf >= 0:
            # list RELAX: only the frontier; heads appended once (the "scheduled" flag)
            for i in range(nf):
                M[flist[i]] = False
            e, nw = relax_list(indptr, indices, weights, hb, C, U, flist, nf, nlist, sched)
            edges += e
            # list UPDATE: every scheduled head has U < C (U started as a copy of C)
            for i in range(nw):
                h = nlist[i]
                sched[h] = False
                C[h] = U[h]
                M[h] = True
                flist[i] = h
                if U[h] < mn:
                    mn = U[h]
            cnt = nw
            st[0] = nw
        else:
            # conventional: every vertex checks its mask bit (Harish-Narayanan RELAX)
            for v in range(n):
                if M[v]:
                    M[v] = False
                    edges += indptr[v + 1] - indptr[v]
                    relax_row(indptr, indices, weights, hb, C[v], v, U, False, sched, nlist, 0)
            for v in range(n):
                if U[v] < C[v]:
                    C[v] = U[v]
                    M[v] = True
                    cnt += 1
                    if U[v] < mn:
                        mn = U[v]
        t1 = _readcyclecounter()
        dt = t1 - t0
        k = record(out_f, out_e, out_t, out_m, k, cnt, edges, dt, mode)
        if strat == BF_ADAPTIVE:
            # seed 001: mean of this and the previous phase against two thresholds
            mean = dt if st[5] == 0 else (dt + st[2]) // 2
            if use_frontier:
                big = cnt > frontier_thr
                go_full = big
                go_list = not big
            else:
                go_full = mean > up_cyc
                go_list = mean < down_cyc
            if st[1] == 1 and go_full:
                st[1] = 0
            elif st[1] == 0 and go_list:
                st[1] = 1
                st[4] = 1
            st[2] = dt
            st[5] = 1
        st[6] += 1
        if cnt == 0:
            st[3] = 1
        elif st[6] >= n:
            st[7] = 1
            st[3] = 1
        elif target >= 0 and mn >= C[target]:
            st[3] = 1
        if t1 - start > budget:
            break
    return k


def _setup(s: CpuSearch, strat: int):
    n, src, opts, cpu = s.n, s.src, s.opts, s.cpu
    U = s.key.copy()
    M = zeros(n, np.bool_)
    M[src] = True
    flist = zeros(n, np.int32)
    flist[: src.size] = src
    nlist = zeros(n, np.int32)
    sched = zeros(n, np.bool_)
    s.st[0] = src.size
    s.st[1] = 1  # adaptive starts with the frontier list (seed 001: sch = true)
    use_frontier = opts.adaptive_signal == "frontier" or cpu <= 0  # (checked at the API)
    up = int(opts.switch_up_us * cpu)
    down = int(opts.switch_down_us * cpu)
    thr = int(opts.frontier_fraction * n)
    out_f, out_e, out_t, out_m = s.out

    def step() -> int:
        return bf_batch(s.indptr, s.indices, s.weights, s.hb, s.key, U, M, flist, nlist,
                        sched, s.st, strat, up, down, use_frontier, thr, s.target, s.budget,
                        MODES, out_f, out_e, out_t, out_m)

    return step


def conventional(s: CpuSearch):
    return _setup(s, BF_CONVENTIONAL)


def selection(s: CpuSearch):
    return _setup(s, BF_SELECTION)


def adaptive(s: CpuSearch):
    return _setup(s, BF_ADAPTIVE)


def bellman_ford_queue(s: CpuSearch):
    return _setup(s, BF_QUEUE)
