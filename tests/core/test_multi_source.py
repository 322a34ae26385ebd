"""Many-source shortest paths on the CPU backend equal single-source reference searches."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_core.errors import CancelledError, InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.multi_source import (
    MatrixTooLargeError,
    all_pairs,
    distance_matrix,
    iter_distance_rows,
    multi_source_sssp,
)
from gpu_core.reference import reference_sssp
from tests.core.families import FAMILIES, FAMILY_NAMES, random_sparse


def reference_rows(g, sources, targets=None) -> np.ndarray:
    rows = [reference_sssp(g, int(s))[1] for s in sources]
    d = np.array(rows, dtype=np.int64).reshape(len(rows), g.num_nodes)
    return d if targets is None else d[:, targets]


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_all_sources_equal_reference(name, make):
    g = make(seed=2)
    src = np.arange(g.num_nodes)
    res = multi_source_sssp(g, src, backend="cpu", chunk=7)
    assert res.dist.dtype == np.int64 and res.dist.shape == (g.num_nodes, g.num_nodes)
    np.testing.assert_array_equal(res.dist, reference_rows(g, src))
    assert res.backend == "cpu"


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 40),
    m=st.integers(0, 160),
    wmax=st.integers(0, 50),
    seed=st.integers(0, 10_000),
    chunk=st.integers(1, 9),
)
def test_random_graphs_targets_and_duplicates(n, m, wmax, seed, chunk):
    r = np.random.default_rng(seed)
    g = CSRGraph.from_edges(n, r.integers(0, n, m), r.integers(0, n, m), r.integers(0, wmax + 1, m))
    src = r.integers(0, n, r.integers(1, 12))  # duplicates likely
    tgt = r.integers(0, n, r.integers(1, 9))
    got = multi_source_sssp(g, src, targets=tgt, backend="cpu", chunk=chunk)
    np.testing.assert_array_equal(got.dist, reference_rows(g, src, tgt))
    np.testing.assert_array_equal(got.sources, src.astype(np.int32))


def test_one_at_a_time_variant_same_answer():
    g = random_sparse(seed=3, n=60)
    src = np.arange(60)
    a = multi_source_sssp(g, src, backend="cpu", variant="one_at_a_time").dist
    b = multi_source_sssp(g, src, backend="cpu").dist
    np.testing.assert_array_equal(a, b)


def test_distance_matrix_and_unreachable():
    # 0 -> 1 -> 2, 3 isolated
    g = CSRGraph.from_edges(4, [0, 1], [1, 2], [4, 5])
    d = distance_matrix(g, [0, 2, 3], [2, 0, 3], backend="cpu")
    np.testing.assert_array_equal(d, [[9, 0, -1], [0, -1, -1], [-1, -1, 0]])


def test_all_pairs_in_memory_and_refused_when_too_large():
    g = random_sparse(seed=1, n=50)
    d = all_pairs(g, backend="cpu")
    np.testing.assert_array_equal(d, reference_rows(g, range(50)))
    with pytest.raises(MatrixTooLargeError, match=r"20000 bytes"):
        all_pairs(g, backend="cpu", max_bytes=1000)


def test_all_pairs_streams_to_npy(tmp_path):
    g = random_sparse(seed=4, n=70)
    out = tmp_path / "ap.npy"
    seen = []
    d = all_pairs(g, backend="cpu", out_path=out, chunk=16, max_bytes=10,
                  on_progress=lambda done, total: seen.append((done, total)))
    assert isinstance(d, np.memmap)
    np.testing.assert_array_equal(np.load(out), reference_rows(g, range(70)))
    assert seen[-1] == (70, 70) and len(seen) == 5
    assert [p.name for p in tmp_path.iterdir()] == ["ap.npy"]


def test_cancel_leaves_no_file(tmp_path):
    g = random_sparse(seed=4, n=70)
    out = tmp_path / "ap.npy"
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(CancelledError):
        all_pairs(g, backend="cpu", out_path=out, chunk=10, cancel=cancel)
    assert list(tmp_path.iterdir()) == []


def test_streamed_rows_in_order():
    g = random_sparse(seed=6, n=30)
    src = [29, 3, 3, 0, 17]
    blocks = list(iter_distance_rows(g, src, backend="cpu", chunk=2))
    assert [r0 for r0, _ in blocks] == [0, 2, 4]
    np.testing.assert_array_equal(np.concatenate([b for _, b in blocks]), reference_rows(g, src))


@pytest.mark.parametrize("variant", ["auto", "phast"])
def test_narrow_rows_are_the_same_costs_in_int32(variant):
    """``narrow`` (the caller knows every cost fits) gives int32 blocks of the same costs,
    -1 where unreachable, with and without the route index."""
    g = random_sparse(seed=8, n=40)
    src, tgt = [0, 39, 5, 5, 12], [1, 2, 30, 0]
    wide = np.concatenate([b for _, b in iter_distance_rows(g, src, targets=tgt, backend="cpu",
                                                            variant=variant, chunk=2)])
    got = [b for _, b in iter_distance_rows(g, src, targets=tgt, backend="cpu",
                                            variant=variant, chunk=2, narrow=True)]
    assert all(b.dtype == np.int32 for b in got)
    np.testing.assert_array_equal(np.concatenate(got), wide)
    assert wide.dtype == np.int64


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"sources": [0, 50]}, r"sources\[1\] = 50 is outside 0..29"),
        ({"sources": [-1]}, r"sources\[0\] = -1"),
        ({"sources": [0], "targets": [30]}, r"targets\[0\] = 30"),
        ({"sources": [0.5]}, "integer"),
        ({"sources": [0], "variant": "fast"}, "unknown variant 'fast'"),
        ({"sources": [0], "chunk": 0}, "chunk must be >= 1"),
    ],
)
def test_bad_arguments(kwargs, match):
    g = random_sparse(seed=6, n=30)
    with pytest.raises(InvalidArgumentError, match=match):
        multi_source_sssp(g, backend="cpu", **kwargs)


def test_costs_beyond_exact_range_refused():
    # (n-1)·max(w) >= 2^53: scipy's float64 could not hold every cost exactly
    n = 2**23
    indptr = np.ones(n + 1, dtype=np.int32)
    indptr[0] = 0
    g = CSRGraph(indptr, np.array([1], np.int32), np.array([2**31 - 1], np.int32))
    with pytest.raises(InvalidArgumentError, match="exact range of the cpu backend"):
        multi_source_sssp(g, [0], backend="cpu")


def test_empty_sources():
    g = random_sparse(seed=6, n=30)
    res = multi_source_sssp(g, np.zeros(0, dtype=np.int64), backend="cpu")
    assert res.dist.shape == (0, 30)
