"""Snap a clicked or typed point to the nearest road arc (an edge, not a node).

:class:`Snapper` builds one shapely STRtree over the drawn geometry of every road arc
(tail → inner points → head, in the map's x/y metres) once, so repeated snaps are cheap
(OSMnx users asked for exactly that: nearest *edge*, preparation separate from queries).
Rail and transfer arcs are never snapped to: a traveller starts on a street.

shapely is imported when a Snapper is built, not when this module is imported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import PointError
from ..geo.projection import haversine_m, to_lonlat, to_xy
from ..model.network import KIND_ROAD, RoadNetwork

DEFAULT_MAX_DISTANCE_M = 1000.0


@dataclass(frozen=True)
class Snap:
    """Where a point lands on the network.

    ``arc`` is the arc index (into ``net.indices``), ``x``/``y`` and ``lon``/``lat`` the
    nearest point on it, ``distance_m`` how far the given point was from it,
    ``fraction`` the position along the arc's drawn length (0 = tail, 1 = head) and
    ``node`` the arc endpoint nearer along the arc (ties go to the tail): routes start
    and end there.
    """

    arc: int
    x: float
    y: float
    lon: float
    lat: float
    distance_m: float
    fraction: float
    node: int

    def as_dict(self) -> dict:
        return {
            "arc": self.arc,
            "lon": self.lon,
            "lat": self.lat,
            "distance_m": round(self.distance_m, 3),
            "fraction": round(self.fraction, 6),
            "node": self.node,
        }


def arc_polylines(net: RoadNetwork, arcs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates (k, 2) and per-point arc positions of the drawn polylines of ``arcs``.

    Each arc is tail, its inner points (``geom_xy``), head; built with array operations
    only, for shapely's vectorised ``linestrings(coords, indices=...)``.
    """
    arcs = np.asarray(arcs, dtype=np.int64)
    tails = net.arc_sources()[arcs]
    heads = net.indices[arcs]
    if net.geom_indptr is not None and net.geom_xy is not None and net.geom_xy.shape[0]:
        gstart = net.geom_indptr[arcs]
        inner = (net.geom_indptr[arcs + 1] - gstart).astype(np.int64)
    else:
        gstart = np.zeros(arcs.shape[0], dtype=np.int64)
        inner = np.zeros(arcs.shape[0], dtype=np.int64)
    cnt = inner + 2
    ends = np.cumsum(cnt)
    starts = ends - cnt
    coords = np.empty((int(ends[-1]) if cnt.size else 0, 2), dtype=np.float64)
    coords[starts, 0] = net.x[tails]
    coords[starts, 1] = net.y[tails]
    coords[ends - 1, 0] = net.x[heads]
    coords[ends - 1, 1] = net.y[heads]
    total_inner = int(inner.sum())
    if total_inner and net.geom_xy is not None:  # inner points only come with geom_xy
        within = np.arange(total_inner) - np.repeat(np.cumsum(inner) - inner, inner)
        src = np.repeat(gstart, inner) + within
        dst = np.repeat(starts + 1, inner) + within
        coords[dst] = net.geom_xy[src]
    return coords, np.repeat(np.arange(arcs.shape[0]), cnt)


class Snapper:
    """Nearest-road-arc queries on one network (the tree is built once, here)."""

    def __init__(self, net: RoadNetwork):
        if not net.has_coordinates:
            raise PointError(
                "this map has no coordinates (e.g. a DIMACS graph without its .co file): "
                "points must be given as node:ID",
                path=net.source_path or None,
            )
        import shapely  # lazy: the GPU machine has no shapely

        self.net = net
        self._shapely = shapely
        self.arcs = np.flatnonzero(net.edge_kind == KIND_ROAD)
        if self.arcs.size == 0:
            raise PointError("this map has no road arcs to snap to", path=net.source_path or None)
        coords, idx = arc_polylines(net, self.arcs)
        self.lines = shapely.linestrings(coords, indices=idx)
        self.tree = shapely.STRtree(self.lines)

    def arcs_within(self, x: float, y: float, radius: float) -> tuple[np.ndarray, np.ndarray]:
        """(positions in ``self.arcs``, distances m) of the road arcs drawn within
        ``radius`` metres of map point (x, y): what a click at some zoom may mean."""
        import shapely

        pt = shapely.Point(float(x), float(y))
        hit = self.tree.query(pt, predicate="dwithin", distance=radius)
        return hit, shapely.distance(self.lines[hit], pt)

    def snap(self, x: float, y: float, *, max_distance_m: float = DEFAULT_MAX_DISTANCE_M) -> Snap:
        """The nearest point on a road arc to map point (x, y) metres; PointError when it
        is farther than ``max_distance_m``."""
        shp = self._shapely
        if not (math.isfinite(x) and math.isfinite(y)):
            raise PointError(f"point ({x}, {y}) is not finite")
        pt = shp.Point(x, y)
        hit, dist = self.tree.query_nearest(pt, return_distance=True, all_matches=True)
        if hit.size == 0:  # cannot happen with a non-empty tree
            raise PointError("no road arc found", path=self.net.source_path or None)
        d = float(dist[0])
        if d > max_distance_m:
            lon, lat = to_lonlat(np.array([x]), np.array([y]), self.net.origin)
            raise PointError(
                f"point {lon[0]:.6f},{lat[0]:.6f} is {_fmt_m(d)} from the nearest road "
                f"(more than the {_fmt_m(max_distance_m)} allowed)",
                path=self.net.source_path or None,
            )
        # Several arcs at the same distance (both directions of a street): the lowest arc
        # index, so the answer does not depend on the tree's layout.
        k = int(np.min(self.arcs[hit]))
        line = self.lines[int(np.searchsorted(self.arcs, k))]
        frac = float(shp.line_locate_point(line, pt, normalized=True))
        if not math.isfinite(frac):  # zero-length arc
            frac = 0.0
        p = shp.line_interpolate_point(line, frac, normalized=True)
        px, py = float(shp.get_x(p)), float(shp.get_y(p))
        lon, lat = to_lonlat(np.array([px]), np.array([py]), self.net.origin)
        tail = int(np.searchsorted(self.net.indptr, k, side="right") - 1)
        head = int(self.net.indices[k])
        node = tail if frac <= 0.5 else head
        return Snap(k, px, py, float(lon[0]), float(lat[0]), d, frac, node)

    def snap_lonlat(
        self, lon: float, lat: float, *, max_distance_m: float = DEFAULT_MAX_DISTANCE_M
    ) -> Snap:
        """:meth:`snap` for a point in degrees (projected about the map's origin)."""
        check_lonlat(lon, lat)
        x, y = to_xy(np.array([lon]), np.array([lat]), self.net.origin)
        if not (np.isfinite(x[0]) and np.isfinite(y[0])):  # ~90 degrees from the map
            far = float(haversine_m(lon, lat, *self.net.origin))
            raise PointError(
                f"point {lon},{lat} is {_fmt_m(far)} from the map's centre, "
                f"far beyond the {_fmt_m(max_distance_m)} allowed",
                path=self.net.source_path or None,
            )
        s = self.snap(float(x[0]), float(y[0]), max_distance_m=math.inf)
        if s.distance_m > max_distance_m:
            # Report the distance on the sphere: far from the map the projection stretches.
            d = float(haversine_m(lon, lat, s.lon, s.lat))
            raise PointError(
                f"point {lon},{lat} is {_fmt_m(d)} from the nearest road "
                f"(more than the {_fmt_m(max_distance_m)} allowed)",
                path=self.net.source_path or None,
            )
        return s


def check_lonlat(lon: float, lat: float) -> None:
    """PointError unless lon/lat are finite degrees in range."""
    if not (math.isfinite(lon) and math.isfinite(lat)):
        raise PointError(f"coordinates {lon},{lat} are not finite numbers")
    if not -180.0 <= lon <= 180.0:
        raise PointError(f"longitude {lon} is outside -180..180")
    if not -90.0 <= lat <= 90.0:
        raise PointError(f"latitude {lat} is outside -90..90")


def _fmt_m(d: float) -> str:
    return f"{d / 1000:.1f} km" if d >= 10_000 else f"{d:.0f} m"
