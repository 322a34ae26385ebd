"""Few-to-few queries through the route index (issue 26): buckets and restricted PHAST
give scipy's costs entry by entry, and the selection rule picks by size."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

from gpu_core.errors import InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import build_hierarchy, few
from gpu_core.multi_source import iter_distance_rows, multi_source_sssp
from gpu_core.reference import scipy_csr, scipy_rows
from tests.core.families import FAMILIES, FAMILY_NAMES

QUERIES = ("phast", "rphast", "buckets")


def oracle(g: CSRGraph, src, tgt) -> np.ndarray:
    """scipy's Dijkstra, rows for ``src`` and columns for ``tgt`` (-1 unreachable)."""
    d = dijkstra(scipy_csr(g), directed=True, indices=np.asarray(src))
    return scipy_rows(d.reshape(len(src), g.num_nodes)[:, np.asarray(tgt)])


def indexed(g, h, src, tgt, query: str, chunk: int | None = None) -> tuple[np.ndarray, str]:
    r = multi_source_sssp(g, src, targets=tgt, backend="cpu", variant="phast", hierarchy=h,
                          query=query, chunk=chunk)
    return r.dist, r.extra["query"]


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_families(name, make):
    g = make(seed=7)
    h = build_hierarchy(g)
    r = np.random.default_rng(1)
    src = r.integers(0, g.num_nodes, 25)
    tgt = r.integers(0, g.num_nodes, 19)
    want = oracle(g, src, tgt)
    for q in QUERIES:
        got, ran = indexed(g, h, src, tgt, q)
        assert ran == q
        np.testing.assert_array_equal(got, want, err_msg=q)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 40), data=st.data())
def test_random_directed_multigraphs(n, data):
    # parallel arcs, self-loops, zero weights, one-way arcs, unreachable pairs
    m = data.draw(st.integers(0, 4 * n))
    t = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    hd = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = data.draw(st.lists(st.integers(0, 30), min_size=m, max_size=m))
    g = CSRGraph.from_edges(n, t, hd, w)
    h = build_hierarchy(g)
    src = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=12))
    tgt = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=12))
    want = oracle(g, src, tgt)
    for q in QUERIES:
        np.testing.assert_array_equal(indexed(g, h, src, tgt, q)[0], want, err_msg=q)


def test_grid_duplicates_source_is_target_and_chunks():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 2500, seed=4))
    h = build_hierarchy(g)
    r = np.random.default_rng(3)
    src = r.integers(0, g.num_nodes, 60)
    tgt = r.integers(0, g.num_nodes, 40)
    src[7] = src[3]  # duplicate sources keep their rows
    tgt[5] = tgt[11]  # duplicate targets keep their columns
    tgt[0] = src[0]  # a source that is a target: cost 0
    want = oracle(g, src, tgt)
    assert want[0, 0] == 0
    for q in QUERIES:
        for chunk in (None, 7):
            got, _ = indexed(g, h, src, tgt, q, chunk)
            np.testing.assert_array_equal(got, want, err_msg=f"{q} chunk {chunk}")


def test_unreachable_pairs_between_components():
    # two directed cycles with one one-way bridge 0 -> 5: nothing comes back
    t = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
    hd = [1, 2, 3, 4, 0, 6, 7, 8, 9, 5, 5]
    w = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 7]
    g = CSRGraph.from_edges(10, t, hd, w)
    h = build_hierarchy(g)
    src, tgt = [0, 6, 9, 2], [5, 1, 8, 0]
    want = oracle(g, src, tgt)
    assert (want == -1).any() and (want > 0).any()
    for q in QUERIES:
        np.testing.assert_array_equal(indexed(g, h, src, tgt, q)[0], want, err_msg=q)


def test_restricted_selection_is_closed_and_small():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 4900, seed=2))
    h = build_hierarchy(g)
    tgt = np.random.default_rng(5).integers(0, g.num_nodes, 10)
    r = few.restrict(h, tgt)
    assert 10 <= r.n < h.n // 2
    assert np.all(np.diff(r.sel) > 0)  # sweep order kept
    # every downward in-arc of a selected vertex comes from a selected, earlier vertex
    heads = np.repeat(np.arange(r.n), np.diff(r.down_ptr))
    assert np.all((r.down_src >= 0) & (r.down_src < heads))
    assert r.level_ptr[0] == 0 and r.level_ptr[-1] == r.n
    # kept for the same targets (a worker's blocks ask again), made anew for others
    assert few.restrict(h, tgt.copy()) is r
    other = few.restrict(h, tgt[:5])
    assert other is not r and other.rows.shape[0] == 5
    fresh = few._restrict(h, tgt)
    for f in ("sel", "loc", "down_ptr", "down_src", "down_w", "level_ptr", "rows"):
        np.testing.assert_array_equal(getattr(few.restrict(h, tgt), f), getattr(fresh, f))
    src = np.arange(0, g.num_nodes, 97)
    want = oracle(g, src, tgt)
    for _ in range(2):  # the second time through the kept selection
        np.testing.assert_array_equal(indexed(g, h, src, tgt, "rphast")[0], want)


def test_selection_rule():
    n = 1_000_000
    assert few.choose_query(n, 100, None, "cpu") == "phast"  # all vertices
    side = few.BUCKET_MIN_SIDE
    assert few.choose_query(n, side, side, "cpu") == "buckets"  # both sides many
    assert few.choose_query(n, 1000, 1000, "cpu") == "buckets"
    assert few.choose_query(n, side - 1, 1000, "cpu") == "rphast"  # few sources
    assert few.choose_query(n, 1000, side - 1, "cpu") == "rphast"  # few targets
    assert few.choose_query(n, 30, 30, "cpu") == "rphast"
    assert few.choose_query(n, 1000, few.BUCKET_MAX_TARGETS + 1, "cpu") == "rphast"
    # the restricted sweep won on an H100 (NE: 100, 1000 and 10,000 a side)
    assert few.choose_query(1_524_453, 100, 100, "cupy") == "rphast"
    assert few.choose_query(1_524_453, 10_000, 10_000, "cupy") == "rphast"
    assert few.choose_query(n, 100, 20_000, "cupy") == "phast"  # past n / 100: the full one
    assert few.choose_query(50, 5, 60, "cpu") == "phast"  # targets >= n
    # the boundaries are the documented constants
    for backend, bound in (("cpu", few.RPHAST_MAX_TARGETS_PER_NODE),
                           ("cupy", few.GPU_RPHAST_MAX_TARGETS_PER_NODE)):
        tmax = int(n * bound)
        assert tmax == 0 or few.choose_query(n, 1, tmax, backend) == "rphast"
        assert tmax == 0 or few.choose_query(n, side, tmax, backend) == (
            "buckets" if backend == "cpu" and tmax <= few.BUCKET_MAX_TARGETS else "rphast")
        assert few.choose_query(n, side, tmax + 1, backend) == "phast"
    assert few.choose_query(n, 1, 1, "cupy") != "buckets"  # buckets are CPU only


def test_auto_reports_the_rule_and_bad_queries_refused():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 900, seed=1))
    h = build_hierarchy(g)
    src, tgt = np.arange(0, 900, 37), np.arange(5, 900, 41)
    got, ran = indexed(g, h, src, tgt, "auto")
    assert ran == few.choose_query(h.n, len(src), len(tgt), "cpu")
    np.testing.assert_array_equal(got, oracle(g, src, tgt))
    stats: dict = {}
    list(iter_distance_rows(g, src, backend="cpu", variant="phast", hierarchy=h, stats=stats))
    assert stats["query"] == "phast"  # all vertices as targets
    with pytest.raises(InvalidArgumentError, match="unknown query"):
        indexed(g, h, src, tgt, "sideways")
    with pytest.raises(InvalidArgumentError, match="needs targets"):
        list(iter_distance_rows(g, src, backend="cpu", variant="phast", hierarchy=h,
                                query="buckets"))
    empty = multi_source_sssp(g, src, targets=[], backend="cpu", variant="phast",
                              hierarchy=h, query="rphast").dist
    assert empty.shape == (len(src), 0)


def test_restricted_arrays_the_gpu_sweeps_give_scipys_costs():
    """What the GPU's RestrictedSweeper consumes (the restricted CSR and levels, the
    sources' entries in local ids), swept level by level on the host as its kernels do."""
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 3600, seed=8))
    h = build_hierarchy(g)
    r = np.random.default_rng(6)
    src, tgt = r.integers(0, g.num_nodes, 30), r.integers(0, g.num_nodes, 12)
    sub = few.restrict(h, tgt)
    col, lv, cost = sub.local_spaces(*few.source_spaces(h, src))
    d = np.full((sub.n, len(src)), few.INF, np.int64)
    d[lv, col] = cost
    for lo, hi in zip(sub.level_ptr[:-1], sub.level_ptr[1:], strict=True):
        for v in range(lo, hi):  # a level reads earlier levels only
            for e in range(sub.down_ptr[v], sub.down_ptr[v + 1]):
                assert sub.down_src[e] < lo
                d[v] = np.minimum(d[v], d[sub.down_src[e]] + sub.down_w[e])
    got = d[sub.rows].T
    np.testing.assert_array_equal(np.where(got >= few.INF, -1, got), oracle(g, src, tgt))
