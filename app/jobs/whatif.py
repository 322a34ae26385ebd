"""The what-if job of the app: bring the search on screen up to date after edits.

Given the result of a search (dist, pred) on the graph as it was and the EditSummary of
every batch applied since, :func:`run` returns the result on the edited graph: repaired
by ``gpu_core.repair`` (only the part of the tree the edits touch is re-settled) or, where
that is not available or there is no earlier result, a fresh search. Either way the
result equals ``gpu_core.sssp`` on the edited graph (repair's contract), and says which it
did in ``extra["whatif"]``. Optionally it also searches the unedited graph from the same
source (the "change" view's reference).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from gpu_core.sssp import SSSPResult, sssp

from .common import CancelCheck, Progress

if TYPE_CHECKING:
    from gpu_core.graph import GraphLike


@dataclass(frozen=True)
class WhatIfOptions:
    source: int  # node index
    strategy: str = "auto"  # of a fresh search
    backend: str = "auto"


@dataclass
class WhatIfResult:
    result: SSSPResult  # on the edited graph
    method: str  # "repair" or "fresh"
    reason: str = ""  # why fresh
    base: SSSPResult | None = None  # on the unedited graph, when asked for
    changed_arcs: int = -1  # arcs the edits changed (the caller fills it in: O(m) to count)


def _repair_fn():
    """gpu_core.repair.repair, or None where this checkout has no repair capability (the
    one place to swap: a fresh search stands in for it)."""
    try:
        from gpu_core.repair import repair
    except ImportError:
        return None
    return repair


def warm_up(backend: str = "auto") -> None:
    """Compile (or load from numba's cache) the repair kernels on a tiny graph, so the
    first edit of a map does not wait for them (the window's after-load job calls it)."""
    from gpu_core.dynamic import MutableGraph
    from gpu_core.graph import CSRGraph

    repair = _repair_fn()
    if repair is None:
        return
    mg = MutableGraph(CSRGraph.from_edges(3, [0, 1, 0], [1, 2, 2], [1, 1, 5]), backend=backend)
    # a GraphLike to read; the Protocol declares its arrays settable, MutableGraph's are
    # read-only properties (gpu_core.graph.GraphLike: the cast goes once they are read-only)
    before = sssp(cast("GraphLike", mg), 0, backend=backend)
    summary = mg.apply(mg.batch().disable([0]))
    repair(mg, before, [summary], backend=backend)


def repair_ready(backend: str) -> bool:
    """Whether the repair may run here: its kernels need no compilation, or the window's
    warm-up runs in this process (``SIGNPOST_COMPILE_AHEAD=0``: compiling is allowed). A
    fresh install's window otherwise compiled them on its first edit, holding the GIL for
    seconds (issue 41): the fresh search (no compilation on small maps) answers until the
    warm-up's child has compiled them."""
    from gpu_core.repair import kernels_ready

    from .common import compile_ahead_enabled as enabled

    return not enabled() or kernels_ready(backend)


def _options(graph):
    """The fresh search's options: the search that needs no compilation where the map's
    clicks take it (``common.no_compile_work``)."""
    from gpu_core.sssp import SSSPOptions

    from .common import no_compile_work

    return SSSPOptions(small_work=no_compile_work(graph))


def run(graph, previous: SSSPResult | None, summaries: Sequence, opts: WhatIfOptions, *,
        base_graph=None, progress: Progress | None = None, cancel: CancelCheck | None = None,
        on_phase: Callable | None = None) -> WhatIfResult:
    """The search from ``opts.source`` on ``graph`` (a MutableGraph after the edits),
    repaired from ``previous`` (on the graph before ``summaries``) when it can be.
    ``base_graph``: also search it (the unedited map) from the same source."""
    repair = _repair_fn()
    reason = ""
    if previous is None:
        reason = "no earlier result"
    elif repair is None:
        reason = "gpu_core.repair is not available"
    elif int(previous.sources[0]) != int(opts.source):
        reason = "another source"
    elif not repair_ready(opts.backend):
        reason = "the repair's kernels are still compiling in the background"
    if reason:
        if progress is not None:
            progress(None, "searching the edited network")
        from .sssp import search_index  # the edited map's re-customized index, if made

        res = sssp(graph, opts.source, strategy=opts.strategy, backend=opts.backend,
                   on_phase=on_phase, cancel=cancel, options=_options(graph),
                   index=search_index(graph, opts.strategy, "auto",
                                      backend=opts.backend))
        method = "fresh"
    else:
        if progress is not None:
            progress(None, "repairing the search")
        res = repair(graph, previous, list(summaries), backend=opts.backend,
                     on_phase=on_phase, cancel=cancel)
        method = getattr(res, "method", "repair")
        reason = getattr(res, "reason", "")
    extra = getattr(res, "extra", None)
    if isinstance(extra, dict):
        extra["whatif"] = method
    base = None
    if base_graph is not None:
        from .sssp import search_index  # the map as loaded may have its search index

        base = sssp(base_graph, opts.source, strategy=opts.strategy, backend=opts.backend,
                    cancel=cancel, options=_options(base_graph), index=search_index(base_graph, opts.strategy, "auto",
                                                     backend=opts.backend))
    return WhatIfResult(res, method, reason, base)
