"""A snapping index that builds in a fraction of the STRtree's time (issue 27: 10.1 s on
the 1.43M-node map): every drawn segment of every road arc is listed in the cells of a
uniform grid that its bounding box touches (one argsort), and a query scans rings of cells
about the point until no unseen cell can hold anything nearer. Answers are
:class:`maps.points.snap.Snapper`'s: the nearest arc (ties within a relative 1e-9 of the
distance to the lowest arc index), the nearest point on it and its fraction along the
drawn length. No shapely; the grid is built by two numba passes (count, fill).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from maps.errors import PointError
from maps.geo.projection import to_lonlat
from maps.model.network import KIND_ROAD, RoadNetwork
from maps.points.snap import DEFAULT_MAX_DISTANCE_M, Snap, Snapper, _fmt_m

TIE_RTOL = 1e-9
SEGMENTS_PER_CELL = 2.0  # grid cells ~ segments / 2: a few segments per cell


class GridSnapper(Snapper):
    """:class:`Snapper`'s queries over a uniform grid of segments (module doc)."""

    def __init__(self, net: RoadNetwork, *, kernels: bool | None = None):  # noqa: D107
        # (Snapper's checks, then the grid; ``kernels``: numba's, or their numpy twins,
        # None: numba's once compiled, :func:`kernels_ready`)
        if not net.has_coordinates:
            raise PointError(
                "this map has no coordinates (e.g. a DIMACS graph without its .co file): "
                "points must be given as node:ID", path=net.source_path or None)
        self.net = net
        self.arcs = np.flatnonzero(net.edge_kind == KIND_ROAD)
        if self.arcs.size == 0:
            raise PointError("this map has no road arcs to snap to", path=net.source_path or None)
        # segments, where each starts along its arc and each arc's drawn length: one
        # nogil pass (the window builds this on its loader thread while the GUI runs)
        geo = net.geom_indptr is not None and net.geom_xy is not None and net.geom_xy.shape[0] > 0
        # numba's kernels once compiled; on a fresh install their numpy twins (the same
        # arrays, bit for bit): compiling holds the GIL, and this runs in the window's
        # process (issue 41; app.jobs.compile_ahead's child compiles them for next time)
        self._kernels = kernels_ready() if kernels is None else kernels
        segments = _segments if self._kernels else segments_numpy
        (self.ax, self.ay, self.bx, self.by, self.seg_arc, self.seg_at, self.arc_len,
         self.first_seg) = segments(
            self.arcs, net.indptr, net.indices, net.x, net.y,
            net.geom_indptr if geo else np.zeros(1, np.int64),
            net.geom_xy if geo else np.zeros((0, 2)), geo)
        self._build_grid()

    def _build_grid(self) -> None:
        if self.ax.size == 0:  # only zero-segment arcs cannot happen: every arc has two ends
            raise PointError("this map has no road arcs to snap to")
        x0 = min(self.ax.min(), self.bx.min())
        x1 = max(self.ax.max(), self.bx.max())
        y0 = min(self.ay.min(), self.by.min())
        y1 = max(self.ay.max(), self.by.max())
        nseg = max(self.seg_arc.size, 1)
        area = max((x1 - x0) * (y1 - y0), 1.0)
        c = max(math.sqrt(area * SEGMENTS_PER_CELL / nseg), 1.0)
        self.x0, self.y0, self.c = float(x0), float(y0), c
        self.nx = int((x1 - x0) // c) + 1
        self.ny = int((y1 - y0) // c) + 1
        grid = _grid if self._kernels else grid_numpy
        self.cell_start, self.cell_seg = grid(self.ax, self.ay, self.bx, self.by,
                                              self.x0, self.y0, c, self.nx, self.ny)

    def _ring(self, ci: int, cj: int, r: int) -> np.ndarray:
        """Segments listed in the cells at Chebyshev distance ``r`` from (ci, cj)."""
        if r == 0:
            cells = np.array([cj * self.nx + ci])
        else:
            i = np.arange(ci - r, ci + r + 1)
            j = np.arange(cj - r + 1, cj + r)
            ii = np.concatenate([i, i, np.full(j.size, ci - r), np.full(j.size, ci + r)])
            jj = np.concatenate([np.full(i.size, cj - r), np.full(i.size, cj + r), j, j])
            ok = (ii >= 0) & (ii < self.nx) & (jj >= 0) & (jj < self.ny)
            cells = jj[ok] * self.nx + ii[ok]
        a, b = self.cell_start[cells], self.cell_start[cells + 1]
        n = b - a
        if n.sum() == 0:
            return np.zeros(0, dtype=np.int64)
        pos = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n) + np.repeat(a, n)
        return self.cell_seg[pos]

    def _dist(self, segs: np.ndarray, x: float, y: float):
        """(distance, t along the segment 0..1) from (x, y) to each segment."""
        ax, ay = self.ax[segs], self.ay[segs]
        dx, dy = self.bx[segs] - ax, self.by[segs] - ay
        ll = dx * dx + dy * dy
        t = np.clip(np.where(ll > 0, ((x - ax) * dx + (y - ay) * dy) / np.where(ll > 0, ll, 1),
                             0.0), 0.0, 1.0)
        return np.hypot(ax + t * dx - x, ay + t * dy - y), t

    def snap(self, x: float, y: float, *, max_distance_m: float = DEFAULT_MAX_DISTANCE_M) -> Snap:
        """The nearest point on a road arc to map point (x, y) metres; PointError when it
        is farther than ``max_distance_m``."""
        if not (math.isfinite(x) and math.isfinite(y)):
            raise PointError(f"point ({x}, {y}) is not finite")
        ci = min(max(int((x - self.x0) // self.c), 0), self.nx - 1)
        cj = min(max(int((y - self.y0) // self.c), 0), self.ny - 1)
        # lower bound of the distance to any cell of ring r: the gap to the grid's box,
        # and r - 1 cells per axis (clamping the point into the grid only shortens both)
        gap = math.hypot(max(self.x0 - x, 0, x - self.x0 - self.nx * self.c),
                         max(self.y0 - y, 0, y - self.y0 - self.ny * self.c))
        best = math.inf
        found: list[tuple[np.ndarray, np.ndarray]] = []  # (segments of a ring, distances)
        for r in range(max(self.nx, self.ny) + 1):
            lb = max(gap, (r - 1) * self.c)
            if lb > (best * (1 + TIE_RTOL) if found else max_distance_m):
                break
            segs = self._ring(ci, cj, r)
            if segs.size:
                d, _ = self._dist(segs, x, y)
                found.append((segs, d))
                best = min(best, float(d.min()))
        if not found or best > max_distance_m:
            raise self._too_far(x, y, best if found else gap, max_distance_m)
        segs = np.concatenate([s for s, _ in found])
        d = np.concatenate([v for _, v in found])
        near = self.seg_arc[segs[d <= best * (1 + TIE_RTOL)]]
        pos = int(near.min())  # the lowest arc index among the nearest (arcs are sorted)
        k = int(self.arcs[pos])
        own = self._arc_segs(pos)
        dd, t = self._dist(own, x, y)
        j = int(np.argmin(dd))
        s = int(own[j])
        px = float(self.ax[s] + t[j] * (self.bx[s] - self.ax[s]))
        py = float(self.ay[s] + t[j] * (self.by[s] - self.ay[s]))
        total = float(self.arc_len[pos])
        along = float(self.seg_at[s] + t[j] * math.hypot(self.bx[s] - self.ax[s],
                                                         self.by[s] - self.ay[s]))
        frac = min(max(along / total, 0.0), 1.0) if total > 0 else 0.0
        lon, lat = to_lonlat(np.array([px]), np.array([py]), self.net.origin)
        tail = int(np.searchsorted(self.net.indptr, k, side="right") - 1)
        head = int(self.net.indices[k])
        return Snap(k, px, py, float(lon[0]), float(lat[0]), float(dd[j]), frac,
                    tail if frac <= 0.5 else head)

    def arcs_within(self, x: float, y: float, radius: float) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`Snapper.arcs_within` over the grid: the cells within ``radius``."""
        ci = min(max(int((x - self.x0) // self.c), 0), self.nx - 1)
        cj = min(max(int((y - self.y0) // self.c), 0), self.ny - 1)
        rings = [self._ring(ci, cj, r) for r in range(int(radius // self.c) + 2)]
        segs = np.unique(np.concatenate(rings)) if rings else np.zeros(0, np.int64)
        if segs.size == 0:
            return np.zeros(0, np.int64), np.zeros(0)
        d, _ = self._dist(segs, x, y)
        keep = d <= radius
        pos, d = self.seg_arc[segs[keep]], d[keep]
        order = np.lexsort((d, pos))  # per arc its nearest segment first
        pos, d = pos[order], d[order]
        first = np.r_[True, pos[1:] != pos[:-1]] if pos.size else np.zeros(0, bool)
        return pos[first].astype(np.int64), d[first]

    def _arc_segs(self, pos: int) -> np.ndarray:
        """Segment ids of the arc at position ``pos`` of ``self.arcs``."""
        a = int(self.first_seg[pos])
        b = int(self.first_seg[pos + 1]) if pos + 1 < self.first_seg.size else self.seg_arc.size
        return np.arange(a, b)

    def _too_far(self, x: float, y: float, d: float, max_distance_m: float) -> PointError:
        lon, lat = to_lonlat(np.array([x]), np.array([y]), self.net.origin)
        return PointError(
            f"point {lon[0]:.6f},{lat[0]:.6f} is {_fmt_m(d)} from the nearest road "
            f"(more than the {_fmt_m(max_distance_m)} allowed)",
            path=self.net.source_path or None)


@njit(cache=True, nogil=True, inline="always")
def _box(ax, ay, bx, by, x0, y0, c):
    """(i0, i1, j0, j1): the cells a segment's bounding box touches."""
    return (int((min(ax, bx) - x0) // c), int((max(ax, bx) - x0) // c),
            int((min(ay, by) - y0) // c), int((max(ay, by) - y0) // c))


@njit(cache=True, nogil=True)
def _grid(ax, ay, bx, by, x0, y0, c, nx, ny):
    """(cell_start, cell_seg): the segments listed per cell of their bounding box, in
    segment order within a cell (a counting sort: count, prefix sum, fill)."""
    m = ax.shape[0]
    start = np.zeros(nx * ny + 1, np.int64)
    for s in range(m):
        i0, i1, j0, j1 = _box(ax[s], ay[s], bx[s], by[s], x0, y0, c)
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                start[j * nx + i + 1] += 1
    for k in range(nx * ny):
        start[k + 1] += start[k]
    fill = start[:-1].copy()
    seg = np.empty(start[nx * ny], np.int64)
    for s in range(m):
        i0, i1, j0, j1 = _box(ax[s], ay[s], bx[s], by[s], x0, y0, c)
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                k = j * nx + i
                seg[fill[k]] = s
                fill[k] += 1
    return start, seg


@njit(cache=True, nogil=True)
def _segments(arcs, indptr, indices, x, y, gptr, gxy, has_geom):
    """Per segment of the polylines of ``arcs`` (ascending; tail, inner points, head): its ends,
    its arc's position in ``arcs``, where it starts along the arc (m); per arc its drawn
    length and first segment. The sums run in the order of ``np.cumsum`` and
    ``np.bincount`` (the arrays :func:`maps.points.snap.arc_polylines` gave before)."""
    k = arcs.shape[0]
    first = np.empty(k, np.int64)
    total = 0
    for p in range(k):
        first[p] = total
        a = arcs[p]
        total += 1 + ((gptr[a + 1] - gptr[a]) if has_geom else 0)
    ax = np.empty(total)
    ay = np.empty(total)
    bx = np.empty(total)
    by = np.empty(total)
    seg_arc = np.empty(total, np.int64)
    seg_at = np.empty(total)
    arc_len = np.zeros(k)
    cum = 0.0
    v = 0  # the tail: the CSR row holding arc a (arcs ascend, so it only moves forward)
    for p in range(k):
        a = arcs[p]
        while indptr[v + 1] <= a:
            v += 1
        px, py = x[v], y[v]
        inner = (gptr[a + 1] - gptr[a]) if has_geom else 0
        start = cum
        s = first[p]
        for j in range(inner + 1):
            if j < inner:
                qx, qy = gxy[gptr[a] + j, 0], gxy[gptr[a] + j, 1]
            else:
                qx, qy = x[indices[a]], y[indices[a]]
            ln = np.hypot(qx - px, qy - py)
            ax[s + j], ay[s + j], bx[s + j], by[s + j] = px, py, qx, qy
            seg_arc[s + j] = p
            cum += ln
            seg_at[s + j] = cum - ln - start
            arc_len[p] += ln
            px, py = qx, qy
    return ax, ay, bx, by, seg_arc, seg_at, arc_len, first


def kernels_ready() -> bool:
    """True when the grid's numba kernels need no compilation (compiled in this process or
    in numba's cache); else :class:`GridSnapper` builds by their numpy twins."""
    from osutil.numba_cache import ready

    return ready(_segments) and ready(_grid)


def segments_numpy(arcs, indptr, indices, x, y, gptr, gxy, has_geom):
    """:func:`_segments` in numpy: the same arrays bit for bit (one running sum of the
    segment lengths, ``np.cumsum``; each arc's length a sum in segment order,
    ``np.bincount``), holding the GIL for O(segments) array steps instead of a compilation."""
    arcs = np.asarray(arcs, np.int64)
    k = arcs.shape[0]
    inner = ((gptr[arcs + 1] - gptr[arcs]).astype(np.int64) if has_geom
             else np.zeros(k, np.int64))
    cnt = inner + 1
    first = np.cumsum(cnt) - cnt
    total = int(cnt.sum())
    tails = (np.searchsorted(indptr, arcs, side="right") - 1).astype(np.int64)
    seg_arc = np.repeat(np.arange(k, dtype=np.int64), cnt)
    j = np.arange(total, dtype=np.int64) - np.repeat(first, cnt)  # segment's place in its arc
    # the polyline points: tail, inner points, head; segment s joins point s + arc to s + arc + 1
    px = np.empty(total + k)
    py = np.empty(total + k)
    start = first + np.arange(k)  # each arc's first point
    px[start], py[start] = x[tails], y[tails]
    ends = start + cnt
    px[ends], py[ends] = x[indices[arcs]], y[indices[arcs]]
    if has_geom and int(inner.sum()):
        own = j < np.repeat(inner, cnt)  # segments ending at an inner point
        src = np.repeat(gptr[arcs].astype(np.int64), cnt)[own] + j[own]
        dst = (np.arange(total, dtype=np.int64) + seg_arc)[own] + 1
        px[dst], py[dst] = gxy[src, 0], gxy[src, 1]
    at = np.arange(total, dtype=np.int64) + seg_arc
    ax, ay, bx, by = px[at], py[at], px[at + 1], py[at + 1]
    ln = np.hypot(bx - ax, by - ay)
    cum = np.cumsum(ln)
    before = np.concatenate([[0.0], cum])[first]  # the running sum where each arc starts
    seg_at = cum - ln - np.repeat(before, cnt)
    arc_len = np.bincount(seg_arc, weights=ln, minlength=k)
    return ax, ay, bx, by, seg_arc, seg_at, arc_len, first


def grid_numpy(ax, ay, bx, by, x0, y0, c, nx, ny):
    """:func:`_grid` in numpy: every (cell, segment) of the segments' boxes, in segment
    order, sorted stably by cell."""
    i0 = ((np.minimum(ax, bx) - x0) // c).astype(np.int64)
    i1 = ((np.maximum(ax, bx) - x0) // c).astype(np.int64)
    j0 = ((np.minimum(ay, by) - y0) // c).astype(np.int64)
    j1 = ((np.maximum(ay, by) - y0) // c).astype(np.int64)
    wide = i1 - i0 + 1
    per = wide * (j1 - j0 + 1)
    seg = np.repeat(np.arange(ax.shape[0], dtype=np.int64), per)
    within = np.arange(seg.shape[0], dtype=np.int64) - np.repeat(np.cumsum(per) - per, per)
    w = wide[seg]
    cell = (j0[seg] + within // w) * nx + i0[seg] + within % w
    start = np.zeros(nx * ny + 1, np.int64)
    np.cumsum(np.bincount(cell, minlength=nx * ny), out=start[1:])
    return start, seg[np.argsort(cell, kind="stable")]
