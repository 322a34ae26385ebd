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

import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from gpu_core.graph import CSRGraph
from maps.model.turns import copies_of, fold, interleaved_order, permuted_csr

KEPT = 2  # views kept (the map and its edited or unrestricted twin)
# a map's own CSR given back at most this many times per view: a process that reads it
# again and again between searches keeps both (no rebuild per search)
MAX_RESTORES = 2


@dataclass
class _View:
    net: weakref.ref  # the RoadNetwork (weakly: the view goes with it)
    graph: CSRGraph  # the map in the copies-near numbering
    cpos: np.ndarray  # int32: each copy's position in the view (copies in the map's order)
    copies: np.ndarray  # int64: each copy's original (``maps.model.turns.copies_of``)
    arrays: tuple = field(default=())  # weak refs to the map's (indptr, indices, weights)
    restores: int = 0
    restore_s: float = 0.0  # seconds spent giving the map its CSR back
    fold: object = None  # gpu_core.sssp.costs.CostFold of the copies (made when asked)

    def serves(self, net) -> bool:
        """Whether this is ``net``'s view: its arrays the ones it was made from (or
        released by it, to be made again from it)."""
        if self.net() is not net:
            return False
        if not getattr(net, "csr_held", True):
            return True
        d = vars(net)
        return all(r() is d.get(k) for r, k in zip(self.arrays, _CSR, strict=True))


_CSR = ("indptr", "indices", "weights")
_views: OrderedDict[int, _View] = OrderedDict()  # id(net) -> its view


def _forget(key: int, ref: weakref.ref) -> None:
    """A map is gone: its view too (unless another map took its id since)."""
    e = _views.get(key)
    if e is not None and e.net is ref:
        _views.pop(key, None)


def _weak(net) -> tuple:
    d = vars(net)
    return tuple(weakref.ref(d[k]) for k in _CSR)


def view(net):
    """(graph with each copy after its original, int32 position there of each copy, each
    copy's original) of a RoadNetwork with turn copies, else None; kept for the latest
    ``KEPT`` maps while they live. The map's own CSR is released while the view serves
    (:func:`_release`): the view is the map's searchable graph then, not a second copy."""
    c = copies_of(net)
    if c is None:
        return None
    key = id(net)
    hit = _views.get(key)
    if hit is not None and hit.serves(net):
        _views.move_to_end(key)
        _release(net, hit)
        return hit.graph, hit.cpos, hit.copies
    order = interleaved_order(net)
    assert order is not None  # the map has copies
    indptr, indices, weights, pos = permuted_csr(net.indptr, net.indices, net.weights, order)
    n0 = net.num_nodes - c.shape[0]
    # the view goes when its map does (not when KEPT newer maps push it out)
    entry = _View(weakref.ref(net, partial(_forget, key)),
                  CSRGraph(indptr, indices, weights),
                  pos[n0:].astype(np.int32), c, _weak(net))
    del order, pos
    _views[key] = entry
    while len(_views) > KEPT:
        _views.popitem(last=False)
    _release(net, entry)
    return entry.graph, entry.cpos, entry.copies


def _release(net, entry: _View) -> None:
    """Drop ``net``'s own (indptr, indices, weights) when nothing else holds them (nor its
    prepared handle's CSRGraph): they are made again from the view, exactly, the first time
    something reads them (0.2-0.6 s on the Kanto-sized map), at most ``MAX_RESTORES``
    times per view."""
    from gpu_core.graph import release_arrays, restore_arrays

    put = getattr(net, "put_csr", None)
    if put is None or not net.csr_held or entry.restores >= MAX_RESTORES:
        return
    g = entry.graph
    shape = (net.num_nodes, net.num_arcs)

    def make():
        order = interleaved_order(entry.net())
        assert order is not None  # the map has copies
        pos = np.empty_like(order)
        pos[order] = np.arange(order.shape[0], dtype=np.int64)
        return permuted_csr(g.indptr, g.indices, g.weights, pos)[:3]

    def restore() -> None:
        n = entry.net()
        if n is None:
            return
        t0 = time.perf_counter()
        restore_arrays(n, make, n.put_csr)
        entry.restore_s += time.perf_counter() - t0
        entry.restores += 1
        entry.arrays = _weak(n)

    release_arrays(net, lambda: net.release_csr(restore, shape))


def restores(net) -> tuple[int, float]:
    """(times ``net``'s CSR was given back from its view, seconds it took)."""
    e = _views.get(id(net))
    return (0, 0.0) if e is None or e.net() is not net else (e.restores, e.restore_s)


def view_bytes(net) -> int:
    """Bytes :func:`view` keeps for ``net`` (0 without turn copies)."""
    v = view(net)
    return 0 if v is None else sum(int(a.nbytes) for a in (v[0].indptr, v[0].indices,
                                                          v[0].weights, v[1], v[2]))


def _positions(net) -> tuple[np.ndarray, np.ndarray]:
    """(order new -> old, pos old -> new) of the view's numbering (made when asked)."""
    order = interleaved_order(net)
    assert order is not None  # the map has copies
    pos = np.empty_like(order)
    pos[order] = np.arange(order.shape[0], dtype=np.int64)
    return order, pos


def _fold(net):
    """The view's ``CostFold`` (copies into their nodes), kept with the view: its device
    arrays are made once."""
    from gpu_core.sssp.costs import CostFold

    e = _views[id(net)]  # view(net) made it
    if e.fold is None:
        e.fold = CostFold(e.cpos, e.copies)
    return e.fold


def _at(net, cpos: np.ndarray, c: np.ndarray, v: int) -> int:
    """Vertex ``v``'s position in the view: a file node follows every copy of the nodes
    before it (``c``: each copy's original)."""
    n0 = net.num_nodes - c.shape[0]
    return int(cpos[v - n0]) if v >= n0 else v + int(np.count_nonzero(c < v))


def legal_costs(net, source: int, strategy: str = "auto", backend: str = "auto") -> np.ndarray:
    """Least cost from ``source`` to each node of the file (-1: unreachable), as
    ``fold(net, sssp(net, source).dist)``: ``gpu_core.sssp.costs`` on the view, its
    copies folded into their nodes (on the device for ``auto`` on the GPU)."""
    from gpu_core.sssp import sssp
    from gpu_core.sssp.costs import costs

    v = view(net)
    if v is None:
        if prepared_negative(net):
            res = sssp(net, int(source), strategy=strategy, backend=backend)
            return np.where(res.reached, res.dist, -1)
        return costs(net, int(source), strategy=strategy, backend=backend)
    g, cpos, c = v
    if prepared_negative(g):  # -1 is a real cost there: the long way
        res = sssp(g, _at(net, cpos, c, int(source)), strategy=strategy, backend=backend)
        return fold(net, np.where(res.reached, res.dist, -1)[_positions(net)[1]])
    # the file's nodes keep their order in the view: the outputs are every position but
    # the copies', each copy folded into its node
    return costs(g, _at(net, cpos, c, int(source)), strategy=strategy, backend=backend,
                 fold=_fold(net))


def prepared_negative(graph) -> bool:
    """Whether ``graph`` has negative arcs (its prepared key space says)."""
    from gpu_core.sssp import prepare_graph

    return bool(prepare_graph(graph)[1].negative)


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
    return renumbered(res, pos, order)


def renumbered(res, order: np.ndarray, pos: np.ndarray | None = None):
    """The SSSPResult ``res`` in another numbering of its graph: its vertex ``i`` is
    ``res``'s vertex ``order[i]`` (``pos``: the inverse, made when not given); dist, pred,
    keys, sources and target follow."""
    if pos is None:
        pos = np.empty_like(order)
        pos[order] = np.arange(order.shape[0], dtype=order.dtype)
    p = res.pred[order]
    pred = np.where(p >= 0, pos[np.maximum(p, 0)], p).astype(res.pred.dtype)
    return replace(
        res, dist=res.dist[order], pred=pred,
        sources=pos[np.asarray(res.sources, dtype=np.int64)].astype(
            np.asarray(res.sources).dtype),
        target=None if res.target is None else int(pos[int(res.target)]),
        key=None if res.key is None else res.key[order])
