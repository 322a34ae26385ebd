"""The route job: one least-cost route between two points, and reading routes back from a
finished search (the GUI moves a destination without searching again).

One route type (:class:`Route`), one path reader (:func:`path_nodes`), one
:func:`route_arcs` and one builder of the ``signpost route --json`` object
(:func:`route_json`) serve the CLI, ``signpost gui --route`` and the window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpu_core.keys import NO_PRED, UNREACHABLE, UNREACHABLE_NEG
from maps.errors import UnreachableError
from maps.model.network import RoadNetwork
from maps.model.turns import best_copy, copies_of, unrestricted_csr

from .common import CancelCheck, Progress, cycle_with_file_ids, json_safe, report, unit_info
from .maps import resolve_texts


@dataclass(frozen=True)
class RouteOptions:
    from_text: str  # LON,LAT or node:ID
    to_text: str
    strategy: str = "auto"
    backend: str = "auto"
    max_distance_m: float = 1000.0  # --max-snap
    map_path: str | None = None  # the "map" of the JSON (default: the network's path)
    index: str = "auto"  # the search index (app.jobs.sssp.search_index): auto, on, off


@dataclass
class Route:
    """One least-cost route read from a search: nodes, arcs, cost and its drawing."""

    source: int
    target: int
    nodes: np.ndarray  # int32 node indices source..target
    arcs: np.ndarray  # int64 arc indices along the route
    cost: int
    unit: str
    length_m: float
    xs: np.ndarray = field(default_factory=lambda: np.zeros(0))  # polyline in metres
    ys: np.ndarray = field(default_factory=lambda: np.zeros(0))
    result: Any = None  # the gpu_core.sssp.SSSPResult it was read from

    @property
    def num_nodes(self) -> int:
        return int(self.nodes.shape[0])

    def travel_time_s(self) -> float | None:
        """Seconds when the weights are times (unit "ds"), else None."""
        return travel_time_s(self.unit, self.cost)


@dataclass
class RouteResult:
    route: Route
    source: Any  # maps.points.resolve.ResolvedPoint
    target: Any
    json: dict  # the `signpost route --json` object


def run(net: RoadNetwork, opts: RouteOptions, *, progress: Progress | None = None,
        cancel: CancelCheck | None = None) -> RouteResult:
    """Resolve the two points, search and read the route. Raises PointError,
    NodeNotFoundError, UnreachableError, GpuCoreError."""
    from gpu_core.sssp import SSSPOptions, sssp

    from .common import small_work
    from .sssp import search_index

    report(progress, None, "snapping the points (road index)")
    src, dst = resolve_texts(net, opts.from_text, opts.to_text,
                             max_distance_m=opts.max_distance_m)
    index = search_index(net, opts.strategy, opts.index, backend=opts.backend,
                         progress=progress, cancel=cancel)
    report(progress, None, "searching")
    copies = copies_of(net)
    # a target with turn copies is reached through any of them: no early stop at one
    many = copies is not None and bool((copies == dst.node).any())
    with cycle_with_file_ids(net):
        res = sssp(net, src.node, strategy=opts.strategy, backend=opts.backend,
                   target=None if many else dst.node, cancel=cancel, index=index,
                   options=SSSPOptions(small_work=small_work(net)))
    end = best_copy(net, res.dist, dst.node, res.unreachable) if many else dst.node
    if not res.reached[end]:
        raise UnreachableError(
            f"unreachable: no route from {src.text} (node {src.node_id}) to {dst.text} "
            f"(node {dst.node_id}) ({explain_unreachable(net, src, dst)})",
            path=net.source_path or None,
        )
    route = read_route(net, res, src.node, end)
    out = route_json(net, route, src, dst, map_path=opts.map_path)
    if copies is not None and "turn_restrictions" in net.meta:
        out["turn_restrictions"] = turn_detour(net, src.node, dst.node, route.cost, opts.backend)
    if "turn_penalty" in net.meta:  # --turn-penalty (maps.model.turn_penalties)
        out["turn_penalty"] = dict(net.meta["turn_penalty"])
    return RouteResult(route, src, dst, out)


def turn_detour(net: RoadNetwork, source: int, target: int, cost: int,
                backend: str) -> dict[str, Any]:
    """``route --json``'s ``turn_restrictions``: the cost the route would have if the map's
    turn bans were lifted (``cost_without``), and ``detour`` (true when a ban made it dearer:
    the route turns away from a banned turn), with the map's counts."""
    from gpu_core.graph import CSRGraph
    from gpu_core.sssp import sssp

    csr = unrestricted_csr(net)
    assert csr is not None  # callers ask only on a map with turn copies
    indptr, heads, w = csr
    res = sssp(CSRGraph(indptr, heads, w), source, backend=backend, target=target)
    free = int(res.dist[target]) if res.reached[target] else None
    tr = net.meta.get("turn_restrictions", {})
    return {"applied": tr.get("applied", 0), "cost_without": free,
            "detour": free is not None and free < cost,
            "extra_cost": (cost - free) if free is not None else None}


# A LON,LAT point snapped farther than this from where it was typed or clicked is likely
# not where the user meant: `signpost route` warns on stderr, the app flags it in the
# Route panel, and an unreachable route names it (one threshold for all three).
FAR_SNAP_M = 150.0


def far_snap_warnings(src, dst) -> list[str]:
    """One line per point (maps.points.resolve.ResolvedPoint) snapped farther than
    :data:`FAR_SNAP_M` from where it was given: it probably lies outside the map."""
    out = []
    for role, pt in (("start", src), ("end", dst)):
        if pt.snap is not None and pt.snap.distance_m > FAR_SNAP_M:
            out.append(f"the {role} point {pt.text} is {pt.snap.distance_m:,.0f} m from the "
                       f"nearest road (outside the map?); the route {'starts' if role == 'start' else 'ends'} "
                       f"at node {pt.node_id}, {pt.lon:.5f},{pt.lat:.5f}")
    return out


def explain_unreachable(net: RoadNetwork, src, dst) -> str:
    """Why ``src`` cannot reach ``dst`` (maps.points.resolve.ResolvedPoint): the parts of the
    network each lies on, with the size of a fragment cut off from the main part, how far
    a point was snapped when that is far, and a hint when LON,LAT look swapped."""
    from maps.points.resolve import swapped_hint

    _, label = net.components()
    sizes = np.bincount(label)
    main = int(sizes.max())
    notes = ["different components" if label[src.node] != label[dst.node]
             else "one-way arcs allow no route in this direction"]
    for role, pt in (("start", src), ("end", dst)):
        size = int(sizes[label[pt.node]])
        if size < main:
            notes.append(f"the {role} lies on a fragment of {size:,} node{'s' * (size != 1)} "
                         f"cut off from the main network ({main:,} nodes)")
        if pt.snap is not None and pt.snap.distance_m > FAR_SNAP_M:
            notes.append(f"the {role} {pt.text} was snapped {pt.snap.distance_m:,.0f} m to "
                         "the nearest road")
        hint = swapped_hint(net, pt.text)
        if hint:
            notes.append(f"{role}: {hint}")
    return "; ".join(notes)


def _unreached(pred: np.ndarray, dist: np.ndarray, target: int) -> bool:
    """Whether no route reaches ``target``. With negative arcs -1 is a real cost (then
    unreached is UNREACHABLE_NEG), but a reached non-source always has a predecessor and a
    source without one costs 0, so -1 with no predecessor still means unreached."""
    d = int(dist[target])
    return d == UNREACHABLE_NEG or (d == UNREACHABLE and pred[target] == NO_PRED)


def path_nodes(pred: np.ndarray, dist: np.ndarray, target: int) -> np.ndarray:
    """Nodes source..target along the predecessor tree (empty when unreached)."""
    if _unreached(pred, dist, target):
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
    the weight-sorted row, i.e. the lightest; else the lightest arc to that head), found
    for all hops at once."""
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
        raise RuntimeError(f"internal error: route step {int(u[bad])}->{int(v[bad])} has no arc")
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


def read_route(net: RoadNetwork, result, source: int, target: int) -> Route:
    """The route source→target from a finished search (a gpu_core SSSPResult);
    UnreachableError when there is none."""
    dist = result.dist
    if _unreached(result.pred, dist, target):
        raise UnreachableError(
            f"no route from node {int(net.node_ids[source])} to node {int(net.node_ids[target])}"
        )
    nodes = path_nodes(result.pred, dist, target)
    arcs = route_arcs(net, nodes, dist)
    length = float(net.edge_length[arcs].astype(np.float64).sum()) if arcs.size else 0.0
    xs, ys = route_polyline(net, nodes, arcs)
    return Route(source, target, nodes, arcs, int(dist[target]), net.unit, length, xs, ys, result)


def route_lonlat(net: RoadNetwork, route: Route) -> list[list[float]]:
    """[lon, lat] of the route polyline (inner points unprojected), for exports."""
    from maps.geo.projection import to_lonlat

    if net.geom_xy is None or not route.xs.size or route.xs.shape[0] == route.nodes.shape[0]:
        return [[float(a), float(b)] for a, b in zip(net.lon[route.nodes], net.lat[route.nodes], strict=False)]
    lon, lat = to_lonlat(route.xs, route.ys, net.origin)
    return [[float(a), float(b)] for a, b in zip(lon, lat, strict=False)]


def path_lonlat(net: RoadNetwork, route: Route) -> list[list[float]]:
    """[lon, lat] points of the route for its JSON: the nodes' own coordinates with each
    arc's inner points between, rounded to 7 decimals ([] without coordinates)."""
    if not net.has_coordinates or len(route.nodes) == 0:
        return []
    from maps.geo.projection import to_lonlat

    pts: list[list[float]] = [[float(net.lon[route.nodes[0]]), float(net.lat[route.nodes[0]])]]
    for k, a in enumerate(route.arcs.tolist()):
        if net.geom_indptr is not None and net.geom_xy is not None:
            g = net.geom_xy[net.geom_indptr[a] : net.geom_indptr[a + 1]]
            if len(g):
                lo, la = to_lonlat(g[:, 0], g[:, 1], net.origin)
                pts.extend([float(x), float(y)] for x, y in zip(lo, la, strict=True))
        v = int(route.nodes[k + 1])
        pts.append([float(net.lon[v]), float(net.lat[v])])
    return [[round(x, 7), round(y, 7)] for x, y in pts]


def travel_time_s(unit: str, cost: int) -> float | None:
    """Seconds for a cost in a time unit (deciseconds, or a --weight column's), else None."""
    from maps.model.weights import seconds_of

    return seconds_of(unit, cost)


def route_json(net: RoadNetwork, route: Route, src, dst, *, map_path: str | None = None) -> dict[str, Any]:
    """The JSON object of ``signpost route --json`` (also ``signpost gui --route``'s),
    NaN made null.

    Keys: ``map``, ``profile``, ``unit``, ``unit_name``, ``cost`` (int, in ``unit``),
    ``time_s`` (when the unit is time, else null), ``length_m`` (null without
    coordinates), ``nodes`` (node count), ``arcs``, ``node_ids``, ``path`` ([lon, lat]
    following arc geometry, from the start node to the end node; [] without coordinates),
    ``from``/``to`` (input, node, node_id, lon, lat, snap), ``strategy``, ``backend``,
    ``device``, ``search_ms``, ``phases``; ``edits`` (arcs changed) on a map edited by
    ``app.jobs.edits``. Routes start and end at the snapped arcs'
    nearer endpoints. ``src``/``dst`` are maps.points.resolve.ResolvedPoint.
    """
    res = route.result
    nodes = np.asarray(route.nodes, dtype=np.int64)
    arcs = np.asarray(route.arcs, dtype=np.int64)
    length = float(np.asarray(net.edge_length, dtype=np.float64)[arcs].sum())
    if not net.has_coordinates:
        length = math.nan  # a DIMACS graph without .co has no lengths (JSON null)
    cost = int(route.cost)
    # an edited map (app.jobs.edits) says how many arcs the edits changed; others add nothing
    edits = {"edits": int(net.meta["edits"])} if "edits" in net.meta else {}
    return json_safe({
        "map": map_path if map_path is not None else net.source_path,
        "profile": net.profile,
        **unit_info(net),
        "cost": cost,
        "time_s": travel_time_s(net.unit, cost),
        "length_m": round(length, 3),
        "nodes": int(len(nodes)),
        "arcs": int(len(arcs)),
        "node_ids": net.node_labels()[nodes].tolist(),
        "path": path_lonlat(net, route),
        "from": src.as_dict(),
        "to": dst.as_dict(),
        "strategy": res.strategy,
        "backend": res.backend,
        "device": res.device,
        "search_ms": round(res.elapsed_s * 1000.0, 3),
        "phases": int(len(res.phases)),
        **edits,
    })

