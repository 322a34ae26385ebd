"""gpu_core.shape: the numba BFS (no GIL) against scipy's breadth_first_order, the oracle
it replaced: the same hop eccentricity and the same farthest vertex (first in BFS order)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order

from gpu_core.graph import CSRGraph
from gpu_core.shape import _ecc, graph_shape


def _scipy_ecc(g: CSRGraph, s: int) -> tuple[int, int]:
    n = g.num_nodes
    mat = csr_matrix((np.ones(g.num_arcs, np.int8), g.indices, g.indptr), shape=(n, n))
    order, pred = breadth_first_order(mat, s, directed=True, return_predecessors=True)
    depth = np.zeros(n, dtype=np.int64)
    for v in order[1:]:
        depth[v] = depth[pred[v]] + 1
    return int(depth[order].max()), int(order[np.argmax(depth[order])])


def _random_graph(rng, n: int, m: int) -> CSRGraph:
    tails = rng.integers(0, n, m)
    heads = rng.integers(0, n, m)  # duplicates and self-loops included
    order = np.argsort(tails, kind="stable")  # rows NOT sorted by head
    tails, heads = tails[order], heads[order]
    indptr = np.zeros(n + 1, np.int64)
    np.add.at(indptr, tails + 1, 1)
    return CSRGraph.from_any(CSRGraph(np.cumsum(indptr), heads, rng.integers(1, 9, m)))


@pytest.mark.parametrize("seed", range(6))
def test_bfs_eccentricity_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    g = _random_graph(rng, n, int(rng.integers(0, 3 * n)))
    for s in rng.integers(0, n, 5):
        assert _ecc(g, int(s)) == _scipy_ecc(g, int(s))


def test_graph_shape_on_a_path_and_a_grid():
    n = 50  # a directed path 0 -> 1 -> ... -> 49 and back: hop diameter 49
    t = np.r_[np.arange(n - 1), np.arange(1, n)]
    h = np.r_[np.arange(1, n), np.arange(n - 1)]
    sh = graph_shape(CSRGraph.from_edges(n, t, h, np.ones(t.size, np.int64)))
    assert sh.diameter_estimate == n - 1 and sh.nodes == n and sh.arcs == 2 * (n - 1)
    k = 12  # a k x k grid, both directions: hop diameter 2 (k - 1)
    ids = np.arange(k * k).reshape(k, k)
    a = np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()]
    b = np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()]
    g = CSRGraph.from_edges(k * k, np.r_[a, b], np.r_[b, a], np.ones(2 * a.size, np.int64))
    assert graph_shape(g).diameter_estimate == 2 * (k - 1)


@pytest.mark.parametrize("seed", range(4))
def test_scipy_levels_match_the_per_vertex_oracle(seed, monkeypatch):
    """A fresh install (numba's BFS not compiled) takes scipy's BFS at any size (issue 41):
    its levels, found by one searchsorted per level, give the oracle's answer, on a long
    path with branches (thousands of levels) and on random graphs."""
    from gpu_core import shape

    rng = np.random.default_rng(seed)
    n = 3000
    t = np.r_[np.arange(n - 1), np.arange(1, n), rng.integers(0, n, 400)]
    h = np.r_[np.arange(1, n), np.arange(n - 1), rng.integers(0, n, 400)]
    for g in (CSRGraph.from_edges(n, t, h, np.ones(t.size, np.int64)),
              _random_graph(rng, 500, 900)):
        for s in rng.integers(0, g.num_nodes, 4):
            assert shape._bfs_ecc_scipy(g, int(s)) == _scipy_ecc(g, int(s))
    monkeypatch.setattr("osutil.numba_cache.ready", lambda fn: False)
    called = []
    monkeypatch.setattr(shape, "_bfs_ecc", lambda *a: called.append(a))
    assert shape._ecc(g, 0) == _scipy_ecc(g, 0) and not called
