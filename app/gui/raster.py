"""Level of detail for big maps: the road network rasterised by a compiled kernel.
(Over 500 lines: the rasteriser's numba kernels and their merge steps, compiled together.)

Past a few hundred thousand segments, asking Qt to stroke every segment (even as one
path per class) takes seconds per frame. Instead the canvas draws the network into an
image the size of the view with :func:`draw_segments` (numba, one pass over the
segments, 1-2 px lines, Liang-Barsky clipping; on numba's threads while they get the
cores, :func:`draw`, the same pixels), re-rendered after each pan/zoom. The
distance field is a recolouring of the same segments (:func:`field_colours`), so a new
search costs one colour pass plus one draw, not a rebuild of paths. No Qt here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from .geometry import MapGeometry, class_groups

# Above this many drawn segments the canvas switches from vector paths to the raster.
RASTER_MIN_SEGMENTS = 250_000
# Class-based level of detail (issue 27): (metres per pixel at most, lowest class z drawn);
# coarser views draw z >= LOD_COARSE_Z only. z is the road style's (resources/road_styles:
# footway/path/track 1, service 2, residential 3, tertiary 5, secondary 6, primary 7, ...).
LOD_Z = ((2.5, 0), (8.0, 2), (25.0, 3), (80.0, 5))
LOD_COARSE_Z = 6
RAIL_Z = 10  # rail, light rail, subway, tram, transfers: never left out
# The rasteriser runs on numba's threads from this many segments on (fewer: one thread,
# the per-thread images would cost more than they save); blocks of this many dealt in turn.
PARALLEL_MIN_SEGMENTS = 100_000
PARALLEL_BLOCK = 4096


def lod_min_z(metres_per_px: float, z_max: int) -> int:
    """The lowest class z drawn at this scale: minor classes only when zoomed in, never
    above the map's highest class (a map of one class is always drawn whole)."""
    z = LOD_COARSE_Z
    for limit, zmin in LOD_Z:
        if metres_per_px <= limit:
            z = zmin
            break
    return min(z, z_max)


def argb(hex_colour: str, alpha: int = 255) -> int:
    h = hex_colour.lstrip("#")
    r, g, b = int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    return (alpha << 24) | (r << 16) | (g << 8) | b


def lut_argb(rgb: np.ndarray, alpha: int = 255) -> np.ndarray:
    """uint32 ARGB colours from an (n, 3) uint8 RGB table."""
    rgb = rgb.astype(np.uint32)
    return (np.uint32(alpha) << 24) | (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]


@dataclass
class SegmentSet:
    """Every straight piece of every drawn polyline, ordered by draw order (class z)."""

    x0: np.ndarray  # float32 metres
    y0: np.ndarray
    x1: np.ndarray
    y1: np.ndarray
    arc: np.ndarray  # int32: index into MapGeometry.arcs of the polyline it belongs to
    thick: np.ndarray  # uint8: 1 or 2 px
    road_colour: np.ndarray  # uint32 ARGB per drawn arc (class colours)
    dim_colour: np.ndarray  # uint32 ARGB per drawn arc (roads under a distance field)
    z_first: np.ndarray | None = None  # int64 [z]: first segment of class z or above (z 0..15)

    @property
    def size(self) -> int:
        return int(self.x0.shape[0])

    @property
    def z_max(self) -> int:
        """The highest road class z with segments (rail and transfers, z >= RAIL_Z, are
        drawn at every scale and do not count); 0 for a set made without ``z_first``."""
        if self.z_first is None:
            return 0
        zs = np.flatnonzero(np.diff(np.append(self.z_first, self.size)) > 0)
        zs = zs[zs < RAIL_Z]
        return int(zs[-1]) if zs.size else 0


@njit(cache=True, nogil=True)
def _split(order, order_z, pt_start, pt_count, px, py, width, total):  # pragma: no cover - numba
    """The segments of the polylines ``order`` (arcs of the drawing, in draw order)."""
    x0 = np.empty(total, np.float32)
    y0 = np.empty(total, np.float32)
    x1 = np.empty(total, np.float32)
    y1 = np.empty(total, np.float32)
    arc = np.empty(total, np.int32)
    thick = np.empty(total, np.uint8)
    seg_z = np.empty(total, np.int64)
    k = 0
    for i in range(order.shape[0]):
        a = order[i]
        s = pt_start[a]
        for j in range(s, s + pt_count[a] - 1):
            x0[k] = px[j]
            y0[k] = py[j]
            x1[k] = px[j + 1]
            y1[k] = py[j + 1]
            arc[k] = a
            thick[k] = width[a]
            seg_z[k] = order_z[i]
            k += 1
    return x0, y0, x1, y1, arc, thick, seg_z


def build_segments(net, geo: MapGeometry) -> SegmentSet:
    """Split the polylines into segments, in class draw order, with per-arc colours."""
    nd = geo.num_drawn
    road = np.zeros(nd, dtype=np.uint32)
    dim = np.zeros(nd, dtype=np.uint32)
    width = np.ones(nd, dtype=np.uint8)
    order_parts = []
    part_z = []
    for style, sel in class_groups(net, geo):  # lowest z first
        road[sel] = argb(style.colour)
        dim[sel] = argb(style.colour, 70)
        width[sel] = 2 if style.width >= 2.0 else 1
        order_parts.append(sel)
        part_z.append(min(max(style.z, 0), 15))
    order = np.concatenate(order_parts) if order_parts else np.zeros(0, dtype=np.int64)
    order_z = np.empty(order.size, dtype=np.int64)  # each drawn arc's class z, draw order
    at = 0
    for sel, z in zip(order_parts, part_z, strict=True):
        order_z[at:at + sel.size] = z
        at += sel.size
    total = int(np.maximum(geo.pt_count[order] - 1, 0).sum())
    # one pass without the GIL: np.repeat over the 2.29M segments of the generated Kanto
    # map held it 50-60 ms on the loader thread, the window frozen meanwhile (issue 27)
    x0, y0, x1, y1, arc, thick, seg_z = _split(order, order_z, geo.pt_start, geo.pt_count,
                                               geo.px, geo.py, width, total)
    z_first = np.searchsorted(seg_z, np.arange(16))  # seg_z ascends with the draw order
    return SegmentSet(
        x0=x0,
        y0=y0,
        x1=x1,
        y1=y1,
        arc=arc,
        thick=thick,
        road_colour=road,
        dim_colour=dim,
        z_first=z_first,
    )


@njit(cache=True, nogil=True, inline="always")
def _clip(p, q, t0, t1):  # pragma: no cover - numba
    """One Liang-Barsky boundary: (still visible, t0, t1)."""
    if p == 0.0:
        return q >= 0.0, t0, t1
    r = q / p
    if p < 0.0:
        if r > t1:
            return False, t0, t1
        return True, max(t0, r), t1
    if r < t0:
        return False, t0, t1
    return True, t0, min(t1, r)


@njit(cache=True, nogil=True, inline="always")
def _put(img, py, px, c, th, w, h):  # pragma: no cover - numba
    """One pixel of a line (and its right and lower neighbours for 2 px lines)."""
    img[py, px] = c
    if th > 1:
        if px + 1 < w:
            img[py, px + 1] = c
        if py + 1 < h:
            img[py + 1, px] = c


@njit(cache=True, nogil=True)
def _draw_range(img, x0, y0, x1, y1, arc, thick, ox, oy, scale, lo, hi,
                by_index):  # pragma: no cover - numba
    """Segments lo..hi of :func:`draw_segments`; ``by_index``: write i + 1, not arc[i] + 1."""
    h, w = img.shape
    fw, fh = np.float64(w), np.float64(h)
    for i in range(lo, hi):
        ax = (np.float64(x0[i]) - ox) * scale
        bx = (np.float64(x1[i]) - ox) * scale
        if (ax < 0 and bx < 0) or (ax >= fw and bx >= fw):
            continue
        ay = (np.float64(y0[i]) - oy) * scale
        by = (np.float64(y1[i]) - oy) * scale
        if (ay < 0 and by < 0) or (ay >= fh and by >= fh):
            continue
        c = i + 1 if by_index else arc[i] + 1
        th = thick[i]
        dx = bx - ax
        dy = by - ay
        if 0.0 <= ax < fw and 0.0 <= bx < fw and 0.0 <= ay < fh and 0.0 <= by < fh:
            # inside: stepped without clipping. (A segment within one pixel was tested
            # for and written once: that test mispredicted at every other segment of a
            # zoomed-out big map, 25 % of the pass; stepping it writes that one pixel.)
            # A point can round onto the far edge (w or h): skipped, as the clipped path
            # does; it cannot go below 0 (truncation).
            steps = int(max(abs(dx), abs(dy))) + 1
            fx = dx / steps
            fy = dy / steps
            for k in range(steps + 1):
                px = int(ax + fx * k)
                py = int(ay + fy * k)
                if px < w and py < h:
                    _put(img, py, px, c, th, w, h)
            continue
        t0 = 0.0
        t1 = 1.0
        ok, t0, t1 = _clip(-dx, ax, t0, t1)
        if ok:
            ok, t0, t1 = _clip(dx, w - 1e-3 - ax, t0, t1)
        if ok:
            ok, t0, t1 = _clip(-dy, ay, t0, t1)
        if ok:
            ok, t0, t1 = _clip(dy, h - 1e-3 - ay, t0, t1)
        if not ok:
            continue
        sx = ax + t0 * dx
        sy = ay + t0 * dy
        ex = ax + t1 * dx
        ey = ay + t1 * dy
        steps = int(max(abs(ex - sx), abs(ey - sy))) + 1
        fx = (ex - sx) / steps
        fy = (ey - sy) / steps
        for k in range(steps + 1):
            px = int(sx + fx * k)
            py = int(sy + fy * k)
            if 0 <= px < w and 0 <= py < h:
                _put(img, py, px, c, th, w, h)


@njit(cache=True, nogil=True)
def draw_segments(img, x0, y0, x1, y1, arc, thick, ox, oy, scale):  # pragma: no cover - numba
    """Write arc[i] + 1 into the pixels of segment i: img (h, w) int32, 0 = empty.

    Pixel = ((x - ox) * scale, (y - oy) * scale); row 0 is the smallest y (the view
    flips it). Lines are clipped to the image (Liang-Barsky) before stepping; later
    segments (higher classes) overwrite earlier ones. A segment inside the image is not
    clipped.
    """
    _draw_range(img, x0, y0, x1, y1, arc, thick, ox, oy, scale, 0, x0.shape[0], False)


@njit(cache=True, nogil=True, parallel=True)
def _draw_threads(x0, y0, x1, y1, arc, thick, ox, oy, scale, h, w, nt,
                  blk):  # pragma: no cover - numba
    """(nt, h, w) images, one per thread: the index + 1 of the last segment of that
    thread's blocks (``blk`` segments, dealt in turn) in each pixel."""
    n = x0.shape[0]
    nblk = (n + blk - 1) // blk
    tmp = np.empty((nt, h, w), np.int32)
    for t in prange(nt):
        im = tmp[t]
        im[:] = 0
        for b in range(t, nblk, nt):
            _draw_range(im, x0, y0, x1, y1, arc, thick, ox, oy, scale, b * blk,
                        min(n, (b + 1) * blk), True)
    return tmp


@njit(cache=True, nogil=True, parallel=True)
def _merge(img, tmp, arc, colours, argb):  # pragma: no cover - numba
    """A pixel shows the arc of the highest segment index any thread drew there (the
    last one the serial pass writes), else keeps its id; with ``colours`` (one ARGB per
    drawn arc, empty: none) ``argb`` gets the pixel's colour in the same pass."""
    nt, h, w = tmp.shape
    nc = colours.shape[0]
    for r in prange(h):
        for c in range(w):
            m = 0
            for t in range(nt):
                m = max(m, tmp[t, r, c])
            if m > 0:
                img[r, c] = arc[m - 1] + 1
            if nc > 0:
                k = img[r, c]
                argb[r, c] = colours[k - 1] if k > 0 else 0


def draw_segments_parallel(img: np.ndarray, x0, y0, x1, y1, arc, thick, ox: float, oy: float,
                           scale: float, nt: int, blk: int) -> None:
    """:func:`draw_segments` on ``nt`` threads, the same pixels: blocks of ``blk``
    segments dealt in turn to the threads (a zoomed-in view's segments are then split
    evenly too), each drawing the index + 1 of its segments into an image of its own; a
    pixel then shows the arc of the highest index drawn there, which is the last one
    the serial pass writes."""
    h, w = img.shape
    tmp = _draw_threads(x0, y0, x1, y1, arc, thick, float(ox), float(oy), float(scale), h, w, nt, blk)
    _merge(img, tmp, arc, np.zeros(0, np.uint32), np.zeros((0, 0), np.uint32))


class CoreCheck:
    """Whether rasterising on several threads had the cores to itself: the process's CPU
    seconds over the wall seconds of the draw, near the thread count when it had, near 1
    when the threads shared a core with other work. Then a second thread costs about 30 %
    more than one (the merge, a second image: measured at load 1.4-2.6 on 2 cores), so the
    next ``RETRY`` draws run on one thread before the threads are tried again."""

    RETRY = 8
    MIN_GAIN = 0.6  # of the thread count: below, one thread is faster (the merge costs ~15 %)

    def __init__(self):
        self.serial_left = 0

    def threads(self, nt: int) -> int:
        """The thread count for the next draw, of ``nt`` wanted."""
        if nt > 1 and self.serial_left > 0:
            self.serial_left -= 1
            return 1
        return nt

    def record(self, nt: int, wall_s: float, cpu_s: float) -> None:
        """A draw on ``nt`` threads took ``wall_s`` seconds and ``cpu_s`` of the process's."""
        if nt > 1 and cpu_s < self.MIN_GAIN * nt * wall_s:
            self.serial_left = self.RETRY


CORES = CoreCheck()


def draw(img: np.ndarray, seg: SegmentSet, a: int, ox: float, oy: float, scale: float,
         threads: int | None = None, colours: np.ndarray | None = None,
         argb: np.ndarray | None = None) -> None:
    """Draw the segments from ``a`` on (a level of detail's tail) into the id image:
    on numba's threads when there are several and enough segments (the same pixels), and
    unless ``threads`` is given, only while they get the cores (:class:`CoreCheck`).
    ``colours`` (one ARGB per drawn arc): ``argb`` gets the image coloured too."""
    n = seg.size - a
    nt = threads if threads is not None else (
        CORES.threads(numba.get_num_threads()) if n >= PARALLEL_MIN_SEGMENTS else 1)
    args = (seg.x0[a:], seg.y0[a:], seg.x1[a:], seg.y1[a:], seg.arc[a:], seg.thick[a:],
            float(ox), float(oy), float(scale))
    if nt > 1 and n >= PARALLEL_MIN_SEGMENTS:
        t0, c0 = time.perf_counter(), time.process_time()
        tmp = _draw_threads(*args, img.shape[0], img.shape[1], nt, PARALLEL_BLOCK)
        if threads is None:
            CORES.record(nt, time.perf_counter() - t0, time.process_time() - c0)
        if colours is None:
            colours, argb = np.zeros(0, np.uint32), np.zeros((0, 0), np.uint32)
        _merge(img, tmp, seg.arc[a:], colours.astype(np.uint32, copy=False), argb)
    else:
        draw_segments(img, *args)
        if colours is not None:
            colourise(img, colours, argb)


@njit(cache=True, nogil=True, parallel=True)
def field_colours(dist, tails, heads, lut, under, max_cost, step):  # pragma: no cover - numba
    """Colour per drawn arc: lut by the cost of its nearer reached end; ``under`` where
    neither end is reached. ``step`` > 0 quantises to isochrone bands of that width."""
    m = tails.shape[0]
    out = np.empty(m, dtype=np.uint32)
    nl = lut.shape[0]
    top = max(max_cost, 1)
    for i in prange(m):
        a = dist[tails[i]]
        b = dist[heads[i]]
        if a < 0:
            v = b
        elif b < 0:
            v = a
        else:
            v = min(a, b)
        if v < 0:
            out[i] = under[i]
            continue
        if step > 0:
            v = (v // step) * step + step // 2
        k = int(v * (nl - 1) / top)
        if k >= nl:
            k = nl - 1
        out[i] = lut[k]
    return out


@njit(cache=True, nogil=True, parallel=True)
def _field_pixels(ids, dist, tails, heads, lut, under, max_cost, step, out):  # pragma: no cover - numba
    """Per pixel: the field colour of the arc shown there (one pass over pixels, which on
    a zoomed-out big map are fewer than the arcs). Rows in parallel: each pixel reads two
    random entries of ``dist``, so a frame of a 1.4M-node map is memory-latency bound
    (10 ms on one core of the GPU host: most of a drag frame)."""
    h, w = ids.shape
    nl = lut.shape[0]
    top = max(max_cost, 1)
    for r in prange(h):
        for c in range(w):
            k = ids[r, c]
            if k == 0:
                out[r, c] = 0
                continue
            i = k - 1
            a = dist[tails[i]]
            b = dist[heads[i]]
            v = b if a < 0 else (a if b < 0 else min(a, b))
            if v < 0:
                out[r, c] = under[i]
                continue
            if step > 0:
                v = (v // step) * step + step // 2
            j = int(v * (nl - 1) / top)
            out[r, c] = lut[min(j, nl - 1)]


def field_image(ids: np.ndarray, geo: MapGeometry, seg: SegmentSet, dist: np.ndarray, lut: np.ndarray,
                bands: int = 0, out: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """(ARGB image, max reached cost) of the distance field over an id image: the same
    colours as :func:`field_arc_colours`, computed only for the arcs on screen."""
    top, step, max_cost = _field_scale(dist, bands)
    if out is None or out.shape != ids.shape:
        out = np.empty(ids.shape, dtype=np.uint32)
    _field_pixels(ids, dist, geo.tails, geo.heads, lut, seg.dim_colour, top, step, out)
    return out, max_cost


def _field_scale(dist: np.ndarray, bands: int) -> tuple[int, int, int]:
    """(top of the colour scale, band width or 0, max reached cost)."""
    from .geometry import nice_step

    max_cost = int(dist.max()) if dist.size else 0  # UNREACHABLE is -1: max is a reached cost
    step = int(max(nice_step(max(max_cost, 1), bands), 1)) if bands > 0 else 0
    top = int(np.ceil(max(max_cost, 1) / step) * step) if step else max_cost
    return top, step, max_cost


def band_legend(dist: np.ndarray, bands: int, lut_rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(band edges, RGB per band) of the isochrone bands :func:`field_colours` draws."""
    top, step, _ = _field_scale(dist, bands)
    if step <= 0:
        return np.zeros(0), np.zeros((0, 3), np.uint8)
    nb = max(top // step, 1)
    mid = np.arange(nb) * step + step // 2
    k = np.minimum((mid * (lut_rgb.shape[0] - 1) / max(top, 1)).astype(np.int64), lut_rgb.shape[0] - 1)
    return np.arange(nb + 1) * step, lut_rgb[k]


def field_arc_colours(geo: MapGeometry, seg: SegmentSet, dist: np.ndarray, lut: np.ndarray,
                      bands: int = 0) -> tuple[np.ndarray, int]:
    """(ARGB per drawn arc, max reached cost) for a distance field; ``bands`` > 0 gives
    about that many isochrone bands of a round width."""
    top, step, max_cost = _field_scale(dist, bands)
    cols = field_colours(dist, geo.tails, geo.heads, lut, seg.dim_colour, top, step)
    return cols, max_cost


def render_ids(seg: SegmentSet, rect: tuple[float, float, float, float], size: tuple[int, int],
               out: np.ndarray | None = None, min_z: int = 0, threads: int | None = None) -> np.ndarray:
    """Which drawn arc (index + 1, 0 = none) shows in each pixel of ``rect`` = (x, y, w, h).

    Done once per view change; recolouring (a new distance field) is then a gather over
    pixels (:func:`colourise`), not a new pass over millions of segments. ``min_z``: only
    classes of that z or above (level of detail, :func:`lod_min_z`): the segments are in
    z order, so that is a tail of the arrays, not a copy. ``threads``: numba's count unless
    given (:func:`draw`).
    """
    w, h = size
    if out is None or out.shape != (h, w):
        out = np.zeros((h, w), dtype=np.int32)
    else:
        out.fill(0)
    x, y, rw, _ = rect
    scale = w / max(rw, 1e-9)
    a = int(seg.z_first[min(max(min_z, 0), 15)]) if seg.z_first is not None else 0
    draw(out, seg, a, x, y, scale, threads)
    return out


def render_coloured(seg: SegmentSet, rect: tuple[float, float, float, float], size: tuple[int, int],
                    colours: np.ndarray, min_z: int = 0,
                    threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(:func:`render_ids`, :func:`colourise` of it with ``colours``): on several threads
    the colour is written in the pass that merges the threads' images."""
    w, h = size
    ids = np.zeros((h, w), dtype=np.int32)
    argb = np.empty((h, w), dtype=np.uint32)
    x, y, rw, _ = rect
    a = int(seg.z_first[min(max(min_z, 0), 15)]) if seg.z_first is not None else 0
    draw(ids, seg, a, x, y, w / max(rw, 1e-9), threads, colours, argb)
    return ids, argb


def render_shifted(seg: SegmentSet, prev: np.ndarray, shift: tuple[int, int],
                   rect: tuple[float, float, float, float], min_z: int = 0,
                   threads: int | None = None, strip=None) -> np.ndarray:
    """:func:`render_ids` of ``rect`` from ``prev``, the id image of the same size, scale
    and ``min_z`` whose pixel (i, j) is pixel (i - dy, j - dx) here (``shift`` = (dx,
    dy) whole pixels: a pan): the overlap is copied and only the uncovered strips are
    rasterised (or made by ``strip(rect, (w, h))``: a far view's, resampled from the
    map's overview). ``prev`` is not written (a worker may still read it). A line that
    crosses a strip's edge may step one pixel off where a whole render puts it.
    """
    h, w = prev.shape
    dx, dy = shift
    out = np.zeros_like(prev)
    if abs(dx) >= w or abs(dy) >= h:
        return render_ids(seg, rect, (w, h), min_z=min_z, threads=threads)
    out[max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = \
        prev[max(-dy, 0):h + min(-dy, 0), max(-dx, 0):w + min(-dx, 0)]
    x, y, rw, _ = rect
    scale = w / max(rw, 1e-9)
    # uncovered: the columns a pan to the side exposes (full height), then the rows
    strips = []
    if dx:
        strips.append((0, h, 0, dx) if dx > 0 else (0, h, w + dx, w))
    if dy:
        c0, c1 = (dx, w) if dx > 0 else (0, w + dx)
        strips.append((0, dy, c0, c1) if dy > 0 else (h + dy, h, c0, c1))
    a = int(seg.z_first[min(max(min_z, 0), 15)]) if seg.z_first is not None else 0
    for r0, r1, c0, c1 in strips:
        # one pixel of margin above and left: the second pixel of 2 px lines there
        m0, n0 = max(r0 - 1, 0), max(c0 - 1, 0)
        box = (x + n0 / scale, y + m0 / scale, (c1 - n0) / scale, (r1 - m0) / scale)
        if strip is not None:
            part = strip(box, (c1 - n0, r1 - m0))
        else:
            part = np.zeros((r1 - m0, c1 - n0), dtype=np.int32)
            draw(part, seg, a, box[0], box[1], scale, threads)
        out[r0:r1, c0:c1] = part[r0 - m0:, c0 - n0:]
    return out


def colourise(ids: np.ndarray, arc_colours: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """ARGB image (uint32) of an id image with one colour per drawn arc."""
    if out is None or out.shape != ids.shape:
        out = np.empty(ids.shape, dtype=np.uint32)
    _gather(ids, arc_colours.astype(np.uint32, copy=False), out)
    return out


@njit(cache=True, nogil=True, parallel=True)
def _gather(ids, colours, out):  # pragma: no cover - numba
    """out = colours[ids - 1], 0 where ids is 0 (rows on numba's threads)."""
    h, w = ids.shape
    for r in prange(h):
        for c in range(w):
            k = ids[r, c]
            out[r, c] = colours[k - 1] if k > 0 else 0


def render(seg: SegmentSet, colours: np.ndarray, rect: tuple[float, float, float, float],
           size: tuple[int, int]) -> np.ndarray:
    """ARGB image (h, w) uint32 of the segments inside ``rect`` coloured per drawn arc."""
    return colourise(render_ids(seg, rect, size), colours)
