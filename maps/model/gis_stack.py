"""A network out to the Python GIS stack in memory: a networkx MultiDiGraph in OSMnx's
layout and (nodes, edges) GeoDataFrames. networkx / geopandas / shapely are imported only
inside the functions (none is a dependency of ``maps``); ``maps.formats.networkx_io``
reads them back in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..geo.projection import to_lonlat as xy_to_lonlat

if TYPE_CHECKING:  # only for annotations: the model's methods call these functions
    from .network import RoadNetwork


def _arc_lonlat(net: RoadNetwork, a: int, tail: int, head: int) -> np.ndarray:
    pts = [(net.lon[tail], net.lat[tail])]
    if net.geom_indptr is not None and net.geom_xy is not None:
        g = net.geom_xy[net.geom_indptr[a]:net.geom_indptr[a + 1]]
        if g.shape[0]:
            lo, la = xy_to_lonlat(g[:, 0], g[:, 1], net.origin)
            pts.extend(zip(lo.tolist(), la.tolist(), strict=True))
    pts.append((net.lon[head], net.lat[head]))
    return np.asarray(pts)


def to_networkx(net: RoadNetwork) -> Any:
    """A networkx MultiDiGraph in OSMnx's layout: nodes keyed by the source's ids with
    ``x``/``y`` (lon/lat), edges ``(u, v, k)`` with ``length`` (m), ``weight`` (the integer
    cost, in ``G.graph["unit"]``), ``osmid`` and a shapely ``geometry`` for drawn arcs."""
    import networkx as nx
    import shapely

    labels = net.source_ids(np.arange(net.num_nodes))
    G = nx.MultiDiGraph(crs="EPSG:4326", unit=net.unit, profile=net.profile, name=net.name)
    coords = net.has_coordinates
    for i, nid in enumerate(labels):
        G.add_node(nid, **({"x": float(net.lon[i]), "y": float(net.lat[i])} if coords else {}))
    tails = net.arc_sources()
    gi = net.geom_indptr
    for a in range(net.num_arcs):
        t, h = int(tails[a]), int(net.indices[a])
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
    ids = net.source_ids(np.arange(net.num_nodes))
    nodes = gpd.GeoDataFrame({"x": net.lon, "y": net.lat},
                             geometry=shapely.points(net.lon, net.lat), crs="EPSG:4326",
                             index=list(ids))
    tails = net.arc_sources()
    key: dict = {}
    keys = []
    for t, h in zip(tails.tolist(), net.indices.tolist(), strict=True):
        keys.append(key.get((t, h), 0))
        key[(t, h)] = keys[-1] + 1
    lines = [shapely.LineString(_arc_lonlat(net, a, int(tails[a]), int(net.indices[a])))
             for a in range(net.num_arcs)]
    edges = gpd.GeoDataFrame(
        {"u": [ids[t] for t in tails], "v": [ids[h] for h in net.indices], "key": keys,
         "length": net.edge_length, "weight": net.weights, "osmid": net.edge_source_id},
        geometry=lines, crs="EPSG:4326")
    return nodes, edges.set_index(["u", "v", "key"])
