"""numba pieces shared by the CPU strategies' batch kernels.

Each ``*_batch`` kernel runs phases until the search is done, the phase buffer is full or
``budget`` cycle-counter ticks have passed, then returns the number of phases it recorded,
so the Python driver (``driver.run``) can poll ``cancel`` and hand new phases to
``on_phase`` every ~20 ms without a Python round trip per phase. All state lives in the
arrays passed in (scalars in the int64 array ``st``, ``st[3]`` = done), so a batch picks
up exactly where the last one stopped. Phase times come from ``host.clock``.

Semantics (shared with the CUDA backend): keys are composite (``host.csr.key_weight``),
sources start at key 0, frontier = vertices whose key decreased in the phase, edges =
arcs relaxed in the phase. Kernels are ``nogil`` so the app's worker thread leaves the GUI
thread free meanwhile; ``cache=True`` keeps numba's compile time to the first run.
"""

from __future__ import annotations

from numba import njit

from ...host.csr import key_weight

# ``modes`` argument: MODE_CODE values passed in (not read as globals, so cached machine
# code never disagrees with ``telemetry.MODE_NAMES``); order of search.MODES
M_CONV, M_SEL, M_SWITCH, M_EVAL, M_QUEUE, M_DELTA, M_CPU = 0, 1, 2, 3, 4, 5, 6


@njit(cache=True, inline="always")
def relax_row(indptr, indices, weights, hb, cv, v, U, track, sched, nlist, nw):
    """Jacobi RELAX of v's arcs: U[h] = min(U[h], cv + w'). With ``track`` each improved
    head is appended to nlist[nw:] once (the "scheduled" flag); returns the new nw."""
    for a in range(indptr[v], indptr[v + 1]):
        h = indices[a]
        nk = cv + key_weight(weights, a, hb)
        if nk < U[h]:
            U[h] = nk
            if track and not sched[h]:
                sched[h] = True
                nlist[nw] = h
                nw += 1
    return nw


@njit(cache=True, inline="always")
def relax_list(indptr, indices, weights, hb, C, U, flist, nf, nlist, sched):
    """Relax the arcs of the nf vertices in flist into U (Jacobi: keys read from C); each
    improved head is appended to nlist once (the "scheduled" flag). (arcs relaxed, heads)."""
    edges = 0
    nw = 0
    for i in range(nf):
        v = flist[i]
        edges += indptr[v + 1] - indptr[v]
        nw = relax_row(indptr, indices, weights, hb, C[v], v, U, True, sched, nlist, nw)
    return edges, nw


@njit(cache=True, inline="always")
def first_decrease(stamp, h, ph):
    """1 the first time h's key drops in phase ph (stamped), else 0: the frontier count."""
    if stamp[h] != ph:
        stamp[h] = ph
        return 1
    return 0


@njit(cache=True, inline="always")
def record(out_f, out_e, out_t, out_m, k, frontier, edges, ticks, mode):
    """Phase k's row of the batch's telemetry buffers; returns k + 1."""
    out_f[k] = frontier
    out_e[k] = edges
    out_t[k] = ticks
    out_m[k] = mode
    return k + 1
