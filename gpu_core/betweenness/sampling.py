"""Sampled greedy (Mahmoody, Tsourakakis, Upfal, KDD 2016) for maps too large for K·|V| searches.

Draw ``L`` sources s ~ a (demand weights), each with ``T`` (=1) targets t ~ b; for every
(s, t) pick one shortest path uniformly at random (predecessor u of x with probability
sigma_su / sigma_sx, on the same exact weighted paths as the exact method), keep its
interior vertices as a hyperedge, then run greedy max coverage over the hyperedges.

Estimate: ``SB^(R) = A·B·(covered samples)/(L·T)`` with ``A = sum a``, ``B = sum b``
(pairs with s == t or t unreachable are samples that cover nothing), unbiased for
``sum over s, t of a_s b_t [a random shortest s-t path has an interior vertex in R]``.

Guarantee: with ``L = ceil(2 (ln(2/delta) + K ln n) / epsilon^2)`` sources, Hoeffding on
the L independent per-source averages (each in [0, 1]) and a union bound over the at most
n^K sets give, with probability >= 1 - delta, ``|SB^(R) - SB'(R)| <= (epsilon/2)·A·B`` for
every set of at most K sites, so the greedy set is within ``(1 - 1/e)·OPT - epsilon·A·B``
of the best. ``SB'`` also counts pairs with an endpoint in R (by their interior), which
the exact SB leaves out: at most ``a(R)·B + A·b(R)`` more. ``error_bound`` in the result
is the sum of the two terms.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..errors import CancelledError, InvalidArgumentError
from ..graph import CSRGraph
from .common import CPU_CHUNK_WORK, BillboardProgress, BillboardResult

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13

    from .indexed_cpu import CpuIndexedSampler
    from .indexed_sampling import IndexedSampler

# Targets per sampled source. The guarantee counts sources (targets of one source are not
# independent), and the GPU search stops expanding past the farthest target, so one target
# per source (independent (s, t) pairs, as in the paper) is the cheapest for a given bound.
SAMPLE_TARGETS = 1


class Cover:
    """The greedy's state over a set of sampled paths: their entries (sample number minus
    ``first``, vertex) and which samples a site already covers. One process holds all the
    samples in one; a Dask worker one per block of sample numbers it drew
    (``app.jobs.dask_worker``). Counts are integers, so blocks' counts sum exactly to the
    whole's, in any order."""

    def __init__(self, xp, e_s, e_v, size: int, first: int = 0):
        self.xp = xp
        self.e_s = e_s - first if first else e_s
        self.e_v = e_v
        self.covered = xp.zeros(size, dtype=bool)

    def mark_set(self, in_r) -> int:
        """Cover the samples whose path passes a vertex of the mask ``in_r`` (the fixed
        sites); returns the samples covered."""
        if self.e_s.size:
            self.covered[self.e_s[self.xp.asarray(in_r)[self.e_v]]] = True
        return int(self.covered.sum())

    def mark(self, v: int) -> None:
        """Cover the samples whose path passes ``v`` (a chosen site)."""
        self.covered[self.e_s[self.e_v == v]] = True

    def counts(self, n: int):
        """Per vertex, the not yet covered samples whose path passes it (int64 [n], on
        ``xp``): the gain of each vertex as the next site. Drops covered entries."""
        xp = self.xp
        keep = ~self.covered[self.e_s]
        self.e_s, self.e_v = self.e_s[keep], self.e_v[keep]
        if not self.e_v.size:  # all covered (some CuPy versions refuse an empty bincount)
            return xp.zeros(n, dtype=xp.int64)
        return xp.bincount(self.e_v, minlength=n).astype(xp.int64)


# maps of at most this many vertices run the fixed method's greedy on the host even when a
# GPU draws the paths, and the per-source sampler sorts its entries there (the progressive
# rounds' greedy runs on the host on every map: ``cover_cpu``): their entries are a few
# hundred thousand,
# and on a fresh machine each of the GPU's generic reductions there (sum, any, bincount,
# argmax, ...) is a kernel CuPy compiles first (stop 51, one H100: 26.8 s of NVRTC in a
# cold `billboards -k 5 --method sampled` on the sample map). The same code as the CPU's:
# the same sites and bounds.
HOST_SELECT_NODES = 30_000


def select_xp(n: int, xp):
    """Where a map of ``n`` vertices runs the greedy and its bounds (HOST_SELECT_NODES)."""
    return np if n <= HOST_SELECT_NODES else xp


def on(xp, arr):
    """``arr`` as an ``xp`` array (a device array copied back when ``xp`` is numpy)."""
    if xp is np and hasattr(arr, "get") and not isinstance(arr, np.ndarray):
        return arr.get()
    return xp.asarray(arr)


def greedy_pick(xp, cnt, elig) -> tuple[int, int]:
    """(site, gain) of one greedy round from the per-vertex counts ``cnt`` (int64, on
    ``xp``) and the mask of vertices still allowed (``elig``, updated): the first maximum,
    so ties go to the smallest index."""
    cnt[~elig] = -1
    v = int(xp.argmax(cnt))
    elig[v] = False
    return v, max(int(cnt[v]), 0)


def _sample_cpu(g, w, unit, ri, rx, rw, srcs, tgts, hash_seed, base):
    """sample_paths over the samples base.. of ``srcs``/``tgts`` split across the CPU cores
    (it releases the GIL). Each draw is keyed by (seed, sample number, target, step), so the
    split changes nothing: the pieces concatenated in order equal one sequential call."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    from .cpu import sample_paths

    def part(a, b):
        return sample_paths(g.indptr, g.indices, w, unit, ri, rx, rw, srcs[a:b], tgts[a:b],
                            np.uint64(hash_seed), base + a)

    count = int(srcs.shape[0])
    workers = max(1, min(os.cpu_count() or 1, count))
    if workers == 1:
        return part(0, count)
    cuts = np.linspace(0, count, workers + 1).astype(int)
    with ThreadPoolExecutor(workers) as pool:
        parts = list(pool.map(part, cuts[:-1], cuts[1:]))
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


@dataclass(frozen=True)
class SamplePlan:
    """The sampled pairs: sample i is (srcs[i], tgts[i]); ``hash_seed`` keys every draw."""

    srcs: np.ndarray  # int32 [L]
    tgts: np.ndarray  # int32 [L, T]
    hash_seed: int

    @property
    def size(self) -> int:
        return int(self.srcs.shape[0])


def plan_samples(n: int, k: int, a: np.ndarray, b: np.ndarray, epsilon: float, delta: float,
                 seed: int) -> SamplePlan:
    """The L pairs drawn from the demand weights ``a``, ``b`` under ``seed``."""
    return draw_plan(n, sample_size(k, n, epsilon, delta), a, b, seed)


def draw_plan(n: int, L: int, a: np.ndarray, b: np.ndarray, seed: int) -> SamplePlan:
    """``L`` pairs drawn from the demand weights under ``seed`` (the progressive method
    draws its cap's plan once and uses prefixes of it)."""
    if not 0 <= int(seed) < 2**64:
        raise InvalidArgumentError(f"seed {seed} must be an integer in 0..2^64-1")
    rng = np.random.default_rng(seed)
    srcs = rng.choice(n, size=L, p=a / float(a.sum())).astype(np.int32)
    tgts = rng.choice(n, size=(L, SAMPLE_TARGETS), p=b / float(b.sum())).astype(np.int32)
    return SamplePlan(srcs, tgts, int(rng.integers(0, 2**62)))


class DeviceSampler(Protocol):
    """What :class:`PathSampler` drives on the GPU (``cuda.CudaSampler``,
    ``indexed_sampling.IndexedSampler``)."""

    cp: Any  # the cupy module

    def chunk_size(self, total: int) -> int: ...

    def run(self, srcs: np.ndarray, tgts: np.ndarray, seed: int, base: int) -> Any: ...


class PathSampler:
    """Draws one random shortest path per sampled pair, by sample number, on one backend;
    reusable for any number of blocks (a Dask worker keeps one per map and mode). Each draw
    is keyed by (seed, sample number, ...), so any split of the sample numbers, done in any
    order, gives the same entries. ``hierarchy`` (a route index of ``g`` under ``w``) makes
    the draw go through PHAST sweeps (``indexed_sampling`` on the GPU, ``indexed_cpu``),
    same result."""

    def __init__(self, g: CSRGraph, w: np.ndarray, unit: bool, backend: str,
                 hierarchy=None):
        from .cuda import reverse_arrays

        self.g, self.w, self.unit, self.backend = g, w, unit, backend
        self.rev = reverse_arrays(g, w)
        self.sampler: DeviceSampler | CpuIndexedSampler | None = None
        # the sampler again, when it walks a route index (GPU: it defers ambiguous pairs)
        self.indexed: IndexedSampler | CpuIndexedSampler | None = None
        if backend == "cupy":
            from .cuda import CudaSampler

            host = False
            if hierarchy is not None and SAMPLE_TARGETS == 1:
                from .indexed_sampling import IndexedSampler

                self.indexed = indexed = IndexedSampler(g, w, *self.rev, hierarchy)
                device: DeviceSampler = indexed
                self.kernel = "indexed"
            else:  # a small map's entries go to its greedy on the host
                host = select_xp(g.num_nodes, None) is np
                device = CudaSampler(g, w, *self.rev, host=host)
                self.kernel = "work_efficient"
            self.sampler = device
            self.xp = np if host else device.cp
        elif hierarchy is not None and SAMPLE_TARGETS == 1:
            from .indexed_cpu import CpuIndexedSampler

            self.sampler = self.indexed = CpuIndexedSampler(g, w, unit, *self.rev, hierarchy)
            self.xp = np
            self.kernel = "indexed"
        else:
            self.xp = np
            self.kernel = "cpu"

    def chunk_size(self, total: int) -> int:
        """Samples per call of :meth:`run` (what fits the device; on the CPU bounded by
        work too, so cancel is polled about every second on a big map)."""
        if self.sampler is not None:
            return self.sampler.chunk_size(total)
        by_work = int(CPU_CHUNK_WORK // max(self.g.num_arcs + self.g.num_nodes, 1))
        return max(1, min(max(16, -(-total // 20)), by_work))

    def run(self, srcs: np.ndarray, tgts: np.ndarray, hash_seed: int, base: int):
        """(sample numbers, vertices, reached flags) of samples base..base+len(srcs), as
        arrays of ``self.xp``; pairs left for :meth:`flush` have entries there only."""
        if self.sampler is not None:
            return self.sampler.run(srcs, tgts, hash_seed, base)
        ri, rx, rw = self.rev
        return _sample_cpu(self.g, self.w, self.unit, ri, rx, rw, srcs, tgts, hash_seed, base)

    def flush(self, hash_seed: int):
        """Entries of the pairs :meth:`run` deferred (the indexed sampler's pairs with
        several shortest paths), or None."""
        if self.indexed is not None:
            return self.indexed.flush(hash_seed)
        return None

    def note(self) -> str:
        if self.indexed is None:
            return ""
        tied = getattr(self.indexed, "tied", None)  # the CPU's: drawn from the sweep
        if tied is not None:
            return (f"route index: {tied} pairs with several shortest paths drawn from the "
                    f"sweep, {self.indexed.ambiguous} per source; ")
        return (f"route index: {self.indexed.ambiguous} pairs with several shortest paths "
                "sampled per source; ")


def _kept(draw: DrawPaths | KeptPaths | None) -> TypeIs[KeptPaths]:
    """Whether ``draw`` keeps its paths where it drew them (it has ``counts``)."""
    return draw is not None and hasattr(draw, "counts")


def draw_block(sampler: PathSampler, srcs: np.ndarray, tgts: np.ndarray, hash_seed: int,
               base: int, cancel: Callable[[], bool] | None = None, host: bool = True,
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Entries (int64 sample numbers, int32 vertices; on the host, or with ``host=False``
    where the sampler made them) and the reached flags (uint8 per sample, on the host) of
    samples base..base+len(srcs): one block of a split run (Dask workers; the progressive
    rounds count the reached pairs of each half by sample number)."""
    xp = sampler.xp
    parts_s, parts_v, parts_r = [], [], []
    step = sampler.chunk_size(int(srcs.shape[0]))
    for lo in range(0, int(srcs.shape[0]), step):
        if cancel is not None and cancel():
            raise CancelledError("billboard sampling cancelled")
        es, ev, rr = sampler.run(srcs[lo:lo + step], tgts[lo:lo + step], hash_seed, base + lo)
        parts_s.append(es)
        parts_v.append(ev)
        parts_r.append(on(np, rr).astype(np.uint8, copy=False))
    rest = sampler.flush(hash_seed)
    if rest is not None:
        parts_s.append(rest[0])
        parts_v.append(rest[1])
    e_s = xp.concatenate(parts_s) if parts_s else xp.zeros(0, xp.int64)
    e_v = xp.concatenate(parts_v) if parts_v else xp.zeros(0, xp.int32)
    if xp is not np and host:
        e_s, e_v = xp.asnumpy(e_s), xp.asnumpy(e_v)
    reached = np.concatenate(parts_r) if parts_r else np.zeros(0, np.uint8)
    return e_s.astype(np.int64, copy=False), e_v.astype(np.int32, copy=False), reached


# Draws a plan's paths elsewhere (app.jobs.distributed: blocks of sample numbers on Dask
# workers): yields (samples done, sample numbers, vertices, reached count) on the host, in
# any order; its ``kernel`` attribute names what drew them.
DrawPaths = Callable[[SamplePlan], Iterator[tuple[int, np.ndarray, np.ndarray, int]]]


class KeptPaths(Protocol):
    """Draws a plan's paths elsewhere and keeps them there (app.jobs.distributed: each
    Dask worker keeps the blocks it drew as :class:`Cover` states); the greedy then runs
    as rounds of per-vertex counts summed here. ``kernel`` names what drew them."""

    kernel: str

    def draw_kept(self, plan: SamplePlan, in_r: np.ndarray) -> Iterator[tuple[int, int, int, int]]:
        """Per block drawn, in any order: (samples done, reached pairs, entries, samples
        covered by the fixed sites ``in_r``)."""
        ...

    def counts(self, chosen: list[int]) -> np.ndarray:
        """Per vertex (int64 [n], host), the samples covered neither by ``in_r`` nor by
        a site of ``chosen`` whose path passes it: the sum of every block's
        :meth:`Cover.counts` after :meth:`Cover.mark` of each chosen site."""
        ...


def sampled_billboards(
    g: CSRGraph,
    k: int,
    *,
    w: np.ndarray,
    unit: bool,
    a: np.ndarray,
    b: np.ndarray,
    eligible: np.ndarray,
    in_r: np.ndarray,
    backend: str,
    epsilon: float,
    delta: float,
    seed: int,
    cancel: Callable[[], bool] | None,
    mode: str,
    hierarchy=None,
    draw: DrawPaths | KeptPaths | None = None,
) -> Generator[BillboardProgress, None, BillboardResult]:
    """The sampled greedy; ``hierarchy`` (a route index of ``g`` under the weights ``w``)
    makes the GPU draw paths through GPHAST sweeps (``indexed_sampling``), same result;
    ``draw`` draws them elsewhere instead (:data:`DrawPaths`: the entries come here;
    :class:`KeptPaths`: they stay there and each greedy round sums per-vertex counts),
    same result again."""
    t0 = time.perf_counter()
    n = g.num_nodes
    plan = plan_samples(n, k, a, b, epsilon, delta, seed)
    L, T = plan.size, SAMPLE_TARGETS
    A, B = float(a.sum()), float(b.sum())
    n_samples = L * T
    reached = 0
    yield BillboardProgress(1, 1, 0, L, phase="sample")
    if _kept(draw):  # kept where drawn: counts come here
        xp, note, base, entries = np, "", 0, 0
        for done, rr, ent, b0 in draw.draw_kept(plan, in_r):
            if cancel is not None and cancel():
                raise CancelledError("billboard sampling cancelled")
            reached, entries, base = reached + int(rr), entries + int(ent), base + int(b0)
            yield BillboardProgress(1, 1, done, L, phase="sample")
        kernel_name = str(draw.kernel)
        counts = draw.counts
    else:
        if draw is not None:
            entry_source, xp, kernel_name, note = draw(plan), _greedy_xp(backend), "", ""
        else:
            sampler = PathSampler(g, w, unit, backend, hierarchy)
            xp = select_xp(n, sampler.xp)
            kernel_name = sampler.kernel
            entry_source = _draw_here(sampler, plan, cancel, k)
        parts_s, parts_v = [], []
        for done, es, ev, rr in entry_source:
            if cancel is not None and cancel():
                raise CancelledError("billboard sampling cancelled")
            parts_s.append(on(xp, es))
            parts_v.append(on(xp, ev))
            reached += int(rr)
            if done:
                yield BillboardProgress(1, 1, done, L, phase="sample")
        if draw is not None:
            kernel_name = str(getattr(draw, "kernel", "distributed"))
        else:
            note = sampler.note()
        e_s = xp.concatenate(parts_s) if parts_s else xp.zeros(0, xp.int64)
        e_v = xp.concatenate(parts_v) if parts_v else xp.zeros(0, xp.int32)
        entries = int(e_s.size)
        cover = Cover(xp, e_s, e_v, n_samples)
        base = cover.mark_set(in_r)

        def counts(chosen: list[int]):
            if chosen:
                cover.mark(chosen[-1])
            return cover.counts(n)

    t_select = time.perf_counter()
    elig = xp.asarray(eligible.copy())
    sites: list[int] = []
    cov: list[int] = []
    for i in range(k):
        if cancel is not None and cancel():
            raise CancelledError("billboard selection cancelled")
        v, gain = greedy_pick(xp, xp.asarray(counts(sites), dtype=xp.int64), elig)
        sites.append(v)
        cov.append(gain)
        yield BillboardProgress(i + 1, k, L, L, phase="select")
    scale = A * B / n_samples
    cum = base + np.cumsum(cov)
    final = in_r.copy()
    final[sites] = True
    slack = float(a[final].sum()) * B + A * float(b[final].sum())
    bound = 0.5 * epsilon * A * B + slack
    sb = scale * cum.astype(np.float64)
    pairs_est = np.full(k, scale * reached)
    return BillboardResult(
        sites=np.asarray(sites, dtype=np.int32),
        gains=scale * np.asarray(cov, dtype=np.float64),
        group_betweenness=sb,
        coverage=cum / max(reached, 1),
        pairs=pairs_est,
        base_group_betweenness=scale * base,
        method="sampled",
        mode=mode,
        backend=backend,
        kernel=kernel_name,
        samples=n_samples,
        error_bound=bound,
        epsilon=epsilon,
        delta=delta,
        rounds_time_s=[time.perf_counter() - t0],
        notes=f"{L} sources x {T} targets; entries {entries}; {note}"
        f"bound = eps/2*A*B + endpoint slack ({slack:.6g})",
        phase_s={"sample": t_select - t0, "select": time.perf_counter() - t_select},
        sampling="fixed",
        sample_bound=L,
        epsilon_at_stop=epsilon,
        stopped_by="fixed",
        guarantee=fixed_guarantee(epsilon, delta),
    )


def fixed_guarantee(epsilon: float, delta: float) -> str:
    """The fixed bound's statement, as printed and put in the JSON output."""
    return (f"with probability >= {1 - delta:g}: every group of at most K sites has its "
            f"estimate within {epsilon / 2:g}·A·B, so SB(sites) >= (1-1/e)·OPT - "
            f"{epsilon:g}·A·B (A·B: all weighted pairs)")


def _draw_here(sampler: PathSampler, plan: SamplePlan, cancel, k: int):
    """(samples done, sample numbers, vertices, reached) chunk by chunk on this process's
    sampler, then the entries it deferred (done 0: no progress step). The first chunk is
    the pilot that projects the run's time and memory (``estimate``: refused here when
    it cannot fit); the rest go on after it."""
    from .estimate import check_sampled, pilot

    L = plan.size

    def run_chunk(lo: int, hi: int):
        return sampler.run(plan.srcs[lo:hi], plan.tgts[lo:hi], plan.hash_seed, lo)

    (es, ev, rr), est = pilot(run_chunk, L, k, sampler.backend)
    check_sampled(est)
    yield est.pilot, es, ev, int(rr.sum())
    chunk = sampler.chunk_size(L)
    for lo in range(est.pilot, L, chunk):
        if cancel is not None and cancel():
            raise CancelledError("billboard sampling cancelled")
        hi = min(L, lo + chunk)
        es, ev, rr = sampler.run(plan.srcs[lo:hi], plan.tgts[lo:hi], plan.hash_seed, lo)
        yield hi, es, ev, int(rr.sum())
    rest = sampler.flush(plan.hash_seed)
    if rest is not None:
        yield 0, rest[0], rest[1], 0


def _greedy_xp(backend: str):
    """cupy when ``backend`` is cupy and this process has a usable device, else numpy
    (the greedy's counts, and so its sites, are the same on both)."""
    if backend == "cupy":
        from ..backend import cupy_status

        if cupy_status()[0]:
            import cupy

            return cupy
    return np


def sample_size(k: int, n: int, epsilon: float, delta: float) -> int:
    """Sampled pairs so every K-set's covered share is within epsilon/2 w.p. 1 - delta.

    Hoeffding (two-sided) plus a union bound over the at most n^K sets:
    ``L = ceil(2 (ln(2/delta) + K ln n) / epsilon^2)``; greedy on the sample is then
    within ``(1 - 1/e)·OPT - epsilon`` of the optimum share (Mahmoody et al., KDD 2016).
    """
    if not (0 < epsilon < 1) or not (0 < delta < 1):
        raise InvalidArgumentError(f"epsilon and delta must lie in (0, 1) (got {epsilon}, {delta})")
    L = 2.0 * (math.log(2.0 / delta) + k * math.log(max(n, 2))) / max(epsilon * epsilon, 1e-300)
    if L > MAX_SAMPLES:
        raise InvalidArgumentError(
            f"epsilon {epsilon} needs {L:.3g} sampled searches, more than {MAX_SAMPLES:,}; "
            "give a larger epsilon (or --method exact)")
    return int(math.ceil(L))


MAX_SAMPLES = 10**8  # sampled searches; beyond this the exact method is cheaper anyway
