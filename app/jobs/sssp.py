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
from gpu_core.sssp import COMPARE_STRATEGIES, SSSPOptions, SSSPResult, sssp

from .common import CancelCheck, Progress, cycle_with_file_ids, small_work

__all__ = ["COMPARE_STRATEGIES", "SsspJobOptions", "compare", "run"]
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
    with cycle_with_file_ids(net):
        return _run(net, opts, progress=progress, cancel=cancel, on_phase=on_phase)


def _run(net, opts: SsspJobOptions, *, progress: Progress | None, cancel: CancelCheck | None,
         on_phase: Callable | None) -> SSSPResult:
    from gpu_core.backend import resolve_backend

    # small maps: "auto" on the CPU takes scipy's Dijkstra, no compilation (issue 41)
    options = replace(opts.options or SSSPOptions(), small_work=small_work(net))
    index = search_index(net, opts.strategy, opts.index, backend=opts.backend,
                         progress=progress, cancel=cancel)

    # a turn-restricted map searched with each copy beside its original (issue 39:
    # app.jobs.turn_search), the answer read back in the map's numbering
    near = index is None and isinstance(getattr(net, "meta", None), dict) \
        and bool(net.meta.get("turn_copies"))

    def search(backend: str) -> SSSPResult:
        if near:
            from .turn_search import sssp_copies_near

            return sssp_copies_near(net, opts.source, strategy=opts.strategy,
                                    backend=backend, options=options, on_phase=on_phase,
                                    cancel=cancel)
        return sssp(net, opts.source, strategy=opts.strategy, backend=backend, options=options,
                    on_phase=on_phase, cancel=cancel, index=index)

    if not opts.cpu_fallback:
        return search(opts.backend)
    try:
        # the backend is resolved once, inside sssp (issue 38: once per click); "auto"
        # stays "auto" on the CPU so the result names why (no CuPy, no device)
        return search(opts.backend)
    except (CancelledError, InvalidArgumentError, NegativeCycleError):
        raise
    except Exception as exc:
        if opts.backend == "cpu" or resolve_backend(opts.backend) != "cupy":
            raise
        res = search("cpu")
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
