"""Single-source (and multi-source-start) shortest paths: the public entry point.

``sssp(graph, source, strategy=..., backend=...)`` runs one search and returns exact
integer distances, the predecessor of every vertex (the rule is in ``gpu_core.keys``)
and the telemetry of every phase. The strategies (``registry.REGISTRY``; the table is
``registry.docs_table()``) exist on both backends and give bit-identical ``dist`` and
``pred``. Every tuning knob travels in the frozen :class:`SSSPOptions` passed to the call
(``AutoTuning`` for the CUDA ``auto`` schedule): no module global changes a search.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..backend import describe_backend, resolve_backend
from ..errors import InvalidArgumentError, NegativeCycleError
from ..graph import CSRGraph, GraphLike, prepared
from ..host.distances import compile_kernel, dist_from_keys
from ..keys import KEY_INF, NO_PRED, KeySpace, key_space_for
from ..telemetry import PhaseLog
from ..validate import check_vertex, check_vertices
from .negative import check_strategy, negative_cycle_error
from .options import AutoTuning as AutoTuning  # re-exported (defined in .options)
from .options import SSSPOptions as SSSPOptions
from .registry import STRATEGIES, get

if TYPE_CHECKING:
    from ..hierarchy.api import Hierarchy
    from .cpu.driver import CpuPlan

log = logging.getLogger(__name__)


# Callbacks the app and the CLI pass in: new phases as they complete, and a cancel check.
PhaseCallback = Callable[[PhaseLog], None]
CancelCheck = Callable[[], bool]


@dataclass
class SSSPResult:
    """Distances, predecessors and telemetry of one search (all numpy, host memory)."""

    # int64; UNREACHABLE (-1) where no source reaches (or not settled); on a graph with
    # negative arcs -1 is a real cost, so there UNREACHABLE_NEG (int64 min): see unreachable
    dist: np.ndarray
    pred: np.ndarray  # int32; NO_PRED (-1) at sources and unreached vertices
    phases: PhaseLog
    strategy: str
    backend: str  # "cpu" or "cupy"
    device: str  # e.g. "GPU: NVIDIA H100 80GB HBM3" or "CPU (CuPy is not installed)"
    sources: np.ndarray
    target: int | None = None
    elapsed_s: float = 0.0
    extra: dict = field(default_factory=dict)
    key: np.ndarray | None = field(default=None, repr=False)  # composite keys (gpu_core.keys)
    key_space: KeySpace | None = field(default=None, repr=False)

    @property
    def hops(self) -> np.ndarray:
        """int32 arcs on each vertex's chosen route (-1 where unreached); computed on demand."""
        if self.key is None or self.key_space is None:
            raise AttributeError("this result carries no keys")
        return self.key_space.split(self.key)[1]

    @property
    def unreachable(self) -> int:
        """The ``dist`` value of unreached vertices (-1; int64 min with negative arcs)."""
        return self.key_space.unreachable if self.key_space is not None else -1

    @property
    def reached(self) -> np.ndarray:
        return self.dist != self.unreachable

    def path_to(self, v: int) -> np.ndarray:
        """Vertex indices of the route source..v (empty when v is unreached)."""
        if self.dist[v] == self.unreachable:
            return np.zeros(0, dtype=np.int32)
        out = [int(v)]
        n = self.pred.shape[0]
        while self.pred[out[-1]] != NO_PRED:
            out.append(int(self.pred[out[-1]]))
            if len(out) > n:  # cannot happen with a valid tree; guard against corruption
                raise RuntimeError("predecessor array has a cycle")
        return np.array(out[::-1], dtype=np.int32)


def _as_sources(source: int | Sequence[int] | np.ndarray, n: int) -> np.ndarray:
    """Distinct int32 sources (float ids are refused, not truncated)."""
    return np.unique(check_vertices(source, n, "source", allow_empty=False))


ADAPTIVE_SIGNALS = ("time", "frontier")


def _check_options(opts: SSSPOptions) -> None:
    """InvalidArgumentError for an option value no strategy takes."""
    if opts.adaptive_signal not in ADAPTIVE_SIGNALS:
        raise InvalidArgumentError(
            f"adaptive_signal {opts.adaptive_signal!r}: choose 'time' or 'frontier'"
        )


def sssp(
    graph: GraphLike,
    source: int | Sequence[int] | np.ndarray,
    *,
    strategy: str = "auto",
    backend: str = "auto",
    options: SSSPOptions | None = None,
    target: int | None = None,
    on_phase: PhaseCallback | None = None,
    cancel: CancelCheck | None = None,
    index: Hierarchy | None = None,
) -> SSSPResult:
    """Shortest paths from ``source`` (a vertex index or a set of them) to every vertex.

    ``index``: a route index built on this graph's key weights
    (``gpu_core.hierarchy.key_hierarchy``). Strategy ``auto`` then runs the search
    through it (``gpu_core.indexed_sssp``: the same dist, pred and hops; phases are the
    sweep's levels, modes ``phast_up``/``phast``/``phast_pred``; ``extra["index"]``
    says so); an explicitly chosen strategy ignores it, and so does a graph with negative
    arcs. An index made for another graph raises InvalidArgumentError.

    ``target`` (or ``options.target``) stops the search once that vertex is settled;
    then only vertices with cost <= the target's are reported, the rest UNREACHABLE.
    Negative arc weights are taken by the label-correcting strategies
    (``registry.NEGATIVE_STRATEGIES``; the search then runs to the end and reports every
    vertex, target or not: filtering by the target's cost would cut routes that dip) and raise NegativeWeightsError with the others; a negative cycle reachable
    from the source raises NegativeCycleError naming one of its arcs.
    ``on_phase`` receives new phases as they finish (in chunks on the GPU); ``cancel``
    is polled between phases (between launches on the GPU) and raises CancelledError.
    Raises InvalidArgumentError, BackendUnavailableError, GpuOutOfMemoryError.
    """
    search = PreparedSearch(graph, strategy=strategy, backend=backend, options=options,
                            target=target, source=source)
    return search.run(source, on_phase=on_phase, cancel=cancel, index=index)


class PreparedSearch:
    """One graph's searches with one strategy, backend and options, with everything that
    does not depend on the source resolved once (issue 38): the graph validated and its
    key space, the registry entry, the backend and its one-line description, the checks of
    the options and of negative arcs, and on the CPU the driver's plan
    (``cpu.driver.CpuPlan``). :meth:`run` is :func:`sssp` from one source; a window's
    clicks on one map reuse one (``app.jobs.sssp``)."""

    def __init__(self, graph: GraphLike, *, strategy: str = "auto", backend: str = "auto",
                 options: SSSPOptions | None = None, target: int | None = None,
                 source: int | Sequence[int] | np.ndarray | None = None) -> None:
        """``source``: validated here too, before the backend (:func:`sssp`'s order of
        errors)."""
        entry = get(strategy)
        g, ks = prepare_graph(graph)
        n = g.num_nodes
        opts = options or SSSPOptions()
        if target is not None:
            opts = dataclasses.replace(opts, target=check_vertex(target, n, "target"))
        elif opts.target is not None:
            check_vertex(opts.target, n, "target")
        _check_options(opts)
        check_strategy(entry.name, ks.negative)
        if source is not None:
            _as_sources(source, n)
        self.graph, self.key_space, self.num_nodes = g, ks, n
        self.strategy, self.name, self.options = strategy, entry.name, opts
        self.backend = resolve_backend(backend)
        self.device = describe_backend("cpu" if backend == "cpu" else "auto")
        # with negative arcs no key is final before the end: the early exit at the target
        # would be wrong, so the search runs to the end (and _finish filters nothing)
        self.run_options = dataclasses.replace(opts, target=None) if ks.negative else opts
        self._cpu = None
        if self.backend == "cpu":
            from .cpu.driver import CpuPlan

            self._cpu = CpuPlan(g, entry.name, self.run_options, ks)

    def run(self, source: int | Sequence[int] | np.ndarray, *,
            on_phase: PhaseCallback | None = None, cancel: CancelCheck | None = None,
            index: Hierarchy | None = None) -> SSSPResult:
        """:func:`sssp` from ``source`` with this plan's graph, strategy, backend and
        options."""
        g, ks, which = self.graph, self.key_space, self.backend
        sources = _as_sources(source, self.num_nodes)
        t0 = time.perf_counter()
        dist = None
        indexed = index is not None and self.name == "auto" and not ks.negative
        if indexed:
            from ..indexed_sssp import indexed_search

            key, pred, dist, phases = indexed_search(index, g, ks, sources, which,
                                                     on_phase=on_phase, cancel=cancel)
        else:
            # on the CPU the distances of a whole search come out of the predecessor
            # pass (one pass over the keys, not two: host.distances.dist_from_keys is not
            # run after it); one stopped at a target keeps _finish's (it drops the rest)
            whole = self._cpu is not None and self.run_options.target is None
            dist = np.empty(self.num_nodes, np.int64) if whole else None
            key, pred, phases = _run_checked(which, g, sources, self.name, self.run_options,
                                             ks, on_phase=on_phase, cancel=cancel,
                                             cpu=self._cpu, dist=dist)
        elapsed = time.perf_counter() - t0
        res = _finish(key, pred, phases, ks, self.strategy, which, self.device, sources,
                      self.options.target, elapsed, dist)
        if indexed:
            res.extra["index"] = "phast"
        return res


def run_backend(which: str, g: CSRGraph, sources: np.ndarray, strategy: str,
                opts: SSSPOptions, ks: KeySpace, *, on_phase: PhaseCallback | None = None,
                cancel: CancelCheck | None = None) -> tuple[np.ndarray, np.ndarray, PhaseLog]:
    """(key, pred, PhaseLog) of one search on backend ``which`` ("cpu" or "cupy"): the
    backend driver's ``run``, without the result assembly of :func:`sssp` (benchmarks time
    this). Its inputs are validated here, as :func:`sssp` validates its own: the drivers
    trust them. With negative arcs a target is ignored (no key is final before the end)."""
    entry = get(strategy)
    g = CSRGraph.from_any(g, allow_negative=True)  # no copy, no check for a checked graph
    n = g.num_nodes
    if opts.target is not None:
        check_vertex(opts.target, n, "target")
    _check_options(opts)
    check_strategy(entry.name, ks.negative)
    if ks.negative:
        opts = dataclasses.replace(opts, target=None)
    return _run_checked(which, g, _as_sources(sources, n), entry.name, opts, ks,
                        on_phase=on_phase, cancel=cancel)


def _run_checked(which: str, g: CSRGraph, sources: np.ndarray, strategy: str,
                 opts: SSSPOptions, ks: KeySpace, *, on_phase: PhaseCallback | None = None,
                 cancel: CancelCheck | None = None,
                 cpu: CpuPlan | None = None,
                 dist: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, PhaseLog]:
    """:func:`run_backend` on validated inputs (distinct int32 sources in range, a target
    in range or None, a strategy that takes these weights, a checked CSRGraph; ``cpu``: a
    CPU plan made for them, which fills ``dist`` when given). A negative cycle the backend
    detected is located here (NegativeCycleError with its arc), the same way for both
    backends."""
    try:
        if cpu is not None:
            return cpu.search(sources, on_phase=on_phase, cancel=cancel, dist=dist)
        if which == "cupy":
            from .cuda.driver import run
        else:
            from .cpu.driver import run
        return run(g, sources, strategy, opts, ks, on_phase=on_phase, cancel=cancel)
    except NegativeCycleError as exc:
        if exc.arc is not None:
            raise
        raise negative_cycle_error(g, sources) from None


def warm_up(strategies: Sequence[str] | None = None, backend: str = "cpu", *,
            target: bool = False, small_work: bool = False) -> float:
    """Load (or, on a cold cache, compile) the kernels of ``strategies`` (default: every
    one) on ``backend`` with a search on a 2-node graph; returns the seconds it took.

    The first search in a process otherwise pays ~0.4-0.7 s here (numba import and LLVM
    start-up, cache loads; CUDA module loads on the GPU), 3 s with a cold cache; the app
    calls this from a background thread at start so the first click does not, and the
    CLI before its search so that the search time it reports is the search alone.
    ``target``: warm the early-stopping path (a search with a target) instead.
    ``small_work``: the search to come runs with ``SSSPOptions(small_work=True)`` on a map
    under 32K nodes (no big-map pass): warm only what that search runs (issue 41).
    """
    t0 = time.perf_counter()
    which = resolve_backend(backend)
    g = CSRGraph.from_edges(2, [0], [1], [1])
    ks = key_space_for(g.weights, 2)
    src = np.array([0], np.int32)
    opts = SSSPOptions(target=1 if target else None, small_work=small_work)
    names = [get(s).name for s in strategies] if strategies is not None else STRATEGIES
    for s in names:
        run_backend(which, g, src, s, opts, ks)
    if not small_work:
        compile_kernel()  # the big-map pass of dist_from_keys, and its threads
    elapsed = time.perf_counter() - t0
    log.info("warm-up of %s on %s: %.0f ms (kernels compiled, or loaded from numba's cache / "
             "CUDA modules; not counted in search times)", ", ".join(names), which, elapsed * 1e3)
    return elapsed


def _finish(
    key, pred, phases, ks: KeySpace, strategy, which, device, sources, target, elapsed,
    dist=None,
) -> SSSPResult:
    key = np.asarray(key, dtype=np.int64)
    pred = np.asarray(pred, dtype=np.int32)
    if target is not None and key[target] != KEY_INF and not ks.negative:
        # Only vertices no farther than the target are final when the search stopped early.
        unsettled = key > key[target]
        key = np.where(unsettled, KEY_INF, key)
        pred = np.where(unsettled, NO_PRED, pred)
        dist = None
    # dist = key >> hop_bits, UNREACHABLE where KEY_INF (after every search: one parallel
    # pass on big maps); the indexed search makes it in its own key pass
    if dist is None:
        dist = dist_from_keys(key, ks.hop_bits, ks.unreachable)
    return SSSPResult(
        dist=dist,
        pred=pred,
        phases=phases,
        strategy=strategy,
        backend=which,
        device=device,
        sources=sources,
        target=target,
        elapsed_s=elapsed,
        key=key,
        key_space=ks,
    )


def prepare_graph(graph: GraphLike) -> tuple[CSRGraph, KeySpace]:
    """(CSRGraph, KeySpace) for ``graph``, validated once per graph
    (:func:`gpu_core.graph.prepared`)."""
    h = prepared(graph)
    return h.csr, h.key_space
