"""The CPU reference: scipy's Dijkstra plus the core's predecessor rule.

Every strategy on every backend must reproduce ``reference_sssp`` bit for bit (``dist``
and ``pred``). Costs must stay below 2^53 here (scipy works in float64); the keys module
bounds them far lower for the graphs we accept.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import bellman_ford, dijkstra

from .graph import CSRGraph, GraphLike
from .keys import KEY_INF, NO_PRED, KeySpace, key_space_for


def scipy_csr(g: CSRGraph) -> csr_matrix:
    """The graph as scipy's float64 CSR matrix with zero-weight arcs kept: scipy drops
    explicit zeros, so they become 1e-9 (n·1e-9 << 0.5: rounding restores exact integer
    costs; see ``scipy_rows``)."""
    n = g.num_nodes
    w = g.weights.astype(np.float64)
    if w.size and (w == 0).any():
        w = np.where(w == 0, 1e-9, w)
    return csr_matrix((w, g.indices, g.indptr), shape=(n, n))


def scipy_rows(d: np.ndarray, unreachable: int = -1) -> np.ndarray:
    """scipy's float64 distances as exact int64 costs (``unreachable`` where inf)."""
    out = np.full(d.shape, unreachable, dtype=np.int64)
    ok = np.isfinite(d)
    out[ok] = np.rint(d[ok]).astype(np.int64)
    return out


def scipy_distances(g: CSRGraph, sources: np.ndarray, unreachable: int = -1) -> np.ndarray:
    """int64 costs from the nearest source (``unreachable`` where none reaches), by scipy's
    Dijkstra, or its Bellman-Ford when an arc is negative (which raises scipy's
    NegativeCycleError on a negative cycle the sources reach).

    Zero-weight arcs are kept (``scipy_csr``).
    """
    mat = scipy_csr(g)
    src = np.asarray(sources)
    if g.num_arcs and g.weights.min() < 0:
        d = np.atleast_2d(bellman_ford(mat, directed=True, indices=src)).min(axis=0)
    else:
        d = dijkstra(mat, directed=True, indices=src, min_only=True)
    return scipy_rows(d, unreachable)


def keys_from_distances(
    g: CSRGraph, sources: np.ndarray, dist: np.ndarray, ks: KeySpace
) -> np.ndarray:
    """Composite keys (cost << hop_bits | fewest hops among least-cost routes)."""
    n = g.num_nodes
    key = np.full(n, KEY_INF, dtype=np.int64)
    reached = dist != ks.unreachable
    if ks.hop_bits == 0:
        key[reached] = dist[reached]
        return key
    tails = g.arc_sources()
    tight = reached[tails] & (dist[tails] + g.weights == dist[g.indices])
    tight &= reached[g.indices]
    t = csr_matrix((np.ones(int(tight.sum())), (tails[tight], g.indices[tight])), shape=(n, n))
    # routes start at a source with cost 0; with negative arcs a source may have a lower
    # cost (reached from another source), and then its key comes from that route
    src = np.asarray(sources)
    src = src[dist[src] == 0]
    hops = dijkstra(t, directed=True, unweighted=True, indices=src, min_only=True)
    key[reached] = (dist[reached] << ks.hop_bits) | hops[reached].astype(np.int64)
    return key


def predecessors_from_keys(g: CSRGraph, key: np.ndarray, ks: KeySpace) -> np.ndarray:
    """pred[v] = smallest u with key[u] + w'(u,v) == key[v] (NO_PRED at sources/unreached)."""
    n = g.num_nodes
    tails = g.arc_sources()
    kw = ks.key_weights(g.weights)
    ku = key[tails]
    ok = ku != KEY_INF
    tight = np.zeros(tails.shape[0], dtype=bool)
    tight[ok] = ku[ok] + kw[ok] == key[g.indices[ok]]
    pred = np.full(n, np.iinfo(np.int32).max, dtype=np.int32)
    np.minimum.at(pred, g.indices[tight], tails[tight])
    pred[pred == np.iinfo(np.int32).max] = NO_PRED
    return pred


def reference_sssp(graph: GraphLike, sources) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key, dist, pred) of the reference search from ``sources`` (int or iterable)."""
    g = CSRGraph.from_any(graph, allow_negative=True)
    src = np.unique(np.atleast_1d(np.asarray(sources, dtype=np.int64))).astype(np.int32)
    ks = key_space_for(g.weights, g.num_nodes)
    dist = scipy_distances(g, src, ks.unreachable)
    key = keys_from_distances(g, src, dist, ks)
    pred = predecessors_from_keys(g, key, ks)
    return key, dist, pred
