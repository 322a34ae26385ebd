"""The route index's query types are one table (issue 38): the API's checks, ``auto``'s
candidates and the bench's rows all come from ``gpu_core.hierarchy.queries``."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.errors import InvalidArgumentError
from gpu_core.hierarchy import queries
from gpu_core.hierarchy.few import choose_query


def test_bench_rows_are_the_tables():
    from app.bench.matrix import _queries

    for backend in ("cpu", "cupy"):
        assert _queries(backend, None) == queries.queries_for(backend)
    assert "buckets" not in queries.queries_for("cupy")


def test_auto_picks_only_what_the_backend_runs(monkeypatch):
    monkeypatch.setattr("gpu_core.hierarchy.few.BUCKET_MIN_SIDE", 2)
    assert choose_query(1000, 2, 2, "cpu") == "buckets"
    assert choose_query(1000, 2, 2, "cupy") in queries.queries_for("cupy")
    monkeypatch.setattr(queries, "QUERY_TABLE", tuple(
        q for q in queries.QUERY_TABLE if q.name != "buckets"))
    assert choose_query(1000, 2, 2, "cpu") != "buckets"


@pytest.mark.parametrize(("query", "backend", "targets", "says"), [
    ("nope", "cpu", True, "unknown query 'nope'; choose one of auto, phast, rphast, buckets"),
    ("rphast", "cpu", False, "the rphast query needs targets"),
    ("buckets", "cupy", True, "the buckets query runs on the cpu backend only"),
])
def test_api_refuses_by_the_table(small_hierarchy, query, backend, targets, says):
    from gpu_core.hierarchy.api import iter_rows

    tg = np.array([1, 2], np.int32) if targets else None
    with pytest.raises(InvalidArgumentError, match=says):
        next(iter_rows(small_hierarchy, np.array([0], np.int32), tg, backend, query=query))


@pytest.fixture(scope="module")
def small_hierarchy():
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy.api import build_hierarchy

    src = np.array([0, 1, 2, 3], np.int32)
    dst = np.array([1, 2, 3, 0], np.int32)
    g = CSRGraph.from_edges(4, src, dst, np.array([1, 2, 3, 4], np.int32))
    return build_hierarchy(g)
