"""Issue 14 item 4: gpu_core's public functions refuse bad arrays and ids with a typed
ValueError (InvalidArgumentError) naming them, before any kernel runs."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from gpu_core.dynamic import MutableGraph
from gpu_core.errors import InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.multi_source import multi_source_sssp
from gpu_core.programs import bellman_ford, minimum_spanning_forest, pagerank
from gpu_core.sssp import sssp


def good() -> SimpleNamespace:
    # 0 -> 1 -> 2 -> 3, 0 -> 2
    return SimpleNamespace(indptr=np.array([0, 2, 3, 4, 4]), indices=np.array([1, 2, 2, 3]),
                           weights=np.array([1, 5, 1, 1]))


def bad(**change) -> SimpleNamespace:
    g = good()
    for k, v in change.items():
        setattr(g, k, v)
    return g


def place(g, **kw):
    from gpu_core.betweenness import place_billboards

    return place_billboards(g, 1, backend="cpu", **kw)


CALLS = {
    "sssp": lambda g: sssp(g, 0, backend="cpu"),
    "multi_source": lambda g: multi_source_sssp(g, [0, 1], backend="cpu"),
    "billboards": lambda g: place(g),
    "bellman_ford": lambda g: bellman_ford(g, 0, backend="cpu"),
    "pagerank": lambda g: pagerank(g, backend="cpu"),
    "mst": lambda g: minimum_spanning_forest(g, backend="cpu"),
    "dynamic": lambda g: MutableGraph(g, backend="cpu"),
}

BAD_GRAPHS = {
    "index out of range": (bad(indices=np.array([1, 2, 2, 99])), r"indices\[3\] = 99"),
    "negative index": (bad(indices=np.array([1, -1, 2, 3])), r"indices\[1\] = -1"),
    "indptr not monotone": (bad(indptr=np.array([0, 3, 2, 4, 4])), "not monotone"),
    "indptr end": (bad(indptr=np.array([0, 2, 3, 4, 5])), "indptr must run from 0"),
    "indptr start": (bad(indptr=np.array([1, 2, 3, 4, 4])), "indptr must run from 0"),
    "int64 weight that would wrap": (bad(weights=np.array([1, 2**40, 1, 1])), "int32"),
    "negative weight": (bad(weights=np.array([1, -5, 1, 1])), "non-negative"),
    "float indices": (bad(indices=np.array([1.0, 2.0, 2.0, 3.0])), "integers"),
    "float weights": (bad(weights=np.array([1.5, 5, 1, 1])), "integers"),
    "2-d indices": (bad(indices=np.array([[1, 2], [2, 3]])), "1-d"),
    "short weights": (bad(weights=np.array([1, 2, 3])), "differ in length"),
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("case", BAD_GRAPHS)
def test_bad_graphs_are_refused(call, case):
    g, msg = BAD_GRAPHS[case]
    if case == "negative weight" and call in TAKE_NEGATIVE:
        pytest.skip("takes negative weights: test_pagerank_and_mst_take_negative_weights")
    with pytest.raises(InvalidArgumentError, match=msg) as exc:
        CALLS[call](g)
    assert isinstance(exc.value, ValueError)


TAKE_NEGATIVE = ("pagerank", "mst")  # issue 24: PageRank reads no weight; MST ranks edges


def test_pagerank_and_mst_take_negative_weights():
    g, _ = BAD_GRAPHS["negative weight"]
    flipped = bad(weights=np.array([1, 5, 1, 1]))  # the same arcs, weights all >= 0
    np.testing.assert_array_equal(pagerank(g, backend="cpu").rank,
                                  pagerank(flipped, backend="cpu").rank)
    for method in ("framework", "direct"):
        got = minimum_spanning_forest(g, backend="cpu", method=method)
        # the lightest arc per pair: 0-1 (1), 0-2 (-5), 1-2 (1), 2-3 (1); Kruskal keeps
        # -5 first, then 0-1 and 2-3 (1-2 would close a cycle)
        assert got.total_weight == -3 and got.tails.shape[0] == 3


def test_a_bad_csrgraph_object_is_refused_too():
    g = CSRGraph(np.array([0, 2, 3, 4, 4], np.int32), np.array([1, 2, 2, 77], np.int32),
                 np.array([1, 5, 1, 1], np.int32))
    with pytest.raises(InvalidArgumentError, match="77"):
        sssp(g, 0, backend="cpu")


@pytest.mark.parametrize("source,msg", [
    (1.7, "1.7 is not an integer"), (np.float64(2.0), "not an integer"), (True, "not an integer"),
    ("0", "not an integer"), (4, "outside 0..3"), (-1, "outside 0..3"),
    ([0.0, 1.0], "integers"), (np.array([0, 9]), r"\[1\] = 9"),
])  # fmt: skip
def test_bad_sources_are_refused_not_truncated(source, msg):
    with pytest.raises(InvalidArgumentError, match=msg):
        sssp(good(), source, backend="cpu")
    if np.ndim(source) == 0:
        with pytest.raises(InvalidArgumentError, match=msg):
            bellman_ford(good(), source, backend="cpu")
    with pytest.raises(InvalidArgumentError):
        multi_source_sssp(good(), np.atleast_1d(np.asarray(source, dtype=object)), backend="cpu")


def test_fixed_sites_and_targets():
    with pytest.raises(InvalidArgumentError, match="fixed"):
        place(good(), fixed=[1.5])
    with pytest.raises(InvalidArgumentError, match="target"):
        sssp(good(), 0, backend="cpu", target=2.5)


def test_valid_input_still_gives_the_oracle_answer():
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    g = good()
    res = sssp(g, np.int64(0), backend="cpu")
    m = csr_matrix((g.weights, g.indices, g.indptr), shape=(4, 4))
    assert res.dist.tolist() == dijkstra(m, indices=0).astype(int).tolist()
