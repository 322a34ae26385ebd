"""The route index on KEY weights (``gpu_core.keys``: w' = w << hop_bits | 1), so that one
PHAST sweep gives every vertex's composite key, the lexicographic (cost, hops) minimum:
what ``gpu_core.indexed_sssp`` needs to reproduce ``sssp()``'s dist, pred and hops.

:func:`key_hierarchy` is the ONE place that makes such a hierarchy. Today it runs the
route index build (``build_hierarchy``) on the key-weighted graph; given the map's CCH
topology (the key graph has the same arcs, so the plain index's topology serves) it is
only a customization with the key weights, seconds instead of a build. Callers rely
only on the :class:`~gpu_core.hierarchy.api.Hierarchy` dataclass and on
``h.graph_key == key_graph_fingerprint(graph)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import InvalidArgumentError, NegativeWeightsError
from ..graph import CSRGraph, GraphLike, prepared
from ..keys import KeySpace, key_space_for
from .api import Hierarchy, ProgressCallback, build_hierarchy, graph_key

# keys (and so every sweep value) must stay below the hierarchy's INF = 2^62
KEY_LIMIT = 1 << 62


class KeyGraph(CSRGraph):
    """A CSRGraph whose weights are the int64 key weights (beyond the kernels' int32:
    only the hierarchy build reads it, so it is marked checked and reverses in int64)."""

    metric_family = "keys"  # its customization is kept apart from the map's (``cch``)

    def __init__(self, g: CSRGraph, ks: KeySpace):
        super().__init__(g.indptr, g.indices, ks.key_weights(g.weights))
        self._checked = True  # CSRGraph.from_any passes it through as it is

    def reverse(self) -> CSRGraph:
        order = np.argsort(self.indices, kind="stable")
        ptr = np.zeros(self.num_nodes + 1, np.int64)
        np.cumsum(np.bincount(self.indices, minlength=self.num_nodes), out=ptr[1:])
        return CSRGraph(ptr, self.arc_sources()[order], self.weights[order])


def key_graph_fingerprint(g: CSRGraph, ks: KeySpace | None = None) -> str:
    """Fingerprint of the key-weighted graph (``api.graph_key`` over indptr, indices and
    the int64 key weights): names its cache entry and ties a hierarchy to it."""
    if ks is None and type(g) is CSRGraph:  # hashed once per graph
        return prepared(g).derived("key_fingerprint",
                                   lambda: graph_key(KeyGraph(g, prepared(g).key_space)))
    return graph_key(KeyGraph(g, ks or key_space_for(g.weights, g.num_nodes)))


def key_hierarchy(graph: GraphLike, *, progress: ProgressCallback | None = None,
                  cancel: Callable[[], bool] | None = None, topology=None,
                  backend: str = "cpu", key: str | None = None) -> Hierarchy:
    """A hierarchy of ``graph`` on its key weights (non-negative weights only); with
    ``topology`` (a :class:`~.cch.Topology` of the graph's arcs) a customization only.
    ``key``: ``key_graph_fingerprint(graph)`` when the caller has it (not hashed again).

    Raises NegativeWeightsError, InvalidArgumentError for keys that could reach 2^62,
    HierarchyTooDenseError for graphs that are not road-shaped, CancelledError."""
    g = CSRGraph.from_any(graph)
    n = g.num_nodes
    if g.num_arcs and int(g.weights.min()) < 0:  # a checked CSRGraph keeps its sign
        raise NegativeWeightsError(f"a route index needs non-negative weights (this graph "
                                   f"has an arc of weight {int(g.weights.min())})")
    kg = KeyGraph(g, key_space_for(g.weights, n))
    if kg.num_arcs and max(n - 1, 1) * int(kg.weights.max()) >= KEY_LIMIT:
        raise InvalidArgumentError("key costs of this graph may reach 2^62: no key index")
    h = build_hierarchy(kg, method="cch" if topology is not None else "auto",
                        topology=topology, backend=backend, progress=progress, cancel=cancel)
    if key:
        h.graph_key = key
    return h


def plain_of_key(h: Hierarchy, ks: KeySpace) -> Hierarchy:
    """The route index of the graph's own weights, read off its key-weighted one ``h``
    (key space ``ks``: w' = w << hop_bits | 1) without a customization or a file.

    Every arc of ``h`` weighs the key of a real path, (cost << hop_bits) + hops with hops
    below 2^hop_bits, so ``key >> hop_bits`` is that path's cost; the lexicographic
    minimum's first part is the least cost, so a sweep with the shifted weights gives
    every vertex its exact cost: a lower bound (each up-down path is a real walk) that is
    reached (the key-shortest path's up-down path, whose hop parts sum below 2^hop_bits
    and so carry nothing into the cost). The arrays of the structure (ranks, arcs, levels,
    elimination tree) are shared; only the two weight arrays are new. The caller sets
    ``graph_key`` (the plain graph's fingerprint). Issue 43: the window's first billboards
    answer on a 1.43M-node map read a second index from disk for 1.2 s; the window holds
    this one already."""
    hb = int(ks.hop_bits)
    out = Hierarchy(h.n, h.rank_of, h.up_ptr, h.up_dst, h.up_w >> hb, h.down_ptr,
                    h.down_src, h.down_w >> hb, h.level_ptr)
    out.shortcuts, out.build_s, out.method, out.cch_edges = (h.shortcuts, h.build_s,
                                                              h.method, h.cch_edges)
    out.tree_parent, out.tree_depth = h.tree_parent, h.tree_depth
    for name in ("_topology", "_arc_depth"):  # the tree: the same arcs, any weights
        if name in h.__dict__:
            out.__dict__[name] = h.__dict__[name]
    if "_device_box" in h.__dict__:
        out.__dict__["_device_box"] = {}  # its own device copy (other weights)
    return out
