"""Seed 004's sequential baselines (bench seed004) against scipy, and its graph maker."""

from __future__ import annotations

import numpy as np
import pytest

from app.bench.seed004 import random_simple_graph
from gpu_core.reference import reference_sssp
from gpu_core.sssp.baselines import plain_bellman_ford, pool_dijkstra

from .families import FAMILY_NAMES, make_graph


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_baselines_match_scipy(name: str) -> None:
    g = make_graph(name, 1)
    _, dist, _ = reference_sssp(g, 0)
    np.testing.assert_array_equal(pool_dijkstra(g, 0), dist)
    d, rounds = plain_bellman_ford(g, 0)
    np.testing.assert_array_equal(d, dist)
    assert rounds == max(g.num_nodes - 1, 0)  # the plain loop: every round
    d2, r2 = plain_bellman_ford(g, 0, early_exit=True)
    np.testing.assert_array_equal(d2, dist)
    assert r2 <= rounds


def test_plain_bellman_ford_takes_negative_arcs() -> None:
    g = random_simple_graph(30, 120, 5)
    p = np.random.default_rng(2).integers(-50, 50, 30)
    from gpu_core.graph import CSRGraph

    w = (g.weights + p[g.arc_sources()] - p[g.indices]).astype(np.int32)
    neg = CSRGraph(g.indptr, g.indices, w)
    _, dist, _ = reference_sssp(neg, 0)
    d, _ = plain_bellman_ford(neg, 0)
    reached = dist != np.iinfo(np.int64).min
    np.testing.assert_array_equal(d[reached], dist[reached])


@pytest.mark.parametrize(("n", "m"), [(10, 34), (10, 90), (200, 3000)])
def test_random_simple_graph_sizes(n: int, m: int) -> None:
    g = random_simple_graph(n, m, 7)
    assert g.num_nodes == n and g.num_arcs == m
    pairs = set(zip(g.arc_sources().tolist(), g.indices.tolist(), strict=True))
    assert len(pairs) == m and all(u != v for u, v in pairs)
    assert g.weights.min() >= 1 and g.weights.max() <= 1000
    h = random_simple_graph(n, m, 7)
    np.testing.assert_array_equal(g.indices, h.indices)
