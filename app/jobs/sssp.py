"""The SSSP job: least cost from one node to every node, with live phase telemetry.

A GPU failure that is not a cancel or a bad argument reruns the search on the CPU when
``cpu_fallback`` is set (the window does: a click must always give a field); the result
then names why in ``extra["fallback"]``. The result is gpu_core's ``SSSPResult``.

Strategy ``auto`` searches through the map's search index when one exists
(``app.jobs.index.key_hierarchy_for``: policy ``index``; ``auto`` never builds one, so a
click never waits; the same dist, pred and hops; ``extra["index"]`` says so).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from gpu_core.errors import CancelledError, InvalidArgumentError, NegativeCycleError
from gpu_core.sssp import COMPARE_STRATEGIES, PreparedSearch, SSSPOptions, SSSPResult

from .common import CancelCheck, Progress, cycle_with_file_ids, no_compile_work

__all__ = ["COMPARE_STRATEGIES", "SsspJobOptions", "SsspPlan", "compare", "run"]
# COMPARE_STRATEGIES: what the window's "Compare strategies" runs side by side (seed 001's
# figure), the registry's entries marked compare=True.


@dataclass(frozen=True)
class SsspJobOptions:
    """One SSSP job: the source node, the strategy and backend, gpu_core's
    :class:`~gpu_core.sssp.SSSPOptions` (the algorithm's own knobs) and whether a GPU
    failure reruns on the CPU."""

    source: int  # node index (resolve typed points with app.jobs.maps.resolve_texts)
    strategy: str = "auto"
    backend: str = "auto"
    options: SSSPOptions | None = None  # adaptive thresholds and signal
    cpu_fallback: bool = False
    index: str = "auto"  # the search index: auto (when built before), on (build), off


def run(net, opts: SsspJobOptions, *, progress: Progress | None = None,
        cancel: CancelCheck | None = None, on_phase: Callable | None = None) -> SSSPResult:
    """sssp on the chosen backend (``net``: a RoadNetwork or a CSRGraph); ``on_phase``
    gets gpu_core's PhaseLog as phases finish. A negative cycle is named by the map's
    node ids."""
    return SsspPlan(net, opts, progress=progress, cancel=cancel).run(
        opts.source, progress=progress, cancel=cancel, on_phase=on_phase)


class SsspPlan:
    """One map's one-to-all searches under one set of job options (all but the source),
    resolved once (issue 38: a click goes straight to the search): gpu_core's
    :class:`~gpu_core.sssp.PreparedSearch` (backend, strategy, options, validated graph),
    the small-work choice (issue 41), the route index found under the policy, whether the
    map's turn copies are searched beside their originals (issue 39) and whether a
    negative cycle can need the file's ids. A window keeps the last one
    (``app.session.Session.sssp_plan``) while :meth:`fits` its map and options: the
    graph's prepared handle changing (an index built, loaded or dropped since) asks anew.
    """

    def __init__(self, net, opts: SsspJobOptions, *, progress: Progress | None = None,
                 cancel: CancelCheck | None = None) -> None:
        from gpu_core.graph import prepared

        self.net, self.opts = net, opts
        self._arrays = (net.indptr, net.indices, net.weights)
        # small maps: "auto" on the CPU takes scipy's Dijkstra, no compilation (issue 41);
        # mid-sized maps too while the kernel is not compiled (a fresh install)
        self.options = replace(opts.options or SSSPOptions(), small_work=no_compile_work(net))
        self.index = search_index(net, opts.strategy, opts.index, backend=opts.backend,
                                  progress=progress, cancel=cancel)
        self._handle = prepared(net)  # after the index look-up: it may remember one
        self._version = self._handle.version
        # a turn-restricted map searched with each copy beside its original (issue 39:
        # app.jobs.turn_search), the answer read back in the map's numbering
        self.near = self.index is None and isinstance(getattr(net, "meta", None), dict) \
            and bool(net.meta.get("turn_copies"))
        self.negative = self._handle.negative  # only then can a search meet a negative cycle
        self._search: PreparedSearch | None = None if self.near else self._prepare(opts.backend)
        self._cpu_search: PreparedSearch | None = None  # the CPU fallback's, when first needed

    def _prepare(self, backend: str) -> PreparedSearch:
        return PreparedSearch(self.net, strategy=self.opts.strategy, backend=backend,
                              options=self.options)

    def fits(self, net, opts: SsspJobOptions) -> bool:
        """Whether this plan searches ``net`` under ``opts`` (any source) as a new one
        would: the same graph and arrays, options, and nothing derived changed since."""
        o = self.opts
        arrays = self._arrays  # (a MutableGraph's are its compaction's: new after an edit)
        return (net is self.net and self._handle.version == self._version
                and net.indptr is arrays[0] and net.indices is arrays[1]
                and net.weights is arrays[2]
                and (opts.strategy, opts.backend, opts.options, opts.cpu_fallback, opts.index)
                == (o.strategy, o.backend, o.options, o.cpu_fallback, o.index))

    def run(self, source: int, *, progress: Progress | None = None,
            cancel: CancelCheck | None = None, on_phase: Callable | None = None) -> SSSPResult:
        """The search from ``source`` (a node index)."""
        if self.negative or self.near:
            with cycle_with_file_ids(self.net):
                return self._run(source, cancel, on_phase)
        return self._run(source, cancel, on_phase)

    def _search_on(self, backend: str | None, source: int, cancel, on_phase) -> SSSPResult:
        opts = self.opts
        if self.near:
            from .turn_search import sssp_copies_near

            return sssp_copies_near(self.net, source, strategy=opts.strategy,
                                    backend=backend or opts.backend, options=self.options,
                                    on_phase=on_phase, cancel=cancel)
        if backend is None:
            search = self._search
        else:  # the CPU fallback
            if self._cpu_search is None:
                self._cpu_search = self._prepare(backend)
            search = self._cpu_search
        assert search is not None  # made in __init__ for every plan but near's
        return search.run(source, on_phase=on_phase, cancel=cancel, index=self.index)

    def _run(self, source: int, cancel, on_phase) -> SSSPResult:
        opts = self.opts
        if not opts.cpu_fallback:
            return self._search_on(None, source, cancel, on_phase)
        try:
            # the backend is resolved once per plan, inside PreparedSearch (issue 38);
            # "auto" stays "auto" on the CPU so the result names why (no CuPy, no device)
            return self._search_on(None, source, cancel, on_phase)
        except (CancelledError, InvalidArgumentError, NegativeCycleError):
            raise
        except Exception as exc:
            from gpu_core.backend import resolve_backend

            if opts.backend == "cpu" or resolve_backend(opts.backend) != "cupy":
                raise
            res = self._search_on("cpu", source, cancel, on_phase)
            res.extra["fallback"] = f"{type(exc).__name__}: {exc}"
            return res


# the GPU's one-launch search (~8-11 ms on 1.5M nodes, H100) beats the indexed sweep
# (~5-7 us a level) beyond about this many levels
GPU_INDEX_MAX_LEVELS = 1000


def search_index(net, strategy: str, policy: str, *, backend: str = "auto",
                 progress: Progress | None = None, cancel: CancelCheck | None = None):
    """The key-weighted hierarchy ``sssp(..., index=)`` takes, or None: only strategy
    ``auto`` uses one (an explicitly chosen strategy runs as chosen). Under policy
    ``auto`` (an index built or loaded before, never a build) the CPU always takes it
    (3-6x faster); the GPU takes it when its sweep has at most ``GPU_INDEX_MAX_LEVELS``
    levels: the GPU sweep's time follows its chain of levels (NE, 296 levels: 2.1 ms
    against 8.4 ms for the one-launch search; the Kanto-sized grid, 1,620 levels: 11.6
    against 10.7 ms; docs/perf/sssp_index.md). ``on`` takes it on either backend."""
    if strategy != "auto" or policy == "off":
        return None
    from .index import key_hierarchy_for

    h = key_hierarchy_for(net, policy=policy, progress=progress, cancel=cancel)[0]
    if h is not None and policy == "auto" and h.levels > GPU_INDEX_MAX_LEVELS:
        from gpu_core.backend import resolve_backend

        if resolve_backend(backend) == "cupy":
            return None
    return h


def compare(net, opts: SsspJobOptions, strategies: tuple[str, ...] = COMPARE_STRATEGIES, *,
            cancel: CancelCheck | None = None, on_phase: Callable | None = None,
            on_start: Callable[[str], None] | None = None) -> dict[str, SSSPResult]:
    """The same search once per strategy (``on_start(strategy)`` before each)."""
    out = {}
    for s in strategies:
        if on_start is not None:
            on_start(s)
        out[s] = run(net, SsspJobOptions(opts.source, s, opts.backend, opts.options,
                                         opts.cpu_fallback, opts.index), cancel=cancel,
                     on_phase=on_phase)
    return out
