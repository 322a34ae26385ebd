"""One-to-all on a turn-restricted map in a search-internal numbering (issue 39).

The network numbers turn copies after the file's nodes ("copies are the last nodes", which
every consumer reads: ``maps.model.turns``), far from the junctions they copy; a search
then jumps across memory at every restricted junction (Kanto-sized map, bans at 5 %: the
CPU search 1.26x the map without bans, 1.02x with each copy next to its original;
docs/perf/turns.md). So the search runs on a copy of the graph numbered with each copy
right after its original (``maps.model.turns.interleaved_order``; made once per map and
kept for the latest few), and its answer is read back once:

* :func:`legal_costs`: the least cost to each file node, folded in that numbering (each
  node and its copies are one contiguous run: ``np.minimum.reduceat``);
* :func:`sssp_copies_near`: the whole ``SSSPResult`` (dist, pred, keys) in the network's own
  numbering, for routes.

Costs are exactly the network's (the same graph, renumbered); among equal-cost routes the
one a predecessor array names may differ.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

import numpy as np

from maps.model.turns import copies_of, fold, interleaved_order, permuted_csr

KEPT = 2  # views kept (the map and its edited or unrestricted twin)
_views: OrderedDict = OrderedDict()  # id(net.indices) -> (indices, CSRGraph, starts)


def view(net):
    """(graph with each copy after its original, the position there of each file node:
    the start of its run) of a RoadNetwork with turn copies, else None. Kept for the
    latest ``KEPT`` maps: the renumbered CSR and 4 bytes a file node (``view_bytes``)."""
    from gpu_core.graph import CSRGraph

    c = copies_of(net)
    if c is None:
        return None
    key = id(net.indices)
    hit = _views.get(key)
    if hit is not None and hit[0] is net.indices:
        _views.move_to_end(key)
        return hit[1:]
    order = interleaved_order(net)
    assert order is not None  # the map has copies
    indptr, indices, weights, pos = permuted_csr(net.indptr, net.indices, net.weights, order)
    g = CSRGraph(indptr, indices, weights)
    starts = pos[: net.num_nodes - c.shape[0]].astype(np.int32)
    _views[key] = (net.indices, g, starts)
    while len(_views) > KEPT:
        _views.popitem(last=False)
    return g, starts


def view_bytes(net) -> int:
    """Bytes :func:`view` keeps for ``net`` (0 without turn copies)."""
    v = view(net)
    return 0 if v is None else sum(int(a.nbytes) for a in (v[0].indptr, v[0].indices,
                                                          v[0].weights, v[1]))


def _positions(net) -> tuple[np.ndarray, np.ndarray]:
    """(order new -> old, pos old -> new) of the view's numbering (made when asked)."""
    order = interleaved_order(net)
    assert order is not None  # the map has copies
    pos = np.empty_like(order)
    pos[order] = np.arange(order.shape[0], dtype=np.int64)
    return order, pos


def _at(net, starts: np.ndarray, v: int) -> int:
    """Vertex ``v``'s position in the view."""
    return int(starts[v]) if v < starts.shape[0] else int(_positions(net)[1][v])


def legal_costs(net, source: int, **kw) -> np.ndarray:
    """Least cost from ``source`` to each node of the file (-1: unreachable), as
    ``fold(net, sssp(net, source).dist)``; ``kw`` goes to ``gpu_core.sssp.sssp``."""
    from gpu_core.sssp import sssp

    v = view(net)
    if v is None:
        res = sssp(net, int(source), **kw)
        return res.dist if res.unreachable == -1 else \
            np.where(res.reached, res.dist, -1)
    g, starts = v
    res = sssp(g, _at(net, starts, int(source)), **kw)
    if res.unreachable != -1 or res.dist.dtype != np.int64:  # (negative arcs: the long way)
        return fold(net, np.where(res.reached, res.dist, -1)[_positions(net)[1]])
    # one pass: -1 (unreachable) is the largest uint64, so a node's least over its run is
    # its least reached cost, or -1 when none of its vertices is reached
    return np.minimum.reduceat(res.dist.view(np.uint64), starts).view(np.int64)


def sssp_copies_near(net, source: int, **kw):
    """``gpu_core.sssp.sssp(net, source, **kw)`` searched in the view's numbering and read
    back in the network's (dist, pred, keys, sources, target)."""
    from gpu_core.sssp import sssp

    v = view(net)
    if v is None:
        return sssp(net, int(source), **kw)
    g = v[0]
    order, pos = _positions(net)
    if kw.get("target") is not None:
        kw["target"] = int(pos[int(kw["target"])])
    opts = kw.get("options")
    if opts is not None and opts.target is not None:
        kw["options"] = replace(opts, target=int(pos[int(opts.target)]))
    src = np.asarray(source, dtype=np.int64)
    res = sssp(g, int(pos[int(src)]) if src.ndim == 0 else pos[src], **kw)
    p = res.pred[pos]
    pred = np.where(p >= 0, order[np.maximum(p, 0)], p).astype(res.pred.dtype)
    return replace(
        res, dist=res.dist[pos], pred=pred,
        sources=order[np.asarray(res.sources, dtype=np.int64)].astype(
            np.asarray(res.sources).dtype),
        target=None if res.target is None else int(order[int(res.target)]),
        key=None if res.key is None else res.key[pos])
