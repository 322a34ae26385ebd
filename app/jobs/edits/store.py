"""The attributes of every arc id of an edited map, and the polyline geometry edits need.

Arc ids are the MutableGraph's: the base map's CSR index for ids < m, then inserted arcs
in the order they were made (ids are never reused, so the lists only grow). Vertices added
by splits are appended after the base map's nodes with their x/y metres.
"""

from __future__ import annotations

import numpy as np

from maps.model.network import RoadNetwork


class ArcStore:
    """Base-map arrays plus appended inserted arcs and added vertices."""

    def __init__(self, net: RoadNetwork):
        self.net = net
        self.m, self.n = net.num_arcs, net.num_nodes
        self.class_names = list(net.class_names)
        # inserted arcs (id m + i)
        self.tail: list[int] = []
        self.head: list[int] = []
        self.kind: list[int] = []
        self.cls: list[int] = []
        self.length: list[float] = []
        self.src: list[int] = []
        self.geom: list[np.ndarray] = []  # inner points (k, 2) metres
        # added vertices (id n + j)
        self.vx: list[float] = []
        self.vy: list[float] = []
        self._np: dict[str, np.ndarray] = {}

    # ---- appending (only through Stage.commit) ------------------------------------------
    def extend(self, arcs: list[tuple], verts: list[tuple[float, float]],
               class_names: list[str]) -> None:
        for t, h, kind, cls, length, src, geom in arcs:
            self.tail.append(t)
            self.head.append(h)
            self.kind.append(kind)
            self.cls.append(cls)
            self.length.append(length)
            self.src.append(src)
            self.geom.append(geom)
        for x, y in verts:
            self.vx.append(x)
            self.vy.append(y)
        self.class_names = list(class_names)
        self._np = {}

    def ext(self, name: str) -> np.ndarray:
        """An inserted-arc attribute as an array (cached until the next extend)."""
        if name not in self._np:
            dtype = {"tail": np.int64, "head": np.int64, "src": np.int64}.get(name, np.float64)
            self._np[name] = np.asarray(getattr(self, name), dtype=dtype)
        return self._np[name]

    # ---- lookups by arc id --------------------------------------------------------------
    def ends(self, e: int) -> tuple[int, int]:
        if e < self.m:
            # the row holding arc e (rows of no arc share its start; the last one is e's):
            # no tail array of every arc (NE: 0.1 s of each Scenario's making)
            tail = int(np.searchsorted(self.net.indptr, e, side="right")) - 1
            return tail, int(self.net.indices[e])
        return self.tail[e - self.m], self.head[e - self.m]

    def source_id(self, e: int) -> int:
        return int(self.net.edge_source_id[e]) if e < self.m else self.src[e - self.m]

    def attrs(self, e: int) -> tuple[int, int, float, int]:
        """(kind, class index, length m, source id) of arc ``e``."""
        if e < self.m:
            net = self.net
            return (int(net.edge_kind[e]), int(net.edge_class[e]), float(net.edge_length[e]),
                    int(net.edge_source_id[e]))
        i = e - self.m
        return self.kind[i], self.cls[i], self.length[i], self.src[i]

    def vertex_xy(self, v: int) -> tuple[float, float]:
        if v < self.n:
            return float(self.net.x[v]), float(self.net.y[v])
        return self.vx[v - self.n], self.vy[v - self.n]

    def inner(self, e: int) -> np.ndarray:
        """Inner points (k, 2) metres of arc ``e``."""
        if e >= self.m:
            return self.geom[e - self.m]
        gi, gxy = self.net.geom_indptr, self.net.geom_xy
        if gi is None or gxy is None:
            return np.zeros((0, 2))
        return gxy[int(gi[e]):int(gi[e + 1])]

    def polyline(self, e: int) -> np.ndarray:
        """Tail, inner points, head of arc ``e`` in x/y metres, (k, 2)."""
        t, h = self.ends(e)
        return np.vstack([self.vertex_xy(t), self.inner(e), self.vertex_xy(h)])

    # ---- gathering for RoadNetwork ------------------------------------------------------
    def gather(self, name: str, base: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Per-arc attribute ``name`` (base array ``base``) for arc ``ids``."""
        return self.gather_all(ids, [(name, base)])[0]

    def gather_all(self, ids: np.ndarray, columns: list[tuple[str, np.ndarray]]
                   ) -> list[np.ndarray]:
        """``gather`` of each (name, base) of ``columns`` for the same arc ``ids``."""
        # np.take over the base ids clipped in range, then the few inserted arcs patched:
        # a boolean-mask gather costs ten times more on millions of arcs. The clipped and
        # the inserted ids are found once for all columns (``Scenario.network`` gathers
        # four: on NE 0.09 s of a closure's 0.25 s went to finding them four times)
        clipped = np.minimum(ids, self.m - 1) if self.m else None
        ins = np.flatnonzero(ids >= self.m)
        outs = []
        for name, base in columns:
            out = np.take(base, clipped) if clipped is not None else \
                np.empty(ids.shape[0], dtype=base.dtype)
            if ins.size:
                out[ins] = self.ext(name)[ids[ins] - self.m].astype(base.dtype)
            outs.append(out)
        return outs

    def gather_geometry(self, ids: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(geom_indptr, geom_xy) of arc ``ids`` in that order; (None, None) when no arc
        has inner points (a map of straight arcs stays one)."""
        gi, gxy = self.net.geom_indptr, self.net.geom_xy
        has_base = gi is not None and gxy is not None and gxy.shape[0] > 0
        mask = ids < self.m
        ins = np.flatnonzero(~mask)
        ins_counts = np.array([self.geom[int(ids[i]) - self.m].shape[0] for i in ins],
                              dtype=np.int64)
        if not has_base and not ins_counts.sum():
            return (None, None) if gi is None else (np.zeros(ids.shape[0] + 1, np.int64),
                                                    np.zeros((0, 2)))
        counts = np.zeros(ids.shape[0], dtype=np.int64)
        if has_base:
            assert gi is not None  # has_base
            b = ids[mask]
            counts[mask] = gi[b + 1] - gi[b]
        counts[ins] = ins_counts
        indptr = np.zeros(ids.shape[0] + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        xy = np.empty((int(indptr[-1]), 2), dtype=np.float64)
        if has_base:
            assert gi is not None and gxy is not None  # has_base
            sel = np.flatnonzero(mask & (counts > 0))
            c = counts[sel]
            if c.size:
                within = np.arange(int(c.sum())) - np.repeat(np.cumsum(c) - c, c)
                xy[np.repeat(indptr[sel], c) + within] = gxy[np.repeat(gi[ids[sel]], c) + within]
        for i in ins.tolist():
            g = self.geom[int(ids[i]) - self.m]
            xy[indptr[i]:indptr[i + 1]] = g
        return indptr, xy


def locate(poly: np.ndarray, px: float, py: float) -> tuple[float, float, float]:
    """(distance along, total length, distance away) of the point of polyline ``poly``
    (k, 2) nearest to (px, py)."""
    a, b = poly[:-1], poly[1:]
    d = b - a
    seg = np.hypot(d[:, 0], d[:, 1])
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    if seg.size == 0:
        return 0.0, 0.0, float(np.hypot(poly[0, 0] - px, poly[0, 1] - py))
    dd = np.where(seg > 0, seg * seg, 1.0)
    t = np.clip(((px - a[:, 0]) * d[:, 0] + (py - a[:, 1]) * d[:, 1]) / dd, 0.0, 1.0)
    qx, qy = a[:, 0] + t * d[:, 0], a[:, 1] + t * d[:, 1]
    dist = np.hypot(qx - px, qy - py)
    k = int(np.argmin(dist))
    return float(cum[k] + t[k] * seg[k]), float(cum[-1]), float(dist[k])


def cut(poly: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """The inner points of polyline ``poly`` strictly between distances ``lo`` and ``hi``
    along it (the pieces' ends are vertices, not geometry)."""
    seg = np.hypot(*np.diff(poly, axis=0).T)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    keep = (cum > lo) & (cum < hi)
    keep[0] = keep[-1] = False
    return poly[keep].copy()


def polyline_length(poly: np.ndarray) -> float:
    return float(np.hypot(*np.diff(poly, axis=0).T).sum()) if len(poly) > 1 else 0.0
