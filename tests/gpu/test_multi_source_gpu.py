"""GPU many-source variants and Floyd-Warshall equal the CPU backend bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.multi_source import multi_source_sssp
from tests.core.families import FAMILIES, FAMILY_NAMES, random_sparse

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu

VARIANTS = ("one_at_a_time", "task_parallel", "task_parallel_noshared", "batched")


def cpu_all(g: CSRGraph, sources, targets=None) -> np.ndarray:
    return multi_source_sssp(g, sources, targets=targets, backend="cpu").dist


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_variants_equal_cpu_on_families(name, make, variant):
    g = make(seed=3)
    src = np.arange(g.num_nodes)
    got = multi_source_sssp(g, src, backend="cupy", variant=variant)
    assert got.backend == "cupy"
    np.testing.assert_array_equal(got.dist, cpu_all(g, src))


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_graph_many_batches(variant):
    # 700 sources: several batches of P and a partial last one; weights 1..|V| as seed 000
    n = 700
    r = np.random.default_rng(11)
    t = r.integers(0, n, 4 * n)
    h = r.integers(0, n, 4 * n)
    g = CSRGraph.from_edges(n, t, h, r.integers(1, n + 1, 4 * n))
    src = r.permutation(n)[: 100 if variant == "one_at_a_time" else n]
    got = multi_source_sssp(g, src, backend="cupy", variant=variant).dist
    np.testing.assert_array_equal(got, cpu_all(g, src))


@pytest.mark.parametrize("P", [32, 64, 96, 256, 1024])
def test_batched_any_multiple_of_32(P):
    from gpu_core.multi_source import cuda as ms_cuda

    g = random_sparse(seed=5, n=300, avg_deg=5, wmax=1000)
    src = np.random.default_rng(2).permutation(300).astype(np.int32)
    tgt = np.array([0, 7, 299, 7, 150], dtype=np.int32)
    rows = list(ms_cuda.iter_rows(g, src, tgt, "batched", chunk=None, P=P))
    got = np.concatenate([b for _, b in rows])
    np.testing.assert_array_equal(got, cpu_all(g, src, tgt))


def test_targets_duplicates_and_small_chunks():
    g = random_sparse(seed=9, n=200, avg_deg=3)
    src = np.r_[5, 5, 17, 199, 0, 17, np.arange(60)]
    tgt = np.r_[3, 3, 0, 199]
    for variant in VARIANTS:
        got = multi_source_sssp(g, src, targets=tgt, backend="cupy", variant=variant, chunk=1)
        np.testing.assert_array_equal(got.dist, cpu_all(g, src, tgt))


def test_floyd_warshall_equals_cpu():
    from gpu_core.multi_source import cuda as ms_cuda

    for name, make in FAMILIES:
        g = make(seed=4)
        d = cp.asnumpy(ms_cuda.floyd_warshall(g))
        np.testing.assert_array_equal(d, cpu_all(g, np.arange(g.num_nodes)), err_msg=name)


def test_out_of_memory_is_typed(monkeypatch):
    from gpu_core.errors import GpuOutOfMemoryError
    from gpu_core.multi_source import cuda as ms_cuda

    monkeypatch.setattr(ms_cuda, "free_bytes", lambda: 10_000)
    g = random_sparse(seed=1, n=500)
    with pytest.raises(GpuOutOfMemoryError, match="MiB"):
        multi_source_sssp(g, [0, 1], backend="cupy", variant="batched")


def test_batched_shrinks_P_to_fit(monkeypatch):
    from gpu_core.multi_source import cuda as ms_cuda

    g = random_sparse(seed=1, n=500)
    n = g.num_nodes
    # room for P = 64 but not 128
    room = ms_cuda.workspace_bytes("batched", n, 64) + 2 * 64 * n * 8
    monkeypatch.setattr(ms_cuda, "free_bytes", lambda: int(room / 0.85) + 1)
    r = ms_cuda.Runner(g, "batched", n)
    assert r.P == 64


def test_auto_P_bounds():
    from gpu_core.multi_source import cuda as ms_cuda

    assert ms_cuda.auto_P(1_000_000, None) == ms_cuda.P_MIN
    assert ms_cuda.auto_P(100, 10) == 32  # never far more tasks than sources
    p = ms_cuda.auto_P(1024, 1024)
    assert p % 32 == 0 and ms_cuda.P_MIN <= p <= ms_cuda.P_MAX
