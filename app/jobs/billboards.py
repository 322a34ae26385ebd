"""The billboards job: K sites that the most shortest routes pass (seed 002's greedy group
betweenness), through ``gpu_core.betweenness.billboards`` and its progress events."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from maps.errors import MapError
from maps.network import RoadNetwork

from .common import CancelCheck, Progress, report

# Where sites may go: all nodes, nodes at a road arc, or nodes at no rail arc.
CANDIDATES = ("all", "road", "no-rail")
# Shortest paths by the map's weights unless asked otherwise: the CLI and the app agree.
DEFAULT_MODE = "weighted"


@dataclass(frozen=True)
class BillboardsOptions:
    k: int
    mode: str = DEFAULT_MODE  # shortest paths by weight (weighted) or by arc count (hops)
    backend: str = "auto"
    kernel: str = "auto"
    method: str = "auto"  # exact or sampled
    epsilon: float = 0.1  # sampled: error
    delta: float = 0.1  # sampled: failure probability
    seed: int = 0
    candidates: np.ndarray | None = None  # bool mask of allowed sites (None: all)
    fixed: tuple[int, ...] = ()  # sites already placed (node indices)
    sources: np.ndarray | None = None  # per-node origin demand (None: uniform)
    targets: np.ndarray | None = None  # per-node destination demand


@dataclass
class BillboardsResult:
    billboards: object  # gpu_core.betweenness.BillboardResult
    time_s: float


def run(net, opts: BillboardsOptions, *, progress: Progress | None = None,
        cancel: CancelCheck | None = None) -> BillboardsResult:
    """Greedy placement (``net``: a RoadNetwork or a CSRGraph); progress says the round
    and the sources done."""
    from gpu_core.betweenness import BillboardResult, billboards

    t0 = time.perf_counter()
    result = None
    for ev in billboards(net, opts.k, mode=opts.mode, backend=opts.backend, kernel=opts.kernel,
                         method=opts.method, epsilon=opts.epsilon, delta=opts.delta,
                         seed=opts.seed, candidates=opts.candidates,
                         fixed=list(opts.fixed) or None, sources=opts.sources,
                         targets=opts.targets, cancel=cancel):
        if isinstance(ev, BillboardResult):
            result = ev
        else:
            report(progress, ev.fraction, f"round {ev.round} of {ev.rounds}: "
                   f"{ev.sources_done:,}/{ev.sources_total:,} sources")
    assert result is not None
    return BillboardsResult(result, time.perf_counter() - t0)


def candidate_mask(net: RoadNetwork, which: str) -> np.ndarray | None:
    """Bool mask of the nodes a site may use (None: all). ``road``: nodes at a road arc;
    ``no-rail``: nodes at no rail arc (stations joined by transfer links stay allowed)."""
    from maps.network import KIND_RAIL, KIND_ROAD

    if which == "all":
        return None
    kind = getattr(net, "edge_kind", None)
    if kind is None:
        raise MapError(f"--candidates {which}: this map has no arc kinds (road/rail)")
    tails = net.arc_sources()
    heads = np.asarray(net.indices)
    sel = kind == (KIND_ROAD if which == "road" else KIND_RAIL)
    touched = np.zeros(net.num_nodes, dtype=bool)
    touched[tails[sel]] = True
    touched[heads[sel]] = True
    return touched if which == "road" else ~touched


def site_ids(net: RoadNetwork, nodes) -> list:
    """Ids as written in the map file of the given node indices (JSON-ready)."""
    labels = net.node_labels()
    return [labels[v].item() if hasattr(labels[v], "item") else labels[v] for v in nodes]
