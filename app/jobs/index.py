"""The route index of a map (``gpu_core.hierarchy``), built once and kept in the load
cache's folder: a customizable contraction hierarchy (CCH) in two files, its topology
``cch-topo-<topology key>.npz`` (order + chordal graph; the arcs without their weights)
and the customized index ``ch-<graph key>.npz`` (keyed by the whole graph, so a stale one
is never used). Without pymetis the witness-search CH is built (only the second file).

An edited map (closures, reopenings, new weights: ``app.jobs.edits``) whose arcs all lie
on edges of a cached topology (its own, or the unedited map's, named in
``net.meta["index_topology"]`` by ``Scenario.network``) is re-customized in well under a
second instead of rebuilt (``index: "customized"``); an added road rebuilds
(``index: "rebuilt"``, ``index_reason`` says why). Damaged files are rebuilt, never
trusted (every array is checksummed).

Policies: ``off`` (never), ``on`` (load, re-customize or build), ``auto`` (load or
re-customize when cached; build when the graph is road-shaped and the job has at least
``AUTO_MIN_SOURCES`` sources).
"""

from __future__ import annotations

import logging
import os
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from maps.cache_folder import after_save, touch

from . import kept_metric
from .common import CancelCheck, Progress, report

POLICIES = ("auto", "on", "off")
_log = logging.getLogger(__name__)
AUTO_MIN_SOURCES = 64


@dataclass
class IndexInfo:
    """How the index of a job was obtained (for the job's stats and the CLI's summary)."""

    # "none", "cache", "customized", "built", "rebuilt" or "search index" (read off the
    # key-weighted index held for the clicks: ``plain_from_key_index``)
    source: str = "none"
    seconds: float = 0.0  # load, customization or build time
    path: str = ""
    summary: dict = field(default_factory=dict)
    reason: str = ""  # "rebuilt": why a cached topology did not fit

    def as_dict(self) -> dict:
        out = {"index": self.source, "index_s": round(self.seconds, 3), **(
            {"index_" + k: v for k, v in self.summary.items()} if self.summary else {})}
        if self.reason:
            out["index_reason"] = self.reason
        return out


def index_path(graph, key: str | None = None) -> str:
    """Where the index of ``graph`` (fingerprint ``key``, computed when not given) lives."""
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import graph_key
    from maps.cache import cache_dir

    key = key or graph_key(CSRGraph.from_any(graph))
    return os.fspath(cache_dir() / f"ch-{key}.npz")


def topology_path(tkey: str) -> str:
    """Where the CCH topology with topology key ``tkey`` lives."""
    from maps.cache import cache_dir

    return os.fspath(cache_dir() / f"cch-topo-{tkey}.npz")


# The last topologies used, kept in memory with what they cache on themselves (sweep
# layout, device copy): an edit session re-customizes without reading the file again.
# Keyed by the file and its size and time, so a changed or damaged file is read again.
_RECENT: OrderedDict = OrderedDict()
RECENT_TOPOLOGIES = 2


def _stamp(path: str):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (path, st.st_size, st.st_mtime_ns)


def _remember(t, path: str) -> None:
    stamp = _stamp(path)
    if stamp is None:
        return
    for old in [k for k, v in _RECENT.items() if v is t]:  # one entry per topology
        del _RECENT[old]
    _RECENT[stamp] = t
    _RECENT.move_to_end(stamp)
    while len(_RECENT) > RECENT_TOPOLOGIES:
        _RECENT.popitem(last=False)


def release_device_copies(*hierarchies) -> None:
    """Free the GPU memory that ``hierarchies`` (None skipped) and the topologies kept here
    (with their kept metrics) hold in this process (``hierarchy.api.release_device``):
    before a Dask job, whose local cluster's first worker shares this process's GPU."""
    from gpu_core.hierarchy.api import release_device

    release_device(*(h for h in hierarchies if h is not None), *_RECENT.values())


def _cached_topology(tkey: str):
    """The cached topology ``tkey``, or None (absent or damaged: a damaged file is removed)."""
    from gpu_core.hierarchy import Topology

    if not tkey:
        return None
    kept, path = kept_metric.kept_path(tkey), topology_path(tkey)
    for p in (kept, path):
        stamp = _stamp(p)
        if stamp is not None and stamp in _RECENT:
            _RECENT.move_to_end(stamp)
            return _RECENT[stamp]
    # the topology with its kept metric, mapped: a closure in a new process only patches
    t = kept_metric.load_topology(tkey)
    if t is not None:
        _remember(t, kept)
        return t
    if _stamp(path) is None:
        return None
    try:
        t = Topology.load(path, key=tkey)
        touch(path)  # used: last in line for the cache's eviction
    except (OSError, ValueError):
        _discard(path)
        return None
    if kept_metric.load_into(t) and kept_metric.migrate(t):  # the older metric file
        _remember(t, kept)  # found by the new file's stamp next time (kept in memory)
    else:
        _remember(t, path)
    return t


def _save_kept(t) -> None:
    """``kept_metric.save``, the topology then remembered by the new file's stamp (the
    next lookup finds it in memory, with what it caches, instead of mapping the file)."""
    path = kept_metric.save(t)
    if path:
        _remember(t, path)


def _discard(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _save(obj, path: str) -> str:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        obj.save(path)
        after_save(path)
        return path
    except OSError:
        return ""  # an unwritable cache folder only costs the next job a rebuild


def _fitting_topology(g, net, own: str):
    """(a cached topology that every arc of ``g`` lies on, or None; why the unedited map's
    did not fit): the map's own (``own``, its topology key) or, for an edited map, the
    unedited map's (``net.meta["index_topology"]``)."""
    from gpu_core.hierarchy import slots_for

    base = str((getattr(net, "meta", None) or {}).get("index_topology", ""))
    reason = ""
    for tkey in dict.fromkeys(k for k in (own, base) if k):
        t = _cached_topology(tkey)
        if t is None:
            continue
        if _kept_rows_fit(t, g):
            return t, reason
        slots = slots_for(t, g)
        if isinstance(slots, str):
            reason = slots
            continue
        return t, reason
    return None, reason


def _kept_rows_fit(t, g) -> bool:
    """True when ``g`` differs from the graph of ``t``'s kept metric (which fitted) only
    in rows whose arcs all lie on edges of ``t``: no arc's edge is searched again (a
    closure on NE: 0.03 s instead of ``slots_for``'s 0.12 s)."""
    from gpu_core.hierarchy.inputs import rows_fit

    m = kept_metric.kept(t)
    return m is not None and bool(rows_fit(t, m.inputs, g))


def _new_topology(g, cancel, progress):
    """Build the CCH topology of ``g`` and keep it (file and memory) for later indexes."""
    from gpu_core.hierarchy import build_topology

    t = build_topology(g, cancel=cancel, progress=progress)
    _remember(t, _save(t, topology_path(t.key)))
    return t


def hierarchy_for(net, *, policy: str = "auto", sources: int = 0,
                  progress: Progress | None = None, cancel: CancelCheck | None = None,
                  backend: str = "cpu"):
    """(Hierarchy or None, IndexInfo) for ``net`` under ``policy`` (``backend``: where a
    customization runs: cpu, cupy or auto)."""
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import (
        Hierarchy,
        build_hierarchy,
        customize,
        graph_key,
        road_shaped,
        topology_key,
    )
    from gpu_core.hierarchy.order import metis_available

    if policy not in POLICIES:
        raise ValueError(f"index policy {policy!r}: choose one of {', '.join(POLICIES)}")
    if policy == "off":
        return None, IndexInfo()
    g = CSRGraph.from_any(net)
    key = graph_key(g)  # hashed once: names the file and checks it
    path = index_path(net, key)
    t0 = time.perf_counter()
    if os.path.exists(path):
        try:
            h = Hierarchy.load(path, key=key)
            touch(path)
            return h, IndexInfo("cache", time.perf_counter() - t0, path, h.summary())
        except (OSError, ValueError):
            _discard(path)  # damaged or stale: rebuilt below
    own = topology_key(g)
    t, reason = _fitting_topology(g, net, own)
    if t is not None:
        tkey = t.key
        report(progress, 0.0, "customizing the route index")
        h = customize(t, g, backend=backend, cancel=cancel, key=key)
        # the unedited map's own index is kept; an edited map's is redone when needed
        saved = _save(h, path) if tkey == own else ""
        if tkey == own or not os.path.exists(kept_metric.kept_path(tkey)):
            _save_kept(t)
        # "full" or "partial (N edges changed)": the topology's kept metric was reused
        summary = {**h.summary(), "customized": getattr(h, "customized", "full")}
        return h, IndexInfo("customized", time.perf_counter() - t0, saved, summary)
    if policy == "auto" and (sources < AUTO_MIN_SOURCES or not road_shaped(net)):
        return None, IndexInfo()
    report(progress, 0.0, "building the route index (once per map)")

    def step(f: float, m: str) -> None:
        report(progress, f, f"building the route index: {m}")

    if metis_available():
        t = _new_topology(g, cancel, lambda f, m: step(0.8 * f, m))
        h = build_hierarchy(g, method="cch", topology=t, backend=backend, cancel=cancel,
                            progress=lambda f, m: step(0.8 + 0.2 * f, m))
        _save_kept(t)  # beside the index: the next process's closures are partial
    else:
        h = build_hierarchy(g, method="ch", cancel=cancel, progress=step)
    path = _save(h, path)
    return h, IndexInfo("rebuilt" if reason else "built", time.perf_counter() - t0, path,
                        h.summary(), reason)


# --- the key-weighted index of one-to-all searches (issue 26) -------------------------------
# Its own cache entry, named by the fingerprint of the KEY-weighted graph
# (gpu_core.hierarchy.key_graph_fingerprint), so it never collides with the plain index.
# Searches look it up per click: the answer is kept on the graph's prepared handle
# (gpu_core.graph: one per graph, dropped with it), so a click hashes nothing; a build
# in this process (policy "on") updates it.
_ONE_TO_ALL = "one_to_all_index"


def known_key_index(net):
    from gpu_core.graph import prepared

    return prepared(net).get(_ONE_TO_ALL)


def remember_key_index(net, value) -> None:
    from gpu_core.graph import prepared

    prepared(net).put(_ONE_TO_ALL, value)


def plain_from_key_index(net):
    """(Hierarchy of ``net``'s own weights, IndexInfo "search index") read off the key-
    weighted index this process holds for ``net`` (``known_key_index``: the window's, made
    for its clicks), or None: none held, another graph's, or arcs of weight 0 (their
    search weights are the keys themselves). No file is read: the window's sampled
    billboards on the 1.43M-node map waited 1.2 s (under load 2 s) for the plain index's
    file before its first answer (issue 43; ``gpu_core.hierarchy.plain_of_key``)."""
    from gpu_core.graph import prepared
    from gpu_core.hierarchy import graph_key, key_graph_fingerprint, plain_of_key

    hit = known_key_index(net)
    if hit is None or hit[0] is None:
        return None
    pg = prepared(net)
    g = pg.csr
    hk = hit[0]
    if hk.n != g.num_nodes or (g.num_arcs and int(g.weights.min()) <= 0):
        return None
    if hk.graph_key != key_graph_fingerprint(g):
        return None
    t0 = time.perf_counter()
    h = plain_of_key(hk, pg.key_space)
    h.graph_key = graph_key(g)
    return h, IndexInfo("search index", time.perf_counter() - t0, "", h.summary())


def key_hierarchy_for(net, *, policy: str = "auto", progress: Progress | None = None,
                      cancel: CancelCheck | None = None):
    """(key-weighted Hierarchy or None, IndexInfo) for the one-to-all searches of ``net``
    (``sssp(..., index=h)``). ``off``: none; ``auto``: the one built or loaded before
    (this process, or the cache folder), never a build, so a click never waits for one;
    ``on``: load, else build and save. Maps with negative arcs, and edited maps under
    ``auto``, have none. A damaged or foreign file is rebuilt under ``auto`` too
    (``IndexInfo.source`` "rebuilt", its ``reason`` the one-line note, logged)."""
    from gpu_core.graph import prepared
    from gpu_core.hierarchy import Hierarchy, key_graph_fingerprint, key_hierarchy, road_shaped

    if policy not in POLICIES:
        raise ValueError(f"index policy {policy!r}: choose one of {', '.join(POLICIES)}")
    if policy == "off":
        return None, IndexInfo()
    hit = known_key_index(net)
    if hit is not None and (hit[0] is not None or policy == "auto"):
        return hit
    meta = getattr(net, "meta", None) or {}
    if policy == "auto" and "edits" in meta:  # an edited map: its index is never cached
        return None, IndexInfo()
    pg = prepared(net)
    if not pg.indexable:  # a map with negative arcs has none
        remember_key_index(net, (None, IndexInfo()))
        return None, IndexInfo()
    g = pg.csr
    key = key_graph_fingerprint(g)
    path = index_path(net, key)
    t0 = time.perf_counter()
    damaged = ""
    if os.path.lexists(path):
        try:
            h = Hierarchy.load(path, key=key)
            touch(path)
            out = (h, IndexInfo("cache", time.perf_counter() - t0, path, h.summary()))
            remember_key_index(net, out)
            return out
        except (OSError, ValueError, KeyError) as e:  # damaged, foreign or not a file
            damaged = f"the cached search index {path} could not be used ({e}): rebuilt"
            _log.warning("%s", damaged)
            _discard(path)  # repaired under "auto" too (issue 40): built below, saved anew
    if policy == "auto" and (not damaged or not road_shaped(net)):
        remember_key_index(net, (None, IndexInfo()))
        return None, IndexInfo()
    report(progress, 0.0, "building the route index for searches (once per map)")
    from gpu_core.hierarchy import topology_key
    from gpu_core.hierarchy.order import metis_available

    # the key graph has the map's arcs: the plain index's topology serves both
    t, _ = _fitting_topology(g, net, topology_key(g))
    if t is None and metis_available():
        t = _new_topology(g, cancel, lambda f, m: report(progress, 0.8 * f,
                                                         f"building the route index: {m}"))
    h = key_hierarchy(g, cancel=cancel, topology=t,
                      progress=lambda f, m: report(progress, f, "building the route index"))
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        h.save(path)
        after_save(path)
    except OSError:
        path = ""  # an unwritable cache folder only costs the next process a rebuild
    out = (h, IndexInfo("rebuilt" if damaged else "built", h.build_s, path, h.summary(),
                        damaged))
    remember_key_index(net, out)
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
            remember_key_index(net, (None, IndexInfo()))
            return IndexInfo()
        try:
            h, info = key_hierarchy_for(net, policy="on", progress=progress, cancel=cancel)
        except (HierarchyTooDenseError, InvalidArgumentError):
            remember_key_index(net, (None, IndexInfo()))
            return IndexInfo()
    report(progress, None, "getting the search index ready")
    prepare_index(h, net, backend)
    ready_for_edits(net)
    return info


def ready_for_edits(net) -> bool:
    """Do ahead what the first what-if edit's re-customization of the map's index would
    (``gpu_core.hierarchy.partial.prepare``: the unpruned lists a partial update patches,
    spare buffers), so a closure waits for the update alone (issue 26; NE: 0.6-1.7 s on
    2 cores, here in the background). Host side only: the edited map's search index
    (``edit_index``) is customized on the CPU and its searches keep their own device
    state. False without a kept metric."""
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import topology_key
    from gpu_core.hierarchy.partial import prepare

    t = _cached_topology(topology_key(CSRGraph.from_any(net)))
    return t is not None and prepare(t)
