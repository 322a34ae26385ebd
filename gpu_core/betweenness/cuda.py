"""CuPy host side of the billboard kernels (``betweenness.cu``, ``betweenness_ls.cu``): one
greedy round.

``CudaEngine.run(in_r, sources)`` returns the same four values as the CPU's
``round_gains``: net gain per vertex, pairs lost per vertex, SB(R) and P(R) partials.
Distances and path counts are exact integers as on the CPU; the float sums (gains, SB)
are added in another order, so they agree with the CPU to a relative ~1e-12, not bit for
bit (see docs/perf/billboards.md).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from ..device import compile_ahead, device_graph, get_kernel, get_module, memory
from ..device.arrays import SRC as ARRAYS
from ..device.arrays import sum_rows
from ..errors import InvalidArgumentError
from ..graph import CSRGraph
from .kernel_choice import choose_kernel, graph_shape

HERE = Path(__file__).resolve().parent

WE_THREADS = 256
WE_BLOCKS_PER_SM = 4
WE_GROUP = "block"  # "block": one block per source; "warp": one warp per source
LS_THREADS = 256
LS_CHECK_EVERY = 4  # level-synchronous: read the "changed" flag every few launches
SCRATCH_BUDGET = 8 << 30  # bytes of per-source scratch at most
CACHE_BUDGET = 48 << 30  # per-source rows kept across greedy rounds (work-efficient)
# Near-far step of the work-efficient searches' distance phase, in units of the mean arc
# length: only frontier vertices with dist < bound are expanded, bound moves on by
# NEAR_FAR_FACTOR * mean(w). 0 = plain frontier Bellman-Ford (the earlier kernel). Unit
# lengths (hops) always run plain BFS (it settles each level once anyway).
NEAR_FAR_FACTOR = 4.0


def near_far_delta(w: np.ndarray) -> int:
    """The near-far step for arc lengths ``w`` (0 = off)."""
    if NEAR_FAR_FACTOR <= 0 or w.size == 0 or int(w.min()) == int(w.max()):
        return 0
    return max(1, int(NEAR_FAR_FACTOR * float(w.mean())))


# betweenness.cu without the greedy rounds' kernels: the sampled method's per-source
# sampler compiles only its own search (a fresh machine's NVRTC time for that module)
SAMPLER = ("SAMPLER_ONLY",)


def _rounds(warp: bool) -> tuple[str, ...]:
    """betweenness.cu's defines for the exact engine's module: its one round kernel, no
    sampler (a fresh machine's NVRTC: 0.3 s of the whole file's 0.8 s, NVRTC 12.9)."""
    return ("ROUNDS_ONLY", "ROUND_WARP_ONLY" if warp else "ROUND_BLOCK_ONLY")


def _round_name(warp: bool) -> str:
    return "we_round_warp" if warp else "we_round"


def _module(cu_file: str = "betweenness.cu", defines: tuple[str, ...] = ()):
    """A .cu file of this package compiled for the current device (``gpu_core.device``
    loader): ``betweenness.cu`` (work-efficient and sampling kernels) or
    ``betweenness_ls.cu`` (level-synchronous kernels)."""
    return get_module(HERE / cu_file, defines=defines)


def _search_arrays(cp, what: str, need: int, w, ri, rx, rw, extra):
    """(w, rindptr, rindices, rw, extra()) on the device, after the memory check for
    ``need`` bytes: the search lengths and the reversed graph every kernel reads."""
    memory.ensure_free(need, what)
    with memory.oom_as_typed(what, need):
        return (cp.asarray(w, dtype=cp.int64), cp.asarray(ri), cp.asarray(rx), cp.asarray(rw),
                extra())


def compile_sampling_ahead(indexed: bool) -> None:
    """Start compiling the CUDA modules the sampled method's draw will use on this GPU
    (``device.compile_ahead``): the per-source sampler's, and with ``indexed`` (a route
    index in weighted mode) the GPHAST sweep's, its upward walk's, the path walk's and the
    sweep block's fill and column gather (``device.arrays``).
    On a fresh machine they compile side by side, beside the route index's host work,
    instead of one after another at first use (issue 41). The rounds' greedy runs on the
    host (``cover_cpu``; its numba kernels: ``progressive.warm_host_ahead``)."""
    compile_ahead(HERE / "betweenness.cu", defines=SAMPLER, kernel="we_sample")
    if indexed:
        from ..hierarchy.cuda import _SRC as sweep
        from ..hierarchy.upward_cuda import _SRC as walk

        for f in (HERE / "sample_walk.cu", sweep, walk, ARRAYS):
            compile_ahead(f)


def reverse_arrays(g: CSRGraph, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rindptr, rindices = tails, rw) of the transposed graph with search weights ``w``.
    The transposed topology is kept on the graph's prepared handle: every placement on a
    map sorts its arcs once (0.7 s of the window's first answer on a 1.4M-node map)."""
    rindptr, rtails, perm = reverse_topology(g)
    return rindptr, rtails, w[perm].astype(np.int64)


def reverse_topology(g: CSRGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rindptr, tails, perm) of ``g``'s transposed graph, sorted once per graph (kept on
    its prepared handle; numpy's sort lets go of the GIL, so a caller may make it on a
    thread while the route index loads: ``app.jobs.billboards``)."""
    from ..graph import prepared

    return prepared(g).derived("reverse_topology", lambda: _reverse(g))


def _reverse(g: CSRGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rindptr, tails, perm): the transposed graph's offsets and tails, and the arc order."""
    tails = g.arc_sources()
    perm = np.argsort(g.indices, kind="stable")
    rindptr = np.zeros(g.num_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(g.indices, minlength=g.num_nodes), out=rindptr[1:])
    out = (rindptr.astype(np.int32), tails[perm].astype(np.int32),
           perm.astype(perm.dtype if perm.size >= 2**31 else np.int32))
    for a in out:  # shared by every placement on the graph
        a.flags.writeable = False
    return out


class CudaEngine:
    name = "cupy"

    def __init__(self, g: CSRGraph, w: np.ndarray, unit: bool, a: np.ndarray, b: np.ndarray,
                 kernel: str = "auto", use_cache: bool = True, we_group: str | None = None):
        import cupy as cp

        if kernel == "auto":
            kernel = choose_kernel(graph_shape(g))
        if kernel not in ("edge", "vertex", "work_efficient"):
            raise InvalidArgumentError(f"unknown kernel {kernel!r}")
        self.kernel = kernel
        self.cp = cp
        self.g = g
        n, m = g.num_nodes, g.num_arcs
        self.n, self.m = n, m
        dg = device_graph(g)
        self.indptr, self.indices = dg.indptr, dg.indices
        ri, rx, rw = reverse_arrays(g, w)
        need = 8 * m * 2 + 4 * (n + 1 + m * 2) + 16 * n
        self.w, self.rindptr, self.rindices, self.rw, (self.tails, self.a, self.b) = (
            _search_arrays(cp, "billboard graph arrays", need, w, ri, rx, rw, lambda: (
                cp.asarray(g.arc_sources()), cp.asarray(a, dtype=cp.float64),
                cp.asarray(b, dtype=cp.float64))))
        self.w_host = np.asarray(w, dtype=np.int64)
        compile_ahead(ARRAYS)  # its row sum, beside the rounds' module (a fresh machine)
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        self.num_sm = int(props["multiProcessorCount"])
        self._scratch: tuple[object, list[Any]] | None = None
        self.use_cache = use_cache
        self.we_group = we_group  # None: the module's WE_GROUP at run time
        self._cache: dict[str, Any] | bool | None = None  # None: not decided; False: off; dict: the rows
        if kernel == "work_efficient":  # its round kernel, compiling while the map is set up
            compile_ahead(HERE / "betweenness.cu", defines=_rounds(self._warp()),
                          kernel=_round_name(self._warp()))

    # -- chunking: big chunks (few host round trips), still ~10 progress events a round
    def chunk_size(self, total: int) -> int:
        if self.kernel == "work_efficient":
            nb, gpb = self._we_layout()
            unit = nb * gpb
        else:
            unit = self._ls_batch()
        per = -(-total // 4)  # 4 launches a round: progress events, few partial waves
        return max(unit, -(-per // unit) * unit)

    def _warp(self) -> bool:
        return (self.we_group or WE_GROUP) == "warp"

    def _we_layout(self) -> tuple[int, int]:
        """(blocks, sources per block) of a work-efficient launch."""
        gpb = max(1, WE_THREADS // 32) if self._warp() else 1
        cached = self._cache not in (None, False)
        # per source in flight: stamp 4 + NetRec 16 (+ VRec 32 + queues 8 + tight bits 2
        # without the cache)
        per_group = (20 if cached else 62) * self.n + 16
        nb = max(1, min(self.num_sm * WE_BLOCKS_PER_SM, SCRATCH_BUDGET // (per_group * gpb)))
        return nb, gpb

    def _ls_batch(self) -> int:
        per_src = 48 * self.n + 16
        cnt = self.m if self.kernel == "edge" else self.n
        return int(max(1, min(1024, SCRATCH_BUDGET // per_src, (2**31 - 1) // max(cnt, 1))))

    def _alloc(self, key, shapes):
        cp = self.cp
        if self._scratch is not None and self._scratch[0] == key:
            return self._scratch[1]
        self._scratch = None
        nbytes = sum(int(np.prod(s)) * np.dtype(d).itemsize for s, d in shapes)
        memory.ensure_free(nbytes, f"billboard scratch ({self.kernel})")
        with memory.oom_as_typed("billboard scratch", nbytes):
            arrs = [cp.empty(s, dtype=d) for s, d in shapes]
        self._scratch = (key, arrs)
        return arrs

    def run(self, in_r: np.ndarray, sources: np.ndarray):
        cp = self.cp
        srcs = np.asarray(sources, dtype=np.int32)
        d_in_r = cp.asarray(in_r.astype(np.uint8))
        if srcs.size == 0:
            z = np.zeros(self.n)
            return z, z.copy(), 0.0, 0.0
        if self.kernel == "work_efficient":
            net, pl, sb, pp = self._run_we(d_in_r, srcs)
        else:
            net, pl, sb, pp = self._run_ls(d_in_r, srcs)
        return cp.asnumpy(net), cp.asnumpy(pl), float(sb), float(pp)

    def _setup_cache(self) -> bool:
        """Per-source rows kept across rounds (dist and sigma do not depend on R): needs
        40·n bytes per source with a > 0; used when that fits the cache budget."""
        if self._cache is not None:
            return self._cache is not False
        cp = self.cp
        a_host = cp.asnumpy(self.a)
        srcs = np.flatnonzero(a_host > 0)
        n = self.n
        need = srcs.size * (42 * n + 8) + 64 * n
        free, _ = memory.free_memory()
        # CuPy's pool keeps freed blocks (earlier scratch, other jobs): they are ours to
        # reuse, and the device's free count leaves them out (rows that fit were refused
        # for that alone)
        free += int(cp.get_default_memory_pool().free_bytes())
        if not self.use_cache or need > min(CACHE_BUDGET, int(free * 0.7)):
            self._cache = False
            return False
        slot_of = np.full(n, -1, dtype=np.int32)
        slot_of[srcs] = np.arange(srcs.size, dtype=np.int32)
        with memory.oom_as_typed("billboard source cache", need):
            self._cache = dict(
                slot_of=slot_of,
                filled=np.zeros(n, dtype=bool),
                rec=cp.empty((srcs.size, n, 4), dtype=cp.float64),
                q0=cp.empty((srcs.size, n), dtype=cp.int32),
                q1=cp.empty((srcs.size, n + 1), dtype=cp.int32),
                Ls=cp.zeros(srcs.size, dtype=cp.int32),
                # tight in-/out-arc bits per level position (skip non-tight arcs later)
                tin=cp.empty((srcs.size, n), dtype=cp.uint8),
                tout=cp.empty((srcs.size, n), dtype=cp.uint8),
            )
        return True

    def _run_we(self, d_in_r, srcs: np.ndarray):
        cp = self.cp
        n = self.n
        f8, i4 = np.float64, np.int32
        cached = self._setup_cache()
        kept: dict[str, Any] = self._cache if isinstance(self._cache, dict) else {}  # the rows
        nbmax, gpb = self._we_layout()
        rows = nbmax * gpb
        if cached:
            stamp, net = self._alloc(("wec", rows), [((rows, n), i4), ((rows, n, 2), f8)])
        else:
            # rec: one 32-byte VRec (dist, sigma, sbar, dbar) per vertex; net: (net, pl)
            rec, q0, q1, stamp, net, tin, tout = self._alloc(
                ("we", rows),
                [((rows, n, 4), f8), ((rows, n), i4), ((rows, n + 1), i4),
                 ((rows, n), i4), ((rows, n, 2), f8), ((rows, n), np.uint8),
                 ((rows, n), np.uint8)],
            )
        net.fill(0)  # a memset (CuPy: 0 on a contiguous array)
        f = get_kernel(HERE / "betweenness.cu", _round_name(gpb > 1), defines=_rounds(gpb > 1))
        threads = WE_THREADS
        sb_tot = pp_tot = 0.0
        if cached:
            c = kept
            fill = c["filled"][srcs]
            groups = [(srcs[~fill], 1), (srcs[fill], 2)]
        else:
            groups = [(srcs, 0)]
        for part, mode in groups:
            if part.size == 0:
                continue
            nb = int(min(nbmax, -(-part.size // gpb)))
            d_src = cp.asarray(part)
            sb_out = cp.zeros(part.size, dtype=cp.float64)
            pp_out = cp.zeros(part.size, dtype=cp.float64)
            if cached:
                c = kept
                slots = cp.asarray(c["slot_of"][part])
                rec_a, q0_a, q1_a, ls = c["rec"], c["q0"], c["q1"], c["Ls"]
                tin_a, tout_a = c["tin"], c["tout"]
            else:
                slots = d_src  # unused in mode 0
                rec_a, q0_a, q1_a, ls = rec, q0, q1, sb_out
                tin_a, tout_a = tin, tout
            f((nb,), (threads,),
              (np.int32(n), self.indptr, self.indices, self.w, self.rindptr, self.rindices,
               self.rw, d_in_r, self.a, self.b, d_src, np.int32(part.size), rec_a, q0_a, q1_a,
               stamp, net, sb_out, pp_out, np.int32(mode), slots, ls, tin_a, tout_a,
               np.int64(near_far_delta(self.w_host))))
            if cached and mode == 1:
                kept["filled"][part] = True
            # the per-source sums added on the host, the rows of ``net`` by ``sum_rows``:
            # CuPy's reductions and its strided copy each compile at a fresh machine's first
            # use (issue 41)
            sb_tot += float(sb_out.get().sum())
            pp_tot += float(pp_out.get().sum())
        tot = sum_rows(cp, net).get()
        return tot[:, 0], tot[:, 1], sb_tot, pp_tot

    def _run_ls(self, d_in_r, srcs: np.ndarray):
        cp = self.cp
        n = self.n
        edge = 1 if self.kernel == "edge" else 0
        cnt = self.m if edge else self.n
        S = self._ls_batch()
        f8, i8, i4 = np.float64, np.int64, np.int32
        dist, cur, nxt, lvl, indeg, sigma, sbar, dbar = self._alloc(
            ("ls", S),
            [((S, n), i8), ((S, n), i4), ((S, n), i4), ((S, n), i4), ((S, n), i4),
             ((S, n), f8), ((S, n), f8), ((S, n), f8)],
        )
        chg = cp.zeros(n + 2 * LS_CHECK_EVERY + 2, dtype=cp.int32)
        net = cp.zeros(n, dtype=cp.float64)
        pl = cp.zeros(n, dtype=cp.float64)
        sb_tot = cp.zeros((), dtype=cp.float64)
        pp_tot = cp.zeros((), dtype=cp.float64)
        mod = _module("betweenness_ls.cu")
        k_init = mod.get_function("ls_init")
        k_relax = mod.get_function("ls_relax")
        k_indeg = mod.get_function("ls_indeg")
        k_fwd = mod.get_function("ls_forward")
        k_bwd = mod.get_function("ls_backward")
        k_fin = mod.get_function("ls_finish")
        T = LS_THREADS
        i32 = np.int32
        for lo in range(0, srcs.size, S):
            bs = srcs[lo : lo + S]
            s_n = int(bs.size)
            d_src = cp.asarray(bs)
            # grid y = the source of the batch, x strides over vertices / arcs
            grid_v = (max(1, min(4096, -(-n // T))), s_n)
            grid_c = (max(1, min(4096, -(-cnt // T))), s_n)
            k_init(grid_v, (T,), (i32(n), i32(s_n), d_src, dist, cur, nxt, lvl, sigma, sbar,
                                  dbar))
            # distances: one launch per Bellman-Ford round (BFS level when w == 1)
            chg.fill(0)
            rnd = 0
            a_, b_ = cur, nxt
            while True:
                for _ in range(LS_CHECK_EVERY):
                    k_relax(grid_c, (T,), (i32(n), i32(cnt), i32(s_n), i32(edge), self.indptr,
                                           self.indices, self.tails, self.w, dist, a_, b_,
                                           i32(rnd), chg))
                    a_, b_ = b_, a_
                    rnd += 1
                if rnd >= chg.size - 1 or int(chg[rnd - 1].item()) == 0:
                    break
            indeg.fill(0)
            k_indeg(grid_c, (T,), (i32(n), i32(cnt), i32(s_n), i32(edge), self.indptr,
                                   self.indices, self.tails, self.w, dist, indeg))
            # Kahn levels of the tight DAG with sigma pushed level by level
            chg.fill(0)
            L = 0
            while True:
                for _ in range(LS_CHECK_EVERY):
                    k_fwd(grid_c, (T,), (i32(n), i32(cnt), i32(s_n), i32(edge), self.indptr,
                                         self.indices, self.tails, self.w, d_in_r, dist, indeg,
                                         lvl, sigma, sbar, i32(L), chg))
                    L += 1
                flags = cp.asnumpy(chg[:L])
                if L >= chg.size - 1 or flags[-1] == 0:
                    break
            nlev = int(np.flatnonzero(flags)[-1]) + 2 if flags.any() else 1  # levels 0..nlev-1
            for lev in range(nlev - 1, 0, -1):  # level 0 is the source: nothing to add
                k_bwd(grid_c, (T,), (i32(n), i32(cnt), i32(s_n), i32(edge), self.indptr,
                                     self.indices, self.tails, self.w, d_in_r, self.b, dist,
                                     lvl, sigma, dbar, i32(lev)))
            sb_src = cp.zeros(s_n, dtype=cp.float64)
            pp_src = cp.zeros(s_n, dtype=cp.float64)
            k_fin(grid_v, (T,), (i32(n), i32(s_n), d_src, d_in_r, self.a, self.b, lvl, sigma,
                                 sbar, dbar, net, pl, sb_src, pp_src))
            # pairs (s, t) leave the sum if s joins R (sources of a batch are distinct)
            net[d_src] -= sb_src
            pl[d_src] += pp_src
            sb_tot += sb_src.sum()
            pp_tot += pp_src.sum()
        return net, pl, sb_tot, pp_tot


SAMPLE_SCRATCH_BUDGET = 40 << 30


class CudaSampler:
    """Random shortest paths on the GPU (``we_sample``): one block per sampled source.
    ``host``: :meth:`run` returns its entries and flags on the host, sorted there (a map
    whose greedy runs on the host, ``sampling.HOST_SELECT_NODES``): the device's sort and
    gathers are CuPy's generic kernels, each compiled by NVRTC at its first use on a fresh
    machine, for entries the greedy copies back anyway (issue 41)."""

    def __init__(self, g: CSRGraph, w: np.ndarray, ri, rx, rw, *, host: bool = False):
        import cupy as cp

        self.cp = cp
        self.host = host
        self.n, self.m = g.num_nodes, g.num_arcs
        dg = device_graph(g)
        self.indptr, self.indices = dg.indptr, dg.indices
        need = 16 * self.m + 4 * (self.n + 1 + self.m) + self.n
        self.w, self.rindptr, self.rindices, self.rw, self.zero_r = _search_arrays(
            cp, "sampling graph arrays", need, w, ri, rx, rw,
            lambda: cp.zeros(self.n, dtype=cp.uint8))
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        free, _ = memory.free_memory()
        per_block = 44 * self.n + 16
        budget = min(SAMPLE_SCRATCH_BUDGET, int(free * 0.6))
        self.nb = int(max(1, min(int(props["multiProcessorCount"]) * 4,
                                 budget // per_block)))
        nb, n = self.nb, self.n
        memory.ensure_free(per_block * nb, "sampling scratch")
        with memory.oom_as_typed("sampling scratch", per_block * nb):
            self.rec = cp.empty((nb, n, 4), dtype=cp.float64)  # VRec rows
            self.q0 = cp.empty((nb, n), dtype=cp.int32)
            self.q1 = cp.empty((nb, n + 1), dtype=cp.int32)
            self.stamp = cp.empty((nb, n), dtype=cp.int32)
        self.w_host = np.asarray(w, dtype=np.int64)
        # entries per sample in the output buffers: generous from the start (12 bytes each)
        # so a chunk is not searched twice; the first NE chunk overflowed 64 and re-ran
        self.cap_per_sample = int(max(64, min(self.n, 8192)))
        self.reruns = 0  # chunks searched again because the buffers were too small

    @functools.cached_property
    def mod(self):
        """betweenness.cu, at the first draw: the route index's sampler keeps one of these
        for its rare pairs with a tight arc of cost 0, and must not wait for this module's
        compilation on a fresh machine (11.8 s on an H100 host) to draw the others."""
        return _module(defines=SAMPLER)

    def chunk_size(self, total: int) -> int:
        per = -(-total // 4)  # few chunks: each ends with a partly idle last wave
        return max(self.nb, -(-per // self.nb) * self.nb)

    def run(self, srcs: np.ndarray, tgts: np.ndarray, seed: int, base: int,
            gids: np.ndarray | None = None):
        """Sample entries of pairs base.. (or of the global numbers ``gids``)."""
        cp = self.cp
        d_gids = cp.asarray(gids, dtype=cp.int64) if gids is not None else np.uint64(0)
        ns, T = tgts.shape
        d_src = cp.asarray(srcs, dtype=cp.int32)
        d_tgt = cp.asarray(np.ascontiguousarray(tgts), dtype=cp.int32)
        reach = cp.zeros(ns * T, dtype=cp.uint8)
        f = self.mod.get_function("we_sample")
        while True:
            cap = ns * T * self.cap_per_sample
            out_s = cp.empty(cap, dtype=cp.int64)
            out_v = cp.empty(cap, dtype=cp.int32)
            counter = cp.zeros(1, dtype=cp.uint64)
            next_job = cp.zeros(1, dtype=cp.int32)
            f((min(self.nb, ns),), (256,),
              (np.int32(self.n), self.indptr, self.indices, self.w, self.rindptr,
               self.rindices, self.rw, self.zero_r, d_src, d_tgt, np.int32(ns), np.int32(T),
               np.uint64(seed), np.int64(base), self.rec, self.q0, self.q1,
               self.stamp, out_s, out_v, np.int64(cap), counter, reach,
               np.int64(near_far_delta(self.w_host)), next_job, d_gids))
            used = int(counter.get()[0])
            if used <= cap:
                break
            self.reruns += 1
            self.cap_per_sample = -(-used // (ns * T)) * 2  # too small: rerun the chunk
        # the atomic append order varies: sort entries so the result is reproducible
        es, ev = out_s[:used], out_v[:used]
        if self.host:
            es, ev = es.get(), ev.get()
            order = np.lexsort((ev, es))
            return es[order], ev[order], reach.get()
        order = cp.lexsort(cp.stack([ev, es]))
        return es[order], ev[order], reach
