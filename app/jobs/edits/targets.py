"""From an edit's target to arc ids of the current (edited) graph: ``nodes``, ``way``,
``point`` (snapped like routes) and ``polygon`` (shapely, every arc with a part inside).

"Current" arcs are those neither deleted nor replaced by a split (an arc split by an
added link is represented by its pieces, which keep its way id, class and kind)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gpu_core.dynamic import ARC_DELETED
from maps.errors import MapError, PointError
from maps.formats.registry import kinds_where
from maps.geo.projection import haversine_m, to_lonlat, to_xy
from maps.model.network import KIND_ROAD
from maps.model.turns import same_node

from .model import Edit, EditError

# Formats whose arcs carry no way / feature id (edge_source_id is a line number there).
NO_WAY_FORMATS = kinds_where("way_ids", False)


@dataclass(frozen=True)
class Hit:
    """Where a point snaps: arc id, the nearest point on it (x/y metres), how far."""

    arc: int
    x: float
    y: float
    distance_m: float


class Targets:
    """Spatial and id indexes over the base map (built on first use) plus the inserted
    arcs of the scenario ``sc``."""

    def __init__(self, sc, snapper=None):
        self.sc = sc
        self._snapper = snapper
        self._tree = None  # STRtree over every base arc's polyline (polygons)
        self._lines = None
        self._way_order: np.ndarray | None = None

    def share(self, other: Targets) -> None:
        """Use ``other``'s indexes of the same base map (built once per map)."""
        self._snapper = self._snapper or other._snapper
        self._tree, self._lines, self._way_order = other._tree, other._lines, other._way_order

    @property
    def net(self):
        return self.sc.base

    # ---- current arcs -------------------------------------------------------------------
    def current(self, ids) -> list[int]:
        """``ids`` with replaced arcs swapped for their pieces (recursively) and deleted
        ones dropped, in order, without repeats."""
        state = self.sc.graph.host.state  # the host mirror's state byte per arc id
        out: list[int] = []
        seen: set[int] = set()
        stack = [int(e) for e in reversed(list(ids))]
        while stack:
            e = stack.pop()
            if e in seen:
                continue
            seen.add(e)
            pieces = self.sc._replaced.get(e)
            if pieces is not None:
                stack.extend(reversed(pieces))
            elif state[e] != ARC_DELETED:
                out.append(e)
        return out

    def same(self, x: int) -> list[int]:
        """``x``'s original and every turn copy of it: the map's own (``maps.model.turns``)
        and those made by turn edits (``Scenario.turn_copies``)."""
        copies = self.sc.turn_copies
        o = copies.get(x, x)
        base = same_node(self.net, o) if o < self.sc.store.n else [o]
        return base + [k for k, c in copies.items() if c == base[0]] if copies else base

    def between(self, u: int, v: int) -> list[int]:
        """Current arcs u -> v (base row and inserted arcs; split ones as their pieces);
        on a turn-restricted map from every copy of u into every copy of v."""
        st = self.sc.store
        us, vs = self.same(u), np.asarray(self.same(v), dtype=np.int64)
        ids: list[int] = []
        for t in us:
            if t < st.n:
                lo, hi = int(self.net.indptr[t]), int(self.net.indptr[t + 1])
                ids.extend((lo + np.flatnonzero(np.isin(self.net.indices[lo:hi], vs))).tolist())
        if st.tail:
            ids.extend((st.m + np.flatnonzero(np.isin(st.ext("tail"), us)
                                              & np.isin(st.ext("head"), vs))).tolist())
        return self.current(ids)

    # ---- nodes ----------------------------------------------------------------------------
    def node(self, key, label: str) -> int:
        """The vertex of a source-file node id (ints, or GraphML names as written); the
        vertices added by earlier edits are -1, -2, ... (as ``network()`` names them)."""
        names = self.net.meta.get("node_names")
        if names:
            text = str(key)
            for i, name in enumerate(names):
                if str(name) == text:
                    return self.net.index_of(i + 1)
        elif isinstance(key, int):
            try:
                return self.net.index_of(key)
            except MapError:
                pass
        else:
            raise EditError(label, f"node {key!r} is not a node id of this map (ids are integers)")
        if isinstance(key, int) and 0 < -key <= len(self.sc.store.vx):
            return self.sc.store.n - key - 1
        if self.net.meta.get("contracted"):
            raise EditError(label, f"node {key} is not a node of the contracted map (--contract "
                                   "merged it into a chain)")
        raise EditError(label, f"node {key} is not on this map")

    def nodes(self, edit: Edit, label: str) -> list[int]:
        assert edit.nodes is not None  # resolve: an edit of nodes
        a_key, b_key = edit.nodes
        a, b = self.node(a_key, label), self.node(b_key, label)
        ids = self.between(a, b)
        back = self.between(b, a)
        if not edit.oneway:
            ids += back
        if not ids:
            if edit.oneway and back:
                raise EditError(label, f"no arc from node {a_key} to node {b_key} (only "
                                       f"{b_key} -> {a_key}: arc:{b_key},{a_key})")
            raise EditError(label, f"nodes {a_key} and {b_key} share no arc")
        return ids

    # ---- ways -----------------------------------------------------------------------------
    def way(self, edit: Edit, label: str) -> list[int]:
        fmt = self.net.meta.get("format")
        if fmt in NO_WAY_FORMATS:
            raise EditError(label, f"way ids address OSM ways and GraphML/GeoJSON features; a "
                                   f"{fmt.upper()} map has none (use nodes:A,B or arc:A,B)")
        try:
            wid = int(str(edit.way).strip())
        except ValueError:
            raise EditError(label, f"way {edit.way!r} is not an id of this map (way ids are "
                                   "integers)") from None
        if not -(2**63) <= wid < 2**63:
            raise EditError(label, f"way {edit.way} is out of range (ids are 64-bit integers)")
        if wid == -1:  # what arcs without an id (and added links) carry
            raise EditError(label, "way -1 is not an id: it marks arcs that have none")
        src = self.net.edge_source_id
        if self._way_order is None:
            self._way_order = np.argsort(src, kind="stable")
        lo, hi = np.searchsorted(src[self._way_order], [wid, wid + 1 if wid < 2**63 - 1 else wid])
        ids = self._way_order[lo:hi].tolist()
        st = self.sc.store
        if st.src:
            ids += (st.m + np.flatnonzero(st.ext("src") == wid)).tolist()
        ids = self.current(sorted(ids))
        if not ids:
            raise EditError(label, f"way {edit.way} is not on this map")
        return ids

    # ---- points ---------------------------------------------------------------------------
    def _base_snapper(self, label: str):
        if self._snapper is None:
            from maps.points.snap import Snapper

            try:
                self._snapper = Snapper(self.net)
            except PointError as exc:
                raise EditError(label, exc.detail) from None
        return self._snapper

    def _check_coordinates(self, label: str) -> None:
        if not self.net.has_coordinates:
            raise EditError(label, "this map has no coordinates (a DIMACS graph without its "
                                   ".co file?): address roads as nodes:A,B or arc:A,B")

    def snap(self, lon: float, lat: float, label: str, *, live_only: bool = False) -> Hit:
        """The current road arc nearest to (lon, lat): the base map's snapper (rail and
        transfer arcs are never snapped to) and the inserted arcs; EditError naming the
        point and the distance when it is farther than the scenario's max_snap_m."""
        import shapely

        self._check_coordinates(label)
        sn = self._base_snapper(label)
        cands: list[Hit] = []
        try:
            s = sn.snap_lonlat(lon, lat, max_distance_m=math.inf)
        except PointError as exc:
            raise EditError(label, exc.detail) from None
        if s.arc not in self.sc._replaced:
            cands.append(Hit(int(s.arc), s.x, s.y, s.distance_m))
        st = self.sc.store
        if st.tail:
            state = self.sc.graph.host.state
            ins = [st.m + i for i in range(len(st.tail))
                   if st.kind[i] == KIND_ROAD and state[st.m + i] != ARC_DELETED
                   and st.m + i not in self.sc._replaced]
            if ins:
                x, y = to_xy(np.array([lon]), np.array([lat]), self.net.origin)
                pt = shapely.Point(float(x[0]), float(y[0]))
                lines = [shapely.LineString(st.polyline(e)) for e in ins]
                d = shapely.distance(lines, pt)
                k = int(np.argmin(d))
                if not cands or d[k] < cands[0].distance_m:
                    q = shapely.line_interpolate_point(lines[k], shapely.line_locate_point(
                        lines[k], pt))
                    cands = [Hit(ins[k], float(shapely.get_x(q)), float(shapely.get_y(q)),
                                 float(d[k]))]
        if not cands:  # only a split arc is near: its pieces are inserted arcs, found above
            raise EditError(label, f"point {lon},{lat}: no road found")
        hit = cands[0]
        plon, plat = to_lonlat(np.array([hit.x]), np.array([hit.y]), self.net.origin)
        d = float(haversine_m(lon, lat, float(plon[0]), float(plat[0])))
        limit = self.sc.max_snap_m
        if d > limit:
            raise EditError(label, f"point {lon},{lat} is {_fmt_m(d)} from the nearest road "
                                   f"(more than the {_fmt_m(limit)} allowed)")
        return hit

    def road(self, arc: int) -> list[int]:
        """The road of an arc: the current arcs between its two ends, both ways, with its
        way id (the snapped arc and its reverse; on maps without way ids, every arc
        between the two ends)."""
        st = self.sc.store
        t, h = st.ends(arc)
        src = st.source_id(arc)
        both = self.between(t, h) + self.between(h, t)
        if self.net.meta.get("format") in NO_WAY_FORMATS:  # no way ids: every arc between
            return both if arc in both else [arc, *both]
        ids = [e for e in both if st.source_id(e) == src]
        return ids if arc in ids else [arc, *ids]

    def point(self, edit: Edit, label: str) -> list[int]:
        assert edit.point is not None  # resolve: an edit of a point
        lon, lat = edit.point
        return self.road(self.snap(lon, lat, label).arc)

    # ---- polygons -------------------------------------------------------------------------
    def polygon(self, edit: Edit, label: str) -> list[int]:
        import shapely

        self._check_coordinates(label)
        ring = np.asarray(edit.polygon, dtype=np.float64)
        try:  # as drawn, in degrees: its own faults named, not the projection's
            ll = shapely.Polygon(ring)
            if not ll.is_valid:
                raise EditError(label, f"the polygon is not valid ({shapely.is_valid_reason(ll)})")
            x, y = to_xy(ring[:, 0], ring[:, 1], self.net.origin)
            poly = shapely.Polygon(np.column_stack([x, y]))
        except shapely.errors.GEOSException as exc:
            raise EditError(label, f"the polygon is not valid ({exc})") from None
        # one too large for the map's local projection (a continent, the whole world)
        # folds there: such a polygon is tested in degrees instead
        degrees = not (poly.is_valid and np.isfinite([x, y]).all())
        if degrees:
            poly = ll
        if self._tree is None:
            from maps.points.snap import arc_polylines

            m = self.net.num_arcs
            coords, idx = arc_polylines(self.net, np.arange(m))
            self._lines = shapely.linestrings(coords, indices=idx) if m else np.zeros(0, object)
            self._tree = shapely.STRtree(self._lines)
        if degrees:
            ids = np.flatnonzero(shapely.intersects(
                shapely.transform(self._lines, self._to_degrees), poly)).tolist()
        else:
            ids = np.sort(self._tree.query(poly, predicate="intersects")).tolist()
        st = self.sc.store
        if st.tail:
            state = self.sc.graph.host.state
            for i in range(len(st.tail)):
                e = st.m + i
                line = shapely.LineString(st.polyline(e))
                if degrees:
                    line = shapely.transform(line, self._to_degrees)
                if state[e] != ARC_DELETED and shapely.intersects(line, poly):
                    ids.append(e)
        ids = self.current(ids)
        if not ids:
            raise EditError(label, "no arc of this map lies inside the polygon")
        return ids

    def _to_degrees(self, xy: np.ndarray) -> np.ndarray:
        lon, lat = to_lonlat(xy[:, 0], xy[:, 1], self.net.origin)
        return np.column_stack([lon, lat])

    def resolve(self, edit: Edit, label: str) -> list[int]:
        """The current arcs an edit (not ``add``) targets; EditError naming why none."""
        if edit.nodes is not None:
            return self.nodes(edit, label)
        if edit.way is not None:
            return self.way(edit, label)
        if edit.point is not None:
            return self.point(edit, label)
        return self.polygon(edit, label)


def _fmt_m(d: float) -> str:
    return f"{d / 1000:.1f} km" if d >= 10_000 else f"{d:.0f} m"
