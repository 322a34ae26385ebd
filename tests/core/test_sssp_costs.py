"""``gpu_core.sssp.costs`` (issue 39): least costs only, folded through a ``CostFold``,
against scipy's Dijkstra and a fold written as a loop."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.errors import InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.reference import scipy_distances
from gpu_core.sssp.costs import CostFold, costs, fold_costs

from .families import FAMILY_NAMES, make_graph


def random_fold(n: int, seed: int) -> CostFold:
    """About a fifth of the vertices folded into random outputs."""
    rng = np.random.default_rng(seed)
    extra = np.sort(rng.choice(n, size=max(1, n // 5), replace=False)).astype(np.int32)
    into = rng.integers(0, n - extra.size, extra.size).astype(np.int64)
    return CostFold(extra, into)


def folded_by_loop(dist: np.ndarray, fold: CostFold) -> np.ndarray:
    """The fold's definition, one vertex at a time (-1: unreached)."""
    extra = set(fold.extra.tolist())
    outs = [v for v in range(dist.shape[0]) if v not in extra]
    out = [int(dist[v]) for v in outs]
    for v, i in zip(fold.extra.tolist(), fold.into.tolist(), strict=True):
        d = int(dist[v])
        if d >= 0 and (out[i] < 0 or d < out[i]):
            out[i] = d
    return np.asarray(out, dtype=np.int64)


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_costs_are_scipys_distances(family):
    g = make_graph(family, 3)
    for s in (0, g.num_nodes // 2):
        want = scipy_distances(g, np.array([s]))
        assert np.array_equal(costs(g, s, backend="cpu"), want)


@pytest.mark.parametrize("family", [f for f in FAMILY_NAMES if "single" not in f])
def test_folded_costs_are_the_loops_fold(family):
    g = make_graph(family, 5)
    fold = random_fold(g.num_nodes, 11)
    for s in (0, g.num_nodes - 1):
        want = folded_by_loop(scipy_distances(g, np.array([s])), fold)
        got = costs(g, s, backend="cpu", fold=fold)
        assert got.dtype == np.int64 and np.array_equal(got, want)
        assert np.array_equal(fold_costs(scipy_distances(g, np.array([s])), fold), want)


def test_an_unreached_copy_never_wins_and_a_reached_one_does():
    # 0 -> 1 (5), 0 -> 2 (2); 3 is unreached; 2 and 3 fold into output 1
    g = CSRGraph.from_edges(4, [0, 0], [1, 2], [5, 2])
    fold = CostFold(np.array([2, 3], np.int32), np.array([1, 0]))
    assert costs(g, 0, backend="cpu", fold=fold).tolist() == [0, 2]


def test_negative_arcs_are_refused():
    g = CSRGraph.from_edges(3, [0, 1], [1, 2], [4, -1])
    with pytest.raises(InvalidArgumentError, match="negative"):
        costs(g, 0, backend="cpu")
