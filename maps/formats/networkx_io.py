"""The Python GIS stack in memory: networkx graphs (OSMnx's MultiDiGraph) and edge arrays
in, networkx graphs and GeoDataFrames out. networkx / geopandas are imported only here,
inside the functions (neither is a dependency of ``maps``).

Weights stay exact integers (``RoadNetwork`` holds int32 costs):

* ``weight="length"`` (metres, OSMnx): decimetres, ``max(1, round(10 x))`` like every map
  loader's length profile (unit ``dm``); ``weight="travel_time"`` (seconds, OSMnx):
  deciseconds the same way (unit ``ds``). Both round to 0.1 m / 0.1 s per arc, as the file
  loaders do; the largest rounding is kept in ``meta["weight_rounding"]``.
* any other attribute: scaled by the smallest power of ten ``10**k`` (k <= 12) that makes
  every value an integer (to 1e-6 relative) and keeps every cost in int32 (unit ``unit``;
  ``meta["weight_scale"]`` = 10**k): ``maps.model.weights.exact_scale``, the rule of every
  file's weight column too. When none does, ValueError naming the column and its range:
  never a silent rounding.

Coordinates: node ``x``/``y`` in the graph's CRS (``crs=`` or ``G.graph["crs"]``) go through
:func:`to_lonlat`, the one place a CRS transform goes; today WGS84 lon/lat is taken and any
other CRS is refused naming it (pyproj support comes with issue 13's CRS work).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import MapFormatError
from ..geo.crs import is_wgs84_name
from ..geo.projection import centre_of, haversine_m, to_xy
from ..model.build import build_network
from ..model.network import RoadNetwork
from ..model.profiles import to_weight
from ..model.weights import exact_scale

# OSMnx's conventions: attribute -> (unit, factor to that unit)
KNOWN_WEIGHTS = {"length": ("dm", 10.0), "travel_time": ("ds", 10.0)}


def to_lonlat(x: np.ndarray, y: np.ndarray, crs: Any) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates in ``crs`` as WGS84 lon/lat: the CRS hook (module doc), sharing
    ``maps.geo.crs.is_wgs84_name`` with the point readers."""
    if not is_wgs84_name(crs):
        raise MapFormatError(f"coordinates are in {crs}; give them in WGS84 lon/lat "
                             "(EPSG:4326) for now")
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    bad = ~(np.isfinite(x) & np.isfinite(y) & (np.abs(x) <= 180) & (np.abs(y) <= 90))
    if bad.any():
        i = int(np.argmax(bad))
        raise MapFormatError(f"node {i}: ({x[i]}, {y[i]}) is not a lon/lat position")
    return x, y


def integer_weights(values: np.ndarray, name: str) -> tuple[np.ndarray, str, dict]:
    """(int64 weights, unit, meta) of float costs ``values`` (module doc)."""
    w = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"weight {name!r} of edge {i} is {w[i]!r}: need a number >= 0")
    if name in KNOWN_WEIGHTS:
        unit, f = KNOWN_WEIGHTS[name]
        out = to_weight(w * f) if w.size else np.zeros(0, dtype=np.int64)
        err = float(np.max(np.abs(out - w * f))) / f if w.size else 0.0
        return out, unit, {"weight_column": name, "weight_rounding": err}
    try:  # the one rule of every weight column (maps.model.weights.exact_scale)
        k = exact_scale(w, name)
    except MapFormatError as exc:
        raise ValueError(str(exc)) from None
    return np.rint(w * 10**k).astype(np.int64), "unit", {"weight_column": name,
                                                          "weight_scale": 10**k}


def from_edges(u: Sequence, v: Sequence, weight: Sequence | None = None, *,
               x: Sequence | None = None, y: Sequence | None = None,
               node_ids: Sequence | None = None, weight_name: str = "weight",
               crs: Any = None, directed: bool = True, name: str = "edges") -> RoadNetwork:
    """A network of arcs ``u[i] → v[i]`` (node ids, any integers; arrays or DataFrame
    columns) with costs ``weight`` (:func:`integer_weights`, named ``weight_name``; None:
    straight-line metres as ``length``). ``x``/``y``: coordinates per node of ``node_ids``
    (default: the sorted distinct ids of u and v). ``directed=False`` adds v → u too."""
    uu = np.asarray(u, dtype=np.int64)
    vv = np.asarray(v, dtype=np.int64)
    if uu.shape != vv.shape or uu.ndim != 1:
        raise ValueError("u and v must be 1-d and of the same length")
    ids = np.unique(np.concatenate([uu, vv])) if node_ids is None else np.asarray(
        node_ids, dtype=np.int64)
    if np.unique(ids).size != ids.size:
        raise ValueError("node_ids has duplicates")
    order = np.argsort(ids)
    pos = np.searchsorted(ids[order], np.concatenate([uu, vv]))
    pos = np.minimum(pos, ids.size - 1)
    miss = ids[order][pos] != np.concatenate([uu, vv])
    if miss.any():
        raise ValueError(f"edge end {np.concatenate([uu, vv])[int(np.argmax(miss))]} "
                         "is not in node_ids")
    tails, heads = order[pos[: uu.size]], order[pos[uu.size:]]
    lon = lat = None
    if x is not None and y is not None:
        lon, lat = to_lonlat(np.asarray(x), np.asarray(y), crs)
        if lon.shape[0] != ids.size:
            raise ValueError(f"x/y have {lon.shape[0]} values for {ids.size} nodes")
    if weight is None:
        if lon is None or lat is None:
            raise ValueError("give weight, or x and y to weigh arcs by their length")
        weight_name = "length"
        values = haversine_m(lon[tails], lat[tails], lon[heads], lat[heads])
    else:
        values = np.asarray(weight, dtype=np.float64)
    w, unit, meta = integer_weights(np.asarray(values, dtype=np.float64), weight_name)
    if not directed:
        tails, heads, w = (np.concatenate([tails, heads]), np.concatenate([heads, tails]),
                           np.concatenate([w, w]))
    return build_network(tails=tails, heads=heads, weights=w, node_ids=ids, unit=unit,
                         profile=weight_name, lon=lon, lat=lat, name=name,
                         meta={"format": "edges", **meta})


def from_networkx(G, weight: str = "length", crs: Any = None) -> RoadNetwork:
    """A network of a networkx graph as OSMnx makes them: nodes with ``x``/``y``, edges with
    ``weight`` (``length`` metres, ``travel_time`` seconds or any numeric attribute) and an
    optional ``geometry`` (a shapely LineString or WKT, in the graph's CRS). Node ids are
    kept (``node_ids``; non-integer ids as names, like GraphML); an undirected graph gives
    both directions of each edge. ValueError names an edge without a usable weight."""
    crs = crs if crs is not None else G.graph.get("crs")
    nodes = list(G.nodes)
    numeric = all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in nodes)
    index = {n: i for i, n in enumerate(nodes)}
    try:
        xs = np.array([float(G.nodes[n]["x"]) for n in nodes])
        ys = np.array([float(G.nodes[n]["y"]) for n in nodes])
    except (KeyError, TypeError, ValueError):
        raise ValueError("every node needs numeric 'x' and 'y' attributes") from None
    lon, lat = to_lonlat(xs, ys, crs)
    origin = centre_of(lon, lat)
    multi = G.is_multigraph()
    edges = G.edges(keys=True, data=True) if multi else G.edges(data=True)
    tails, heads, vals, lengths, geoms, sids = [], [], [], [], [], []
    for e in edges:
        a, b, d = e[0], e[1], e[-1]
        if weight not in d:
            raise ValueError(f"edge {a!r} -> {b!r} has no {weight!r} attribute")
        try:
            val = float(d[weight])
        except (TypeError, ValueError):
            raise ValueError(f"edge {a!r} -> {b!r}: {weight} {d[weight]!r} is not a number") \
                from None
        inner = _inner_xy(d.get("geometry"), crs, origin, (lon[index[a]], lat[index[a]]))
        length = d.get("length")
        i, j = index[a], index[b]
        ln = float(length) if length is not None and math.isfinite(float(length)) else float(
            haversine_m(lon[i], lat[i], lon[j], lat[j]))
        sid = d.get("osmid", e[2] if multi else -1)
        sid = sid[0] if isinstance(sid, list) and sid else sid
        sid = int(sid) if isinstance(sid, (int, np.integer)) else -1
        pairs = [(i, j, inner)] + ([] if G.is_directed() else [
            (j, i, None if inner is None else inner[::-1])])
        for t, h, g in pairs:
            tails.append(t)
            heads.append(h)
            vals.append(val)
            lengths.append(ln)
            geoms.append(g)
            sids.append(sid)
    try:
        w, unit, meta = integer_weights(np.asarray(vals, dtype=np.float64), weight)
    except ValueError as exc:
        raise ValueError(str(exc)) from None
    meta = {"format": "networkx", "directed": G.is_directed(), **meta}
    if numeric:
        ids = np.asarray(nodes, dtype=np.int64)
    else:
        ids = np.arange(1, len(nodes) + 1, dtype=np.int64)
        meta["node_names"] = [str(n) for n in nodes]
    return build_network(tails=np.asarray(tails, dtype=np.int64),
                         heads=np.asarray(heads, dtype=np.int64), weights=w, node_ids=ids,
                         unit=unit, profile=weight, lon=lon, lat=lat, origin=origin,
                         edge_length=np.asarray(lengths), edge_source_id=np.asarray(sids),
                         geometry=geoms, name=str(G.graph.get("name", "networkx")),
                         meta=meta)


def _inner_xy(geom, crs, origin, tail_lonlat) -> np.ndarray | None:
    """The inner points of an edge geometry (shapely or WKT) in the network's x/y metres,
    running from the edge's tail; None for a straight edge."""
    if geom is None:
        return None
    import shapely

    g = shapely.from_wkt(geom) if isinstance(geom, str) else geom
    c = np.asarray(shapely.get_coordinates(g), dtype=np.float64)
    if c.shape[0] <= 2:
        return None
    lon, lat = to_lonlat(c[:, 0], c[:, 1], crs)
    if abs(lon[-1] - tail_lonlat[0]) + abs(lat[-1] - tail_lonlat[1]) < abs(
            lon[0] - tail_lonlat[0]) + abs(lat[0] - tail_lonlat[1]):
        lon, lat = lon[::-1], lat[::-1]  # drawn head to tail: flip, as the GraphML reader
    x, y = to_xy(lon[1:-1], lat[1:-1], origin)
    return np.column_stack([x, y])
