"""The paper's three vertex programs for the CPU engine (``cpu.Engine``).

Each is a numba ``compute(v, ctx, st) -> bool`` plus a :class:`~.cpu.CpuProgram` factory
(message layout, bounds, combiner, master). ``api`` prepares the graph and reads results.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cpu import CpuProgram, add_arc, delete_arc, no_combine, run_vertices, send

INF = np.iinfo(np.int64).max

# --- Bellman-Ford SSSP (paper Figure 2) --------------------------------------------------
# st = (dist int64[n], source int64[1]); one int column per message: a candidate distance.


@njit(cache=True, nogil=True, inline="always")
def bf_compute(v, ctx, st):
    dist, source = st
    best = INF
    if ctx.step[0] == 0:
        if v != source[0]:
            return False
        best = 0
    m = ctx.r_head[v]
    while m >= 0:
        best = min(best, ctx.r_i[m, 0])
        m = ctx.r_next[m]
    if best < dist[v]:
        dist[v] = best
        e = ctx.first[v]
        while e >= 0:
            s = send(ctx, ctx.arc_head[e])
            ctx.w_i[s, 0] = best + ctx.arc_w[e]
            e = ctx.arc_next[e]
    return False  # vote to halt; a shorter distance arriving wakes the vertex


@njit(cache=True, nogil=True, inline="always")
def min_combine(w_i, w_f, into, frm):
    w_i[into, 0] = min(w_i[into, 0], w_i[frm, 0])


@njit(cache=True, nogil=True)
def bf_superstep(ctx, st, active, use_combiner):
    return run_vertices(bf_compute, min_combine, use_combiner, ctx, st, active)


def bellman_ford_program() -> CpuProgram:
    return CpuProgram("bellman-ford", bf_superstep, msg_ints=1, combines=True,
                      message_bound=lambda arcs, n, inc: arcs)


# --- PageRank, networkx's definition -------------------------------------------------------
# st = (x float64[n], outdeg int64[n], par float64[2] = (damping, 1/n)); arcs are the
# distinct (u, v) pairs. Aggregators: 0 = rank on dangling vertices, 1 = L1 change.


@njit(cache=True, nogil=True, inline="always")
def pr_compute(v, ctx, st):
    x, outdeg, par = st
    if ctx.step[0] > 0:
        total = 0.0
        m = ctx.r_head[v]
        while m >= 0:
            total += ctx.r_f[m, 0]
            m = ctx.r_next[m]
        new = par[0] * (total + ctx.agg_r[0] * par[1]) + (1.0 - par[0]) * par[1]
        ctx.agg_w[1] += abs(new - x[v])
        x[v] = new
    if outdeg[v] == 0:
        ctx.agg_w[0] += x[v]
    else:
        share = x[v] / outdeg[v]
        e = ctx.first[v]
        while e >= 0:
            s = send(ctx, ctx.arc_head[e])
            ctx.w_f[s, 0] = share
            e = ctx.arc_next[e]
    return True


@njit(cache=True, nogil=True, inline="always")
def sum_combine(w_i, w_f, into, frm):
    w_f[into, 0] += w_f[frm, 0]


class PageRankMaster:
    """Stops when an iteration's L1 change < tol * n (networkx's test) or after max_iter."""

    def __init__(self, n: int, tol: float, max_iter: int):
        self.limit = tol * n
        self.max_iter = max_iter
        self.iterations = 0
        self.delta = float("nan")
        self.converged = False

    def __call__(self, step: int, agg: np.ndarray, glob: np.ndarray) -> bool:
        if step == 0:  # superstep 0 only sends the start vector's shares
            return True
        self.iterations = step
        self.delta = float(agg[1])
        self.converged = self.delta < self.limit
        return not self.converged and step < self.max_iter


@njit(cache=True, nogil=True)
def pr_superstep(ctx, st, active, use_combiner):
    return run_vertices(pr_compute, sum_combine, use_combiner, ctx, st, active)


def pagerank_program(master: PageRankMaster) -> CpuProgram:
    return CpuProgram("pagerank", pr_superstep, msg_floats=1, aggregators=2,
                      combines=True, master=master,
                      message_bound=lambda arcs, n, inc: arcs)


# --- Borůvka minimum spanning forest with pointer jumping (Chung & Condon) -----------------
# Arc weights are edge ranks in the order (weight, smaller vertex, larger vertex), so the
# lightest arc is unique and Borůvka picks exactly Kruskal's forest. Phases (ctx.glob[0]):
PICK, RESOLVE, JUMP, RELABEL, GATHER, MERGE = range(6)
REQ, ANS = 0, 1
# st = (ptr int64[n], live uint8[n], done uint8[n], in_forest uint8[edges]).
# Messages: 3 int columns. Aggregators: 0 = picks, 1 = jump messages.


@njit(cache=True, nogil=True, inline="always")
def _pick(v, ctx, ptr, live, done, in_forest):
    best = -1
    be = -1
    e = ctx.first[v]
    while e >= 0:
        if best < 0 or ctx.arc_w[e] < best:
            best = ctx.arc_w[e]
            be = e
        e = ctx.arc_next[e]
    if be < 0:  # no arcs left: this supervertex spans a whole component
        live[v] = 0
        return False
    u = ctx.arc_head[be]
    ptr[v] = u
    done[v] = 0
    in_forest[best] = 1
    s = send(ctx, u)
    ctx.w_i[s, 0] = v
    ctx.agg_w[0] += 1.0
    return True


@njit(cache=True, nogil=True, inline="always")
def _jump(v, ctx, ptr, done, phase):
    """RESOLVE: break the mutual pick (the smaller id becomes the root) and ask the
    pointer for its pointer. JUMP: take answers, answer askers, ask again if needed."""
    asked = False
    m = ctx.r_head[v]
    while m >= 0:
        if phase == RESOLVE:
            if ctx.r_i[m, 0] == ptr[v] and v < ptr[v]:
                ptr[v] = v
            asked = True
        elif ctx.r_i[m, 0] == ANS:
            ptr[v] = ctx.r_i[m, 1]
            done[v] = ctx.r_i[m, 2]
            asked = True
        m = ctx.r_next[m]
    root = ptr[v] == v
    if phase == JUMP:
        m = ctx.r_head[v]
        while m >= 0:
            if ctx.r_i[m, 0] == REQ:
                s = send(ctx, ctx.r_i[m, 1])
                ctx.w_i[s, 0] = ANS
                ctx.w_i[s, 1] = ptr[v]
                ctx.w_i[s, 2] = 1 if (root or done[v]) else 0
                ctx.agg_w[1] += 1.0
            m = ctx.r_next[m]
    if (phase == RESOLVE or asked) and not root and not done[v]:
        s = send(ctx, ptr[v])
        ctx.w_i[s, 0] = REQ
        ctx.w_i[s, 1] = v
        ctx.agg_w[1] += 1.0


@njit(cache=True, nogil=True, inline="always")
def _merge(v, ctx, ptr):
    """A root takes the moved arcs, keeps the lightest per neighbouring supervertex."""
    k = 0
    m = ctx.r_head[v]
    while m >= 0:
        k += 1
        m = ctx.r_next[m]
    if k == 0:
        return
    far = np.empty(k, np.int64)
    rank = np.empty(k, np.int64)
    k = 0
    m = ctx.r_head[v]
    while m >= 0:
        rank[k] = ctx.r_i[m, 0]
        far[k] = ctx.r_i[m, 1]
        k += 1
        m = ctx.r_next[m]
    # lexicographic (far, rank) order by two stable passes
    order = np.argsort(rank, kind="mergesort")
    order = order[np.argsort(far[order], kind="mergesort")]
    prev = -1
    for j in order:
        if far[j] != prev:
            add_arc(ctx, v, far[j], rank[j])
            prev = far[j]


@njit(cache=True, nogil=True, inline="always")
def boruvka_compute(v, ctx, st):
    ptr, live, done, in_forest = st
    if not live[v]:
        return False
    phase = ctx.glob[0]
    if phase == PICK:
        return _pick(v, ctx, ptr, live, done, in_forest)
    if phase == RESOLVE or phase == JUMP:
        _jump(v, ctx, ptr, done, phase)
    elif phase == RELABEL:  # tell each neighbour my supervertex; my arcs go away
        e = ctx.first[v]
        while e >= 0:
            s = send(ctx, ctx.arc_head[e])
            ctx.w_i[s, 0] = ctx.arc_w[e]
            ctx.w_i[s, 1] = ptr[v]
            delete_arc(ctx, e)
            e = ctx.arc_next[e]
    elif phase == GATHER:  # move each edge leaving my supervertex to its root
        m = ctx.r_head[v]
        while m >= 0:
            if ctx.r_i[m, 1] != ptr[v]:
                s = send(ctx, ptr[v])
                ctx.w_i[s, 0] = ctx.r_i[m, 0]
                ctx.w_i[s, 1] = ctx.r_i[m, 1]
            m = ctx.r_next[m]
        if ptr[v] != v:  # merged into its root: retire
            live[v] = 0
            return False
    else:
        _merge(v, ctx, ptr)
    return True


class BoruvkaMaster:
    """Steps the phases: PICK -> RESOLVE -> JUMP* -> RELABEL -> GATHER -> MERGE -> PICK.
    Stops after a PICK in which no supervertex had an arc left."""

    def __init__(self):
        self.rounds = 0

    def __call__(self, step: int, agg: np.ndarray, glob: np.ndarray) -> bool:
        phase = int(glob[0])
        if phase == PICK:
            if agg[0] == 0:
                return False
            self.rounds += 1
            glob[0] = RESOLVE
        elif phase == RESOLVE:
            glob[0] = JUMP
        elif phase == JUMP:
            if agg[1] == 0:
                glob[0] = RELABEL
        else:
            glob[0] = (phase + 1) % 6  # RELABEL -> GATHER -> MERGE -> PICK
        return True


@njit(cache=True, nogil=True)
def boruvka_superstep(ctx, st, active, use_combiner):
    return run_vertices(boruvka_compute, no_combine, False, ctx, st, active)


def boruvka_program(master: BoruvkaMaster) -> CpuProgram:
    return CpuProgram("boruvka", boruvka_superstep, msg_ints=3, aggregators=2, master=master,
                      message_bound=lambda arcs, n, inc: arcs + 2 * n + inc,
                      insert_bound=lambda arcs, n, inc: inc)
