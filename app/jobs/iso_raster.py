"""Isochrone polygons from a raster (``app.jobs.isochrones``, the default method): the
reached road is sampled onto a square grid, each marked cell stamps its Euclidean distance
onto the cells of a disc about it (numba; the disc reaches the buffer plus two cells, so
every cell within the buffer and its neighbours hold the exact distance to the nearest
marked cell, as a distance transform would), and contourpy traces the band within the
buffer as polygons with holes.

Why not a union of buffers: GEOS's union of 10^5 buffers took 42 s on the Kanto-sized
map; this is linear in the marked cells times the disc. Accuracy: a road sample is marked
in the cell that holds it, so every distance is off by at most half a cell diagonal
(``cell * 0.71``); cells are ``buffer / 12`` unless the grid or the stamping would pass
:data:`MAX_CELLS` / :data:`MAX_STAMPS`, then larger (never above ``buffer / 2``). Every
reached node lies on a marked line, so it is inside its polygon. Nesting: the cutoffs
share one grid whose distances only shrink as each cutoff stamps what it adds, and a
filled contour of a pointwise smaller field contains the larger field's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from numba import njit

from osutil.numba_cache import ready, runtime_loaded

if TYPE_CHECKING:
    from contourpy._contourpy import FillReturn_OuterOffset

CELLS_PER_BUFFER = 12  # cell = buffer / 12: outline within 6 % of the buffer
MAX_CELLS = 2_500_000  # bound on the grid: a bigger area gets coarser cells
MAX_STAMPS = 30_000_000  # bound on marked cells x disc cells (about 0.1 s of numba)
MIN_CELLS_PER_BUFFER = 2.0  # never coarser than buffer / 2
FAR = 1e30  # distance of cells beyond every disc


class Lattice:
    """Cell centres ``x0 + i * h``, ``y0 + j * h`` over a box, the source at a centre."""

    def __init__(self, box: tuple[float, float, float, float], source_xy, buffer_m: float,
                 road_m: float = 0.0, max_cells: int = MAX_CELLS):
        """``road_m``: metres of road to mark (bounds the stamping work); ``max_cells``:
        the grid's bound (the window asks for fewer: it draws, at screen resolution)."""
        minx, miny, maxx, maxy = box
        pad = buffer_m * 1.5
        area = (maxx - minx + 2 * pad) * (maxy - miny + 2 * pad)
        h = buffer_m / CELLS_PER_BUFFER
        h = max(h, float(np.sqrt(area / max_cells)))
        # marked cells ~ road_m / h, disc ~ pi (buffer / h + 2)^2 cells
        h = max(h, float(np.cbrt(np.pi * road_m * buffer_m ** 2 / MAX_STAMPS)))
        self.h = h = min(h, buffer_m / MIN_CELLS_PER_BUFFER)
        self.buffer_m = buffer_m
        sx, sy = source_xy
        self.i0 = int(np.floor((minx - pad - sx) / h))  # lattice index of column 0
        self.j0 = int(np.floor((miny - pad - sy) / h))
        self.nx = int(np.ceil((maxx + pad - sx) / h)) - self.i0 + 1
        self.ny = int(np.ceil((maxy + pad - sy) / h)) - self.j0 + 1
        self.sx, self.sy = sx, sy
        self.pad_cells = int(np.ceil(pad / h)) + 1

    def cells(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row, column) of the cell holding each point."""
        c = np.rint((x - self.sx) / self.h).astype(np.int64) - self.i0
        r = np.rint((y - self.sy) / self.h).astype(np.int64) - self.j0
        np.clip(r, 0, self.ny - 1, out=r)
        np.clip(c, 0, self.nx - 1, out=c)
        return r, c

    def xs(self, c0: int, c1: int) -> np.ndarray:
        return self.sx + (np.arange(c0, c1) + self.i0) * self.h

    def ys(self, r0: int, r1: int) -> np.ndarray:
        return self.sy + (np.arange(r0, r1) + self.j0) * self.h


def sample_lines(xs: np.ndarray, ys: np.ndarray, ids: np.ndarray, step: float):
    """Points along polylines (vertices ``xs, ys``, polyline ``ids`` non-decreasing) no
    farther apart than ``step``, every vertex included."""
    if xs.size == 0:
        return xs, ys
    same = ids[1:] == ids[:-1]
    ax, ay, bx, by = xs[:-1][same], ys[:-1][same], xs[1:][same], ys[1:][same]
    k = np.maximum(np.ceil(np.hypot(bx - ax, by - ay) / step).astype(np.int64), 1)
    t = (np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)) / np.repeat(k, k)
    px = np.repeat(ax, k) + t * np.repeat(bx - ax, k)
    py = np.repeat(ay, k) + t * np.repeat(by - ay, k)
    return np.concatenate([px, xs]), np.concatenate([py, ys])


@njit(cache=True, nogil=True)
def _mark(d, marked, box, rows, cols, dr, dc, dd):
    """Mark cells (rows, cols) not yet marked: grow ``box`` (r_lo, c_lo, r_hi, c_hi) and set
    d[r + dr, c + dc] = min(itself, dd) over the disc offsets."""
    ny, nx = d.shape
    for i in range(rows.shape[0]):
        r0 = rows[i]
        c0 = cols[i]
        if marked[r0, c0]:
            continue
        marked[r0, c0] = True
        box[0] = min(box[0], r0)
        box[1] = min(box[1], c0)
        box[2] = max(box[2], r0)
        box[3] = max(box[3], c0)
        for k in range(dr.shape[0]):
            r = r0 + dr[k]
            c = c0 + dc[k]
            if 0 <= r < ny and 0 <= c < nx and dd[k] < d[r, c]:
                d[r, c] = dd[k]


# Markings of at most this many stamps (distinct cells x disc cells) run in numpy while
# _mark is not compiled yet (a fresh install's first isochrones on a small map: no
# compilation wait, issue 41); bigger ones compile it (numpy's minimum.at: ~0.05-0.1 s
# per million stamps, the compilation ~1 s)
SMALL_WORK_STAMPS = 8_000_000


def compile_kernel() -> None:
    """Compile :func:`_mark` (into numba's cache) at the types ``Field.mark`` passes: what
    ``app.jobs.compile_ahead``'s child runs after a run marked in numpy, so that the next
    command stamps by the kernel (numpy's ``minimum.at``: +50 ms on the sample map's
    isochrones, issue 38's benchmarks)."""
    i = np.zeros(1, np.int64)
    _mark(np.full((2, 2), FAR), np.zeros((2, 2), dtype=bool),
          np.array([2, 2, -1, -1], dtype=np.int64), i, i.copy(), i.copy(), i.copy(),
          np.zeros(1))


def _mark_numpy(d, marked, box, rows, cols, dr, dc, dd) -> None:
    """:func:`_mark` in numpy, the same result (a min over the same values, in any order)."""
    ny, nx = d.shape
    cell = np.unique(np.asarray(rows, np.int64) * nx + np.asarray(cols, np.int64))
    r0, c0 = np.divmod(cell, nx)
    new = ~marked[r0, c0]
    r0, c0 = r0[new], c0[new]
    if r0.size == 0:
        return
    marked[r0, c0] = True
    box[0] = min(box[0], int(r0.min()))
    box[1] = min(box[1], int(c0.min()))
    box[2] = max(box[2], int(r0.max()))
    box[3] = max(box[3], int(c0.max()))
    for k in range(dr.shape[0]):
        r = r0 + dr[k]
        c = c0 + dc[k]
        ok = (r >= 0) & (r < ny) & (c >= 0) & (c < nx)
        np.minimum.at(d, (r[ok], c[ok]), dd[k])


class Field:
    """Distance to the nearest marked cell, kept exact up to the buffer plus two cells;
    cells are marked cutoff by cutoff (distances only shrink)."""

    def __init__(self, lat: Lattice):
        self.lat = lat
        self.d = np.full((lat.ny, lat.nx), FAR)
        self.marked = np.zeros((lat.ny, lat.nx), dtype=bool)
        h = lat.h
        k = int(np.ceil(lat.buffer_m / h)) + 2
        rr, cc = np.mgrid[-k:k + 1, -k:k + 1]
        dist = np.hypot(rr, cc) * h
        keep = dist <= lat.buffer_m + 2 * h
        self.dr, self.dc = rr[keep].astype(np.int64), cc[keep].astype(np.int64)
        self.dd = dist[keep]
        self.box = np.array([lat.ny, lat.nx, -1, -1], dtype=np.int64)  # marked cells
        self.in_numpy = False  # a marking ran in numpy because the kernel was not compiled

    def mark(self, x: np.ndarray, y: np.ndarray) -> None:
        """Mark the cells holding the points and stamp the new ones' discs."""
        r, c = self.lat.cells(x, y)
        compiled = ready(_mark)
        # small work in numpy where the kernel is not compiled, and where it is but would
        # be this process's first numba function: numba's set-up costs more than numpy's
        # stamps (sample map: +0.11 s, the stamping 50 -> 9 ms)
        if not compiled or not runtime_loaded():
            nx = self.d.shape[1]
            cell = np.unique(np.asarray(r, np.int64) * nx + np.asarray(c, np.int64))
            if cell.size * self.dr.shape[0] <= SMALL_WORK_STAMPS:
                ur, uc = np.divmod(cell, nx)
                _mark_numpy(self.d, self.marked, self.box, ur, uc, self.dr, self.dc, self.dd)
                self.in_numpy = self.in_numpy or not compiled
                return
        _mark(self.d, self.marked, self.box, r, c, self.dr, self.dc, self.dd)

    def polygon(self):
        """The (Multi)Polygon of the cells within the buffer of a marked cell."""
        import contourpy
        import shapely

        lat = self.lat
        lo_r, lo_c, hi_r, hi_c = (int(v) for v in self.box)
        if hi_r < 0:
            return shapely.Polygon()
        p = lat.pad_cells
        r0, r1 = max(lo_r - p, 0), min(hi_r + p + 1, lat.ny)
        c0, c1 = max(lo_c - p, 0), min(hi_c + p + 1, lat.nx)
        gen = contourpy.contour_generator(lat.xs(c0, c1), lat.ys(r0, r1), self.d[r0:r1, c0:c1],
                                          name="serial", fill_type="OuterOffset")
        # the level just off the buffer: cell distances h * sqrt(i^2 + j^2) equal to it
        # would put ring vertices on cell centres twice (degenerate, invalid rings)
        # fill_type="OuterOffset" picks this member of filled()'s union of return types
        points, offsets = cast("FillReturn_OuterOffset",
                               gen.filled(-1.0, lat.buffer_m * (1 - 1e-7)))
        if not points:
            return shapely.Polygon()
        return _polygons(points, offsets)


def _polygons(points: list, offsets: list):
    """contourpy's OuterOffset output (per polygon: points, ring offsets; the first ring the
    shell) as one shapely (Multi)Polygon, built in a few vectorised calls."""
    import shapely

    pts = np.concatenate(points)
    ring_len = np.concatenate([np.diff(o) for o in offsets])
    rings = shapely.linearrings(pts, indices=np.repeat(np.arange(ring_len.size), ring_len))
    per_poly = np.array([o.size - 1 for o in offsets])
    polys = shapely.polygons(rings, indices=np.repeat(np.arange(per_poly.size), per_poly))
    return polys[0] if polys.size == 1 else shapely.MultiPolygon(polys.tolist())
