"""The upward searches walked on the device (``hierarchy/upward.cu``) give the matrices of
the host's searches and of scipy, entry by entry: full and restricted sweeps, both index
builders, 32- and 64-bit blocks, any block width, shared memory past the default, and the
host's searches where the tree is too deep."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import build_hierarchy
from gpu_core.multi_source import multi_source_sssp
from tests.core.families import FAMILIES, FAMILY_NAMES, random_sparse
from tests.core.test_few_to_few import oracle

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu

from gpu_core.hierarchy import cuda as hcuda  # noqa: E402  (needs CuPy)
from gpu_core.hierarchy import upward_cuda  # noqa: E402


@pytest.fixture(autouse=True)
def _walk_small_jobs(monkeypatch):
    monkeypatch.setattr(upward_cuda, "BUILD_MIN_SOURCES", 0)


def gpu_rows(g, h, src, tgt, query="phast"):
    return multi_source_sssp(g, src, targets=tgt, backend="cupy", variant="phast",
                             hierarchy=h, query=query).dist


def both(g, h, src, tgt, query, monkeypatch):
    """(walked, host-searched) rows."""
    walked = gpu_rows(g, h, src, tgt, query)
    with monkeypatch.context() as m:
        m.setattr(upward_cuda, "ENABLED", False)
        host = gpu_rows(g, h, src, tgt, query)
    return walked, host


@pytest.mark.parametrize("query", ["phast", "rphast"])
@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_families(name, make, query, monkeypatch):
    g = make(seed=11)
    r = np.random.default_rng(3)
    src, tgt = r.integers(0, g.num_nodes, 45), r.integers(0, g.num_nodes, 19)
    for method in ("ch", "cch"):
        h = build_hierarchy(g, method=method)
        walked, host = both(g, h, src, tgt, query, monkeypatch)
        np.testing.assert_array_equal(walked, host)
        np.testing.assert_array_equal(walked, oracle(g, src, tgt))


def test_small_jobs_after_a_closure_search_on_the_host(monkeypatch):
    from gpu_core.hierarchy.cch import build_topology, customize
    from maps.generate import generate

    monkeypatch.setattr(upward_cuda, "BUILD_MIN_SOURCES", 64)
    g = CSRGraph.from_any(generate("grid", 900, seed=2))
    t = build_topology(g)
    customize(t, g)
    w = g.weights.astype(np.int64).copy()
    w[:40] += 7
    g2 = CSRGraph.from_edges(g.num_nodes, g.arc_sources(), g.indices, w)
    h2 = customize(t, g2)
    assert h2.customized.startswith("partial")
    made = []
    real = upward_cuda.walker
    monkeypatch.setattr(upward_cuda, "walker", lambda h, build=True: made.append(build)
                        or real(h, build))
    r = np.random.default_rng(1)
    few, many = r.integers(0, g.num_nodes, 20), r.integers(0, g.num_nodes, 80)
    np.testing.assert_array_equal(gpu_rows(g2, h2, few, many), oracle(g2, few, many))
    assert made and not any(made)  # the small job never builds the walk
    made.clear()
    np.testing.assert_array_equal(gpu_rows(g2, h2, many, few), oracle(g2, many, few))
    assert made and all(made)  # the big one does


def test_the_walk_is_taken_and_deep_trees_fall_back(monkeypatch):
    g = random_sparse(seed=4, n=300, avg_deg=3)
    h = build_hierarchy(g, method="ch")
    assert hcuda.Sweeper(h, 32).walk is not None
    monkeypatch.setattr(upward_cuda, "_shared_limit", lambda: 8)  # one slot: too deep
    h2 = build_hierarchy(g, method="ch")
    assert hcuda.Sweeper(h2, 32).walk is None
    src, every = np.arange(0, 300, 7), np.arange(300)
    np.testing.assert_array_equal(gpu_rows(g, h2, src, every), oracle(g, src, every))


@pytest.mark.parametrize("threads", [32, 64, 256])
def test_block_widths_and_opt_in_shared_memory(threads, monkeypatch):
    from maps.generate import generate

    g = CSRGraph.from_any(generate("kanto", 6000, seed=5))
    h = build_hierarchy(g)
    monkeypatch.setattr(upward_cuda, "THREADS", threads)
    monkeypatch.setattr(upward_cuda, "DEFAULT_SHARED", 64)  # every launch opts in
    monkeypatch.setattr(hcuda, "K_MAX", 64)  # several batches, a partial last one
    r = np.random.default_rng(8)
    src, tgt = r.integers(0, g.num_nodes, 150), r.integers(0, g.num_nodes, 60)
    np.testing.assert_array_equal(gpu_rows(g, h, src, tgt), oracle(g, src, tgt))


def test_costs_past_32_bits_raise_the_flag():
    """A 32-bit walk that meets a cost of 2^30 or more says so (the sweeper then sweeps
    the batch in 64 bits); the 64-bit walk keeps it exactly."""
    from types import SimpleNamespace

    from gpu_core.hierarchy.etree import elimination_tree

    w = (1 << 29) + 5  # two arcs up: 2^30 + 10
    h = SimpleNamespace(n=3, up_ptr=np.array([0, 0, 1, 2], np.int64),
                        up_dst=np.array([0, 1], np.int32), up_w=np.array([w, w], np.int64))
    wk = upward_cuda.Walker(h, *elimination_tree(h))
    K = 32
    seeds = cp.asarray(np.array([2, 1], np.int32))
    for narrow, inf in ((True, 0x7FFFFFFF), (False, 1 << 62)):
        d = cp.full(3 * K, inf, dtype=cp.int32 if narrow else cp.int64)
        big = cp.zeros(1, cp.int32)
        wk.run(d, narrow, seeds, K, big)
        got = cp.asnumpy(d).reshape(3, K)[:, :2]
        assert int(big.get()[0]) == (1 if narrow else 0)
        assert got[2, 0] == 0 and got[1, 0] == w and got[1, 1] == 0
        assert got[2, 1] == inf  # below the second source: not on its path
        if not narrow:
            assert got[0, 0] == 2 * w and got[0, 1] == w
