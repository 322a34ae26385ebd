"""An overview of a big map for far zooms (issue 27, full redraw): what GIS tools keep for
big layers, a pyramid level. Once per map the whole extent is rasterised at a fixed, finer
scale than the first full view (:data:`FACTOR` times its pixels per metre, at most
:data:`MAX_PIXELS` pixels), keeping in each pixel the *segment index* + 1 of the last
segment drawn there (the one the exact pass would show). A view whose pixels are at least
the overview's is then made by resampling it (:func:`resample`: one pass over the covered
overview pixels, a few ms) instead of stepping every segment of the map (20-30 ms on the
generated 1.43M-node map on 2 cores); nearer zooms keep the exact rasteriser.

The rule: a view pixel takes the overview pixels that overlap it by more than
:data:`OVERLAP` of an overview pixel along each axis (two or three per axis at the zooms
that use it), and shows the arc of the highest segment index among them,
as the exact pass shows the last segment drawn there. Levels of detail stay exact: the
segments are in class order, so a class cut-off is a segment index (``SegmentSet.z_first``)
and a pixel whose highest index is below it shows nothing. Lines come out 1-2 px wide as
in the exact pass; where two roads share a view pixel the higher class or later arc wins,
as there. No Qt here.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from . import raster

FACTOR = 2.0  # overview pixels per view pixel of the first full view, per axis
MAX_PIXELS = 16_000_000  # 64 MB of int32: the overview's memory bound
MIN_STEP = 1.5  # overview pixels per view pixel, at least, for a view made from it
# An overview pixel counts for each view pixel it overlaps by more than this (overview
# pixels, per axis). The first rule, "the view pixel holding its centre", gave a view
# pixel one or two overview pixels in turn at 1.6 per view pixel: on the Kanto-sized map a
# regular lattice (ink by column mod 5: 0.66 / 0.73) over the exact pass's speckle. With
# this one the ink is even (0.75 every column; the exact pass 0.72) and dense quarters read
# as solid, as in most map renderers (docs/perf/gui.md).
OVERLAP = 0.3
MIN_SEGMENTS = raster.RASTER_MIN_SEGMENTS  # smaller maps: the exact pass is fast enough


@dataclass(frozen=True)
class OverviewSpec:
    """Where the overview lies: origin (metres), pixels per metre, size in pixels."""

    ox: float
    oy: float
    scale: float
    w: int
    h: int
    min_z: int  # the level of detail at the overview's scale: views at coarser ones cut more

    def covers(self, scale: float, min_z: int) -> bool:
        """Whether a view of ``scale`` pixels per metre (level of detail ``min_z``) can be
        made from the overview: its pixels at least :data:`MIN_STEP` of the overview's
        (near 1:1 the overview's half-pixel phase showed as a faint lattice of empty
        pixels on dense maps; the exact pass draws those views)."""
        return scale * MIN_STEP <= self.scale * (1.0 + 1e-9) and min_z >= self.min_z


def plan(bounds: tuple[float, float, float, float], view_scale: float, z_max: int,
         factor: float | None = None, max_pixels: int | None = None) -> OverviewSpec | None:
    """The overview of a map of ``bounds`` (xmin, ymin, xmax, ymax metres) whose first full
    view has ``view_scale`` pixels per metre: ``factor`` times finer, within ``max_pixels``
    (coarser if needed; both default to :data:`FACTOR`, :data:`MAX_PIXELS`); None for an
    empty or degenerate extent."""
    factor = FACTOR if factor is None else factor
    max_pixels = MAX_PIXELS if max_pixels is None else max_pixels
    x0, y0, x1, y1 = bounds
    bw, bh = x1 - x0, y1 - y0
    if not (np.isfinite([x0, y0, x1, y1]).all() and view_scale > 0 and bw >= 0 and bh >= 0):
        return None
    scale = view_scale * factor

    def size(s: float) -> tuple[int, int]:
        # one pixel of margin each side: 2 px lines reach a pixel right of and below their end
        return int(math.ceil(bw * s)) + 3, int(math.ceil(bh * s)) + 3

    w, h = size(scale)
    if w * h > max_pixels:
        scale *= math.sqrt(max_pixels / (w * h)) * 0.99
        w, h = size(scale)
    if w * h > max_pixels or w < 4 or h < 4:
        return None
    min_z = raster.lod_min_z(1.0 / scale, z_max)
    return OverviewSpec(ox=x0 - 1.0 / scale, oy=y0 - 1.0 / scale, scale=scale, w=w, h=h, min_z=min_z)


@njit(cache=True, nogil=True, parallel=True)
def _max_merge(tmp, a, out):  # pragma: no cover - numba
    """out = the largest value of the threads' images per pixel, + ``a`` where drawn (the
    threads wrote indices within the slice of segments from ``a``)."""
    nt, h, w = tmp.shape
    for r in prange(h):
        for c in range(w):
            m = 0
            for t in range(nt):
                m = max(m, tmp[t, r, c])
            out[r, c] = m + a if m > 0 else 0


def build(seg: raster.SegmentSet, spec: OverviewSpec, threads: int | None = None) -> np.ndarray:
    """The overview image of ``spec``: (h, w) int32, segment index + 1 of the last segment
    drawn in each pixel (0: none), the segments of class ``spec.min_z`` and above; on
    numba's threads as :func:`raster.draw` (the same pixels)."""
    a = int(seg.z_first[min(max(spec.min_z, 0), 15)]) if seg.z_first is not None else 0
    nt = numba.get_num_threads() if threads is None else threads
    view = (float(spec.ox), float(spec.oy), float(spec.scale))
    img = np.zeros((spec.h, spec.w), dtype=np.int32)
    if nt > 1 and seg.size - a >= raster.PARALLEL_MIN_SEGMENTS:
        tmp = raster._draw_threads(seg.x0[a:], seg.y0[a:], seg.x1[a:], seg.y1[a:], seg.arc[a:],
                                   seg.thick[a:], *view, spec.h, spec.w, nt, raster.PARALLEL_BLOCK)
        _max_merge(tmp, a, img)
    else:
        raster._draw_range(img, seg.x0, seg.y0, seg.x1, seg.y1, seg.arc, seg.thick, *view, a,
                           seg.size, True)
    return img


@njit(cache=True, nogil=True)
def _bounds(n, start, step, size):  # pragma: no cover - numba
    """(lo, hi) per view pixel 0..n-1: the overview pixels lo..hi-1 that overlap it by more
    than :data:`OVERLAP` along this axis; ``start`` = the left (top) edge of view pixel 0 in
    overview pixels, ``step`` = overview pixels per view pixel."""
    lo = np.empty(n, np.int64)
    hi = np.empty(n, np.int64)
    for j in range(n):
        a = start + j * step
        lo[j] = min(max(int(math.floor(a + OVERLAP)), 0), size)
        hi[j] = min(max(int(math.ceil(a + step - OVERLAP)), 0), size)
    return lo, hi


@njit(cache=True, nogil=True, parallel=True)
def _resample(ov, arc, first, clo, chi, rlo, rhi, ids, colours, argb):  # pragma: no cover - numba
    """ids[r, c] = arc + 1 of the highest segment index (if >= ``first``) among overview
    pixels rows rlo[r]..rhi[r]-1, columns clo[c]..chi[c]-1; with ``colours`` (one ARGB per
    drawn arc; empty: none) ``argb`` gets the pixel's colour in the same pass. Separable: the
    overview rows of a view row are reduced first (whole rows: vectorised), then each view
    pixel's columns (two or three at the zoom levels that matter)."""
    h, w = ids.shape
    nc = colours.shape[0]
    lo, hi = clo[0], max(chi[w - 1], clo[0])
    for r in prange(h):
        r0, r1 = rlo[r], rhi[r]
        row = np.zeros(hi - lo, np.int32)
        if r1 > r0:
            row[:] = ov[r0, lo:hi]
            for i in range(r0 + 1, r1):
                src = ov[i]
                for j in range(lo, hi):
                    row[j - lo] = max(row[j - lo], src[j])
        for c in range(w):
            m = 0
            for j in range(clo[c] - lo, chi[c] - lo):
                m = max(m, row[j])
            k = arc[m - 1] + 1 if m > first else 0
            ids[r, c] = k
            if nc > 0:
                argb[r, c] = colours[k - 1] if k > 0 else 0


def resample_threads() -> int:
    """Threads for :func:`resample`: numba's, less one core left to the GUI thread, which
    paints the previous frame moved and scaled while the view is resampled. (On 2 cores one
    thread: the bench's Kanto zoom step 25.6-28.8 -> 23.3-24.6 ms, the resample itself 11-13
    -> 9.5 ms; two threads win only when they get both cores, 3.6 against 7.2 ms.)"""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(numba.get_num_threads(), cores - 1))


def resample(ov: np.ndarray, spec: OverviewSpec, seg: raster.SegmentSet,
             rect: tuple[float, float, float, float], size: tuple[int, int], min_z: int = 0,
             colours: np.ndarray | None = None, threads: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """(id image of ``rect`` = (x, y, w, h) metres at ``size`` = (w, h) pixels, as
    :func:`raster.render_ids` makes it; its colours with ``colours``) from the overview.
    The view's pixels must be at least the overview's (``spec.covers``). ``threads``:
    :func:`resample_threads` unless given."""
    w, h = size
    x, y, rw, _ = rect
    scale = w / max(rw, 1e-9)
    step = spec.scale / scale
    clo, chi = _bounds(w, (x - spec.ox) * spec.scale, step, spec.w)
    rlo, rhi = _bounds(h, (y - spec.oy) * spec.scale, step, spec.h)
    first = int(seg.z_first[min(max(min_z, 0), 15)]) if seg.z_first is not None else 0
    ids = np.empty((h, w), dtype=np.int32)
    if colours is None:
        cols, argb = np.zeros(0, np.uint32), np.zeros((0, 0), np.uint32)
    else:
        cols, argb = colours.astype(np.uint32, copy=False), np.empty((h, w), dtype=np.uint32)
    was = numba.get_num_threads()
    numba.set_num_threads(resample_threads() if threads is None else max(1, min(threads, was)))
    try:  # (numba's thread count is the calling thread's own)
        _resample(ov, seg.arc, first, clo, chi, rlo, rhi, ids, cols, argb)
    finally:
        numba.set_num_threads(was)
    return ids, (None if colours is None else argb)


class Overview:
    """The overview of one map, made on the raster worker and then read by the GUI thread:
    ``level`` = (spec, image) or None, replaced whole (one assignment: a reader never sees
    the spec of one image with another). A new map gets a new instance, so a build for the
    old map still running can only fill the old one."""

    REBUILD = 1.25  # a window this much larger (linearly) than the built level's: built again

    def __init__(self, seg: raster.SegmentSet, bounds: tuple[float, float, float, float]):
        self.seg, self.bounds = seg, bounds
        self.level: tuple[OverviewSpec, np.ndarray] | None = None

    def wanted(self, widget_px: tuple[float, float]) -> OverviewSpec | None:
        """The level to build for a view widget of ``widget_px`` (w, h) pixels, or None when
        the built one serves (maps of fewer segments than :data:`MIN_SEGMENTS`: never)."""
        if self.seg.size < MIN_SEGMENTS:
            return None
        x0, y0, x1, y1 = self.bounds
        fit = min(widget_px[0] / max(x1 - x0, 1e-9), widget_px[1] / max(y1 - y0, 1e-9))
        z_max = self.seg.z_max if self.seg.z_first is not None else 0
        spec = plan(self.bounds, fit, z_max)  # the whole map fitting the widget, x FACTOR
        if spec is None or (self.level is not None and spec.scale <= self.level[0].scale * self.REBUILD):
            return None
        return spec

    def build(self, spec: OverviewSpec) -> None:
        """Make the level of ``spec`` (worker thread)."""
        self.level = (spec, build(self.seg, spec))

    def covering(self, scale: float, min_z: int) -> tuple[OverviewSpec, np.ndarray] | None:
        """The level a view of ``scale`` pixels per metre and ``min_z`` can be made from."""
        lvl = self.level
        return lvl if lvl is not None and lvl[0].covers(scale, min_z) else None
