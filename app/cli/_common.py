"""Helpers shared by the routing commands (info, route, sssp) and the GUI's ``--route``.

``add_map_arguments`` / ``open_map`` load a map the same way everywhere;
``resolve`` turns a typed point into a node; ``find_route`` runs one search and
``route_json`` builds the JSON object ``signpost route --json`` prints (the GUI reuses it
for ``signpost gui --route``). Nothing here imports Qt.
"""

from __future__ import annotations

import argparse
import math
import re
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.cli import CliError

PROFILE_HELP = (
    "weight profile: length (decimetres), walk, drive or multimodal (deciseconds); "
    "default length for geographic maps; omit it for DIMACS/PACE graphs (their weights "
    "come from the file)"
)


def add_map_arguments(p: argparse.ArgumentParser, *, profile: bool = True) -> None:
    p.add_argument("map", metavar="MAP", help="map file (.osm.pbf, .osm, .gr, .graphml, ...)")
    if profile:
        p.add_argument("--profile", default=None, help=PROFILE_HELP)
    p.add_argument("--contract", action="store_true", help="merge degree-2 chains on load")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the load cache")


def add_search_arguments(p: argparse.ArgumentParser) -> None:
    from gpu_core.backend import BACKENDS
    from gpu_core.sssp import STRATEGIES

    p.add_argument(
        "--strategy", default="auto", choices=STRATEGIES, help="SSSP strategy (default auto)"
    )
    p.add_argument(
        "--backend", default="auto", choices=BACKENDS, help="compute backend (default auto)"
    )
    p.add_argument(
        "--max-snap",
        type=_snap_limit,
        default=1000.0,
        metavar="M",
        help="farthest a LON,LAT point may lie from a road, metres (default 1000)",
    )


def _snap_limit(text: str) -> float:
    """--max-snap: metres, a number >= 0 (inf allowed); argparse reports anything else."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of metres") from None
    if not v >= 0:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"{text!r}: give a distance of 0 metres or more")
    return v


_NEGATIVE_POINT = re.compile(r"^-\d+$|^-\d*\.\d+$|^-[\d.]+(?:[eE][-+]?\d+)?\s*,\s*[-+]?[\d.]")


def allow_negative_points(p: argparse.ArgumentParser) -> None:
    """Let ``--from -73.98,40.73`` through: argparse would take "-73.98,40.73" for an
    option (its negative-number rule only knows plain numbers). Western longitudes are
    common, so the parser's rule is widened to LON,LAT pairs; ``--from=...`` works too."""
    if hasattr(p, "_negative_number_matcher"):
        p._negative_number_matcher = _NEGATIVE_POINT


def open_map(args: argparse.Namespace):
    """Load ``args.map`` with ``args.profile`` (None: the format's default)."""
    from maps.load import load_map

    use_cache = not getattr(args, "no_cache", False)
    return load_map(
        args.map,
        profile=getattr(args, "profile", None),
        contract=getattr(args, "contract", False),
        use_cache=use_cache,
    )


def resolve(net, text: str, *, snapper=None, max_distance_m: float = 1000.0):
    """A typed point (LON,LAT or node:ID) → maps.points.ResolvedPoint."""
    from maps.points import resolve_point

    return resolve_point(net, text, snapper=snapper, max_distance_m=max_distance_m)


def make_snapper(net, *texts: str):
    """One Snapper shared by several LON,LAT points (None when none needs it)."""
    from maps.points import parse_point
    from maps.snap import Snapper

    if any(not parse_point(t).is_node for t in texts) and net.has_coordinates:
        return Snapper(net)
    return None


@dataclass
class Route:
    """One least-cost route read back from an SSSP result."""

    nodes: np.ndarray  # node indices, source..target
    arcs: np.ndarray  # arc indices used, len(nodes)-1
    cost: int
    result: Any  # gpu_core.sssp.SSSPResult


def find_route(net, src, dst, *, strategy: str = "auto", backend: str = "auto") -> Route:
    """The least-cost route src → dst (resolved points); UnreachableError when none."""
    from gpu_core.sssp import sssp
    from maps.errors import UnreachableError

    res = sssp(net, src.node, strategy=strategy, backend=backend, target=dst.node)
    cost = int(res.dist[dst.node])
    if cost < 0:
        _, label = net.components()
        why = (
            "different components"
            if label[src.node] != label[dst.node]
            else "one-way arcs allow no route in this direction"
        )
        raise UnreachableError(
            f"unreachable: no route from {src.text} (node {src.node_id}) to {dst.text} "
            f"(node {dst.node_id}) ({why})",
            path=net.source_path or None,
        )
    nodes = res.path_to(dst.node)
    arcs = route_arcs(net, nodes, res.dist)
    return Route(nodes=nodes, arcs=arcs, cost=cost, result=res)


def route_arcs(net, nodes: np.ndarray, dist: np.ndarray | None = None) -> np.ndarray:
    """The arc used between each pair of consecutive route nodes: one whose weight equals
    the cost step (the lightest parallel arc when several qualify)."""
    out = np.empty(max(len(nodes) - 1, 0), dtype=np.int64)
    for i in range(len(nodes) - 1):
        u, v = int(nodes[i]), int(nodes[i + 1])
        lo, hi = int(net.indptr[u]), int(net.indptr[u + 1])
        hits = lo + np.flatnonzero(net.indices[lo:hi] == v)
        if hits.size == 0:
            raise CliError(f"internal error: route step {u}->{v} has no arc")
        if dist is not None:
            step = int(dist[v]) - int(dist[u])
            exact = hits[net.weights[hits] == step]
            hits = exact if exact.size else hits
        out[i] = int(hits[np.argmin(net.weights[hits])])
    return out


def path_lonlat(net, route: Route) -> list[list[float]]:
    """[lon, lat] points of the route following each arc's drawn geometry ([] without
    coordinates)."""
    if not net.has_coordinates or len(route.nodes) == 0:
        return []
    from maps.projection import to_lonlat

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


def unit_info(net) -> dict[str, Any]:
    from maps.network import WEIGHT_UNITS

    return {"unit": net.unit, "unit_name": WEIGHT_UNITS.get(net.unit, net.unit)}


def travel_time_s(net, cost: int) -> float | None:
    """Seconds for a cost in deciseconds, None for other units."""
    return cost / 10.0 if net.unit == "ds" else None


def fmt_duration(seconds: float) -> str:
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h} h {m:02d} min {s:02d} s" if h else f"{m} min {s:02d} s" if m else f"{s} s"


def route_json(net, src, dst, route: Route, *, map_path: str | None = None) -> dict[str, Any]:
    """The JSON object of ``signpost route --json`` (also the GUI's ``--route`` result).

    Keys: ``map``, ``profile``, ``unit``, ``unit_name``, ``cost`` (int, in ``unit``),
    ``time_s`` (when the unit is time, else null), ``length_m`` (null without
    coordinates), ``nodes`` (node count),
    ``arcs``, ``node_ids``, ``path`` ([lon, lat] following arc geometry, from the start
    node to the end node; [] without coordinates), ``from``/``to`` (input, node,
    node_id, lon, lat, snap), ``strategy``, ``backend``, ``device``, ``search_ms``,
    ``phases``. Routes start and end at the snapped arcs' nearer endpoints.
    """
    res = route.result
    route = Route(
        nodes=np.asarray(route.nodes, dtype=np.int64),
        arcs=np.asarray(route.arcs, dtype=np.int64),
        cost=int(route.cost),
        result=res,
    )
    length = float(np.asarray(net.edge_length, dtype=np.float64)[route.arcs].sum())
    if not net.has_coordinates:
        length = math.nan  # a DIMACS graph without .co has no lengths (JSON null)
    return {
        "map": map_path if map_path is not None else net.source_path,
        "profile": net.profile,
        **unit_info(net),
        "cost": int(route.cost),
        "time_s": travel_time_s(net, route.cost),
        "length_m": round(length, 3),
        "nodes": int(len(route.nodes)),
        "arcs": int(len(route.arcs)),
        "node_ids": net.node_labels()[route.nodes].tolist(),
        "path": path_lonlat(net, route),
        "from": src.as_dict(),
        "to": dst.as_dict(),
        "strategy": res.strategy,
        "backend": res.backend,
        "device": res.device,
        "search_ms": round(res.elapsed_s * 1000.0, 3),
        "phases": int(len(res.phases)),
    }


def plan_route(
    net,
    from_text: str,
    to_text: str,
    *,
    strategy: str = "auto",
    backend: str = "auto",
    max_distance_m: float = 1000.0,
    map_path: str | None = None,
) -> dict[str, Any]:
    """Resolve two typed points, route between them and return :func:`route_json`'s
    object (NaN made null): everything ``signpost route --json`` and ``gui --route`` do.
    Raises PointError, NodeNotFoundError, UnreachableError, GpuCoreError."""
    snapper = make_snapper(net, from_text, to_text)
    src = resolve(net, from_text, snapper=snapper, max_distance_m=max_distance_m)
    dst = resolve(net, to_text, snapper=snapper, max_distance_m=max_distance_m)
    route = find_route(net, src, dst, strategy=strategy, backend=backend)
    return json_safe(route_json(net, src, dst, route, map_path=map_path))


def json_safe(obj: Any) -> Any:
    """Replace NaN/inf floats by None (JSON has no NaN)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


class Timer:
    """Wall-clock seconds of a block: ``with Timer() as t: ...; t.s``."""

    def __enter__(self) -> Timer:
        self.t0 = time.perf_counter()
        self.s = 0.0
        return self

    def __exit__(self, *exc) -> None:
        self.s = time.perf_counter() - self.t0
