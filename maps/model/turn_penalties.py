"""Turn penalties (issue 39: an option, off by default): a cost added to every left turn,
right turn and u-turn, for ``drive`` maps with coordinates.

Node splitting, as the turn restrictions (``maps.model.turns``): an arc entering a node
where some turn from it costs a penalty is led to a copy of that node of its own, whose
out-arcs are the node's with each turn's penalty added to the arc's weight. The node keeps
its out-arcs as they were: a search that *starts* there turns no corner. Copies are
numbered after the map's nodes (and after its restriction copies); ``meta["turn_copies"]``
grows by them, so every answer folds to the file's nodes as before (``turns.fold``,
``best_copy``, ``with_copy_targets``) and a restriction copy's out-arcs (the turns it
bans left out) are what its penalised copies start from.

A turn from arc ``e`` (into node v) to arc ``f`` (out of v), by the angle between e's
direction at v and f's (from the last inner point of e's geometry and the first of f's, or
the end nodes; x east, y north), counter-clockwise positive:

* **u-turn**: f leads back to e's tail (the same file node);
* **left**: angle > 45°, **right**: angle < -45°, else straight (no penalty); left and
  right count only where e has a choice (at least two out-arcs at v that are not a
  u-turn): a bend of the road is not a turn.

Cost = the sum of arc weights plus the penalties of the turns taken, in the map's cost
units; the cost without penalties stays the default.
"""

from __future__ import annotations

import numpy as np

from .build import build_network
from .network import RoadNetwork
from .turns import copies_of, to_original

TURN_ANGLE_DEG = 45.0
KINDS = ("left", "right", "u")


def parse_penalties(text: str) -> dict[str, int]:
    """``left=N,right=N,u=N`` (any of them, integers >= 0) -> {kind: N}; ValueError naming
    the bad part."""
    out: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if not eq or key not in KINDS:
            raise ValueError(f"{part!r}: write left=N, right=N or u=N (comma-separated)")
        try:
            n = int(value)
        except ValueError:
            raise ValueError(f"{part!r}: the penalty must be a whole number of cost units") from None
        if n < 0:
            raise ValueError(f"{part!r}: a penalty of 0 or more")
        out[key] = n
    if not out:
        raise ValueError(f"{text!r}: write left=N, right=N or u=N (comma-separated)")
    return out


def _directions(net: RoadNetwork, tails: np.ndarray, heads: np.ndarray):
    """(dx, dy) of every arc at its tail end and at its head end (inner geometry used)."""
    x, y = net.x, net.y
    m = tails.shape[0]
    ax, ay = x[tails].copy(), y[tails].copy()  # the point before the head
    bx, by = x[heads].copy(), y[heads].copy()  # the point after the tail
    gp, gxy = net.geom_indptr, net.geom_xy
    if gp is not None and gxy is not None and gxy.shape[0]:
        k = np.diff(gp[: m + 1])
        has = np.flatnonzero(k > 0)
        ax[has], ay[has] = gxy[gp[has + 1] - 1, 0], gxy[gp[has + 1] - 1, 1]
        bx[has], by[has] = gxy[gp[has], 0], gxy[gp[has], 1]
    return (x[heads] - ax, y[heads] - ay), (bx - x[tails], by - y[tails])


def _pairs(indptr: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(e, f): every arc e with every out-arc f of node ``at[e]``."""
    cnt = np.diff(indptr)[at]
    e = np.repeat(np.arange(at.shape[0], dtype=np.int64), cnt)
    start = np.repeat(np.cumsum(cnt) - cnt, cnt)
    return e, indptr[at][e] + (np.arange(e.shape[0], dtype=np.int64) - start)


def turn_costs(net: RoadNetwork, penalties: dict[str, int]):
    """(in-arc, out-arc, penalty) of every turn at every node (CSR arc indices; pairs
    of zero penalty included)."""
    n, m = net.num_nodes, net.num_arcs
    tails = net.arc_sources().astype(np.int64)
    heads = net.indices.astype(np.int64)
    indptr = net.indptr.astype(np.int64)
    orig = to_original(net, np.arange(n, dtype=np.int64))
    e, f = _pairs(indptr, heads)
    u_turn = orig[heads[f]] == orig[tails[e]]
    # choices at the junction itself (the file node keeps every out-arc), not at a copy
    # whose banned turns are left out
    e0, f0 = _pairs(indptr, orig[heads])
    choices = np.bincount(e0[orig[heads[f0]] != orig[tails[e0]]], minlength=m)[e]
    del e0, f0
    (ix, iy), (ox, oy) = _directions(net, tails, heads)
    a_x, a_y, b_x, b_y = ix[e], iy[e], ox[f], oy[f]
    angle = np.degrees(np.arctan2(a_x * b_y - a_y * b_x, a_x * b_x + a_y * b_y))
    turn = choices >= 2
    pen = np.zeros(e.shape[0], dtype=np.int64)
    pen[turn & (angle > TURN_ANGLE_DEG)] = penalties.get("left", 0)
    pen[turn & (angle < -TURN_ANGLE_DEG)] = penalties.get("right", 0)
    pen[u_turn] = penalties.get("u", 0)
    return e, f, pen


def with_turn_penalties(net: RoadNetwork, penalties: dict[str, int]) -> RoadNetwork:
    """``net`` with turn penalties (module doc); ``net`` itself unchanged."""
    n, m = net.num_nodes, net.num_arcs
    e, f, pen = turn_costs(net, penalties)
    needs = np.bincount(e[pen > 0], minlength=m) > 0
    split = np.flatnonzero(needs)
    copy_of = np.full(m, -1, dtype=np.int64)
    copy_of[split] = n + np.arange(split.size, dtype=np.int64)
    tails = net.arc_sources().astype(np.int64)
    heads = net.indices.astype(np.int64)
    keep = needs[e]
    e, f, pen = e[keep], f[keep], pen[keep]
    weights = net.weights.astype(np.int64)[f] + pen
    if weights.size and int(weights.max()) > np.iinfo(np.int32).max:
        raise ValueError("a weight plus its turn penalty exceeds the int32 range: "
                         "give smaller penalties")
    arcs = np.r_[np.arange(m, dtype=np.int64), f]  # the arc each output arc repeats
    new_heads = np.where(needs, copy_of, heads)
    old = copies_of(net)
    origs = to_original(net, heads[split])
    every = np.r_[np.arange(n, dtype=np.int64), heads[split]]
    meta = {**net.meta, "turn_copies": np.r_[np.zeros(0, np.int64) if old is None else old,
                                             origs].tolist(),
            "turn_penalty": {**penalties, "node_copies": int(split.size)}}
    meta.pop("cache_file", None)  # the cached file holds the map without penalties (Dask)
    names = meta.get("node_names")
    if names:  # GraphML names: a copy is named as its node
        meta["node_names"] = list(names) + [names[int(v)] for v in heads[split].tolist()]
    geometry = None
    if net.geom_indptr is not None and net.geom_xy is not None:
        gp, gxy = net.geom_indptr, net.geom_xy
        geometry = [gxy[gp[a]:gp[a + 1]] if gp[a + 1] > gp[a] else None for a in arcs.tolist()]
    return build_network(
        tails=np.r_[tails, copy_of[e]], heads=np.r_[new_heads, new_heads[f]],
        weights=np.r_[net.weights.astype(np.int64), weights], node_ids=net.node_ids[every],
        unit=net.unit, profile=net.profile, x=net.x[every], y=net.y[every],
        origin=net.origin if net.has_coordinates else None, edge_kind=net.edge_kind[arcs],
        edge_class=net.edge_class[arcs], class_names=net.class_names,
        edge_length=net.edge_length[arcs], edge_source_id=net.edge_source_id[arcs],
        geometry=geometry, name=net.name, source_path=net.source_path, meta=meta,
    )
