"""The CUDA vertex-program engine (``programs.cu``); its three programs are in
``cuda_programs.py``.
(Over 500 lines: the engine's host side, one object per superstep loop on the device.)

Same superstep semantics as ``cpu.Engine``; differences: vertices run in parallel, list
insertion uses atomicCAS with Figure 4's randomised cursor (``mode="list"``) or always at
the head (``mode="collision"``, the paper's ablation) or with one allocator whose
messages are copied into the read pool after each superstep (``mode="copy"``, the
paper's evacuation version of section 4.2, Figure 5); a combiner, where the run asks for
one (the API's default for Bellman-Ford and PageRank, as on the CPU), folds each vertex's
messages into one slot by an atomic (min / sum) instead of listing them -- the engine's
entry points default to no combiner, every message a list element as in the paper, for
the paper's figures; Borůvka has none. Borůvka reduces parallel arcs between two
supervertices in GATHER through a hash table (atomicMin per (root, far)), so each root's
MERGE inbox holds one arc per neighbour, as after the CPU engine's sort.
Results equal the CPU engine's (integers bit-identical, PageRank within 1e-12;
``tests/gpu/test_programs_gpu.py``). Every allocation is checked first
(``device.memory.ensure_free``) and CuPy's OOM becomes GpuOutOfMemoryError; ``cancel`` is
polled and ``on_superstep`` called between supersteps, as on the CPU -- for a batched
program (Bellman-Ford, PageRank: no topology edits, a master the device can replay) between
batches of supersteps launched back to back, a row's ``time_us`` then being its kernel's
GPU time (CUDA events) rather than the host's round trip.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..device import get_kernel as _device_kernel
from ..device import memory
from ..errors import CancelledError, GpuCoreError, InvalidArgumentError
from .common import PoolExhaustedError, grow_arc_arrays, telemetry_rows
from .cpu import _linked_lists

HERE = Path(__file__).resolve().parent
# Address table and scalar layouts: the enums CtxSlot / ScSlot / CntSlot of programs.cu.
CTX_SLOTS = (
    "glob agg_r agg_w first arc_next arc_tail arc_head arc_w arc_state del_q ins_t ins_h "
    "ins_w counters dirty active r_head r_next r_i r_f w_head w_next w_i w_f r_comb r_has "
    "w_comb w_has arc_off"
).split()
SC_STEP, SC_TOTAL, SC_LEN = 0, 9, 13
# combiners of programs.cu (S_COMB): none, sum of doubles, minimum of int64
COMB_NONE, COMB_SUM_F64, COMB_MIN_I64 = 0, 1, 2
# "no message" value of a slot: -0.0 for sums (programs.cu SUM_EMPTY), int64 max for minima
COMB_RESET = {COMB_SUM_F64: np.iinfo(np.int64).min, COMB_MIN_I64: np.iinfo(np.int64).max}
CNT_TOP, CNT_DEL, CNT_INS, CNT_OVERFLOW, CNT_RAN, CNT_ACT = range(6)
CNT_N, LOG_W = 6, 8  # a ring entry (programs.cu VP_LOG_W): counters, then 2 aggregators
# ring entries: a synchronous run reads every superstep's entry before the next launch
# (3 would do: kernel s clears entry s + 1 while s - 1's aggregators are read); a batched
# run reads up to RING - 2 supersteps per host round trip
RING_SYNC, RING = 4, 64
# supersteps per CUDA graph once a batched run has gone that far (even: a graph starts on
# either pool parity, one graph per parity)
GRAPH_BATCH = 32
GRAPH_AFTER = 128  # launches before a run turns to graphs (capturing costs ~1 ms)
I64_MAX = np.iinfo(np.int64).max
# insertion mode per engine mode: "copy" (the paper's evacuation version: one allocator,
# the inbox copied after each superstep) inserts like "list"
MODES = {"list": 0, "collision": 1, "copy": 0}
BLOCK = 256
ARC_BYTES = 8 * 5 + 4  # tail, head, w, next, delete queue, state


def get_kernel(name: str):
    """A kernel of programs.cu (common.cuh prepended), compiled once per device."""
    return _device_kernel(HERE / "programs.cu", name)


def _empty(cp, count: int, dtype, what: str, fill=None):
    """A device array of ``count`` items after the free-memory check (OOM typed)."""
    nbytes = max(int(count), 1) * np.dtype(dtype).itemsize
    memory.ensure_free(nbytes, what)
    with memory.oom_as_typed(what, nbytes):
        a = cp.empty(max(int(count), 1), dtype=dtype)
        if fill is not None:
            a.fill(fill)
    return a


def _arc_lists(cp, n: int, tails, heads, weights) -> tuple:
    """Device (first, arc_next, arc_tail, arc_head, arc_w, arc_state, arc_off) of the arc
    arrays; ``arc_off`` (n + 1 offsets: v's initial arcs are ids arc_off[v]..arc_off[v+1]-1)
    when the arcs come sorted by tail, as CSR arcs do, else None (lists walked only)."""
    tails = np.ascontiguousarray(tails, dtype=np.int64)
    m = int(tails.shape[0])
    cap = max(m, 1)
    first, nxt = _linked_lists(n, tails, cap)
    host = np.zeros((3, cap), np.int64)
    host[0, :m], host[1, :m], host[2, :m] = tails, heads, weights
    state = np.zeros(cap, np.int32)
    state[:m] = 1
    off = None
    if n and (m < 2 or bool(np.all(tails[1:] >= tails[:-1]))):
        off = cp.asarray(np.searchsorted(tails, np.arange(n + 1, dtype=np.int64)))
    return (cp.asarray(first if n else np.full(1, -1, np.int64)), cp.asarray(nxt),
            *(cp.asarray(h) for h in host), cp.asarray(state), off)


@dataclass(frozen=True)
class CudaProgram:
    name: str
    kernel: str  # a VP_SUPERSTEP kernel of programs.cu
    msg_ints: int = 0
    msg_floats: int = 0
    aggregators: int = 0
    globals: int = 1
    message_bound: Callable[[int, int, int], int] = lambda arcs, n, incoming: arcs + n
    insert_bound: Callable[[int, int, int], int] = lambda arcs, n, incoming: 0
    master: Callable[[int, np.ndarray, np.ndarray], bool] | None = None
    combiner: int = COMB_NONE  # the program's combiner (COMB_*), used when the run asks
    # True: supersteps may run in batches with no host work in between -- the program
    # edits no topology, its bounds do not depend on ``incoming`` and its master (if
    # any) leaves glob alone and is ``stop_rule``: (k, limit, max_step) = stop after
    # superstep s >= 1 when aggregator k < limit or s >= max_step, tested on the device
    # too (the host still calls ``master`` on every superstep, from the same values)
    batched: bool = False
    stop_rule: tuple[int, float, int] | None = None


class _DevicePool:
    def __init__(self, cp, n: int, ki: int, kf: int, comb: int = COMB_NONE):
        self.cp, self.ki, self.kf = cp, ki, kf
        self.head = _empty(cp, n, np.int64, "message list heads", fill=-1)
        # combined messages: one slot per vertex, and for minima a "has mail" flag (the
        # list heads stand in where there is none: the kernels never touch them)
        self.comb = self.has = self.head
        if comb:
            self.comb = _empty(cp, n, np.int64, "combined messages", fill=COMB_RESET[comb])
        if comb == COMB_MIN_I64:
            self.has = _empty(cp, n, np.uint32, "combined messages", fill=0)
        self.alloc(1)

    def alloc(self, cap: int) -> None:
        cp = self.cp
        self.next = self.i = self.f = None  # let the pool reuse the old slots
        need = int(cap) * 8 * (1 + self.ki + self.kf)
        memory.ensure_free(need, "a message pool")
        self.cap = int(cap)
        self.next = _empty(cp, self.cap, np.int64, "a message pool")
        self.i = _empty(cp, self.cap * self.ki, np.int64, "a message pool")
        self.f = _empty(cp, self.cap * self.kf, np.float64, "a message pool")


class CudaEngine:
    """Runs one :class:`CudaProgram` on a graph given as arc arrays (ids 0..m-1)."""

    def __init__(self, program: CudaProgram, n: int, tails, heads, weights, *,
                 mode: str = "list", seed: int = 0, graph=None, combiner: bool = False):
        """``graph``: the CSRGraph the arcs come from, when they are a pure function of
        it: their device lists are then built once per graph (DeviceGraph.derived) and
        each run starts from a device-side copy, with no host sorting and no upload;
        ``tails`` may then be a function returning (tails, heads, weights).
        ``combiner``: fold each vertex's messages with the program's combiner (one slot
        per vertex, updated atomically) instead of listing them (the paper's lists)."""
        import cupy as cp

        self.cp, self.p, self.n = cp, program, int(n)
        if mode not in MODES:
            raise InvalidArgumentError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        self.mode, self.seed, self.copy = MODES[mode], int(seed), mode == "copy"
        self.comb = program.combiner if combiner else COMB_NONE
        if self.comb and self.copy:
            raise InvalidArgumentError("the copy version lists every message: no combiner")
        self.counts = None  # copy mode: per-vertex inbox sizes

        def build():
            arcs = tails() if callable(tails) else (tails, heads, weights)
            m_ = int(np.shape(arcs[0])[0])
            memory.ensure_free(max(m_, 1) * ARC_BYTES + max(self.n, 1) * 8 * 4,
                               f"the {program.name} graph")
            return _arc_lists(cp, self.n, *arcs), m_

        if graph is None:
            arrays, m = build()
        else:
            from ..device.csr import device_graph

            cached, m = device_graph(graph).derived(f"vp:{program.name}", build)
            memory.ensure_free(max(m, 1) * ARC_BYTES + max(self.n, 1) * 8 * 4,
                               f"the {program.name} graph")
            # the offsets of the initial arcs are never written: shared, not copied
            arrays = tuple(a.copy() for a in cached[:6]) + cached[6:]
        cap = max(m, 1)
        (self.first, self.arc_next, self.arc_tail, self.arc_head, self.arc_w,
         self.arc_state, self.arc_off) = arrays
        self.m0 = m
        self.del_q = cp.zeros(cap, cp.int64)
        self.ins = [cp.zeros(1, cp.int64) for _ in range(3)]
        # counters and aggregators of each superstep: a ring of entries (programs.cu
        # VP_LOG_W) written by the superstep kernels, which also clear the next entry, so
        # the host sets nothing between supersteps; ctl[0]: the superstep that halted
        if program.aggregators > 2:
            raise InvalidArgumentError("a CUDA vertex program has at most 2 aggregators")
        self.ring = cp.zeros((RING, LOG_W), cp.uint64)
        # ctl[1]: added to every superstep kernel's step argument (a CUDA graph's start)
        self.ctl = cp.zeros(2, cp.int64)
        self._graphs: dict[int, object] = {}  # pool parity -> CUDA graph (None: no capture)
        self.graph_error = ""
        self.dirty = cp.zeros(max(self.n, 1), cp.int32)
        self.total = self.live = m
        ki, kf = program.msg_ints, program.msg_floats
        self.pools = (_DevicePool(cp, self.n, ki, kf, self.comb),
                      _DevicePool(cp, self.n, ki, kf, self.comb))
        self.glob = np.zeros(max(program.globals, 1), np.int64)
        self._sc_cache: dict[tuple, object] = {}
        self.glob_dev = cp.asarray(self.glob)  # re-sent only when the master changes glob
        self._glob_sent = self.glob.copy()
        self._ctx_cache: dict[tuple, object] = {}
        self.supersteps = 0
        self.stopped_by = ""

    def _grow_arcs(self, need: int) -> None:
        cp = self.cp
        cap = int(self.arc_tail.shape[0])
        if need <= cap:
            return
        new = max(need, 2 * cap)
        memory.ensure_free(new * ARC_BYTES, f"{self.p.name}'s inserted arcs")
        grow_arc_arrays(cp, self, new, 0)

    def _tables(self, step: int, rd: _DevicePool, wr: _DevicePool, active, glob,
                ring_len: int = RING_SYNC):
        """The address table and scalar key of superstep ``step``. Its counters (read by
        the edit kernels; the superstep kernels find theirs in the ring) are the step's
        ring entry."""
        cp = self.cp
        entry = self.ring.data.ptr + (step % ring_len) * LOG_W * 8  # addresses, no slicing
        arrays = {
            "glob": glob, "agg_r": self.ring.data.ptr + ((step - 1) % ring_len) * LOG_W * 8
            + CNT_N * 8, "agg_w": entry + CNT_N * 8, "first": self.first,
            "arc_next": self.arc_next, "arc_tail": self.arc_tail, "arc_head": self.arc_head,
            "arc_w": self.arc_w, "arc_state": self.arc_state, "del_q": self.del_q,
            "ins_t": self.ins[0], "ins_h": self.ins[1], "ins_w": self.ins[2],
            "counters": entry, "dirty": self.dirty, "active": active,
            "r_head": rd.head, "r_next": rd.next, "r_i": rd.i, "r_f": rd.f,
            "w_head": wr.head, "w_next": wr.next, "w_i": wr.i, "w_f": wr.f,
            "r_comb": rd.comb, "r_has": rd.has, "w_comb": wr.comb, "w_has": wr.has,
        }
        arrays["arc_off"] = self.arc_off if self.arc_off is not None else 0
        ptrs = tuple(a if isinstance(a, int) else a.data.ptr
                     for a in (arrays[k] for k in CTX_SLOTS))
        ctx = self._ctx_cache.get(ptrs)  # the two pools alternate: two tables, sent once
        if ctx is None:
            if len(self._ctx_cache) > 8:
                self._ctx_cache.clear()
            ctx = self._ctx_cache[ptrs] = cp.asarray(ptrs, dtype=cp.uint64)
        key = (step, self.n, self.p.msg_ints, self.p.msg_floats, self.mode, self.seed,
               wr.cap, int(self.del_q.shape[0]), int(self.ins[0].shape[0]), self.total,
               self.comb, self.m0, int(self.live < self.total))
        return ctx, key

    def _sc(self, key: tuple):
        """The scalars of ``key`` on the device, uploaded once per distinct value (the
        superstep number is a kernel argument: a superstep costs no upload)."""
        sc = self._sc_cache.get(key[1:])
        if sc is None:
            if len(self._sc_cache) > 32:
                self._sc_cache.clear()
            sc = self._sc_cache[key[1:]] = self.cp.asarray(np.array((0,) + key[1:], np.int64))
        return sc

    def _evacuate(self, s: int, rd: _DevicePool, wr: _DevicePool, active, glob, incoming: int,
                  grid) -> None:
        """Copy version: count each vertex's new messages, copy them into the read pool
        as contiguous runs (relinked as lists) and clear the write pool's heads."""
        cp = self.cp
        if rd.cap < incoming:
            rd.alloc(max(incoming, 2 * rd.cap))
        if self.counts is None:
            self.counts = _empty(cp, self.n, np.int64, "inbox counts")
        ctx, key = self._tables(s, rd, wr, active, glob)  # rd's arrays may be new
        sc = self._sc(key)
        get_kernel("vp_count_inbox")(grid, (BLOCK,), (ctx, sc, self.counts))
        offsets = cp.cumsum(self.counts) - self.counts  # exclusive prefix sum
        get_kernel("vp_evacuate")(grid, (BLOCK,), (ctx, sc, offsets))

    def run(self, st: tuple, active, *, max_supersteps: int, on_superstep=None,
            cancel=None) -> np.ndarray:
        """``st``: the program's device arrays; ``active``: uint8 device array. Returns
        the telemetry (SUPERSTEP_DTYPE)."""
        with memory.oom_as_typed(f"the {self.p.name} vertex program"):
            return self._run(st, active, max_supersteps=max_supersteps,
                             on_superstep=on_superstep, cancel=cancel)

    def _args(self, s: int, active, st_table, *, ring_len: int, rx: int,
              max_steps: int) -> list:
        """Superstep ``s``'s kernel arguments (programs.cu VP_SUPERSTEP_ARGS); index 3,
        the superstep, is all that changes between the supersteps of a batched run."""
        ctx, key = self._tables(s, *self._pools(s), active, self.glob_dev)
        k, limit, top = self.p.stop_rule if self.p.stop_rule is not None else (-1, 0.0, 0)
        return [ctx, self._sc(key), st_table, np.int64(s), self.ring, np.int64(ring_len),
                np.int64(rx), np.int64(max_steps), np.int64(k), np.float64(limit),
                np.int64(top), self.ctl]

    def _graph(self, kernel, grid, args: list, parity: int):
        """A CUDA graph of GRAPH_BATCH superstep kernels starting on pool ``parity``, their
        steps 0.. relative to ctl[1]; captured once per run and parity. None where CuPy or
        the driver cannot capture (the run then goes on launching kernels one by one)."""
        if parity in self._graphs:
            return self._graphs[parity]
        cp = self.cp
        graph = None
        stream = cp.cuda.Stream(non_blocking=True)
        try:
            with stream:
                stream.begin_capture()
                try:
                    for i in range(GRAPH_BATCH):
                        a = list(args[(parity + i) % 2])
                        a[3] = np.int64(i)
                        kernel(grid, (BLOCK,), tuple(a))
                finally:
                    graph = stream.end_capture()
        except Exception as exc:  # noqa: BLE001 -- any capture failure: plain launches
            self.graph_error = f"{type(exc).__name__}: {exc}"
            graph = None
        self._graphs[parity] = graph
        return graph

    def _pools(self, s: int) -> tuple[_DevicePool, _DevicePool]:
        """(read, write) pools of superstep ``s``."""
        if self.copy:  # one allocator (pools[0]); pools[1] holds the evacuated inbox
            return self.pools[1], self.pools[0]
        return self.pools[(s + 1) % 2], self.pools[s % 2]

    def _grow_pools(self, s: int, incoming: int) -> None:
        # a combiner needs no pool slots: every message goes to its vertex's slot
        wr = self._pools(s)[1]
        need = 1 if self.comb else int(self.p.message_bound(self.live, self.n, incoming)) + 1
        if wr.cap < need:
            wr.alloc(max(need, 2 * wr.cap))

    def _run(self, st: tuple, active, *, max_supersteps: int, on_superstep, cancel):
        cp, p = self.cp, self.p
        self.ring.fill(0)
        self.ctl.set(np.array([I64_MAX, 0], np.int64))
        self.stopped_by = "quiet"
        st_table = cp.asarray([a.data.ptr for a in st], dtype=cp.uint64)
        if max_supersteps <= 0:
            self.stopped_by = "limit"
            return telemetry_rows([])
        if not bool(active.any()):  # nothing to run (no mail before superstep 0)
            return telemetry_rows([])
        kernel = get_kernel(p.kernel)
        if p.batched and not self.copy:
            return self._run_batched(kernel, st_table, active, max_supersteps, on_superstep,
                                     cancel)
        return self._run_sync(kernel, st_table, active, max_supersteps, on_superstep, cancel)

    def _run_sync(self, kernel, st_table, active, max_supersteps: int, on_superstep, cancel):
        """One superstep per host round trip: the master may set glob, the program may edit
        the topology (applied by the edit kernels before the next superstep)."""
        cp, p, n = self.cp, self.p, self.n
        rows: list[tuple] = []
        grid = (max(-(-n // BLOCK), 1),)
        incoming, act = 0, 1
        self.stopped_by = "limit"
        for s in range(max_supersteps):
            if cancel is not None and cancel():
                raise CancelledError(f"{p.name} cancelled at superstep {s}")
            if incoming == 0 and act == 0:
                self.stopped_by = "quiet"
                break
            rd, wr = self._pools(s)
            self._grow_pools(s, incoming)
            inserts = int(p.insert_bound(self.live, n, incoming))
            self._grow_arcs(self.total + inserts)
            if int(self.ins[0].shape[0]) < inserts:
                self.ins = [_empty(cp, inserts, np.int64, "the arc insert queue")
                            for _ in range(3)]
            t0 = time.perf_counter()
            if not np.array_equal(self.glob, self._glob_sent):
                self.glob_dev.set(self.glob)
                self._glob_sent = self.glob.copy()
            glob = self.glob_dev
            kernel(grid, (BLOCK,), tuple(self._args(s, active, st_table, ring_len=RING_SYNC,
                                                    rx=0, max_steps=max_supersteps)))
            io = self.ring[s % RING_SYNC].get()
            cnt, agg = io[:CNT_N], io[CNT_N:CNT_N + max(p.aggregators, 1)].view(np.float64)
            if cnt[CNT_OVERFLOW]:
                raise PoolExhaustedError(
                    f"{p.name}: message pool or edit queue exhausted at superstep {s}")
            incoming, nd, ni = int(cnt[CNT_TOP]), int(cnt[CNT_DEL]), int(cnt[CNT_INS])
            act = int(cnt[CNT_ACT])
            if nd or ni or (self.copy and incoming):
                ctx, key = self._tables(s, rd, wr, active, glob)
                sc = self._sc(key)
            if nd:
                get_kernel("vp_mark_dead")((-(-nd // BLOCK),), (BLOCK,), (ctx, sc))
                get_kernel("vp_relink")(grid, (BLOCK,), (ctx, sc))
            if ni:
                get_kernel("vp_insert")((-(-ni // BLOCK),), (BLOCK,), (ctx, sc))
            if self.copy and incoming:
                self._evacuate(s, rd, wr, active, glob, incoming, grid)
            self.total += ni
            self.live += ni - nd
            if nd or ni or self.copy:
                cp.cuda.Stream.null.synchronize()  # the edit kernels belong to this superstep
            rows.append((s, int(cnt[CNT_RAN]), incoming, self.live,
                         (time.perf_counter() - t0) * 1e6))
            self.supersteps = s + 1
            if on_superstep is not None:
                on_superstep(telemetry_rows(rows[-1:])[0])
            if p.master is not None and not p.master(s, agg, self.glob):
                self.stopped_by = "master"
                break
        else:
            if incoming == 0 and act == 0:
                self.stopped_by = "quiet"
        return telemetry_rows(rows)

    def _run_batched(self, kernel, st_table, active, max_supersteps: int, on_superstep,
                     cancel):
        """Supersteps launched back to back, in batches of 1, 2, 4 .. RING - 2, the host
        reading the ring once per batch: each kernel halts by itself once the run is over
        (quiet, step limit, the program's stop rule), so launching past the end is harmless.
        The combined mail of superstep s is counted by the receivers in s + 1, so a row is
        final once the next superstep's kernel ran (one halted kernel ends every run).
        Past GRAPH_AFTER supersteps (Bellman-Ford's thousands of small ones) a batch is one
        CUDA graph of GRAPH_BATCH kernels, whose launch costs the host what one kernel's did.
        ``on_superstep`` and ``cancel`` run between batches; a row's time is the GPU time of
        its kernel (CUDA events; in a graph batch, the batch's time over its supersteps)."""
        cp, p, n = self.cp, self.p, self.n
        rows: list[tuple] = []
        grid = (max(-(-n // BLOCK), 1),)
        for s in (0, 1):  # the bounds of a batched program do not depend on `incoming`
            self._grow_pools(s, 0)
        rx = 1 if self.comb else 0
        nagg = max(p.aggregators, 1)
        # nothing but the superstep number changes between launches: the two pools'
        # argument lists are built once
        args = [self._args(s, active, st_table, ring_len=RING, rx=rx,
                           max_steps=max_supersteps) for s in (0, 1)]
        launched, done, batch, based = 0, 0, 1, False
        ring = np.zeros((RING, LOG_W), np.uint64)
        times: dict[int, float] = {}
        self.stopped_by = "limit"
        while True:
            if cancel is not None and cancel():
                raise CancelledError(f"{p.name} cancelled at superstep {done}")
            graph = self._graph(kernel, grid, args, launched % 2) \
                if launched >= GRAPH_AFTER else None
            if graph is not None:  # kernels past the run's end halt at once
                k = GRAPH_BATCH
                start, stop_ev = cp.cuda.Event(), cp.cuda.Event()
                start.record()
                self.ctl[1:].fill(launched)
                based = True
                graph.launch()
                stop_ev.record()
                stop_ev.synchronize()
                each = cp.cuda.get_elapsed_time(start, stop_ev) * 1e3 / k
                times.update((launched + i, each) for i in range(k))
            else:
                if based:  # a graph ran (the other parity's capture failed)
                    self.ctl[1:].fill(0)
                    based = False
                k = min(batch, max_supersteps + 1 - launched)
                batch = min(2 * batch, RING - 2)
                events = [cp.cuda.Event() for _ in range(k + 1)]
                events[0].record()
                for i in range(k):
                    s = launched + i
                    a = args[s % 2]
                    a[3] = np.int64(s)
                    kernel(grid, (BLOCK,), tuple(a))
                    events[i + 1].record()
                events[-1].synchronize()
                for i in range(k):
                    times[launched + i] = cp.cuda.get_elapsed_time(events[i],
                                                                   events[i + 1]) * 1e3
            first = launched
            launched += k
            ring_dev = self.ring.get()
            for s in range(first, launched):  # entries s - 1 .. launched - 1 are intact
                ring[s % RING] = ring_dev[s % RING]
            ring[(first - 1) % RING] = ring_dev[(first - 1) % RING]  # its mail count, now
            end = None
            while done < launched - 1 and end is None:
                e = ring[done % RING]
                if e[CNT_OVERFLOW]:
                    raise PoolExhaustedError(
                        f"{p.name}: message pool exhausted at superstep {done}")
                if e[CNT_RAN] == 0:  # no vertex active and none with mail: quiet
                    before = ring[(done - 1) % RING]
                    if done and (before[CNT_TOP] or before[CNT_ACT]):
                        raise GpuCoreError(f"{p.name}: superstep {done} halted on the device "
                                           "before the run was over")
                    end = "quiet"
                    break
                rows.append((done, int(e[CNT_RAN]), int(e[CNT_TOP]), self.live, times[done]))
                self.supersteps = done + 1
                if on_superstep is not None:
                    on_superstep(telemetry_rows(rows[-1:])[0])
                stop = p.master is not None and not p.master(
                    done, e[CNT_N:CNT_N + nagg].view(np.float64), self.glob)
                done += 1
                if stop:
                    end = "master"
                elif done == max_supersteps:
                    end = "quiet" if e[CNT_TOP] == 0 and e[CNT_ACT] == 0 else "limit"
            if end is not None:
                if ring[done % RING][CNT_RAN] != 0 and end == "master":
                    raise GpuCoreError(f"{p.name}: the device stop rule ran superstep {done} "
                                       "that the master stopped before")
                self.stopped_by = end
                return telemetry_rows(rows)
