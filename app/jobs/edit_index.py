"""The search (key) index of an edited map (issue 27): closures, reopenings and new
weights keep every arc on an edge of the unedited map's CCH topology, so the key index
of the edited graph is a re-customization over that topology (seconds on a 1.43M-node
map on the CPU, no new order or topology), never a build. Added roads do not fit: the
edited map then searches without an index (still exact, only slower).

The result is registered for the graph the searches read (``app.jobs.index``'s memo, by
the identity of its arrays), so ``SsspJobOptions(index="auto")`` picks it up. The last few
are kept by the key graph's fingerprint: undoing an edit goes back to the earlier metric
without customizing again.
"""

from __future__ import annotations

import time
from collections import OrderedDict

from .common import CancelCheck, Progress, report
from .index import IndexInfo, _cached_topology, known_key_index, remember_key_index

RECENT_EDITED = 3  # customized indexes kept for undo / redo (about 70 B per node each)
_recent: OrderedDict = OrderedDict()  # key fingerprint -> Hierarchy


def edited_key_index(graph, topology_key: str, *, backend: str = "auto",
                     progress: Progress | None = None,
                     cancel: CancelCheck | None = None) -> tuple[object | None, IndexInfo]:
    """(key Hierarchy or None, IndexInfo) of ``graph`` (an edited map: a MutableGraph or
    a CSRGraph) re-customized over the cached topology ``topology_key`` (the unedited
    map's, ``Scenario.base_topology_key()``), registered for ``graph``'s searches and
    made ready for ``backend`` (reverse graph, work vectors). None, with
    ``IndexInfo.reason``, when the topology is not built yet or the edits added a road.
    Cancelling raises CancelledError."""
    from gpu_core.errors import CancelledError, InvalidArgumentError
    from gpu_core.graph import CSRGraph, prepared
    from gpu_core.hierarchy import key_graph_fingerprint, key_hierarchy
    from gpu_core.indexed_sssp import prepare_index

    g = CSRGraph.from_any(graph)  # a MutableGraph's compaction: the arrays searches read
    hit = known_key_index(g)
    if hit is not None and hit[0] is not None:
        return hit
    t0 = time.perf_counter()
    fp = key_graph_fingerprint(g)
    h = _recent.get(fp)
    source = "recent"
    if h is None:
        t = _cached_topology(topology_key)
        if t is None:
            return None, IndexInfo(reason="the map's route index is not built yet")
        if not prepared(g).indexable:
            return None, IndexInfo(reason="negative arc weights")
        report(progress, 0.0, "re-customizing the route index for the edits")
        try:
            h = key_hierarchy(g, topology=t, cancel=cancel, key=fp)
        except InvalidArgumentError as exc:  # an added road: no edge of the topology
            return None, IndexInfo(reason=str(exc))
        source = "customized"
    if cancel is not None and cancel():
        raise CancelledError("route index customization cancelled")
    _recent[fp] = h
    _recent.move_to_end(fp)
    while len(_recent) > RECENT_EDITED:
        _recent.popitem(last=False)
    report(progress, None, "getting the search index ready")
    prepare_index(h, g, backend)
    out = (h, IndexInfo(source, time.perf_counter() - t0, "", h.summary()))
    remember_key_index(g, out)
    return out
