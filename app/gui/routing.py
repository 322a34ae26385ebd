"""Points, snapping and routes read from a finished search (no Qt: the bench times these).

Snapping and typed points go through ``maps.snap`` / ``maps.points``, exactly as
``signpost route`` does, so a click and the CLI pick the same nodes. A route is read from the predecessor array of
the search that is already on screen: moving the destination never searches again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from gpu_core.keys import NO_PRED, UNREACHABLE
from maps.errors import PointError, UnreachableError
from maps.network import RoadNetwork
from maps.projection import to_lonlat

DEFAULT_SNAP_M = 1000.0  # as `signpost route --max-snap`


# ---- points ---------------------------------------------------------------------------
def make_snapper(net: RoadNetwork):
    """maps.snap.Snapper(net), or None when the map cannot be snapped to (no coordinates,
    no road arcs): then only typed node:ID points work."""
    from maps.snap import Snapper

    try:
        return Snapper(net)
    except PointError:
        return None


def resolve_point(net: RoadNetwork, snapper, text: str, max_distance_m: float = DEFAULT_SNAP_M):
    """'LON,LAT' (snapped) or 'node:ID' → maps.points.ResolvedPoint, as `signpost route` reads them."""
    from maps.points import resolve_point as resolve

    return resolve(net, text, snapper=snapper, max_distance_m=max_distance_m)


def click_point(net: RoadNetwork, snap) -> object:
    """A clicked point (a maps.snap.Snap) as the ResolvedPoint `signpost route` would make
    from the same LON,LAT text."""
    from maps.points import ResolvedPoint

    i = int(snap.node)
    text = f"{snap.lon:.7f},{snap.lat:.7f}"
    return ResolvedPoint(text, i, int(net.node_ids[i]), float(net.lon[i]), float(net.lat[i]), snap)


def node_point(net: RoadNetwork, i: int) -> object:
    from maps.points import ResolvedPoint

    return ResolvedPoint(f"node:{int(net.node_ids[i])}", int(i), int(net.node_ids[i]),
                         float(net.lon[i]), float(net.lat[i]), None)


# ---- routes ---------------------------------------------------------------------------
@dataclass
class RouteInfo:
    """One route read from a search: nodes, cost and its drawing geometry."""

    source: int
    target: int
    nodes: np.ndarray  # int32 node indices source..target
    arcs: np.ndarray  # int64 arc indices along the route
    cost: int
    unit: str
    length_m: float
    xs: np.ndarray = field(default_factory=lambda: np.zeros(0))  # polyline in metres
    ys: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def num_nodes(self) -> int:
        return int(self.nodes.shape[0])

    def travel_time_s(self) -> float | None:
        """Seconds when the weights are times (unit "ds"), else None."""
        return self.cost / 10.0 if self.unit == "ds" else None


def path_from_pred(pred: np.ndarray, dist: np.ndarray, target: int) -> np.ndarray:
    """Nodes source..target along the predecessor tree (empty when unreached)."""
    if dist[target] == UNREACHABLE:
        return np.zeros(0, dtype=np.int32)
    out = [int(target)]
    n = pred.shape[0]
    p = pred.tolist() if n < 4096 else pred  # list indexing is faster for small maps
    while p[out[-1]] != NO_PRED:
        out.append(int(p[out[-1]]))
        if len(out) > n:
            raise RuntimeError("predecessor array has a cycle")
    return np.array(out[::-1], dtype=np.int32)


def route_arcs(net: RoadNetwork, nodes: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """The arc used for each hop: one whose weight equals the cost step (the first such in
    the weight-sorted row, i.e. the lightest), found for all hops at once."""
    h = max(nodes.shape[0] - 1, 0)
    if h == 0:
        return np.zeros(0, dtype=np.int64)
    u = nodes[:-1].astype(np.int64)
    v = nodes[1:].astype(np.int64)
    lo = net.indptr[u].astype(np.int64)
    deg = net.indptr[u + 1].astype(np.int64) - lo
    hop = np.repeat(np.arange(h), deg)
    idx = np.arange(int(deg.sum()), dtype=np.int64) + np.repeat(lo - (np.cumsum(deg) - deg), deg)
    same_head = net.indices[idx] == v[hop]
    exact = same_head & (net.weights[idx].astype(np.int64) == (dist[v] - dist[u])[hop])
    out = np.full(h, -1, dtype=np.int64)
    for mask in (same_head, exact):  # exact matches overwrite the plain ones
        k = np.flatnonzero(mask)
        first_hop, first = np.unique(hop[k], return_index=True)
        out[first_hop] = idx[k[first]]
    if (out < 0).any():
        bad = int(np.flatnonzero(out < 0)[0])
        raise RuntimeError(f"route step {int(u[bad])}->{int(v[bad])} has no arc")
    return out


def route_polyline(net: RoadNetwork, nodes: np.ndarray, arcs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x/y metres of the route including the inner points of contracted arcs."""
    if nodes.shape[0] == 0:
        return np.zeros(0), np.zeros(0)
    if net.geom_indptr is None or net.geom_xy is None or not net.geom_xy.shape[0]:
        return net.x[nodes].copy(), net.y[nodes].copy()
    xs, ys = [net.x[nodes[:1]]], [net.y[nodes[:1]]]
    for i, a in enumerate(arcs.tolist()):
        g = net.geom_xy[net.geom_indptr[a] : net.geom_indptr[a + 1]]
        xs += [g[:, 0], net.x[nodes[i + 1 : i + 2]]]
        ys += [g[:, 1], net.y[nodes[i + 1 : i + 2]]]
    return np.concatenate(xs), np.concatenate(ys)


def read_route(net: RoadNetwork, dist: np.ndarray, pred: np.ndarray, source: int, target: int) -> RouteInfo:
    """The route source→target from a finished search; UnreachableError when there is none."""
    if dist[target] == UNREACHABLE:
        raise UnreachableError(
            f"no route from node {int(net.node_ids[source])} to node {int(net.node_ids[target])}"
        )
    nodes = path_from_pred(pred, dist, target)
    arcs = route_arcs(net, nodes, dist)
    length = float(net.edge_length[arcs].astype(np.float64).sum()) if arcs.size else 0.0
    xs, ys = route_polyline(net, nodes, arcs)
    return RouteInfo(source, target, nodes, arcs, int(dist[target]), net.unit, length, xs, ys)


def route_lonlat(net: RoadNetwork, route: RouteInfo) -> list[list[float]]:
    """[lon, lat] of the route polyline (inner points unprojected)."""
    if net.geom_xy is None or not route.xs.size or route.xs.shape[0] == route.nodes.shape[0]:
        return [[float(a), float(b)] for a, b in zip(net.lon[route.nodes], net.lat[route.nodes], strict=False)]
    lon, lat = to_lonlat(route.xs, route.ys, net.origin)
    return [[float(a), float(b)] for a, b in zip(lon, lat, strict=False)]


def route_json(net: RoadNetwork, route: RouteInfo, src, dst, result, *, map_path: str | None = None) -> dict:
    """The `signpost route --json` object (app/cli/_common.route_json, not a copy of it).

    ``src``/``dst`` are maps.points.ResolvedPoint, ``result`` the SSSPResult on screen.
    """
    from app.cli._common import Route, json_safe
    from app.cli._common import route_json as build

    r = Route(nodes=route.nodes, arcs=route.arcs, cost=int(route.cost), result=result)
    return json_safe(build(net, src, dst, r, map_path=map_path))


def dumps(obj: dict) -> str:
    return json.dumps(obj, indent=2)
