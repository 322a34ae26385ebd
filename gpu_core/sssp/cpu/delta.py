"""Near-far delta-stepping on the CPU (also what ``auto`` runs here by default)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...errors import InvalidArgumentError
from ...host.clock import _readcyclecounter
from ...host.csr import INF
from ...params import default_delta
from .phases import M_DELTA, record, relax_list
from .search import MODES, CpuSearch, zeros


@njit(cache=True, nogil=True)
def delta_batch(indptr, indices, weights, hb, C, U, flist, nlist, sched, far, farlist,  # noqa: C901  (one compiled batch loop: a call per phase would cost more than it reads)
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
        edges, nw = relax_list(indptr, indices, weights, hb, C, U, flist, nf, nlist, sched)
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
        k = record(out_f, out_e, out_t, out_m, k, cnt, edges, t1 - t0, modes[M_DELTA])
        if t1 - start > budget:
            break
    return k


def delta(s: CpuSearch):
    n, src, opts = s.n, s.src, s.opts
    delta = opts.delta if opts.delta is not None else default_delta(s.g)
    if int(delta) < 1:
        raise InvalidArgumentError(f"delta must be >= 1 (cost units), got {delta}")
    dprime = int(delta) << s.hb
    if dprime >= (1 << 62):
        raise InvalidArgumentError(f"delta {delta} is too large for exact keys")
    U = s.key.copy()
    flist = zeros(n, np.int32)
    flist[: src.size] = src
    nlist = zeros(n, np.int32)
    sched = zeros(n, np.bool_)
    far = zeros(n, np.int8)
    farlist = zeros(n, np.int32)
    infar = zeros(n, np.bool_)
    s.st[0] = src.size
    s.st[1] = dprime  # T
    s.st[2] = 0
    out_f, out_e, out_t, out_m = s.out

    def step() -> int:
        return delta_batch(s.indptr, s.indices, s.weights, s.hb, s.key, U, flist, nlist,
                           sched, far, farlist, infar, s.st, dprime, s.target, s.budget,
                           MODES, out_f, out_e, out_t, out_m)

    return step
