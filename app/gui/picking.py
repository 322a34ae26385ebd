"""Which road a click on the map means, at the zoom the user sees.

The snapper answers "the nearest arc in metres", which at full-map zoom is often a
footway drawn under the street the user aimed at (issue 27: a click closed an
overlapping way instead of the routed road). Here the candidates are the arcs within a
few *pixels* of the pointer at the current zoom, and the one drawn on top wins: an arc of
the route on screen first, then the road class drawn highest, then the nearest.
"""

from __future__ import annotations

import numpy as np

PICK_PX = 6.0  # pointer tolerance: a road drawn within this many pixels is "under" it
OVERLAP_PX = 3.0  # roads this close to the nearest one look like one line at this zoom


def metres_per_pixel(vb) -> float:
    """Map metres per screen pixel of view box ``vb`` now (the larger axis)."""
    px = vb.viewPixelSize()
    return float(max(abs(px[0]), abs(px[1]), 1e-9))


def class_z(net) -> np.ndarray:
    """Drawing height (z) of each road class of ``net`` (as the canvas draws them)."""
    from resources import road_styles

    styles = road_styles()
    default = styles.get("_default", {"z": 0})
    return np.array([float(styles.get(c, default).get("z", 0)) for c in net.class_names] or [0.0])


def pick_arc(snapper, net, x: float, y: float, m_per_px: float,
             route_arcs: np.ndarray | None = None) -> tuple[int, float] | None:
    """(network arc, distance m) under the pointer at (x, y) metres with ``m_per_px``
    metres a pixel, or None when no road is drawn within :data:`PICK_PX` pixels."""
    hit, dist = snapper.arcs_within(x, y, PICK_PX * m_per_px)
    if hit.size == 0:
        return None
    arcs = snapper.arcs[hit]
    on_route = np.zeros(arcs.size, dtype=bool)
    if route_arcs is not None and len(route_arcs):
        # both directions of a routed street count as the route
        tails = np.searchsorted(net.indptr, arcs, side="right") - 1
        heads = net.indices[arcs]
        r = np.asarray(route_arcs, dtype=np.int64)
        r = r[r < net.num_arcs]
        rt = np.searchsorted(net.indptr, r, side="right") - 1
        rh = net.indices[r]
        key = np.minimum(tails, heads).astype(np.int64) * net.num_nodes + np.maximum(tails, heads)
        rkey = np.minimum(rt, rh).astype(np.int64) * net.num_nodes + np.maximum(rt, rh)
        on_route = np.isin(key, rkey)
    z = class_z(net)[np.minimum(net.edge_class[arcs], len(net.class_names) - 1)]
    # Only roads drawn on top of each other at this zoom compete by drawing order; a road
    # clearly nearer the pointer (by more than OVERLAP_PX pixels) is the one meant.
    apart = dist > float(dist.min()) + OVERLAP_PX * m_per_px
    # then on the route first, the class drawn highest, the nearest, the lowest id
    order = np.lexsort((arcs, dist, -z, ~on_route, apart))
    k = int(order[0])
    return int(arcs[k]), float(dist[k])
