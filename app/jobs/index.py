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
