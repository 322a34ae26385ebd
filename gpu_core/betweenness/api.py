"""Greedy billboard placement (seed 002, Figure 1) as a cancellable generator."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable

import numpy as np

from ..backend import resolve_backend
from ..errors import CancelledError, InvalidArgumentError
from ..graph import CSRGraph, GraphLike
from ..validate import check_vertices
from .common import (
    CPU_CHUNK_WORK,  # noqa: F401  (the engine's chunk rule: read here as before)
    KERNELS,
    METHODS,
    BillboardProgress,
    BillboardResult,
    pick_best,
    search_weights,
    vertex_mask,
    vertex_weights,
)
from .cpu_engine import CpuEngine
from .progressive import SAMPLINGS, progressive_billboards
from .sampling import PathSampler, sample_size, sampled_billboards

Event = BillboardProgress | BillboardResult

# method="auto": exact when K·sources·arcs (arc visits of the exact greedy) stays below
# this per backend (about 30 s at the measured arc-visit rates, docs/perf/tuning_defaults.md); beyond it the
# sampled greedy runs.
EXACT_WORK_LIMIT = {"cpu": 6e8, "cupy": 3e11}


# Bytes of kept tight-arc DAGs (settle order, out-degrees, heads: ~5 bytes per vertex per
# source on roads; 150 MB on the sample map) a K > 1 CPU greedy may hold: rounds after the
# first replay them instead of searching again (``cpu`` module doc). Sources beyond it are
# searched afresh each round.
CPU_KEEP_BYTES = 512 << 20


def _dial_buckets(g: CSRGraph, w: np.ndarray) -> int:
    """Bucket count of the CPU's Dial queue (0: a heap). Dial steps once per distance value
    up to the farthest vertex, a heap log n times per vertex: buckets when the arcs are
    short (< 2^16) and one source's eccentricity (twice it bounds the others' on a
    two-way road map) stays below 16·n·log2 n steps."""
    if w.size == 0 or int(w.max()) >= 1 << 16:
        return 0
    n = g.num_nodes
    ecc = eccentricity(g, w, int(g.indices[0]))
    if 2 * ecc > 16 * n * max(np.log2(n), 1.0):
        return 0
    return 1 << int(w.max()).bit_length()


# graphs up to this many vertices are probed by a plain heapq Dijkstra (tens of ms) instead
# of scipy's: importing scipy.sparse and its csgraph cost a fresh billboards process
# 0.3-1.3 s on 2 cores (issue 41), and nothing else of the exact greedy imports them
PROBE_HEAPQ_MAX_NODES = 30_000


def eccentricity(g: CSRGraph, w: np.ndarray, s: int) -> int:
    """The largest finite cost from ``s`` (arc costs ``w``: integers below 2^16): the cost
    of the last vertex ``cpu._search`` settles, with nothing to compile (on a map searched
    with Dial's buckets ``_search`` is otherwise compiled for this probe alone; issue 41).
    Explicit zero-cost and parallel arcs count as arcs. A graph of at most
    :data:`PROBE_HEAPQ_MAX_NODES` vertices is searched by :func:`_heapq_eccentricity`
    (the same integer), a larger one by scipy's Dijkstra."""
    n = g.num_nodes
    if n <= PROBE_HEAPQ_MAX_NODES:
        return _heapq_eccentricity(g.indptr, g.indices, w, s)
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    m = csr_matrix((np.asarray(w, np.float64), g.indices.copy(), g.indptr.copy()),
                   shape=(n, n))  # copies: the graph's own arrays never change
    d = dijkstra(m, directed=True, indices=s)
    return int(d[np.isfinite(d)].max())


def _heapq_eccentricity(indptr: np.ndarray, indices: np.ndarray, w: np.ndarray,
                        s: int) -> int:
    """The largest finite cost from ``s`` by a plain Python Dijkstra (lazy deletion)."""
    import heapq

    ip = indptr.tolist()
    ix = indices.tolist()
    wl = np.asarray(w).tolist()
    dist = {s: 0}
    done = set()
    heap = [(0, s)]
    far = 0
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        far = d
        for e in range(ip[u], ip[u + 1]):
            x = ix[e]
            nd = d + wl[e]
            if nd < dist.get(x, nd + 1):
                dist[x] = nd
                heapq.heappush(heap, (nd, x))
    return int(far)


def cpu_engine(g: CSRGraph, w: np.ndarray, unit: bool, a: np.ndarray, b: np.ndarray,
               keep: bool = False) -> CpuEngine:
    """The exact greedy's CPU engine with this module's keep budget and Dial probe (read at
    each call: tests set them)."""
    return CpuEngine(g, w, unit, a, b, keep, buckets=0 if unit else _dial_buckets(g, w),
                     keep_bytes=CPU_KEEP_BYTES)


def _engine(g, w, unit, a, b, backend: str, kernel: str, cache: bool = False):
    if backend == "cpu":
        return cpu_engine(g, w, unit, a, b, keep=cache)
    from .cuda import CudaEngine

    return CudaEngine(g, w, unit, a, b, kernel, use_cache=cache)


def _check_cancel(cancel: Callable[[], bool] | None) -> None:
    if cancel is not None and cancel():
        raise CancelledError("billboard placement cancelled")


def billboards(
    graph: GraphLike,
    k: int,
    *,
    mode: str = "hops",
    candidates=None,
    sources=None,
    targets=None,
    fixed: Iterable[int] | None = None,
    backend: str = "auto",
    kernel: str = "auto",
    method: str = "auto",
    epsilon: float = 0.1,
    delta: float = 0.1,
    seed: int = 0,
    cancel: Callable[[], bool] | None = None,
    hierarchy=None,
    draw=None,
    sampling: str = "fixed",
    preview: int = 0,
) -> Generator[Event, None, BillboardResult]:
    """Greedy K-site placement maximising group betweenness; yields progress events.

    ``candidates``: bool mask or vertex list of allowed sites (default all).
    ``sources``/``targets``: None (all vertices, weight 1), a bool mask / vertex list
    (limit), or float64 weights per vertex (OD demand: pair (s, t) counts a_s·b_t).
    ``fixed``: sites already placed, in R from the start (not among the K returned).
    The last event is the :class:`BillboardResult` (also the generator's return value).
    ``cancel()`` returning True raises :class:`CancelledError`; closing the generator
    stops it between source chunks. ``hierarchy``: a route index of the graph
    (``gpu_core.hierarchy``) that the sampled method uses in weighted mode, on either
    backend (same result, faster on road maps); ignored otherwise. ``draw``: the sampled method
    draws its paths through it (``sampling.DrawPaths``: Dask workers), same result.
    ``sampling`` (sampled method): "fixed" draws the worst-case bound's pairs; "progressive"
    grows them 1.5x a round until a data-dependent bound certifies ``epsilon`` (``progressive``), with
    the same guarantee (with a ``draw`` that has no ``sampler`` and ``fold``: fixed); a cancel after its first round returns
    that round's sites (``stopped_by="cancelled"``) instead of raising. ``preview`` > 0
    (progressive): a first answer from the first ``preview`` samples, yielded as a partial
    result before the first round ends (the same result otherwise).
    """
    g = CSRGraph.from_any(graph)
    n = g.num_nodes
    if method not in METHODS:
        raise InvalidArgumentError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if kernel not in KERNELS:
        raise InvalidArgumentError(f"unknown kernel {kernel!r}; choose one of {', '.join(KERNELS)}")
    k = int(k)
    if k < 1:
        raise InvalidArgumentError(f"K must be at least 1 (got {k})")
    w = search_weights(g, mode)
    a = vertex_weights(n, sources, "sources")
    b = vertex_weights(n, targets, "targets")
    cand = vertex_mask(n, candidates, "candidates", True)
    fixed_list = list(fixed) if fixed is not None else []
    fixed_arr = np.unique(check_vertices(np.asarray(fixed_list, dtype=np.int64 if not fixed_list
                                                    else None), n, "fixed"))
    in_r = np.zeros(n, dtype=bool)
    in_r[fixed_arr] = True
    eligible = cand & ~in_r
    if k > int(eligible.sum()):
        raise InvalidArgumentError(
            f"K={k} is larger than the {int(eligible.sum())} candidate vertices available"
        )
    # with ``draw`` the paths are drawn where it runs them (the backend named there)
    be = backend if draw is not None and backend in ("cpu", "cupy") else resolve_backend(backend)
    src_list = np.flatnonzero((a > 0) & ~in_r).astype(np.int32)
    if method == "auto":
        work = float(k) * src_list.size * max(g.num_arcs, 1)
        method = "exact" if work <= EXACT_WORK_LIMIT[be] else "sampled"
    if method == "sampled":
        use_index = _use_index(g, w, mode, hierarchy)
        if sampling not in SAMPLINGS:
            raise InvalidArgumentError(
                f"unknown sampling {sampling!r}; choose one of {', '.join(SAMPLINGS)}")
        # (a draw with a sampler and a fold, here or on Dask workers: progressive; a
        # draw that only yields blocks of a plan, or keeps them: the fixed plan)
        if sampling == "progressive" and (draw is None or hasattr(draw, "fold")):
            result = yield from progressive_billboards(
                g, k, w=w, unit=(mode == "hops"), a=a, b=b, eligible=eligible, in_r=in_r,
                backend=be, epsilon=epsilon, delta=delta, seed=seed, cancel=cancel,
                mode=mode, hierarchy=hierarchy if use_index else None, draw=draw,
                preview=preview)
        else:
            result = yield from sampled_billboards(
                g, k, w=w, unit=(mode == "hops"), a=a, b=b, eligible=eligible, in_r=in_r,
                backend=be, epsilon=epsilon, delta=delta, seed=seed, cancel=cancel,
                mode=mode, hierarchy=hierarchy if use_index else None, draw=draw,
            )
        result.fixed = fixed_arr.astype(np.int32)
        yield result
        return result

    eng = _engine(g, w, mode == "hops", a, b, be, kernel, cache=k > 1)
    sites: list[int] = []
    gains: list[float] = []
    sbs: list[float] = []
    pairs: list[float] = []
    base_sb = 0.0
    base_pairs = 0.0
    times = []
    for rnd in range(1, k + 1):
        t0 = time.perf_counter()
        srcs = np.flatnonzero((a > 0) & ~in_r).astype(np.int32)
        net = np.zeros(n)
        pl = np.zeros(n)
        sb = 0.0
        pp = 0.0
        step = eng.chunk_size(srcs.size)
        done = 0
        yield BillboardProgress(rnd, k, 0, int(srcs.size))
        # round 1 of a CPU greedy that keeps its DAGs: every search first, then the sums
        # from the kept DAGs, chunk by chunk as below (the same sums); on a fresh install
        # the replay kernel compiles while the searches run (issue 41, ``cpu_lanes``)
        ahead = rnd == 1 and isinstance(eng, CpuEngine) and eng.searches_ahead()
        for lo in range(0, srcs.size if ahead else 0, step):
            _check_cancel(cancel)
            t_chunk = time.perf_counter()
            eng.search(in_r, srcs[lo : lo + step])
            if lo == 0:
                _log_first(k, srcs, time.perf_counter() - t_chunk, step)
            yield BillboardProgress(rnd, k, min(lo + step, int(srcs.size)), int(srcs.size))
        for lo in range(0, max(srcs.size, 1), step):
            _check_cancel(cancel)
            chunk = srcs[lo : lo + step]
            if chunk.size == 0:
                break
            t_chunk = time.perf_counter()
            cn, cp, cs, cq = eng.run(in_r, chunk)
            if rnd == 1 and lo == 0 and not ahead:
                _log_first(k, srcs, time.perf_counter() - t_chunk, step)
            net += cn
            pl += cp
            sb += cs
            pp += cq
            done += int(chunk.size)
            if not ahead:  # (its searches told the round's progress)
                yield BillboardProgress(rnd, k, done, int(srcs.size))
        if rnd == 1:
            base_sb, base_pairs = sb, pp
        v, gain = pick_best(net, eligible)
        prev_sb = sbs[-1] if sbs else base_sb
        prev_pp = pairs[-1] if pairs else base_pairs
        sites.append(v)
        gains.append(gain)
        sbs.append(prev_sb + gain)
        pairs.append(prev_pp - float(pl[v]))
        in_r[v] = True
        eligible[v] = False
        times.append(time.perf_counter() - t0)
    pa = np.asarray(pairs)
    sba = np.asarray(sbs)
    result = BillboardResult(
        sites=np.asarray(sites, dtype=np.int32),
        gains=np.asarray(gains),
        group_betweenness=sba,
        coverage=np.divide(sba, pa, out=np.zeros_like(sba), where=pa > 0),
        pairs=pa,
        base_group_betweenness=base_sb,
        method="exact",
        mode=mode,
        backend=be,
        kernel=eng.kernel,
        fixed=fixed_arr.astype(np.int32),
        rounds_time_s=times,
    )
    yield result
    return result


def _log_first(k: int, srcs: np.ndarray, seconds: float, step: int) -> None:
    """The first chunk's searches, timed: the run's projection."""
    from .estimate import log_exact

    log_exact(k, int(srcs.size), seconds / max(min(step, int(srcs.size)), 1))


def place_billboards(graph: GraphLike, k: int, **kwargs) -> BillboardResult:
    """Blocking convenience: run :func:`billboards` to the end and return its result."""
    result = None
    for ev in billboards(graph, k, **kwargs):
        if isinstance(ev, BillboardResult):
            result = ev
    assert result is not None
    return result


def group_betweenness(
    graph: GraphLike,
    group: Iterable[int],
    *,
    mode: str = "hops",
    sources=None,
    targets=None,
    backend: str = "cpu",
    kernel: str = "auto",
) -> tuple[float, float]:
    """(SB(group), P(group)): group betweenness (see ``common``) and its pair count."""
    g = CSRGraph.from_any(graph)
    n = g.num_nodes
    w = search_weights(g, mode)
    a = vertex_weights(n, sources, "sources")
    b = vertex_weights(n, targets, "targets")
    in_r = vertex_mask(n, np.asarray(list(group), dtype=np.int64), "group", False)
    eng = _engine(g, w, mode == "hops", a, b, resolve_backend(backend), kernel)
    srcs = np.flatnonzero((a > 0) & ~in_r).astype(np.int32)
    if srcs.size == 0:
        return 0.0, 0.0
    _, _, sb, pp = eng.run(in_r, srcs)
    return float(sb), float(pp)


class GainRounds:
    """Exact greedy rounds' numbers for any placed set, on one engine kept between calls
    (the CPU keeps its searched DAGs: later calls replay them), for a caller that picks its
    sites otherwise (sites made of several vertices: ``app.jobs.billboards_turns``).
    :meth:`run` gives (per-vertex gain SB(R + v) - SB(R), per-vertex pairs leaving P when
    v joins, SB(R), P(R)) for the placed mask ``in_r``."""

    def __init__(self, graph: GraphLike, *, mode: str = "hops", sources=None, targets=None,
                 backend: str = "cpu", kernel: str = "auto") -> None:
        g = CSRGraph.from_any(graph)
        self.n = n = g.num_nodes
        w = search_weights(g, mode)
        self.a = vertex_weights(n, sources, "sources")
        b = vertex_weights(n, targets, "targets")
        self.eng = _engine(g, w, mode == "hops", self.a, b, resolve_backend(backend), kernel,
                           cache=True)

    def run(self, in_r: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
        in_r = np.asarray(in_r, dtype=bool)
        srcs = np.flatnonzero((self.a > 0) & ~in_r).astype(np.int32)
        net, pl, sb, pp = np.zeros(self.n), np.zeros(self.n), 0.0, 0.0
        step = self.eng.chunk_size(max(srcs.size, 1))
        for lo in range(0, srcs.size, step):
            cn, cp, cs, cq = self.eng.run(in_r, srcs[lo:lo + step])
            net += _host(cn)
            pl += _host(cp)
            sb += float(cs)
            pp += float(cq)
        return net, pl, sb, pp


def _host(x) -> np.ndarray:
    return np.asarray(x.get() if hasattr(x, "get") else x, dtype=np.float64)


__all__ = ["GainRounds", "billboards", "group_betweenness", "place_billboards", "sample_size"]


def _use_index(g: CSRGraph, w: np.ndarray, mode: str, hierarchy) -> bool:
    """Whether the sampled method draws its paths through ``hierarchy`` (weighted mode, on
    either backend: a PHAST sweep per block of sources, the same paths)."""
    return hierarchy is not None and mode != "hops" and _index_matches(g, w, hierarchy)


def _index_matches(g: CSRGraph, w: np.ndarray, hierarchy) -> bool:
    """Whether the index is this graph's under the search weights (not so with the tie-
    breaking keys of zero-weight arcs: then the sampler runs without it)."""
    from ..hierarchy import graph_key

    if hierarchy.n != g.num_nodes:
        raise InvalidArgumentError(
            f"the route index has {hierarchy.n} vertices, the graph {g.num_nodes}")
    if np.any(w != g.weights):
        return False
    return hierarchy.graph_key == graph_key(g)


def path_sampler(graph: GraphLike, mode: str, backend: str = "auto",
                 hierarchy=None) -> PathSampler:
    """The sampled method's path sampler for ``graph`` under ``mode`` (what a Dask worker
    keeps between blocks; :func:`sampling.draw_block` draws one block with it). The route
    index is used where :func:`billboards` would use it."""
    g = CSRGraph.from_any(graph)
    be = resolve_backend(backend)
    w = search_weights(g, mode)
    use_index = _use_index(g, w, mode, hierarchy)
    return PathSampler(g, w, mode == "hops", be, hierarchy if use_index else None)
