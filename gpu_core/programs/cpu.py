"""The CPU (numba) vertex-program engine: Pregel supersteps over a mutable arc list.

Data, modelled on seed 003 (Figure 3(c)):

* **Topology**: one linked list of out-arcs per vertex (``first[v]``, ``arc_next``) over
  arc arrays indexed by a stable arc id; arcs inserted by a program get new ids
  (never reused). A program's deletions and insertions are queued and applied after the
  superstep, so they take effect at the next one.
* **Messages**: two pools used in alternate supersteps (the paper's double buffering).
  A pool is a bump allocator (``top``) over slot arrays plus a list head per vertex;
  ``send`` takes the next slot. Every vertex holding messages runs in the next superstep
  and its list head is cleared after it reads it, so freeing a whole pool is ``top = 0``:
  O(1). Before each superstep the write pool is grown (while empty) to the program's
  declared bound; a program exceeding its bound gets :class:`PoolExhaustedError`, never a
  dropped message.
* **Order**: vertices run one at a time in index order and a vertex's messages are linked
  right after its compute, at the list heads. One thread never fails a CAS, so Figure 4's
  randomised walk (which starts only after a failed CAS) has nothing to do here; the GPU
  backend is where it matters. Programs must not depend on message order.

A program's compute is a numba function ``compute(v, ctx, st) -> bool`` (True: stay
active; False: vote to halt until a message arrives), ``ctx`` the :data:`Ctx` below and
``st`` a tuple of the program's own arrays, bound with its combiner into a cached
superstep kernel by :func:`run_vertices`. See ``docs/architecture.md`` for an example.
"""

from __future__ import annotations

import time
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from ..errors import CancelledError
from .common import PoolExhaustedError, grow_arc_arrays, telemetry_rows

# What compute sees. Read: step, glob (set by the master between supersteps), agg_r
# (aggregates of the previous superstep), first/arc_* (topology), r_* (inbox pool).
# Write through the helpers: send (w_* pool), agg_w (sum aggregators), delete_arc, add_arc.
Ctx = namedtuple(
    "Ctx",
    "step glob agg_r agg_w first arc_next arc_tail arc_head arc_w arc_state "
    "del_q del_top ins_t ins_h ins_w ins_top stamp "
    "r_head r_next r_i r_f w_head w_next w_dst w_i w_f w_top",
)

ARC_DEAD, ARC_LIVE, ARC_DYING = 0, 1, 2  # ARC_DYING: deletion queued, still visible


@njit(cache=True, nogil=True)
def send(ctx, dst):
    """Allocate a message slot for ``dst`` in this superstep's pool and return it; the
    caller writes the payload into ``ctx.w_i[slot, :]`` / ``ctx.w_f[slot, :]``."""
    s = ctx.w_top[0]
    if s >= ctx.w_dst.shape[0]:
        raise PoolExhaustedError("message pool exhausted: the program sent more than its bound")
    ctx.w_dst[s] = dst
    ctx.w_top[0] = s + 1
    return s


@njit(cache=True, nogil=True)
def delete_arc(ctx, e):
    """Delete arc ``e`` at the end of this superstep (it stays visible until then)."""
    if ctx.arc_state[e] == ARC_LIVE:
        ctx.arc_state[e] = ARC_DYING
        k = ctx.del_top[0]
        ctx.del_q[k] = e
        ctx.del_top[0] = k + 1


@njit(cache=True, nogil=True)
def add_arc(ctx, u, v, w):
    """Insert arc u -> v of weight w at the end of this superstep."""
    k = ctx.ins_top[0]
    if k >= ctx.ins_t.shape[0]:
        raise PoolExhaustedError("arc insert queue exhausted: the program inserted more than its bound")
    ctx.ins_t[k] = u
    ctx.ins_h[k] = v
    ctx.ins_w[k] = w
    ctx.ins_top[0] = k + 1


@njit(cache=True, nogil=True)
def no_combine(w_i, w_f, into, frm):
    """Placeholder combiner of programs without one (never called)."""
    return


@njit(cache=True, nogil=True)
def _post(combine, use_combiner, ctx, t0):
    """Link the slots ``t0..top`` one vertex just sent into their receivers' lists, or fold
    them into the receiver's message with ``combine``; folded slots are reclaimed."""
    write = t0
    for s in range(t0, ctx.w_top[0]):
        d = ctx.w_dst[s]
        h = ctx.w_head[d]
        if use_combiner and h >= 0:
            combine(ctx.w_i, ctx.w_f, h, s)
            continue
        if write != s:
            ctx.w_dst[write] = d
            for c in range(ctx.w_i.shape[1]):
                ctx.w_i[write, c] = ctx.w_i[s, c]
            for c in range(ctx.w_f.shape[1]):
                ctx.w_f[write, c] = ctx.w_f[s, c]
        ctx.w_next[write] = h
        ctx.w_head[d] = write
        write += 1
    ctx.w_top[0] = write


@njit(nogil=True, inline="always")
def run_vertices(compute, combine, use_combiner, ctx, st, active):
    """One superstep: compute on every vertex that is active or has mail; returns how
    many ran. Programs bind it to their functions in a cached kernel (see CpuProgram):
    numba cannot cache a function whose arguments are functions."""
    ran = 0
    for v in range(active.shape[0]):
        if not active[v] and ctx.r_head[v] < 0:
            continue
        ran += 1
        t0 = ctx.w_top[0]
        active[v] = compute(v, ctx, st)
        ctx.r_head[v] = -1  # read: the pool can be freed wholesale after this superstep
        if ctx.w_top[0] > t0:
            _post(combine, use_combiner, ctx, t0)
    return ran


@njit(cache=True, nogil=True)
def _apply_edits(ctx, total):
    """Apply queued deletions (relinking each touched list once) and insertions (new ids
    from ``total`` on); returns (new total, deleted, inserted)."""
    nd = ctx.del_top[0]
    step = ctx.step[0] + 1
    for k in range(nd):
        ctx.arc_state[ctx.del_q[k]] = ARC_DEAD
    for k in range(nd):
        t = ctx.arc_tail[ctx.del_q[k]]
        if ctx.stamp[t] == step:
            continue
        ctx.stamp[t] = step
        e = ctx.first[t]
        head = -1
        last = -1
        while e >= 0:
            nxt = ctx.arc_next[e]
            if ctx.arc_state[e] != ARC_DEAD:
                if last < 0:
                    head = e
                else:
                    ctx.arc_next[last] = e
                last = e
            e = nxt
        if last >= 0:
            ctx.arc_next[last] = -1
        ctx.first[t] = head
    ni = ctx.ins_top[0]
    for k in range(ni):
        e = total + k
        t = ctx.ins_t[k]
        ctx.arc_tail[e] = t
        ctx.arc_head[e] = ctx.ins_h[k]
        ctx.arc_w[e] = ctx.ins_w[k]
        ctx.arc_state[e] = ARC_LIVE
        ctx.arc_next[e] = ctx.first[t]
        ctx.first[t] = e
    ctx.del_top[0] = 0
    ctx.ins_top[0] = 0
    return total + ni, nd, ni


# bound(live_arcs, n, incoming_messages) -> most messages (or arc inserts) one superstep
# may produce; the engine sizes the pools from it before the superstep.
Bound = Callable[[int, int, int], int]


@dataclass(frozen=True)
class CpuProgram:
    """A vertex program's CPU face: its numba functions and the sizes the engine needs."""

    name: str
    # numba, cached: superstep(ctx, st, active, use_combiner) -> vertices run, i.e.
    # run_vertices(<compute>, <combine or no_combine>, use_combiner, ctx, st, active)
    superstep: Any
    msg_ints: int = 0  # int64 payload columns per message
    msg_floats: int = 0  # float64 payload columns per message
    aggregators: int = 0  # float64 global sums (agg_w now, agg_r next superstep)
    globals: int = 1  # int64 values the master sets for every vertex (ctx.glob)
    combines: bool = False  # superstep folds messages with a combiner when asked to
    message_bound: Bound = lambda arcs, n, incoming: arcs + n
    insert_bound: Bound = lambda arcs, n, incoming: 0
    # master(superstep, aggregates, glob) -> keep going; runs between supersteps and may
    # change glob (e.g. the phase of a multi-phase program)
    master: Callable[[int, np.ndarray, np.ndarray], bool] | None = None


class _Pool:
    """One bump-allocated message pool: list heads per vertex and slot arrays."""

    def __init__(self, n: int, cap: int, ki: int, kf: int):
        self.head = np.full(n, -1, dtype=np.int64)
        self.alloc(cap, ki, kf)

    def alloc(self, cap: int, ki: int, kf: int) -> None:
        self.next = np.empty(cap, dtype=np.int64)
        self.dst = np.empty(cap, dtype=np.int64)
        self.i = np.empty((cap, ki), dtype=np.int64)
        self.f = np.empty((cap, kf), dtype=np.float64)
        self.top = np.zeros(1, dtype=np.int64)

    @property
    def cap(self) -> int:
        return int(self.dst.shape[0])


def _linked_lists(n: int, tails: np.ndarray, cap: int) -> tuple[np.ndarray, np.ndarray]:
    """first[v] and arc_next[] chaining each vertex's arcs in input order."""
    m = tails.shape[0]
    first = np.full(n, -1, dtype=np.int64)
    nxt = np.full(cap, -1, dtype=np.int64)
    if m:
        order = np.argsort(tails, kind="stable")
        t = tails[order]
        same = t[:-1] == t[1:]
        nxt[order[:-1][same]] = order[1:][same]
        starts = np.flatnonzero(np.r_[True, ~same])
        first[t[starts]] = order[starts]
    return first, nxt


class Engine:
    """Runs one :class:`CpuProgram` on a graph given as arc arrays (ids 0..m-1)."""

    def __init__(self, program: CpuProgram, n: int, tails, heads, weights, *,
                 use_combiner: bool = True):
        self.p = program
        self.n = int(n)
        tails = np.ascontiguousarray(tails, dtype=np.int64)
        m = int(tails.shape[0])
        cap = max(m, 1)
        self.first, self.arc_next = _linked_lists(self.n, tails, cap)
        self.arc_tail = np.zeros(cap, np.int64)
        self.arc_head = np.zeros(cap, np.int64)
        self.arc_w = np.zeros(cap, np.int64)
        self.arc_state = np.zeros(cap, np.int8)
        self.arc_tail[:m] = tails
        self.arc_head[:m] = heads
        self.arc_w[:m] = weights
        self.arc_state[:m] = ARC_LIVE
        self.total = m  # arc ids handed out so far
        self.live = m
        self.del_q = np.zeros(cap, np.int64)
        self.ins = [np.zeros(0, np.int64) for _ in range(3)]
        self.stamp = np.full(self.n, -1, np.int64)
        self.use_combiner = bool(use_combiner and program.combines)
        ki, kf = program.msg_ints, program.msg_floats
        self.pools = (_Pool(self.n, 0, ki, kf), _Pool(self.n, 0, ki, kf))
        self.glob = np.zeros(max(program.globals, 1), np.int64)
        self.agg_r = np.zeros(max(program.aggregators, 1), np.float64)
        self.agg_w = np.zeros_like(self.agg_r)
        self.supersteps = 0
        self.stopped_by = ""  # "quiet" (all halted, no mail), "master" or "limit"

    def _grow_arcs(self, need: int) -> None:
        cap = self.arc_tail.shape[0]
        if need <= cap:
            return
        new = max(need, 2 * cap)
        grow_arc_arrays(np, self, new, ARC_DEAD)

    def _ctx(self, step: np.ndarray, rd: _Pool, wr: _Pool) -> Ctx:
        ins_t, ins_h, ins_w = self.ins
        return Ctx(step, self.glob, self.agg_r, self.agg_w, self.first, self.arc_next,
                   self.arc_tail, self.arc_head, self.arc_w, self.arc_state,
                   self.del_q, np.zeros(1, np.int64), ins_t, ins_h, ins_w,
                   np.zeros(1, np.int64), self.stamp,
                   rd.head, rd.next, rd.i, rd.f, wr.head, wr.next, wr.dst, wr.i, wr.f, wr.top)

    def run(self, st: tuple, active: np.ndarray, *, max_supersteps: int,
            on_superstep: Callable[[np.void], None] | None = None,
            cancel: Callable[[], bool] | None = None) -> np.ndarray:
        """Supersteps until every vertex has halted with no mail in flight, the master
        stops, or ``max_supersteps``; returns the telemetry (SUPERSTEP_DTYPE)."""
        p = self.p
        rows: list[tuple] = []
        step = np.zeros(1, np.int64)
        incoming = 0
        self.stopped_by = "limit"
        for s in range(max_supersteps):
            if cancel is not None and cancel():
                raise CancelledError(f"{p.name} cancelled at superstep {s}")
            if incoming == 0 and not active.any():
                self.stopped_by = "quiet"
                break
            rd, wr = self.pools[(s + 1) % 2], self.pools[s % 2]
            need = int(p.message_bound(self.live, self.n, incoming)) + 1
            if wr.cap < need:
                wr.alloc(max(need, 2 * wr.cap), p.msg_ints, p.msg_floats)
            inserts = int(p.insert_bound(self.live, self.n, incoming))
            self._grow_arcs(self.total + inserts)
            if self.ins[0].shape[0] < inserts:
                self.ins = [np.zeros(inserts, np.int64) for _ in range(3)]
            step[0] = s
            self.agg_w[:] = 0.0
            ctx = self._ctx(step, rd, wr)
            t0 = time.perf_counter()
            ran = p.superstep(ctx, st, active, self.use_combiner)
            incoming = int(wr.top[0])
            self.total, deleted, inserted = _apply_edits(ctx, self.total)
            self.live += int(inserted) - int(deleted)
            rd.top[0] = 0  # the pool read in this superstep is free again: O(1)
            rows.append((s, ran, incoming, self.live, (time.perf_counter() - t0) * 1e6))
            self.agg_r[:] = self.agg_w
            self.supersteps = s + 1
            if on_superstep is not None:
                on_superstep(telemetry_rows(rows[-1:])[0])
            if p.master is not None and not p.master(s, self.agg_r, self.glob):
                self.stopped_by = "master"
                break
        else:
            if incoming == 0 and not active.any():
                self.stopped_by = "quiet"
        return telemetry_rows(rows)

    def live_arcs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(tails, heads, weights) of the arcs alive now, by arc id."""
        ids = np.flatnonzero(self.arc_state[: self.total] != ARC_DEAD)
        return self.arc_tail[ids], self.arc_head[ids], self.arc_w[ids]
