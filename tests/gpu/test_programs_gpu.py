"""The CUDA vertex-program engine (untested draft, not wired into api.py yet) against the
CPU engine: integer programs bit-identical, PageRank within 1e-12."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.programs import bellman_ford, minimum_spanning_forest, pagerank
from gpu_core.programs.direct import undirected_edges
from tests.core.families import FAMILIES, FAMILY_NAMES

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu

MODES = ("list", "collision")


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
@pytest.mark.parametrize("mode", MODES)
def test_bellman_ford_equals_cpu(name, make, mode):
    from gpu_core.programs.cuda import bellman_ford_cuda

    g = make(seed=3)
    dist, tel = bellman_ford_cuda(g, 0, mode=mode)
    np.testing.assert_array_equal(dist, bellman_ford(g, 0, backend="cpu").dist)
    assert len(tel) > 0


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
@pytest.mark.parametrize("mode", MODES)
def test_boruvka_equals_cpu(name, make, mode):
    from gpu_core.programs.cuda import boruvka_cuda

    g = make(seed=4)
    a, b, _ = undirected_edges(g)
    keep, _, _ = boruvka_cuda(g.num_nodes, a, b, mode=mode)
    ref = minimum_spanning_forest(g, backend="cpu", method="kruskal")
    np.testing.assert_array_equal(a[keep], ref.tails)
    np.testing.assert_array_equal(b[keep], ref.heads)


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_pagerank_equals_cpu(name, make):
    from gpu_core.programs.cuda import pagerank_cuda

    g = make(seed=5)
    n = g.num_nodes
    pairs = np.unique(g.arc_sources().astype(np.int64) * n + g.indices)
    x, master, _ = pagerank_cuda(pairs // n, pairs % n, n, 0.85, 1e-10, 1000)
    ref = pagerank(g, backend="cpu", tol=1e-10, max_iter=1000)
    assert master.iterations == ref.iterations
    assert np.abs(x - ref.rank).max() <= 1e-12


def test_rev_skewed_in_degree_uses_random_insertion():
    """Thousands of senders to one vertex (rev-WikiTalk's shape): both modes agree."""
    from gpu_core.programs.cuda import bellman_ford_cuda

    n = 20_000
    t = np.r_[np.zeros(n - 1, np.int64), np.arange(1, n)]
    h = np.r_[np.arange(1, n), np.zeros(n - 1, np.int64)]
    g = CSRGraph.from_edges(n, t, h, np.ones(t.size, np.int64))
    for mode in MODES:
        dist, _ = bellman_ford_cuda(g, 0, mode=mode)
        np.testing.assert_array_equal(dist, bellman_ford(g, 0, backend="cpu").dist)
