"""A network out to the Python GIS stack in memory: a networkx MultiDiGraph in OSMnx's
layout and (nodes, edges) GeoDataFrames. networkx / geopandas / shapely are imported only
inside the functions (none is a dependency of ``maps``); ``maps.formats.networkx_io``
reads them back in.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ..geo.projection import to_lonlat as xy_to_lonlat
from .turns import original_count, to_original


class RoadNetwork(Protocol):
    """What these functions read of a ``maps.model.network.RoadNetwork`` (napari-style: the
    network's methods call them, so this module names the shape, not the network's module;
    issue 38)."""

    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    unit: str
    profile: str
    name: str
    lon: np.ndarray
    lat: np.ndarray
    edge_length: np.ndarray
    edge_source_id: np.ndarray
    geom_indptr: np.ndarray | None
    geom_xy: np.ndarray | None
    origin: tuple[float, float]
    meta: dict[str, Any]

    @property
    def num_nodes(self) -> int: ...
    @property
    def has_coordinates(self) -> bool: ...
    def arc_sources(self) -> np.ndarray: ...
    def source_ids(self, indices) -> list: ...


def _arc_lonlat(net: RoadNetwork, a: int, tail: int, head: int) -> np.ndarray:
    pts = [(net.lon[tail], net.lat[tail])]
    if net.geom_indptr is not None and net.geom_xy is not None:
        g = net.geom_xy[net.geom_indptr[a]:net.geom_indptr[a + 1]]
        if g.shape[0]:
            lo, la = xy_to_lonlat(g[:, 0], g[:, 1], net.origin)
            pts.extend(zip(lo.tolist(), la.tolist(), strict=True))
    pts.append((net.lon[head], net.lat[head]))
    return np.asarray(pts)


def _file_part(net: RoadNetwork) -> tuple[int, int]:
    """(nodes, arcs) of the file's own nodes: turn copies (maps.model.turns) come after."""
    n0 = original_count(net)
    return n0, int(net.indptr[n0])


def to_networkx(net: RoadNetwork) -> Any:
    """A networkx MultiDiGraph in OSMnx's layout: nodes keyed by the source's ids with
    ``x``/``y`` (lon/lat), edges ``(u, v, k)`` with ``length`` (m), ``weight`` (the integer
    cost, in ``G.graph["unit"]``), ``osmid`` and a shapely ``geometry`` for drawn arcs.
    A turn-restricted map (``maps.model.turns``) gives its file's nodes and arcs without the
    bans (networkx has no turn model): ``G.graph["turn_restrictions"]`` says so."""
    import networkx as nx
    import shapely

    n0, m0 = _file_part(net)
    labels = net.source_ids(np.arange(n0))
    G = nx.MultiDiGraph(crs="EPSG:4326", unit=net.unit, profile=net.profile, name=net.name)
    if n0 < net.num_nodes:
        G.graph["turn_restrictions"] = {
            **{k: v for k, v in net.meta.get("turn_restrictions", {}).items()
               if k in ("read", "applied", "skipped", "conditional")},
            "in_graph": False}
    coords = net.has_coordinates
    for i, nid in enumerate(labels):
        G.add_node(nid, **({"x": float(net.lon[i]), "y": float(net.lat[i])} if coords else {}))
    tails = net.arc_sources()
    heads = to_original(net, net.indices[:m0])
    gi = net.geom_indptr
    for a in range(m0):
        t, h = int(tails[a]), int(heads[a])
        d = {"length": float(net.edge_length[a]), "weight": int(net.weights[a]),
             "osmid": int(net.edge_source_id[a])}
        if coords and gi is not None and gi[a + 1] > gi[a]:
            d["geometry"] = shapely.LineString(_arc_lonlat(net, a, t, h))
        G.add_edge(labels[t], labels[h], **d)
    return G


def to_geodataframes(net: RoadNetwork) -> tuple[Any, Any]:
    """(nodes, edges) GeoDataFrames in EPSG:4326: nodes indexed by the source's ids with
    x, y and Point geometry; edges with u, v, key, length, weight, osmid and LineString
    geometry (as OSMnx's ``graph_to_gdfs``). Needs geopandas (the ``gis`` extra)."""
    try:
        import geopandas as gpd
    except ImportError:
        raise ImportError("to_geodataframes needs geopandas: pip install 'signpost[gis]'") \
            from None
    import shapely

    if not net.has_coordinates:
        raise ValueError("this map has no coordinates: it has no geometries")
    n0, m0 = _file_part(net)  # a turn-restricted map: its file's part, without the bans
    ids = net.source_ids(np.arange(n0))
    lon, lat = net.lon[:n0], net.lat[:n0]
    nodes = gpd.GeoDataFrame({"x": lon, "y": lat}, geometry=shapely.points(lon, lat),
                             crs="EPSG:4326", index=list(ids))
    tails = net.arc_sources()[:m0]
    heads = to_original(net, net.indices[:m0])
    key: dict = {}
    keys = []
    for t, h in zip(tails.tolist(), heads.tolist(), strict=True):
        keys.append(key.get((t, h), 0))
        key[(t, h)] = keys[-1] + 1
    lines = [shapely.LineString(_arc_lonlat(net, a, int(tails[a]), int(heads[a])))
             for a in range(m0)]
    edges = gpd.GeoDataFrame(
        {"u": [ids[t] for t in tails], "v": [ids[h] for h in heads], "key": keys,
         "length": net.edge_length[:m0], "weight": net.weights[:m0],
         "osmid": net.edge_source_id[:m0]},
        geometry=lines, crs="EPSG:4326")
    return nodes, edges.set_index(["u", "v", "key"])
