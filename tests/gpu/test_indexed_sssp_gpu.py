"""sssp() through the route index on the GPU (``indexed_sssp/one_to_all.cu``): dist,
pred and hops bit-identical to the CPU indexed path and to the plain GPU search."""

from __future__ import annotations

import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import key_hierarchy
from gpu_core.sssp import sssp
from tests.core.families import FAMILIES, FAMILY_NAMES
from tests.core.test_indexed_sssp import assert_same

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_families_gpu_equals_cpu_and_plain(name, make):
    g = make(seed=6)
    h = key_hierarchy(g)
    n = g.num_nodes
    for src in sorted({0, n // 3, n - 1}):
        got = sssp(g, src, backend="cupy", index=h)
        assert got.extra["index"] == "phast" and got.backend == "cupy"
        assert_same(got, sssp(g, src, backend="cpu", index=h))
        assert_same(got, sssp(g, src, backend="cupy"))


def test_grid_repeated_calls_results_stay_valid():
    # results kept alive must not be overwritten by later calls (recycled pinned arrays)
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 40_000, seed=2, max_weight=3))
    h = key_hierarchy(g)
    kept = []
    for src in (0, 20_000, 39_999, 5, 0, 777):
        got = sssp(g, src, backend="cupy", index=h)
        assert_same(got, sssp(g, src, backend="cpu"))
        kept.append((src, got))
    for src, got in kept:
        assert_same(got, sssp(g, src, backend="cpu", index=h))
    rows = kept[-1][1].phases.rows
    assert len(rows) == h.levels + 2 and (rows["time_us"] >= 0).all()


def test_several_sources_and_target():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 5000, seed=4))
    h = key_hierarchy(g)
    assert_same(sssp(g, [1, 2500, 4999], backend="cupy", index=h),
                sssp(g, [1, 2500, 4999], backend="cpu"))
    assert_same(sssp(g, 10, backend="cupy", index=h, target=3000),
                sssp(g, 10, backend="cpu", target=3000))


@pytest.mark.parametrize("width", [1, 4, 32])
def test_every_group_width_gives_the_same_search(monkeypatch, width):
    # the sweep's lanes per vertex (groups.level_groups) forced to one width on every level
    from gpu_core.indexed_sssp import cuda as ota
    from maps.generate import generate

    monkeypatch.setattr(ota, "level_groups", lambda lp, dp, lanes: cp.asnumpy(
        cp.full(lp.shape[0] - 1, width, dtype=cp.int32)))
    g = CSRGraph.from_any(generate("grid", 20_000, seed=5))
    h = key_hierarchy(g)
    for src in (0, 7_777, 19_999):
        assert_same(sssp(g, src, backend="cupy", index=h), sssp(g, src, backend="cpu"))
