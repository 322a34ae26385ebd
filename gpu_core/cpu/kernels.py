"""numba kernels of the CPU backend: one resumable batch function per strategy family.

Each ``*_batch`` function runs phases until the search is done, the phase buffer is full
or ``budget`` cycle-counter ticks have passed, then returns the number of phases it
recorded, so the Python driver (``sssp_cpu.run``) can poll ``cancel`` and hand new
phases to ``on_phase`` every ~20 ms without paying a Python round trip per phase. All
state lives in the arrays passed in (scalars in the int64 array ``st``), so a batch picks
up exactly where the last one stopped. Phase times come from ``clock.cycles()``.

Semantics (shared with the CUDA backend, see ``gpu_core.sssp``): keys are composite
(``w' = (w << hb) | 1``, or ``w`` when ``hb == 0``), sources start at key 0, frontier =
vertices whose key decreased in the phase, edges = arcs relaxed in the phase.
Kernels are ``nogil`` so the app's worker thread leaves the GUI thread free meanwhile.
Few distinct compiled functions on purpose: numba compile time is paid by the test
suite and the app's first click (``cache=True`` keeps it to the first run).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .clock import _readcyclecounter

INF = np.iinfo(np.int64).max

# Bellman-Ford family strategies (the ``strat`` argument of ``bf_batch``).
BF_CONVENTIONAL = 0
BF_SELECTION = 1
BF_ADAPTIVE = 2
BF_QUEUE = 3

# ``modes`` argument: MODE_CODE values passed in (not read as globals, so cached machine
# code never disagrees with ``telemetry.MODE_NAMES``).
M_CONV, M_SEL, M_SWITCH, M_EVAL, M_QUEUE, M_DELTA, M_CPU = 0, 1, 2, 3, 4, 5, 6


@njit(cache=True, inline="always")
def _kw(weights, a, hb):
    # (w << hb) | 1, or w when hb == 0: branch-free, the "| 1" term is loop-invariant
    return (np.int64(weights[a]) << hb) | min(hb, 1)


# ----------------------------------------------------------------------------- Bellman-Ford


@njit(cache=True, inline="always")
def _relax_list(indptr, indices, weights, hb, C, U, flist, nf, nlist, sched):
    """Relax the arcs of the nf vertices in flist into U (Jacobi: keys read from C); each
    improved head is appended to nlist once (the "scheduled" flag). (arcs relaxed, heads)."""
    edges = 0
    nw = 0
    for i in range(nf):
        v = flist[i]
        cv = C[v]
        a0 = indptr[v]
        a1 = indptr[v + 1]
        edges += a1 - a0
        for a in range(a0, a1):
            h = indices[a]
            nk = cv + _kw(weights, a, hb)
            if nk < U[h]:
                U[h] = nk
                if not sched[h]:
                    sched[h] = True
                    nlist[nw] = h
                    nw += 1
    return edges, nw


@njit(cache=True, nogil=True)
def bf_batch(indptr, indices, weights, hb, C, U, M, flist, nlist, sched, st, strat,
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
            e, nw = _relax_list(indptr, indices, weights, hb, C, U, flist, nf, nlist, sched)
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
                    cv = C[v]
                    a0 = indptr[v]
                    a1 = indptr[v + 1]
                    edges += a1 - a0
                    for a in range(a0, a1):
                        h = indices[a]
                        nk = cv + _kw(weights, a, hb)
                        if nk < U[h]:
                            U[h] = nk
            for v in range(n):
                if U[v] < C[v]:
                    C[v] = U[v]
                    M[v] = True
                    cnt += 1
                    if U[v] < mn:
                        mn = U[v]
        t1 = _readcyclecounter()
        dt = t1 - t0
        out_f[k] = cnt
        out_e[k] = edges
        out_t[k] = dt
        out_m[k] = mode
        k += 1
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
        if cnt == 0:
            st[3] = 1
        elif target >= 0 and mn >= C[target]:
            st[3] = 1
        if t1 - start > budget:
            break
    return k


# ------------------------------------------------------------------- evaluation Dijkstra


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
                    w = _kw(weights, a, hb)
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
                nk = ku + _kw(weights, a, hb)
                if nk < key[h]:
                    key[h] = nk
                    if stamp[h] != ph:
                        stamp[h] = ph
                        cnt += 1
                    if status[h] == 0:
                        status[h] = 1
                        olist[no] = h
                        no += 1
        st[0] = no
        t1 = _readcyclecounter()
        out_f[k] = cnt
        out_e[k] = edges
        out_t[k] = t1 - t0
        out_m[k] = modes[M_EVAL]
        k += 1
        if no == 0 or (target >= 0 and status[target] == 2):
            st[3] = 1
        if t1 - start > budget:
            break
    return k


# ------------------------------------------------------------------------ delta (near-far)


@njit(cache=True, nogil=True)
def delta_batch(indptr, indices, weights, hb, C, U, flist, nlist, sched, far, farlist,
                infar, st, dprime, target, budget, modes, out_f, out_e, out_t, out_m):
    """Near-far delta-stepping (Davidson et al. 2014), Jacobi phases over the near set.

    ``flist[:st[0]]`` the near set N, threshold T = st[1]; far pile: flag ``far`` (1 =
    in the pile) with ``farlist[:st[2]]`` a superset list (``infar`` marks list
    membership; stale entries are dropped when the pile is scanned). st[3] done.
    A vertex whose key decreases gets far = (key >= T): into the pile or the next N.
    (An indexed heap for the pile was tried: 1.5-2x slower on road maps, since most pile
    entries get decreased several times before their bucket comes up.)
    """
    cap = out_f.shape[0]
    start = _readcyclecounter()
    k = 0
    while k < cap and st[3] == 0:
        t0 = _readcyclecounter()
        nf = st[0]
        T = st[1]
        edges, nw = _relax_list(indptr, indices, weights, hb, C, U, flist, nf, nlist, sched)
        cnt = nw
        nn = 0
        nfar = st[2]
        for i in range(nw):
            h = nlist[i]
            sched[h] = False
            C[h] = U[h]
            if C[h] < T:
                far[h] = 0
                flist[nn] = h
                nn += 1
            else:
                far[h] = 1
                if not infar[h]:
                    infar[h] = True
                    farlist[nfar] = h
                    nfar += 1
        if nn == 0:
            # advance T past the lightest far key; a step that only moves T is no phase
            mk = INF
            keep = 0
            for i in range(nfar):
                v = farlist[i]
                if far[v] == 1:
                    farlist[keep] = v
                    keep += 1
                    if C[v] < mk:
                        mk = C[v]
                else:
                    infar[v] = False
            nfar = keep
            if mk != INF:
                T = (mk // dprime + 1) * dprime
                keep = 0
                for i in range(nfar):
                    v = farlist[i]
                    if C[v] < T:
                        far[v] = 0
                        infar[v] = False
                        flist[nn] = v
                        nn += 1
                    else:
                        farlist[keep] = v
                        keep += 1
                nfar = keep
        st[0] = nn
        st[1] = T
        st[2] = nfar
        if nn == 0:
            st[3] = 1
        elif target >= 0 and C[target] != INF:
            kt = C[target]
            mn = INF
            for i in range(nn):
                if C[flist[i]] < mn:
                    mn = C[flist[i]]
            if mn >= kt:
                for i in range(nfar):
                    v = farlist[i]
                    if far[v] == 1 and C[v] < mn:
                        mn = C[v]
            if mn >= kt:
                st[3] = 1
        t1 = _readcyclecounter()
        out_f[k] = cnt
        out_e[k] = edges
        out_t[k] = t1 - t0
        out_m[k] = modes[M_DELTA]
        k += 1
        if t1 - start > budget:
            break
    return k


# --------------------------------------------------------------- auto: binary-heap Dijkstra


@njit(cache=True, nogil=True)
def dijkstra_batch(indptr, indices, weights, hb, key, heap, pos, stamp, st, round_pops,
                   target, budget, modes, out_f, out_e, out_t, out_m):
    """Sequential Dijkstra on composite keys with an indexed binary heap.

    Phases are "settle rounds" of ``round_pops`` pops (mode cpu). pos[v]: index in
    ``heap`` (>= 0), -1 never queued, -2 settled. st: [0] heap size, [1] round counter,
    [3] done.
    """
    cap = out_f.shape[0]
    start = _readcyclecounter()
    k = 0
    size = st[0]
    while k < cap and st[3] == 0:
        t0 = _readcyclecounter()
        st[1] += 1
        ph = st[1]
        edges = 0
        cnt = 0
        pops = 0
        while pops < round_pops and size > 0:
            u = heap[0]
            pops += 1
            pos[u] = -2
            size -= 1
            if size > 0:
                # sift the last element down from the root
                x = heap[size]
                kx = key[x]
                i = 0
                while True:
                    c = 2 * i + 1
                    if c >= size:
                        break
                    if c + 1 < size and key[heap[c + 1]] < key[heap[c]]:
                        c += 1
                    if key[heap[c]] < kx:
                        heap[i] = heap[c]
                        pos[heap[i]] = i
                        i = c
                    else:
                        break
                heap[i] = x
                pos[x] = i
            if u == target:
                st[3] = 1
                break
            ku = key[u]
            a0 = indptr[u]
            a1 = indptr[u + 1]
            edges += a1 - a0
            for a in range(a0, a1):
                h = indices[a]
                p = pos[h]
                if p == -2:
                    continue
                nk = ku + _kw(weights, a, hb)
                if nk < key[h]:
                    key[h] = nk
                    if stamp[h] != ph:
                        stamp[h] = ph
                        cnt += 1
                    if p == -1:
                        p = size
                        size += 1
                    # sift up
                    while p > 0:
                        q = (p - 1) >> 1
                        y = heap[q]
                        if key[y] > nk:
                            heap[p] = y
                            pos[y] = p
                            p = q
                        else:
                            break
                    heap[p] = h
                    pos[h] = p
        if size == 0:
            st[3] = 1
        t1 = _readcyclecounter()
        out_f[k] = cnt
        out_e[k] = edges
        out_t[k] = t1 - t0
        out_m[k] = modes[M_CPU]
        k += 1
        if t1 - start > budget:
            break
    st[0] = size
    return k


# ------------------------------------------------------------------------------ helpers


@njit(cache=True, nogil=True)
def pred_from_keys(indptr, indices, weights, hb, key, pred):
    """pred[v] = smallest u with key[u] + w'(u,v) == key[v] (one pass, u ascending)."""
    n = key.shape[0]
    for u in range(n):
        ku = key[u]
        if ku == INF:
            continue
        for a in range(indptr[u], indptr[u + 1]):
            h = indices[a]
            if ku + _kw(weights, a, hb) == key[h] and pred[h] < 0:
                pred[h] = u


@njit(cache=True, nogil=True)
def rows_weight_sorted(indptr, weights) -> bool:
    """True when every CSR row lists its arcs by non-decreasing weight."""
    n = indptr.shape[0] - 1
    for u in range(n):
        for a in range(indptr[u] + 1, indptr[u + 1]):
            if weights[a] < weights[a - 1]:
                return False
    return True
