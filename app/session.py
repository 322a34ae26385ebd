"""What the window is working on, without Qt (issue 38): the map as loaded, its edits,
the one rule for which map a point snaps to, the route's source, target and result, and
the route-index policy. The window and its tools are views of one :class:`Session`
(napari's ``ViewerModel`` beside its ``QtViewer``); a script or a test drives the same
state without a window.

The map's weakly connected parts (:class:`Fragments`) are the session's too: found once
per map (and again per edit state), told beside every point.

The rule for points: a point (a click, a drag, a typed LON,LAT or node:ID) snaps to the
map searches run on, the edited one while the map has edits, so a closed road is never a
route's end and a new link is one; its snapping index is built once per edit state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.jobs.common import CancelCheck, Progress
from app.jobs.maps import make_snapper, resolve_texts
from app.jobs.sssp import SsspJobOptions, SsspPlan
from gpu_core.graph import CSRGraph
from maps.errors import PointError
from maps.model.network import RoadNetwork
from maps.model.turns import to_original
from maps.points.resolve import ResolvedPoint


def click_point(net: RoadNetwork, snap: Any) -> ResolvedPoint:
    """A clicked point (a maps.points.snap.Snap) as the ResolvedPoint `signpost route` would
    make from the same LON,LAT text (here, not in ``app.jobs``: one hop less per click)."""
    i = int(snap.node)
    # a turn copy's file node (issue 39); a map without turn restrictions has no copies,
    # so there is nothing to map back (maps.model.turns.copies_of's rule: none or empty)
    copies = net.meta.get("turn_copies")
    if copies is not None and len(copies):
        i = int(to_original(net, [i])[0])
    text = f"{snap.lon:.7f},{snap.lat:.7f}"
    return ResolvedPoint(text, i, int(net.node_ids[i]), float(net.lon[i]), float(net.lat[i]), snap)


class Fragments:
    """Weakly connected parts of one network, found on first use (one O(n + m) pass): the
    session's :attr:`Session.parts` (the route panel tells which part each point is on, an
    unreachable route why)."""

    def __init__(self):
        self.labels: np.ndarray | None = None
        self.sizes: np.ndarray | None = None

    def compute(self, net: RoadNetwork) -> None:
        """Find the parts now (a worker does, after a map opens)."""
        self._compute(net)

    def _compute(self, net: RoadNetwork) -> tuple[np.ndarray, np.ndarray]:
        """(labels, sizes) of ``net``'s parts, found once."""
        if self.labels is None or self.sizes is None or self.labels.shape[0] != net.num_nodes:
            from app.jobs.nogil import weak_components

            self.labels = weak_components(net.indptr, net.indices)  # the GUI keeps running
            self.sizes = np.bincount(self.labels)
        return self.labels, self.sizes

    def size_of(self, net: RoadNetwork, node: int) -> int:
        labels, sizes = self._compute(net)
        return int(sizes[labels[node]])

    def describe(self, net: RoadNetwork | None, source: int | None, target: int | None) -> str:
        """The part of the network each point is on, when it is not the largest one."""
        if net is None or net.num_nodes == 0:
            return "—"
        biggest = int(self._compute(net)[1].max())
        parts = []
        for name, node in (("from", source), ("to", target)):
            if node is None:
                continue
            size = self.size_of(net, int(node))
            if size < biggest:
                parts.append(f"{name}: a fragment of {size:,} nodes, cut off from the main "
                             f"network ({biggest:,} nodes)")
            else:
                parts.append(f"{name}: main network ({size:,} nodes)")
        return "; ".join(parts) or "—"

    def unreachable_reason(self, net: RoadNetwork, source: int | None, target: int | None) -> str:
        """Why no route may exist: the points on different fragments (with their sizes)."""
        if source is None or target is None:
            return ""
        labels, sizes = self._compute(net)
        a, b = labels[int(source)], labels[int(target)]
        if a == b:
            return "one-way streets lead away from the destination"
        return (f"the points are on separate parts of the network ({int(sizes[a]):,} and "
                f"{int(sizes[b]):,} nodes)")


class NoSnapping(PointError):
    """The map cannot be clicked on now; ``detail`` says why and what to do instead."""


@dataclass
class Session:
    snap_max_m: float = 1000.0
    # the route index of clicks: "auto", "on" or "off" (the window's RouteIndex sets "off"
    # while it loads or builds the map's own)
    index_policy: str = "auto"
    net: RoadNetwork | None = None  # the map as loaded
    graph: CSRGraph | None = None  # its graph (CSRGraph.from_any(net))
    snapper: Any = None  # the loaded map's snapping index (None: none yet, or none possible)
    snapper_pending: bool = False  # built on the loader thread, not there yet
    scenario: Any = None  # app.jobs.edits.Scenario once the map was edited
    source: int | None = None  # the route's ends (node indices of the search map)
    target: int | None = None
    result: Any = None  # the current one-to-all search (app.jobs.sssp result)
    # the weakly connected parts of the search map (the loaded map's found by the window's
    # warm-up; an edited map's found again on use)
    parts: Fragments = field(default_factory=Fragments)
    # what-if edits (the Edit tool is a view of these): the summaries of the edits applied
    # since the result on screen (None: unknown), and (source, result) of the unedited
    # map, the change view's reference
    applied_since: list | None = field(default_factory=list)
    base: tuple | None = None
    _edited_snapper: tuple | None = field(default=None, repr=False)  # (edited net, Snapper)
    _sssp_plan: SsspPlan | None = field(default=None, repr=False)  # the last searches' plan
    _routes: tuple | None = field(default=None, repr=False)  # (result, in search_net's numbering)

    def open(self, net: RoadNetwork, graph: CSRGraph | None = None, snapper: Any = None, *,
             defer_snapper: bool = False) -> None:
        """A new map: its graph and snapping index (``defer_snapper``: built elsewhere and
        set later); the old map's edits, points and result are gone."""
        self.net = net
        self.graph = graph if graph is not None else CSRGraph.from_any(net)
        self.snapper_pending = defer_snapper and snapper is None
        self.snapper = snapper if (snapper is not None or defer_snapper) else make_snapper(net)
        self.scenario = None
        self._edited_snapper = None
        self._sssp_plan = None
        self.source = self.target = self.result = None
        self.applied_since, self.base = [], None
        self.parts = Fragments()

    def sssp_plan(self, graph: Any, opts: SsspJobOptions, *, progress: Progress | None = None,
                  cancel: CancelCheck | None = None) -> SsspPlan:
        """The plan of one-to-all searches on ``graph`` under ``opts`` (any source): the
        last one while it fits (same map, options and index), else a new one. Asked on
        the compute worker, where a search runs: what a click resolves once per map."""
        plan = self._sssp_plan
        if plan is None or not plan.fits(graph, opts):
            plan = self._sssp_plan = SsspPlan(graph, opts, progress=progress, cancel=cancel)
        return plan

    def shown(self, result: Any) -> None:
        """``result`` is on screen for the current state of the graph (a search, or an
        edit's repair): no edit applied since; on the unedited map it is the base too."""
        self.result = result
        self.applied_since = []
        if result is not None and not self.edited:
            self.base = (self.source, result)  # the unedited map's own result

    @property
    def edited(self) -> bool:
        return self.scenario is not None and bool(self.scenario.edits)

    def search_graph(self) -> CSRGraph | None:
        """The graph searches run on: the edited one while the map has edits."""
        return self.scenario.graph if self.edited else self.graph

    def search_net(self) -> RoadNetwork | None:
        """The network routes are read from: the edited one while the map has edits."""
        return self.scenario.network() if self.edited else self.net

    # search_graph() and search_net() number vertices differently once a mid-road link
    # was added on a turn-restricted map (Scenario.network_order): points come as
    # search_net()'s nodes, searches run on search_graph(), routes are read from
    # search_net(); these two cross over
    def search_vertex(self, node: int) -> int:
        """Node ``node`` of :meth:`search_net` as a vertex of :meth:`search_graph`."""
        order = self.scenario.network_order() if self.edited else None
        return int(node) if order is None else int(order[int(node)])

    def route_result(self, res: Any) -> Any:
        """``res`` (a search of :meth:`search_graph`) in :meth:`search_net`'s numbering,
        for reading routes and costs by node (the field and the change view keep the
        graph's); made once per result."""
        order = self.scenario.network_order() if self.edited else None
        if order is None or res is None or res.dist.shape[0] != order.shape[0]:
            return res
        if self._routes is None or self._routes[0] is not res:
            from app.jobs.turn_search import renumbered

            self._routes = (res, renumbered(res, order))
        return self._routes[1]

    def search_snapper(self) -> Any:
        """The snapping index of :meth:`search_net` (None while it cannot be had)."""
        net = self.search_net()
        if net is self.net or net is None:
            return self.snapper
        if self._edited_snapper is None or self._edited_snapper[0] is not net:
            self._edited_snapper = (net, make_snapper(net))
        return self._edited_snapper[1]

    def snap(self, x: float, y: float) -> ResolvedPoint:
        """Map metres → the nearest road point of the search map, as `signpost route` would
        read the same LON,LAT; NoSnapping or PointError (``detail``) when there is none."""
        net = self.search_net()
        if self.net is None or net is None:
            raise NoSnapping("open a map first")
        if self.snapper is None:
            raise NoSnapping(
                "preparing the snapping index of this big map; click again in a moment"
                if self.snapper_pending else
                "this map has no coordinates or roads to click on: type node:ID points")
        snapper = self.search_snapper()
        s = snapper.snap(float(x), float(y), max_distance_m=self.snap_max_m)
        return click_point(net, s)

    def resolve(self, text: str) -> ResolvedPoint:
        """A typed point (LON,LAT or node:ID), by the same rule as :meth:`snap`."""
        net = self.search_net()
        if net is None:
            raise NoSnapping("open a map first")
        return resolve_texts(net, text, max_distance_m=self.snap_max_m,
                             snapper=self.search_snapper())[0]
