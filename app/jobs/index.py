"""The route index of a map: a contraction hierarchy (``gpu_core.hierarchy``) built once
and kept in the load cache's folder, keyed by a fingerprint of the graph itself (so any
map, profile or edit gets its own, and a stale one is never used).

Policies: ``off`` (never), ``on`` (load or build), ``auto`` (load when cached; build when
the graph is road-shaped and the job has at least ``AUTO_MIN_SOURCES`` sources: the build
takes ~1.5 min on a 1.5M-node map and then every later job on the map gains).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from .common import CancelCheck, Progress, report

POLICIES = ("auto", "on", "off")
AUTO_MIN_SOURCES = 64


@dataclass
class IndexInfo:
    """How the index of a job was obtained (for the job's stats and the CLI's summary)."""

    source: str = "none"  # "none", "cache" or "built"
    seconds: float = 0.0  # load or build time
    path: str = ""
    summary: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"index": self.source, "index_s": round(self.seconds, 3), **(
            {"index_" + k: v for k, v in self.summary.items()} if self.summary else {})}


def index_path(graph, key: str | None = None) -> str:
    """Where the index of ``graph`` (fingerprint ``key``, computed when not given) lives."""
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import graph_key
    from maps.cache import cache_dir

    key = key or graph_key(CSRGraph.from_any(graph))
    return os.fspath(cache_dir() / f"ch-{key}.npz")


def hierarchy_for(net, *, policy: str = "auto", sources: int = 0,
                  progress: Progress | None = None, cancel: CancelCheck | None = None):
    """(Hierarchy or None, IndexInfo) for ``net`` under ``policy``."""
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import Hierarchy, build_hierarchy, graph_key, road_shaped

    if policy not in POLICIES:
        raise ValueError(f"index policy {policy!r}: choose one of {', '.join(POLICIES)}")
    if policy == "off":
        return None, IndexInfo()
    key = graph_key(CSRGraph.from_any(net))  # hashed once: names the file and checks it
    path = index_path(net, key)
    t0 = time.perf_counter()
    if os.path.exists(path):
        try:
            h = Hierarchy.load(path, key=key)
            return h, IndexInfo("cache", time.perf_counter() - t0, path, h.summary())
        except (OSError, ValueError, KeyError):
            pass  # unreadable or stale: rebuilt below
    if policy == "auto" and (sources < AUTO_MIN_SOURCES or not road_shaped(net)):
        return None, IndexInfo()
    report(progress, 0.0, "building the route index (once per map)")
    h = build_hierarchy(net, cancel=cancel,
                        progress=lambda f, m: report(progress, f, "building the route index"))
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        h.save(path)
    except OSError:
        path = ""  # an unwritable cache folder only costs the next job a rebuild
    return h, IndexInfo("built", h.build_s, path, h.summary())


# --- the key-weighted index of one-to-all searches (issue 26) -------------------------------
# Its own cache entry, named by the fingerprint of the KEY-weighted graph
# (gpu_core.hierarchy.key_graph_fingerprint), so it never collides with the plain index.
# Searches look it up per click: the answer is kept per graph (by the identity of its
# weights and indices arrays, as gpu_core.sssp.prepare_graph does), so a click hashes
# nothing; a build in this process (policy "on") updates the memo.
_key_memo: dict[int, tuple] = {}


def _memo_get(net):
    hit = _key_memo.get(id(net.weights))
    if hit is not None and hit[0]() is net.weights and hit[1]() is net.indices:
        return hit[2]
    return None


def _memo_put(net, value) -> None:
    import weakref

    try:
        refs = (weakref.ref(net.weights), weakref.ref(net.indices))
    except TypeError:
        return
    if len(_key_memo) > 8:
        _key_memo.clear()
    _key_memo[id(net.weights)] = (*refs, value)


def key_hierarchy_for(net, *, policy: str = "auto", progress: Progress | None = None,
                      cancel: CancelCheck | None = None):
    """(key-weighted Hierarchy or None, IndexInfo) for the one-to-all searches of ``net``
    (``sssp(..., index=h)``). ``off``: none; ``auto``: the one built or loaded before
    (this process, or the cache folder), never a build, so a click never waits for one;
    ``on``: load, else build and save. Maps with negative arcs, and edited maps under
    ``auto``, have none."""
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import Hierarchy, key_graph_fingerprint, key_hierarchy

    if policy not in POLICIES:
        raise ValueError(f"index policy {policy!r}: choose one of {', '.join(POLICIES)}")
    if policy == "off":
        return None, IndexInfo()
    hit = _memo_get(net)
    if hit is not None and (hit[0] is not None or policy == "auto"):
        return hit
    meta = getattr(net, "meta", None) or {}
    if policy == "auto" and "edits" in meta:  # an edited map: its index is never cached
        return None, IndexInfo()
    g = CSRGraph.from_any(net)
    if g.num_arcs and int(g.weights.min()) < 0:
        _memo_put(net, (None, IndexInfo()))
        return None, IndexInfo()
    key = key_graph_fingerprint(g)
    path = index_path(net, key)
    t0 = time.perf_counter()
    if os.path.exists(path):
        try:
            h = Hierarchy.load(path, key=key)
            out = (h, IndexInfo("cache", time.perf_counter() - t0, path, h.summary()))
            _memo_put(net, out)
            return out
        except (OSError, ValueError, KeyError):
            pass  # unreadable or stale: rebuilt below under "on"
    if policy == "auto":
        _memo_put(net, (None, IndexInfo()))
        return None, IndexInfo()
    report(progress, 0.0, "building the route index for searches (once per map)")
    h = key_hierarchy(g, cancel=cancel,
                      progress=lambda f, m: report(progress, f, "building the route index"))
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        h.save(path)
    except OSError:
        path = ""  # an unwritable cache folder only costs the next process a rebuild
    out = (h, IndexInfo("built", h.build_s, path, h.summary()))
    _memo_put(net, out)
    return out


def prepare_search_index(net, *, backend: str = "auto", progress: Progress | None = None,
                         cancel: CancelCheck | None = None) -> IndexInfo:
    """Load or build the search index of ``net`` and get its searches ready (the reverse
    graph, work vectors, device buffers for ``backend``), so later clicks neither wait
    for a build nor pay the first search's set-up: the app calls this in its worker after
    a map opens. A graph with no hierarchy to find (not road-shaped, negative arcs) just
    gets none. Cancelling raises CancelledError."""
    from gpu_core.errors import InvalidArgumentError
    from gpu_core.hierarchy import HierarchyTooDenseError, road_shaped
    from gpu_core.indexed_sssp import prepare_index

    h, info = key_hierarchy_for(net, policy="auto")
    if h is None:
        if not road_shaped(net):  # random or social graphs: contracting them takes hours
            _memo_put(net, (None, IndexInfo()))
            return IndexInfo()
        try:
            h, info = key_hierarchy_for(net, policy="on", progress=progress, cancel=cancel)
        except (HierarchyTooDenseError, InvalidArgumentError):
            _memo_put(net, (None, IndexInfo()))
            return IndexInfo()
    report(progress, None, "getting the search index ready")
    prepare_index(h, net, backend)
    return info
