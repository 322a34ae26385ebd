"""Build a :class:`RoadNetwork` from arc lists (COO), the step every loader ends with."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..errors import EmptyMapError, MapFormatError
from ..geo.projection import centre_of, to_lonlat, to_xy
from .chains import Arcs
from .network import KIND_ROAD, RoadNetwork
from .profiles import UNITS

MAX_WEIGHT = np.iinfo(np.int32).max


def build_network(
    *,
    tails: np.ndarray,
    heads: np.ndarray,
    weights: np.ndarray,
    node_ids: np.ndarray,
    unit: str,
    profile: str,
    lon: np.ndarray | None = None,
    lat: np.ndarray | None = None,
    x: np.ndarray | None = None,
    y: np.ndarray | None = None,
    origin: tuple[float, float] | None = None,
    edge_kind: np.ndarray | None = None,
    edge_class: np.ndarray | None = None,
    class_names: Sequence[str] = ("road",),
    edge_length: np.ndarray | None = None,
    edge_source_id: np.ndarray | None = None,
    geometry: Sequence[np.ndarray | None] | None = None,
    name: str = "",
    source_path: str = "",
    meta: dict | None = None,
    allow_empty: bool = False,
    allow_negative: bool = False,
) -> RoadNetwork:
    """Sort arcs into CSR rows and attach coordinates and attributes.

    ``tails``/``heads`` are node indices 0..n-1 (n = ``len(node_ids)``). Rows are sorted by
    (tail, weight, head): each row is weight-sorted, which seed 004's evaluation-value
    Dijkstra wants, and the order is deterministic. ``geometry``, when given, holds per
    arc an (k, 2) array of *inner* points in x/y metres (None for a straight arc).
    Coordinates: give lon/lat (x/y are projected) or x/y (lon/lat are NaN unless an
    ``origin`` is given), or neither (all NaN; x/y zero).
    """
    n = int(len(node_ids))
    if n == 0 and not allow_empty:
        raise EmptyMapError("the map has no nodes", path=source_path or None)
    tails = np.asarray(tails, dtype=np.int64)
    heads = np.asarray(heads, dtype=np.int64)
    w = np.asarray(weights)
    m = tails.shape[0]
    if heads.shape[0] != m or w.shape[0] != m:
        raise MapFormatError("tails, heads and weights differ in length", path=source_path or None)
    if m and (min(tails.min(), heads.min()) < 0 or max(tails.max(), heads.max()) >= n):
        raise MapFormatError("an arc refers to a node outside 0..n-1", path=source_path or None)
    if m and (w.min() < 0) and not allow_negative:  # only DIMACS .gr files may have them
        raise MapFormatError(f"negative arc weight {w.min()}", path=source_path or None)
    if m and (w.max() > MAX_WEIGHT or w.min() < -MAX_WEIGHT):
        bad = w.max() if w.max() > MAX_WEIGHT else w.min()
        raise MapFormatError(
            f"arc weight {bad} exceeds the int32 range" if abs(int(bad)) < 2**62 else
            "an arc weight is too large for the int32 range (a length or speed out of range?)",
            path=source_path or None,
        )
    w = w.astype(np.int32)

    # lexsort((heads, w, tails)) as two stable sorts, (w, head) packed in 62 bits then
    # tail: the same order, about three times faster on 16M arcs
    order = np.argsort((w.astype(np.int64) << 31) | heads, kind="stable")
    order = order[np.argsort(tails[order], kind="stable")]
    tails, heads, w = tails[order], heads[order], w[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.bincount(tails, minlength=n)
    indptr = np.cumsum(indptr).astype(np.int32)

    def per_arc(arr, dtype, default):
        if arr is None:
            return np.full(m, default, dtype=dtype)
        return np.asarray(arr, dtype=dtype)[order]

    kind = per_arc(edge_kind, np.uint8, KIND_ROAD)
    cls = per_arc(edge_class, np.uint8, 0)
    src_id = per_arc(edge_source_id, np.int64, -1)

    # Coordinates.
    if lon is not None and lat is not None:
        lon = np.asarray(lon, dtype=np.float64)
        lat = np.asarray(lat, dtype=np.float64)
        origin = origin or centre_of(lon, lat)
        x, y = to_xy(lon, lat, origin)
    elif x is not None and y is not None:
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if origin is not None:
            lon, lat = to_lonlat(x, y, origin)
        else:
            lon = np.full(n, np.nan)
            lat = np.full(n, np.nan)
    else:
        x = np.zeros(n)
        y = np.zeros(n)
        lon = np.full(n, np.nan)
        lat = np.full(n, np.nan)
    origin = origin or (0.0, 0.0)

    geom_indptr = geom_xy = None
    if geometry is not None:
        pieces = [geometry[i] for i in order.tolist()]
        counts = np.array([0 if g is None else len(g) for g in pieces], dtype=np.int64)
        geom_indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        filled = [
            np.asarray(g, dtype=np.float64).reshape(-1, 2)
            for g in pieces
            if g is not None and len(g)
        ]
        geom_xy = np.concatenate(filled) if filled else np.zeros((0, 2))

    if edge_length is None:
        # Straight-line length through the inner points.
        length = np.hypot(x[heads] - x[tails], y[heads] - y[tails])
        if geom_indptr is not None and geom_xy is not None and geom_xy.shape[0]:
            length = polyline_lengths(x, y, tails, heads, geom_indptr, geom_xy)
        edge_len = length.astype(np.float32)
    else:
        edge_len = np.asarray(edge_length, dtype=np.float32)[order]

    net = RoadNetwork(
        indptr=indptr,
        indices=heads.astype(np.int32),
        weights=w,
        unit=unit,
        profile=profile,
        x=x,
        y=y,
        lon=lon,
        lat=lat,
        node_ids=np.asarray(node_ids, dtype=np.int64),
        edge_kind=kind,
        edge_class=cls,
        edge_length=edge_len,
        edge_source_id=src_id,
        class_names=list(class_names),
        geom_indptr=geom_indptr,
        geom_xy=geom_xy,
        origin=origin,
        name=name,
        source_path=source_path,
        meta=dict(meta or {}),
    )
    return net


def network_from_arcs(
    arcs: Arcs,
    *,
    node_ids: np.ndarray,
    lon: np.ndarray,
    lat: np.ndarray,
    origin: tuple[float, float],
    profile: str,
    class_names: Sequence[str],
    path: str,
    meta: dict,
    unit: str | None = None,
) -> RoadNetwork:
    """The network of a geographic loader's weighted ``arcs`` (geometry in x/y metres);
    ``unit`` None: the profile's."""
    return build_network(
        tails=arcs.tails,
        heads=arcs.heads,
        weights=arcs.weights,
        node_ids=node_ids,
        unit=UNITS[profile] if unit is None else unit,
        profile=profile,
        lon=lon,
        lat=lat,
        origin=origin,
        edge_kind=arcs.kinds,
        edge_class=arcs.classes,
        class_names=class_names,
        edge_length=arcs.lengths,
        edge_source_id=arcs.source_ids,
        geometry=arcs.geometry,
        name=os.path.basename(path),
        source_path=path,
        meta=meta,
    )


def build_two_way(
    a: np.ndarray, b: np.ndarray, w: np.ndarray, link_ids: np.ndarray, *, n: int, **kwargs
) -> RoadNetwork:
    """A network of undirected links a[i]-b[i] (0-based) on nodes 1..n, weights in the
    file's own unit: arcs a→b then b→a, both carrying weight w[i] and source id link_ids[i].
    ``kwargs`` go to :func:`build_network` (coordinates, kinds, name, meta, ...)."""
    return build_network(
        tails=np.concatenate([a, b]),
        heads=np.concatenate([b, a]),
        weights=np.concatenate([w, w]),
        node_ids=np.arange(1, n + 1, dtype=np.int64),
        unit="unit",
        profile="file",
        edge_source_id=np.concatenate([link_ids, link_ids]),
        **kwargs,
    )


def polyline_lengths(x, y, tails, heads, geom_indptr, geom_xy) -> np.ndarray:
    """Length in metres of every arc drawn as tail → inner points → head."""
    m = tails.shape[0]
    out = np.empty(m, dtype=np.float64)
    for i in range(m):
        a, b = geom_indptr[i], geom_indptr[i + 1]
        pts = np.vstack([[x[tails[i]], y[tails[i]]], geom_xy[a:b], [x[heads[i]], y[heads[i]]]])
        out[i] = np.hypot(*np.diff(pts, axis=0).T).sum()
    return out
