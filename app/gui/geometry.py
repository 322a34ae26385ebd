"""Drawing geometry of a map, prepared once per map (no Qt here, so benchmarks can time it).

Every road is drawn once (an arc and its reverse share one polyline) as a run of points
tail → inner points → head; a ``connect`` flag per point says whether to draw a line to
the next point, which is what ``pyqtgraph.arrayToQPath(connect=ndarray)`` takes. Gathering
the points of any subset of arcs (one road class, one colour band of the distance field)
is then a vectorised index operation, so whole classes become ONE path.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from app.jobs.nogil import arc_tails, first_of_pairs
from maps.model.network import KIND_RAIL, KIND_TRANSFER, RoadNetwork
from resources import colormap_lut, road_styles

NOGIL_MIN_ARCS = 1_000_000  # from this size the geometry's array steps run in numba (app.jobs.nogil)


@dataclass
class MapGeometry:
    """Polylines of the drawn (deduplicated) arcs of a network, in x/y metres."""

    arcs: np.ndarray  # int64: the network arc index of every drawn polyline
    tails: np.ndarray  # int32 per drawn arc
    heads: np.ndarray  # int32 per drawn arc
    pt_start: np.ndarray  # int64 per drawn arc: first point in px/py
    pt_count: np.ndarray  # int64 per drawn arc: points (>= 2)
    px: np.ndarray  # float64 all points
    py: np.ndarray
    bounds: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax
    stations: np.ndarray  # int32 node indices drawn as stations

    @property
    def num_drawn(self) -> int:
        return int(self.arcs.shape[0])

    def gather(self, sel: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x, y, connect) of the polylines of drawn arcs ``sel`` (indices into ``arcs``)."""
        if sel is None:
            starts, counts = self.pt_start, self.pt_count
        else:
            starts, counts = self.pt_start[sel], self.pt_count[sel]
        total = int(counts.sum())
        if total == 0:
            e = np.zeros(0)
            return e, e, np.zeros(0, dtype=bool)
        ends = np.cumsum(counts)
        # idx = start of own arc + position inside it, built without a Python loop.
        idx = np.arange(total, dtype=np.int64) + np.repeat(starts - (ends - counts), counts)
        connect = np.ones(total, dtype=bool)
        connect[ends - 1] = False
        return self.px[idx], self.py[idx], connect


def build_geometry(net: RoadNetwork) -> MapGeometry:
    """Deduplicate arcs (u→v and v→u drawn once) and lay their polylines out flat."""
    # Keep the first arc of each undirected pair; a loop arc (u→u) draws nothing useful.
    if net.num_arcs >= NOGIL_MIN_ARCS:  # numba without the GIL: the loader thread's work
        first = first_of_pairs(net.indptr, net.indices)  # must not freeze the window
        tails = arc_tails(net.indptr)
    else:  # (small maps: numpy takes ~1 ms, loading the numba kernels 0.3 s once)
        n = net.num_nodes
        tails = net.arc_sources()
        lo = np.minimum(tails, net.indices).astype(np.int64)
        key = lo * max(n, 1) + np.maximum(tails, net.indices)
        _, first = np.unique(key, return_index=True)
        first = np.sort(first)
        first = first[tails[first] != net.indices[first]]
    t, h = tails[first].astype(np.int64), net.indices[first].astype(np.int64)
    m = first.shape[0]
    gi, gxy = net.geom_indptr, net.geom_xy
    if gi is not None and gxy is not None and gxy.shape[0]:
        inner = (gi[first + 1] - gi[first]).astype(np.int64)
    else:
        inner = np.zeros(m, dtype=np.int64)
    counts = inner + 2
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    total = int(counts.sum())
    px = np.empty(total)
    py = np.empty(total)
    px[starts] = net.x[t]
    py[starts] = net.y[t]
    px[starts + counts - 1] = net.x[h]
    py[starts + counts - 1] = net.y[h]
    if inner.any() and gi is not None and gxy is not None:  # (inner is 0 without geometry)
        has = np.nonzero(inner)[0]
        k = inner[has]
        src0 = gi[first[has]]
        tot = int(k.sum())
        ends = np.cumsum(k)
        off = np.arange(tot) - np.repeat(ends - k, k)
        src = np.repeat(src0, k) + off
        dst = np.repeat(starts[has] + 1, k) + off
        px[dst] = gxy[src, 0]
        py[dst] = gxy[src, 1]
    if total:
        bounds = (float(px.min()), float(py.min()), float(px.max()), float(py.max()))
    else:
        bounds = (0.0, 0.0, 1.0, 1.0)
    return MapGeometry(
        arcs=first,
        tails=t.astype(np.int32),
        heads=h.astype(np.int32),
        pt_start=starts,
        pt_count=counts,
        px=px,
        py=py,
        bounds=bounds,
        stations=station_nodes(net),
    )


def station_nodes(net: RoadNetwork) -> np.ndarray:
    """Nodes drawn as stations: given by the loader (meta["stations"], node ids) or else
    rail nodes that have a transfer arc (where road meets rail)."""
    ids = net.meta.get("stations") if isinstance(net.meta, dict) else None
    if ids is not None and len(ids):
        lookup = {int(v): i for i, v in enumerate(net.node_ids.tolist())}
        return np.array(sorted(lookup[int(i)] for i in ids if int(i) in lookup), dtype=np.int32)
    if net.num_arcs == 0:
        return np.zeros(0, dtype=np.int32)
    tails = arc_tails(net.indptr) if net.num_arcs >= NOGIL_MIN_ARCS else net.arc_sources()
    rail = np.zeros(net.num_nodes, dtype=bool)
    rail[tails[net.edge_kind == KIND_RAIL]] = True
    transfer = np.zeros(net.num_nodes, dtype=bool)
    transfer[tails[net.edge_kind == KIND_TRANSFER]] = True
    transfer[net.indices[net.edge_kind == KIND_TRANSFER]] = True
    return np.nonzero(rail & transfer)[0].astype(np.int32)


# ---- styles -----------------------------------------------------------------------------
@dataclass(frozen=True)
class LayerStyle:
    name: str
    colour: str
    width: float
    z: int
    dash: str = "solid"  # "solid", "dash", "dot"


def class_groups(net: RoadNetwork, geo: MapGeometry) -> list[tuple[LayerStyle, np.ndarray]]:
    """Drawn arcs grouped by (kind, class) with their style, lowest z first."""
    styles = road_styles()
    arcs = geo.arcs
    kind = net.edge_kind[arcs]
    cls = net.edge_class[arcs]
    code = kind.astype(np.int64) * 256 + cls
    out = []
    order = np.argsort(code, kind="stable")
    codes_sorted = code[order]
    uniq, first = np.unique(codes_sorted, return_index=True)
    bounds = list(first) + [len(order)]
    for i, c in enumerate(uniq.tolist()):
        k, ci = divmod(int(c), 256)
        name = net.class_names[ci] if ci < len(net.class_names) else f"class {ci}"
        if k == KIND_TRANSFER:
            s = styles["transfer"]
            name = "transfer"
        elif name in styles:
            s = styles[name]
        elif k == KIND_RAIL:
            s = styles["_rail_default"]
        else:
            s = styles["_default"]
        style = LayerStyle(name, s["colour"], float(s["width"]), int(s["z"]), s.get("style", "solid"))
        out.append((style, order[bounds[i] : bounds[i + 1]]))
    out.sort(key=lambda p: p[0].z)
    return out


# ---- distance field -------------------------------------------------------------------
@dataclass
class FieldBins:
    """Drawn arcs split into colour bands by their distance from the source."""

    bins: list[np.ndarray]  # per band: indices into geo.arcs
    colours: np.ndarray  # uint8 (bands, 3)
    edges: np.ndarray  # band boundaries in cost units (bands+1)
    unreached: np.ndarray  # drawn arcs that no route reaches
    max_cost: int


# Distance-field colours darker than this (relative luminance, 0..1) would vanish on the
# dark map background: the field's colour map starts where its colours get this light.
FIELD_MIN_LUMA = 0.3


@functools.cache
def field_lut(name: str, n: int = 256) -> np.ndarray:
    """``n`` RGB colours of colour map ``name`` for distance fields: its darkest start
    (turbo's and magma's near-black blue) cut off, so the nearest band shows. Made once
    per colour map and size (read-only): every drawn field asked for it two or three
    times, a 1024-stop interpolation each (issue 38)."""
    full = colormap_lut(name, 1024).astype(np.float64)
    luma = (0.2126 * full[:, 0] + 0.7152 * full[:, 1] + 0.0722 * full[:, 2]) / 255.0
    light = np.nonzero(luma >= FIELD_MIN_LUMA)[0]
    start = int(light[0]) if light.size else 0
    idx = np.linspace(start, full.shape[0] - 1, n).round().astype(int)
    lut = full[idx].round().astype(np.uint8)
    lut.flags.writeable = False
    return lut


def nice_step(span: float, bands: int) -> float:
    """A round step (1, 2, 2.5 or 5 × 10^k) giving about ``bands`` bands over ``span``."""
    raw = max(span / max(bands, 1), 1e-12)
    mag = 10 ** np.floor(np.log10(raw))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0):
        if m * mag >= raw:
            return float(m * mag)
    return float(10 * mag)


def field_bins(
    geo: MapGeometry,
    dist: np.ndarray,
    *,
    colormap: str = "turbo",
    bands: int = 0,
    levels: int = 32,
) -> FieldBins:
    """Colour every drawn arc by the cost of reaching it.

    ``bands`` > 0 gives isochrone bands (round steps, e.g. every 500 m); otherwise
    ``levels`` even steps up to the farthest reached point. An arc takes the cost of its
    nearer reached end (one-way streets are reached from one end only).
    """
    dt = dist[geo.tails]
    dh = dist[geo.heads]
    big = np.iinfo(np.int64).max
    v = np.minimum(np.where(dt >= 0, dt, big), np.where(dh >= 0, dh, big))
    reached = v != big
    edges, colours, max_cost = field_scale(dist, colormap=colormap, bands=bands, levels=levels)
    nb = edges.size - 1
    idx = np.nonzero(reached)[0]
    b = np.searchsorted(edges, v[idx], side="right") - 1
    b = np.clip(b, 0, nb - 1)
    order = np.argsort(b, kind="stable")
    counts = np.bincount(b, minlength=nb)
    splits = np.cumsum(counts)[:-1]
    bins = np.split(idx[order], splits)
    return FieldBins(bins, colours, edges, np.nonzero(~reached)[0], max_cost)


def field_scale(dist: np.ndarray, *, colormap: str = "turbo", bands: int = 0,
                levels: int = 32) -> tuple[np.ndarray, np.ndarray, int]:
    """(edges, colours, max_cost) of :func:`field_bins` without binning the arcs: one pass
    over ``dist`` (the isochrone bands ask for it on the GUI thread: binning a 1.4M-node
    map's arcs there silenced the window for 0.3-0.5 s, issue 42)."""
    # The legend's top is the farthest reached node (UNREACHABLE is -1, below any cost).
    max_cost = max(int(dist.max()), 0) if dist.size else 0
    if bands > 0:
        step = nice_step(max(max_cost, 1), bands)
        nb = max(int(np.ceil(max(max_cost, 1) / step)), 1)
        edges = np.arange(nb + 1) * step
    else:
        nb = levels
        edges = np.linspace(0, max(max_cost, 1), nb + 1)
    lut = field_lut(colormap, 256)
    colours = lut[np.linspace(0, 255, nb).round().astype(int)] if nb > 1 else lut[[0]]
    return edges, colours, max_cost
