"""The GIL-free array steps (app/jobs/nogil.py) against numpy and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from app.jobs.nogil import arc_tails, weak_components
from maps.generate import grid


def _random_csr(n: int, m: int, seed: int):
    rng = np.random.default_rng(seed)
    t, h = rng.integers(0, n, m), rng.integers(0, n, m)
    order = np.argsort(t, kind="stable")
    indptr = np.zeros(n + 1, np.int32)
    np.add.at(indptr, t + 1, 1)
    return np.cumsum(indptr).astype(np.int32), h[order].astype(np.int32)


@pytest.mark.parametrize("n,m,seed", [(1, 0, 0), (50, 30, 1), (2000, 1500, 2), (500, 4000, 3)])
def test_tails_and_parts_match_numpy_and_scipy(n, m, seed):
    indptr, indices = _random_csr(n, m, seed)
    np.testing.assert_array_equal(arc_tails(indptr), np.repeat(np.arange(n), np.diff(indptr)))
    a = csr_matrix((np.ones(m, np.int8), indices, indptr), shape=(n, n))
    k, want = connected_components(a, directed=True, connection="weak")
    got = weak_components(indptr, indices)
    assert got.max(initial=-1) + 1 == k
    # the same partition: each label of one maps to exactly one label of the other
    pairs = np.unique(np.column_stack([got, want]), axis=0)
    assert pairs.shape[0] == k


def test_tails_of_a_map():
    net = grid(400, seed=2)
    np.testing.assert_array_equal(arc_tails(net.indptr), net.arc_sources())


@pytest.mark.parametrize("n,m,seed", [(1, 0, 0), (30, 200, 4), (2000, 3000, 5)])
def test_first_of_pairs_matches_np_unique(n, m, seed):
    """Parallel arcs, reverse twins and loops (random arcs on few nodes have them all)."""
    from app.jobs.nogil import first_of_pairs

    indptr, indices = _random_csr(n, m, seed)
    tails = np.repeat(np.arange(n), np.diff(indptr)).astype(np.int64)
    heads = indices.astype(np.int64)
    key = np.minimum(tails, heads) * max(n, 1) + np.maximum(tails, heads)
    _, first = np.unique(key, return_index=True)
    first = np.sort(first)
    want = first[tails[first] != heads[first]]
    np.testing.assert_array_equal(first_of_pairs(indptr, indices), want)


def test_geometry_of_big_maps_equals_the_numpy_one(monkeypatch):
    """build_geometry's numba path (big maps) draws the same arcs and points as numpy's."""
    import app.gui.geometry as geometry

    net = grid(900, seed=4)
    small = geometry.build_geometry(net)
    monkeypatch.setattr(geometry, "NOGIL_MIN_ARCS", 0)
    big = geometry.build_geometry(net)
    for f in ("arcs", "tails", "heads", "pt_start", "pt_count", "px", "py", "stations"):
        np.testing.assert_array_equal(getattr(big, f), getattr(small, f))
