"""The window's isochrone bands on a big map as a grid of band numbers, no polygon traced
(issue 42, item 1): what :func:`app.jobs.isochrones.run` returns as ``band_grid`` when
``trace`` is off. The window colours the grid into one image; an export traces the
polygons again with the raster method (``iso_raster``).

How: the reached arcs are read in chunks of the CSR (bounded memory, and no numpy call
long enough to hold the GIL past a GUI frame), each sampled every cell along its polyline
(and at the exact point where a cutoff falls inside a segment) with its cost interpolated
between the arc's ends, as the raster method cuts them; each cell keeps the smallest band
of its samples, then a min over the disc of offsets within the buffer gives every cell the
first band whose road lies within the buffer of it. Numpy only: no compilation on a fresh
install (issue 41), and memory is the grid (one byte a cell) plus one chunk.

Accuracy: the grid's cells are ``buffer / 2`` (coarser only where the map's area would
pass ``max_cells``); distances are between cell centres, as in ``iso_raster``, so an
outline is off by at most about a cell. Every reached node is a sample: its cell holds
its band or a smaller one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

MAX_CELLS = 2_500_000  # the grid's bound (the window draws it at screen resolution)
CHUNK_ARCS = 16_384  # arcs read at a time: ms-long numpy calls, ~5 MB of temporaries
NONE = 127  # a cell no band reaches (int8), -1 in the returned grid


def band_grid(net, dist: np.ndarray, cuts, buffer_m: float, source: int, *,
              weights: np.ndarray | None = None, max_cells: int = MAX_CELLS,
              cancel: Callable[[], bool] | None = None) -> tuple[np.ndarray, float, float, float]:
    """(band, x0, y0, h): ``band[r, c]`` the index of the first of the ascending ``cuts``
    whose reached road lies within ``buffer_m`` of the cell centre ``(x0 + c h, y0 + r h)``,
    -1 where none does; ``dist``: the costs from ``source`` (-1 unreachable) by
    ``weights`` (per arc; the map's own by default)."""
    w = np.asarray(net.weights if weights is None else weights)  # (per chunk as float)
    cuts = np.asarray(cuts, dtype=np.int64)
    dist = np.asarray(dist, dtype=np.int64)
    last = int(cuts[-1])
    box = _box(net, dist, last, cancel)
    sx, sy = float(net.x[source]), float(net.y[source])
    if box is None:
        box = (sx, sy, sx, sy)
    minx, miny, maxx, maxy = box
    pad = 1.5 * buffer_m
    area = (maxx - minx + 2 * pad) * (maxy - miny + 2 * pad)
    h = max(buffer_m / 2.0, float(np.sqrt(area / max_cells)))
    x0, y0 = minx - pad, miny - pad
    nx = int(np.ceil((maxx + pad - x0) / h)) + 1
    ny = int(np.ceil((maxy + pad - y0) / h)) + 1
    best = np.full(ny * nx, NONE, dtype=np.int8)

    def mark(px: np.ndarray, py: np.ndarray, band: np.ndarray) -> None:
        c = np.rint((px - x0) / h).astype(np.int64)
        r = np.rint((py - y0) / h).astype(np.int64)
        ok = (c >= 0) & (c < nx) & (r >= 0) & (r < ny)
        np.minimum.at(best, r[ok] * nx + c[ok], band[ok].astype(np.int8))

    if 0 <= dist[source] <= last:
        mark(np.array([sx]), np.array([sy]),
             np.searchsorted(cuts, dist[source:source + 1], side="left"))
    # nodes with no arc of their own: marked here (every other reached node is the start
    # of its arcs' first piece, and a head reached through an arc is a reached node)
    indptr = np.asarray(net.indptr)
    sinks = np.nonzero((indptr[1:] == indptr[:-1]) & (dist >= 0) & (dist <= last))[0]
    mark(net.x[sinks], net.y[sinks], np.searchsorted(cuts, dist[sinks], side="left"))
    step = h  # consecutive samples in the same or a neighbouring cell: no gap in a line
    geometry = _has_geometry(net)
    for arcs, tails in _reached(net, dist, last):
        _check(cancel)
        ax, ay, bx, by, ca, cb = _segments(net, dist, w, arcs, tails, geometry)
        mark(*_samples(ax, ay, bx, by, ca, cb, cuts, step))
    grid = _dilate(best.reshape(ny, nx), buffer_m / h)
    grid[grid == NONE] = -1
    return grid, x0, y0, h


def _check(cancel) -> None:
    if cancel is not None and cancel():
        from gpu_core.errors import CancelledError

        raise CancelledError("isochrones cancelled")


def _reached(net, dist: np.ndarray, last: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(arcs, tails) of the arcs whose tail is reached within ``last``, a chunk of the
    CSR at a time (no array over all arcs)."""
    indptr = np.asarray(net.indptr, dtype=np.int64)
    n = net.num_nodes
    v0 = 0
    while v0 < n:
        v1 = int(np.searchsorted(indptr, indptr[v0] + CHUNK_ARCS, side="right")) - 1
        v1 = min(max(v1, v0 + 1), n)
        d = dist[v0:v1]
        deg = indptr[v0 + 1:v1 + 1] - indptr[v0:v1]
        nodes = np.nonzero((d >= 0) & (d <= last) & (deg > 0))[0] + v0
        if nodes.size:
            k = deg[nodes - v0]
            first = np.cumsum(k) - k
            arcs = np.repeat(indptr[nodes] - first, k) + np.arange(int(k.sum()))
            yield arcs, np.repeat(nodes, k)
        v0 = v1


def _box(net, dist, last, cancel) -> tuple[float, float, float, float] | None:
    """The bounding box of the reached arcs' polylines (tails, heads, drawn points)."""
    lo, hi = np.full(2, np.inf), np.full(2, -np.inf)
    geometry = _has_geometry(net)
    for arcs, tails in _reached(net, dist, last):
        _check(cancel)
        if geometry:
            px, py = _polylines(net, arcs, tails)[:2]
        else:
            ends = np.concatenate([tails, np.asarray(net.indices)[arcs]])
            px, py = net.x[ends], net.y[ends]
        lo = np.minimum(lo, [px.min(), py.min()])
        hi = np.maximum(hi, [px.max(), py.max()])
    return None if not np.isfinite(lo).all() else (lo[0], lo[1], hi[0], hi[1])


def _has_geometry(net) -> bool:
    gx = net.geom_xy
    return net.geom_indptr is not None and gx is not None and bool(gx.shape[0])


def _polylines(net, arcs: np.ndarray, tails: np.ndarray):
    """(px, py, start, count): the vertices of each arc (tail, drawn points, head) laid
    end to end; arc i's are ``start[i] .. start[i] + count[i] - 1``."""
    heads = np.asarray(net.indices)[arcs]
    gi, gx = net.geom_indptr, net.geom_xy
    inner = (gi[arcs + 1] - gi[arcs]).astype(np.int64)
    count = inner + 2
    start = np.cumsum(count) - count
    total = int(count.sum())
    px, py = np.empty(total), np.empty(total)
    px[start], py[start] = net.x[tails], net.y[tails]
    px[start + count - 1], py[start + count - 1] = net.x[heads], net.y[heads]
    has = np.nonzero(inner)[0]
    k = inner[has]
    off = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
    src = np.repeat(gi[arcs[has]], k) + off
    dst = np.repeat(start[has] + 1, k) + off
    px[dst], py[dst] = gx[src, 0], gx[src, 1]
    return px, py, start, count


def _segments(net, dist, weights, arcs, tails, geometry: bool):
    """(ax, ay, bx, by, ca, cb): the straight pieces of the arcs with the cost at each end
    (the tail's cost plus the arc's weight times the share of its length behind the point,
    as ``isochrones`` cuts)."""
    heads = np.asarray(net.indices)[arcs]
    du = dist[tails].astype(np.float64)
    if not geometry:  # one piece an arc: no polyline laid out
        return (net.x[tails], net.y[tails], net.x[heads], net.y[heads], du,
                du + weights[arcs].astype(np.float64))
    px, py, start, count = _polylines(net, arcs, tails)
    last_v = start + count - 1
    seg = np.hypot(np.diff(px), np.diff(py))
    seg[last_v[:-1]] = 0.0  # no segment from one arc's head to the next arc's tail
    along = np.concatenate([[0.0], np.cumsum(seg)])
    along -= np.repeat(along[start], count)  # metres from the arc's tail
    length = np.repeat(along[last_v], count)
    share = np.divide(along, length, out=np.ones_like(along), where=length > 0)
    cost = np.repeat(du, count) + np.repeat(weights[arcs].astype(np.float64), count) * share
    a = np.ones(px.size, dtype=bool)
    a[last_v] = False
    a = np.nonzero(a)[0]  # piece a: vertex a to a + 1
    return px[a], py[a], px[a + 1], py[a + 1], cost[a], cost[a + 1]


def _samples(ax, ay, bx, by, ca, cb, cuts, step):
    """(x, y, band) of points every ``step`` metres along each piece (its start included,
    its end being the next piece's start or a node marked as a tail of its own) and at
    each cutoff's exact position inside a piece, kept where the cost is within the last
    cutoff."""
    k = np.ceil(np.hypot(bx - ax, by - ay) / step).astype(np.int64)
    xs, ys, cs = [ax], [ay], [ca]  # every piece's start
    long = np.nonzero(k > 1)[0]  # and the points inside the longer ones
    if long.size:
        kk = k[long]
        j = np.repeat(long, kk - 1)
        t = (np.arange(j.size) - np.repeat(np.cumsum(kk - 1) - (kk - 1), kk - 1) + 1) \
            / np.repeat(kk, kk - 1)
        xs.append(ax[j] + t * (bx[j] - ax[j]))
        ys.append(ay[j] + t * (by[j] - ay[j]))
        cs.append(ca[j] + t * (cb[j] - ca[j]))
    for cut in cuts:  # the frontier: where a cutoff falls strictly inside a piece
        j = np.nonzero((ca < cut) & (cut < cb))[0]
        if j.size:
            t = (cut - ca[j]) / (cb[j] - ca[j])
            xs.append(ax[j] + t * (bx[j] - ax[j]))
            ys.append(ay[j] + t * (by[j] - ay[j]))
            cs.append(np.full(j.size, float(cut)))
    x, y, c = np.concatenate(xs), np.concatenate(ys), np.concatenate(cs)
    keep = c <= cuts[-1]
    return x[keep], y[keep], np.searchsorted(cuts, c[keep], side="left")


def _dilate(best: np.ndarray, radius_cells: float) -> np.ndarray:
    """Each cell's smallest band over the cells whose centres lie strictly within
    ``radius_cells`` of it."""
    out = best.copy()
    ny, nx = best.shape
    k = int(np.ceil(radius_cells))
    for dr in range(-k, k + 1):
        for dc in range(-k, k + 1):
            if (dr == 0 and dc == 0) or np.hypot(dr, dc) >= radius_cells:
                continue
            # out[r, c] = min(out[r, c], best[r + dr, c + dc]) where both lie in the grid
            o = out[max(-dr, 0):ny - max(dr, 0), max(-dc, 0):nx - max(dc, 0)]
            np.minimum(o, best[max(dr, 0):ny + min(dr, 0), max(dc, 0):nx + min(dc, 0)], out=o)
    return out
