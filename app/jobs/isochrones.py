"""The isochrone job: areas reachable from one point within each of a few cutoffs, as
polygons (what a planner loads into QGIS), not as coloured nodes.

How a polygon is made (shapely on the CPU, in the map's local metric projection ``x/y``):

1. One search from the source: by the map's own weights (``by="cost"``; minutes are
   ``cutoff * 600`` deciseconds on a time profile, in any time unit by
   :func:`units_per_minute`) or by length (``by="length"``: every arc weighs its length
   in decimetres, on any map, one-ways as the profile has them).
2. Every arc ``u→v`` with ``d[u] <= cutoff`` is reachable from its tail for the fraction
   ``min(1, (cutoff - d[u]) / w)`` of its length (costs grow evenly along an arc). The
   arc's drawn geometry (tail, inner points, head) is cut there, interpolating along the
   polyline; fully reached two-way pairs are kept once.
3. The band of ``buffer_m`` metres each side of the reached lines (and about the source
   point; default :data:`DEFAULT_BUFFER_M`). Blocks wider than twice the buffer where no
   reachable road runs stay holes. ``method="raster"`` (the default, ``iso_raster``):
   the lines sampled onto a grid of ``buffer / 12`` cells (coarser on areas beyond a few
   million cells), a distance transform, the band traced by contourpy; linear in the
   cells (Kanto-sized map: 42 s -> about a second). ``method="union"``: exact buffers
   unioned by GEOS (lines simplified to a tenth of the buffer first).
4. Cutoffs are nested: raster, each cutoff's marked cells contain the smaller one's on the
   same lattice; union, the polygon of a cutoff is the one before it united with the
   buffers of what the larger cutoff adds. Then projected back to WGS84 lon/lat
   (containment holds up to floating-point rounding of the projection).
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from maps.model.weights import unit_scale

from .common import CancelCheck, Progress, report, small_work

log = logging.getLogger(__name__)

# Half-width of the band drawn around each reachable road, metres: about a street and its
# frontage; small enough that city blocks with no reachable road show as holes.
DEFAULT_BUFFER_M = 50.0
# Segments per quarter circle of the buffer's round ends: 4 keeps a 50 m band within
# 2 m of a true circle and makes the buffer ~3x faster than GEOS's default 8.
QUAD_SEGS = 4
BY = ("cost", "length")
# At most this many cutoffs (bands) in one run: each band is a polygon of the whole area
# it covers, so memory and output grow with bands x outline (issue 40: 10,000 bands on the
# sample map needed 5.6 GB, then failed inside GEOS).
MAX_BANDS = 1000
# A band's outline holds about VERTICES_PER_BUFFER vertices per buffer width of road it
# reaches, at most (sample map, 20-200 bands, buffers 10-200 m: 0.7 to 3.5), each costing
# BYTES_PER_VERTEX in all its copies (x/y and lon/lat polygons, GEOS's): 145 MB over
# 0.54 M vertices measured (200 bands of 100 m, buffer 50 m), rounded up.
VERTICES_PER_BUFFER = 4.0
BYTES_PER_VERTEX = 300
METHODS = ("raster", "union")


@dataclass(frozen=True)
class IsochroneOptions:
    source: int  # node index
    cutoffs: tuple[int, ...]  # in the search's unit (the map's, or dm when by="length")
    by: str = "cost"  # "cost": the map's weights; "length": decimetres of road
    buffer_m: float = DEFAULT_BUFFER_M
    backend: str = "auto"
    strategy: str = "auto"
    index: str = "auto"  # the search index by="cost" takes (app.jobs.sssp.search_index)
    method: str = "raster"  # "raster" (iso_raster: grid + contours) or "union" (GEOS)
    max_cells: int = 0  # raster: the grid's bound (0: iso_raster.MAX_CELLS)
    lonlat: bool = True  # False: ``polygons`` left empty (the window projects on export)
    trace: bool = True  # raster, False: no polygons traced, only ``band_grid`` (drawing)


@dataclass
class IsochroneResult:
    cutoffs: tuple[int, ...]  # ascending, search units
    polygons_xy: list  # shapely (Multi)Polygon per cutoff, x/y metres, nested
    polygons: list  # the same in lon/lat degrees
    dist: np.ndarray  # int64 per node, search units, -1 unreachable
    unit: str  # the search's unit ("dm" when by="length")
    timings: dict = field(default_factory=dict)  # search_s, cut_s, buffer_s, ...
    # raster method: (int8 grid of the first band each cell lies in, -1 none; x, y of
    # cell [0, 0]'s centre; cell size), rows by rising y: the window paints it as is
    band_grid: tuple | None = None


def units_per_minute(unit: str) -> Fraction | None:
    """How many integer costs of ``unit`` make a minute, exactly (``ds`` 600, ``s`` 60,
    ``1e-4 s`` 600000, ``min`` 1, ``h`` 1/60); None when the unit is not a time."""
    if unit in ("min", "h"):
        return Fraction(1) if unit == "min" else Fraction(1, 60)
    sc = unit_scale(unit)
    if sc is None or sc[0] != "time":
        return None
    return Fraction(60 * 10 ** sc[1])


def minutes_to_cost(unit: str, minutes: float) -> int:
    """A cutoff in minutes as an integer cost of ``unit``: the largest integer cost within
    it (costs are integers, so ``cost <= minutes`` holds exactly for these), taking the
    decimal the user wrote (``0.1`` is a tenth, not the float below it). ValueError when
    the unit is no time (the message says which unit the map has)."""
    per = units_per_minute(unit)
    if per is None:
        raise ValueError(f"minutes need a time profile (walk, drive, multimodal) or a "
                         f"--weight in a time unit; this map's weights are in {unit!r}")
    return math.floor(Fraction(repr(float(minutes))) * per)


def length_graph(net):
    """The map's arcs weighed by their length in decimetres (a CSRGraph)."""
    from gpu_core.graph import CSRGraph

    w = np.rint(np.asarray(net.edge_length, dtype=np.float64) * 10).astype(np.int64)
    return CSRGraph.from_edges(net.num_nodes, net.arc_sources(), net.indices, w), w


def run(net, opts: IsochroneOptions, *, progress: Progress | None = None,
        cancel: CancelCheck | None = None, dist: np.ndarray | None = None) -> IsochroneResult:
    """Polygons of ``opts.cutoffs`` from ``opts.source`` (module doc); ``dist``: the costs
    of a search already made from that source by the map's weights (the window's), reused
    instead of searching again."""
    from gpu_core.sssp import SSSPOptions, sssp

    if not net.has_coordinates:
        raise ValueError("isochrone polygons need a map with coordinates")
    if opts.by not in BY:
        raise ValueError(f"by must be one of {BY}, got {opts.by!r}")
    cut = tuple(sorted(set(int(c) for c in opts.cutoffs)))
    if not cut or cut[0] < 0:
        raise ValueError("cutoffs must be integers >= 0")
    if len(cut) > MAX_BANDS:
        raise ValueError(f"{len(cut):,} cutoffs: at most {MAX_BANDS:,} bands in one run")
    if not opts.buffer_m > 0:
        raise ValueError(f"the buffer must be > 0 metres, got {opts.buffer_m}")
    if opts.method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {opts.method!r}")
    t = {}
    t0 = time.perf_counter()
    report(progress, 0.0, "search")
    if opts.by == "length":
        g, w = length_graph(net)
        unit = "dm"
    else:
        g, w = net, np.asarray(net.weights)
        unit = net.unit
    if dist is None or opts.by == "length":
        from .sssp import search_index

        # by length the weights are another graph's: its index is never built
        index = None if opts.by == "length" else search_index(
            net, opts.strategy, opts.index, backend=opts.backend)
        # small maps: "auto" on the CPU without a compilation (issue 41)
        dist = sssp(g, opts.source, backend=opts.backend, strategy=opts.strategy,
                    cancel=cancel, index=index,
                    options=SSSPOptions(small_work=small_work(net))).dist
    dist = np.asarray(dist, dtype=np.int64)
    t["search_s"] = time.perf_counter() - t0
    if opts.method == "raster" and not opts.trace:  # the window's bands: no polygon at all
        return _bands_only(net, dist, w, cut, opts, unit, t, t0, progress, cancel)
    tails = net.arc_sources()
    du = dist[tails]
    lines = _ArcLines(net, np.nonzero((du >= 0) & (du <= cut[-1]))[0], tails)
    w = w[lines.arcs]
    try:  # out of memory anywhere in the polygon work (GEOS's std::bad_alloc too): one line
        if opts.method == "raster":
            polys, grid = _raster_polygons(lines, dist, w, cut, opts, net, t, progress, cancel)
        else:
            grid = None
            check_band_memory(_band_road_m(lines, dist, w, cut), opts.buffer_m)
            polys = _union_polygons(lines, dist, w, cut, opts, t, progress, cancel)
        t4 = time.perf_counter()
        lonlat = ([to_lonlat_geometry(p, net.origin) for p in polys]
                  if opts.lonlat and opts.trace else [])
    except Exception as exc:
        from osutil.memory import is_out_of_memory

        if not is_out_of_memory(exc):
            raise
        raise _memory_error(0) from None
    t["project_s"] = time.perf_counter() - t4
    t["polygons_s"] = time.perf_counter() - t0 - t["search_s"]
    report(progress, 1.0, "done")
    return IsochroneResult(cut, polys, lonlat, dist, unit, t, grid)


def _bands_only(net, dist, w, cut, opts, unit, t, t0, progress, cancel) -> IsochroneResult:
    """``band_grid`` alone (``iso_bands``), in memory bounded by the grid and a chunk."""
    from .iso_bands import band_grid

    report(progress, 0.5, "bands")
    kw = {"max_cells": opts.max_cells} if opts.max_cells > 0 else {}
    grid = band_grid(net, dist, cut, opts.buffer_m, opts.source, weights=w, cancel=cancel,
                     **kw)
    t["cell_m"] = grid[3]
    t["polygons_s"] = time.perf_counter() - t0 - t["search_s"]
    report(progress, 1.0, "done")
    return IsochroneResult(cut, [], [], dist, unit, t, grid)


def band_memory(road_m: np.ndarray, buffer_m: float) -> int:
    """Projected bytes of the bands' polygons (``road_m``: metres of road within each
    cutoff, cumulative): each band's outline has up to VERTICES_PER_BUFFER vertices per
    ``buffer_m`` of the road it reaches."""
    vertices = VERTICES_PER_BUFFER * float(np.sum(road_m)) / max(buffer_m, 1e-9)
    return int(BYTES_PER_VERTEX * vertices)


def check_band_memory(road_m: np.ndarray, buffer_m: float) -> int:
    """:func:`band_memory`, refused (MemoryLimitError, one line) beyond what is available."""
    from osutil.memory import available_memory

    need, have = band_memory(road_m, buffer_m), available_memory()
    log.info("isochrones: %d band(s), about %.0f MB of polygons projected (%.0f MB "
             "available)", len(road_m), need / 2**20, have / 2**20)
    if need > have:
        raise _memory_error(need, have)
    return need


def _memory_error(need: int, have: int | None = None):
    """MemoryLimitError of the polygons: projected (``need``) or run out of (0)."""
    from gpu_core.errors import MemoryLimitError
    from osutil.memory import available_memory

    return MemoryLimitError("the isochrone polygons", need,
                            available_memory() if have is None else have,
                            "give fewer cutoffs, or a larger --buffer (coarser outlines)")


def _band_road_m(lines, dist, w, cut) -> np.ndarray:
    """Metres of road within each cutoff (cumulative), for :func:`check_band_memory`."""
    added = []
    prev = None
    for c in cut:
        xs, ys, ids = lines.slice_coords(*lines.reached_parts(dist, w, c, since=prev))
        added.append(np.hypot(np.diff(xs), np.diff(ys))[np.diff(ids) == 0].sum())
        prev = c
    return np.cumsum(np.asarray(added, dtype=np.float64))


def _check(cancel) -> None:
    if cancel is not None and cancel():
        from gpu_core.errors import CancelledError

        raise CancelledError("isochrones cancelled")


def _raster_polygons(lines, dist, w, cut, opts, net, t, progress, cancel) -> tuple:
    """Each cutoff's polygon traced from a raster of the reached road (``iso_raster``),
    and the band grid (``IsochroneResult.band_grid``)."""
    from .iso_raster import Field, Lattice, sample_lines

    t1 = time.perf_counter()
    sx, sy = float(net.x[opts.source]), float(net.y[opts.source])
    parts = []
    prev_c = None
    for c in cut:  # what each cutoff adds to the one before
        arcs, s0, s1 = lines.reached_parts(dist, w, c, since=prev_c)
        parts.append(lines.slice_coords(arcs, s0, s1))
        prev_c = c
    allx = np.concatenate([p[0] for p in parts] + [[sx]])
    ally = np.concatenate([p[1] for p in parts] + [[sy]])
    added = np.array([np.hypot(np.diff(x), np.diff(y))[np.diff(i) == 0].sum()
                      for x, y, i in parts])  # metres of road each cutoff adds
    road_m = float(added.sum())
    lat = Lattice((allx.min(), ally.min(), allx.max(), ally.max()), (sx, sy), opts.buffer_m,
                  road_m, **({"max_cells": opts.max_cells} if opts.max_cells > 0 else {}))
    check_band_memory(np.cumsum(added), opts.buffer_m)  # before any polygon is traced
    field = Field(lat)
    field.mark(np.array([sx]), np.array([sy]))
    t["cut_s"] = time.perf_counter() - t1
    t["cell_m"] = lat.h
    polys = []
    band = np.full(field.d.shape, -1, dtype=np.int8) if len(cut) < 128 else None
    for k, (xs, ys, ids) in enumerate(parts):
        _check(cancel)
        report(progress, (k + 0.5) / len(cut), f"polygon {k + 1} of {len(cut)}")
        t2 = time.perf_counter()
        px, py = sample_lines(xs, ys, ids, lat.h / 2)
        field.mark(px, py)  # cumulative: each cutoff's cells contain the one before
        if opts.trace or opts.method != "raster":
            polys.append(field.polygon())
        if band is not None:
            band[(field.d < opts.buffer_m) & (band < 0)] = k
        t["buffer_s"] = t.get("buffer_s", 0.0) + time.perf_counter() - t2
    grid = None if band is None else (band, float(lat.xs(0, 1)[0]), float(lat.ys(0, 1)[0]), lat.h)
    if field.in_numpy:  # the next run stamps by the kernel, compiled in a child meanwhile
        from .compile_ahead import start_raster_kernel

        start_raster_kernel()
    return polys, grid


def _union_polygons(lines, dist, w, cut, opts, t, progress, cancel) -> list:
    """Each cutoff's polygon as the union of buffers of the reached lines (GEOS)."""
    polys = []
    prev, prev_c = None, None
    for k, c in enumerate(cut):
        _check(cancel)
        report(progress, (k + 0.5) / len(cut), f"polygon {k + 1} of {len(cut)}")
        t1 = time.perf_counter()
        geoms = lines.reached(dist, w, c, opts.source, since=prev_c)
        t2 = time.perf_counter()
        poly = _buffer(geoms, opts.buffer_m, prev)
        t3 = time.perf_counter()
        t["cut_s"] = t.get("cut_s", 0.0) + t2 - t1
        t["buffer_s"] = t.get("buffer_s", 0.0) + t3 - t2
        polys.append(poly)
        prev, prev_c = poly, c
    return polys


def to_lonlat_geometry(geom, origin: tuple[float, float]):
    """A geometry in the map's x/y metres as WGS84 lon/lat degrees. (The one place where a
    map's own CRS would come back in, were output asked in it.)"""
    import shapely

    from maps.geo.projection import to_lonlat

    def f(xy: np.ndarray) -> np.ndarray:
        lon, lat = to_lonlat(xy[:, 0], xy[:, 1], origin)
        return np.column_stack([lon, lat])

    return shapely.transform(geom, f)


def _buffer(geoms, width: float, prev=None):
    """The union of every geometry's buffer (and of ``prev``): lines are merged where they
    meet end to end and simplified to a tenth of the width first (fewer, lighter buffers
    to union; the outline moves by at most that tenth), then buffered one by one and
    unioned in a tree (GEOS's cascaded union). One buffer of a whole collection is 100x
    slower in GEOS."""
    import shapely

    pts = [g for g in geoms if g.geom_type == "Point"]
    lines = [g for g in geoms if g.geom_type != "Point"]
    parts = list(pts)
    if lines:
        merged = shapely.line_merge(shapely.MultiLineString(lines))
        parts.extend(shapely.simplify(shapely.get_parts(merged), width / 10).tolist())
    bufs = shapely.buffer(np.asarray(parts, dtype=object), width, quad_segs=QUAD_SEGS)
    if prev is not None:
        bufs = np.append(bufs, np.asarray([prev], dtype=object))
    if len(bufs) == 0:
        return shapely.Polygon()
    return shapely.union_all(bufs)


class _ArcLines:
    """The polylines (tail, inner points, head) of ``arcs`` (those a cutoff can reach)
    laid out flat once, in x/y metres, with their cumulative length: cutting at a cutoff
    is then a few vectorised steps. Per-arc arrays here are indexed 0..len(arcs)-1."""

    def __init__(self, net, arcs: np.ndarray, tails: np.ndarray):
        n = net.num_nodes
        self.arcs = arcs = np.asarray(arcs, dtype=np.int64)
        self.tails = tails[arcs].astype(np.int64)
        self.heads = net.indices[arcs].astype(np.int64)
        self.m = m = self.tails.shape[0]
        self.x, self.y = net.x, net.y
        gi, gx = net.geom_indptr, net.geom_xy
        has_geom = gi is not None and gx is not None and gx.shape[0]
        inner = (gi[arcs + 1] - gi[arcs] if has_geom else np.zeros(m)).astype(np.int64)
        counts = inner + 2
        self.start = (np.cumsum(counts) - counts).astype(np.int64)
        self.count = counts
        total = int(counts.sum())
        px, py = np.empty(total), np.empty(total)
        px[self.start], py[self.start] = self.x[self.tails], self.y[self.tails]
        last = self.start + counts - 1
        px[last], py[last] = self.x[self.heads], self.y[self.heads]
        if inner.any():
            has = np.nonzero(inner)[0]
            k = inner[has]
            off = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
            src = np.repeat(gi[arcs[has]], k) + off
            px[np.repeat(self.start[has] + 1, k) + off] = gx[src, 0]
            py[np.repeat(self.start[has] + 1, k) + off] = gx[src, 1]
        self.px, self.py = px, py
        seg = np.hypot(np.diff(px), np.diff(py)) if total else np.zeros(0)
        seg[last[:-1]] = 0.0  # no segment between one arc's head and the next arc's tail
        # metres along all arcs laid end to end (no gap between arcs): monotone, so one
        # searchsorted finds the segment of any position on any arc
        self.cumg = np.concatenate([[0.0], np.cumsum(seg)])
        self.length = self.cumg[last] - self.cumg[self.start]
        lo, hi = np.minimum(self.tails, self.heads), np.maximum(self.tails, self.heads)
        # Fully reached two-way pairs are drawn once: key by endpoints and rounded length.
        self.pair = (lo * max(n, 1) + hi) * 1_000_003 + np.rint(self.length).astype(np.int64)

    def reached(self, dist: np.ndarray, w: np.ndarray, cutoff: int, source: int,
                since: int | None = None) -> list:
        """Shapely lines (and the source point) of what is reachable within ``cutoff``;
        with ``since`` (a smaller cutoff), only what ``cutoff`` adds to it."""
        import shapely

        arcs, s0, s1 = self.reached_parts(dist, w, cutoff, since)
        out = [shapely.Point(self.x[source], self.y[source])] if since is None else []
        if arcs.size:
            out.extend(self.slices(arcs, s0, s1).tolist())
        return out

    def reached_parts(self, dist: np.ndarray, w: np.ndarray, cutoff: int,
                      since: int | None = None):
        """(arcs, s0, s1): the arcs (indices here) reached within ``cutoff`` beyond
        ``since``, from ``s0`` to ``s1`` metres along each."""
        du = dist[self.tails]
        ok = (du >= 0) & (du <= cutoff)
        pos = ok & (w > 0)
        hi = np.ones(self.m)
        hi[pos] = np.minimum(1.0, (cutoff - du[pos]) / w[pos])
        lo = np.zeros(self.m)
        if since is not None:
            old = (du >= 0) & (du <= since)
            lo[old] = 1.0
            po = old & (w > 0)
            lo[po] = np.minimum(1.0, (since - du[po]) / w[po])
        ok &= hi > lo
        full = ok & (hi >= 1.0) & (lo <= 0.0)
        keep_full = np.zeros(self.m, dtype=bool)
        idx = np.nonzero(full)[0]
        _, first = np.unique(self.pair[idx], return_index=True)
        keep_full[idx[first]] = True
        arcs = np.nonzero(keep_full | (ok & ~full))[0]
        return arcs, lo[arcs] * self.length[arcs], hi[arcs] * self.length[arcs]

    def slices(self, arcs: np.ndarray, s0: np.ndarray, s1: np.ndarray) -> np.ndarray:
        """LineStrings of ``arcs`` from ``s0`` to ``s1`` metres along each (interpolated
        ends, the drawn points between)."""
        import shapely

        xs, ys, ids = self.slice_coords(arcs, s0, s1)
        return shapely.linestrings(np.column_stack([xs, ys]), indices=ids)

    def slice_coords(self, arcs: np.ndarray, s0: np.ndarray, s1: np.ndarray):
        """(xs, ys, ids): the vertices of :meth:`slices`, polyline ``ids`` 0..len-1."""
        if arcs.size == 0:
            return np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64)
        st = self.start[arcs]
        last = st + self.count[arcs] - 1
        g0, g1 = self.cumg[st] + s0, self.cumg[st] + s1
        i0 = np.clip(np.searchsorted(self.cumg, g0, side="right") - 1, st, last - 1)
        i1 = np.clip(np.searchsorted(self.cumg, g1, side="left") - 1, st, last - 1)
        i1 = np.maximum(i1, i0)

        def at(i, g):
            seg = self.cumg[i + 1] - self.cumg[i]
            t = np.clip(np.where(seg > 0, (g - self.cumg[i]) / np.where(seg > 0, seg, 1), 0),
                        0.0, 1.0)
            return (self.px[i] + t * (self.px[i + 1] - self.px[i]),
                    self.py[i] + t * (self.py[i + 1] - self.py[i]))

        (ax, ay), (bx, by) = at(i0, g0), at(i1, g1)
        inner = i1 - i0  # drawn points i0+1 .. i1 lie strictly between the ends
        cnt = inner + 2
        off = np.concatenate([[0], np.cumsum(cnt)[:-1]])
        n = int(cnt.sum())
        xs, ys = np.empty(n), np.empty(n)
        xs[off], ys[off] = ax, ay
        xs[off + cnt - 1], ys[off + cnt - 1] = bx, by
        k = int(inner.sum())
        if k:
            rel = np.arange(k) - np.repeat(np.cumsum(inner) - inner, inner)
            src = np.repeat(i0 + 1, inner) + rel
            dst = np.repeat(off + 1, inner) + rel
            xs[dst], ys[dst] = self.px[src], self.py[src]
        return xs, ys, np.repeat(np.arange(arcs.size), cnt)



# Isochrone polygons are drawn for maps up to this many arcs. On the 1.43M-node map (4.6M
# arcs) they once froze the window for a minute and took 21 GB (issue 42); the window's
# bands on such maps are a grid made in chunks (``iso_bands``): 0.5-1 s on the worker, RSS
# within a few MB (2-core CPU, docs/perf/gui_states.md). The bound stays for the export,
# which traces the polygons.
POLYGON_MAX_ARCS = 6_000_000


def polygon_refusal(arcs: int) -> str:
    """Why no polygons are drawn on a map this big, and what to do instead."""
    return (f"Isochrone polygons are drawn for maps up to {POLYGON_MAX_ARCS:,} arcs; this one "
            f"has {arcs:,}. The coloured bands show the same areas; for polygons run "
            "`signpost isochrones MAP --from P --out F.gpkg` and open the file in a GIS.")
