"""sssp() through the route index (issue 26): dist, pred and hops bit-identical to the
strategies and to the scipy oracle (``gpu_core.reference``), on every graph family,
random multigraphs (zero weights, parallel arcs, self-loops, one-ways, unreachable parts),
grids full of hop ties, targets and several sources; the index is checked against its
graph and ignored by explicit strategies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_core.errors import InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import build_hierarchy, key_hierarchy
from gpu_core.keys import key_space_for
from gpu_core.reference import reference_sssp
from gpu_core.sssp import sssp
from gpu_core.telemetry import MODE_CODE
from tests.core.families import FAMILIES, FAMILY_NAMES


def assert_same(a, b) -> None:
    np.testing.assert_array_equal(a.dist, b.dist)
    np.testing.assert_array_equal(a.pred, b.pred)
    np.testing.assert_array_equal(a.hops, b.hops)
    np.testing.assert_array_equal(a.key, b.key)


def assert_reference(g: CSRGraph, sources, res) -> None:
    key, dist, pred = reference_sssp(g, sources)
    np.testing.assert_array_equal(res.dist, dist)
    np.testing.assert_array_equal(res.key, key)
    np.testing.assert_array_equal(res.pred, pred)


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_families_equal_the_strategies_and_scipy(name, make):
    g = make(seed=4)
    h = key_hierarchy(g)
    n = g.num_nodes
    for src in sorted({0, n // 2, n - 1}):
        got = sssp(g, src, backend="cpu", index=h)
        assert got.extra["index"] == "phast" and got.strategy == "auto"
        assert_same(got, sssp(g, src, backend="cpu"))
        assert_same(got, sssp(g, src, backend="cpu", strategy="delta"))
        assert_reference(g, src, got)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 40), data=st.data())
def test_random_multigraphs(n, data):
    m = data.draw(st.integers(0, 4 * n))
    t = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    hd = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = data.draw(st.lists(st.integers(0, 30), min_size=m, max_size=m))
    g = CSRGraph.from_edges(n, t, hd, w)
    h = key_hierarchy(g)
    srcs = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
    got = sssp(g, srcs, backend="cpu", index=h)
    assert_same(got, sssp(g, srcs, backend="cpu", strategy="bellman_ford_queue"))
    assert_reference(g, srcs, got)


def test_hop_ties_on_an_equal_weight_grid_and_repeated_calls():
    # every arc weighs the same: many least-cost routes, the fewest hops decide
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 2500, seed=3, max_weight=1))
    h = key_hierarchy(g)
    for src in (0, 1234, 2499, 17, 0):  # the reused work vectors are reset between calls
        got = sssp(g, src, backend="cpu", index=h)
        assert_same(got, sssp(g, src, backend="cpu"))
        assert_reference(g, src, got)
        assert (got.hops[got.reached] >= 0).all()


def test_target_and_several_sources_equal_the_plain_search():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 900, seed=5))
    h = key_hierarchy(g)
    for target in (5, 450, 899):
        assert_same(sssp(g, 3, backend="cpu", index=h, target=target),
                    sssp(g, 3, backend="cpu", target=target))
    srcs = [0, 77, 899]
    assert_same(sssp(g, srcs, backend="cpu", index=h), sssp(g, srcs, backend="cpu"))


def test_telemetry_rows_are_the_sweep_levels():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 900, seed=5))
    h = key_hierarchy(g)
    seen = []
    res = sssp(g, 0, backend="cpu", index=h, on_phase=seen.append)
    rows = res.phases.rows
    assert len(res.phases) == h.levels + 2 and sum(len(c) for c in seen) == len(res.phases)
    assert rows["mode"][0] == MODE_CODE["phast_up"] and rows["mode"][-1] == MODE_CODE["phast_pred"]
    sweep = rows[1:-1]
    assert (sweep["mode"] == MODE_CODE["phast"]).all()
    assert int(sweep["frontier"].sum()) == g.num_nodes
    assert int(sweep["edges"].sum()) == int(h.down_src.shape[0])
    assert (rows["time_us"] >= 0).all()


def test_explicit_strategy_ignores_the_index_and_auto_without_one_is_todays():
    a = FAMILIES[0][1](seed=1)
    b = FAMILIES[0][1](seed=2)
    h_b = key_hierarchy(b)
    res = sssp(a, 0, backend="cpu", strategy="delta", index=h_b)  # not even checked
    assert "index" not in res.extra and (res.phases.rows["mode"] == MODE_CODE["delta"]).all()
    assert "index" not in sssp(a, 0, backend="cpu").extra


def test_an_index_of_another_graph_or_on_plain_weights_is_refused():
    a = FAMILIES[0][1](seed=1)
    b = FAMILIES[0][1](seed=2)
    with pytest.raises(InvalidArgumentError, match="key weights"):
        sssp(a, 0, backend="cpu", index=key_hierarchy(b))
    with pytest.raises(InvalidArgumentError, match="key weights"):
        sssp(a, 0, backend="cpu", index=build_hierarchy(a))
    small = CSRGraph.from_edges(3, [0, 1], [1, 2], [1, 1])
    with pytest.raises(InvalidArgumentError, match="nodes"):
        sssp(small, 0, backend="cpu", index=key_hierarchy(a))
    with pytest.raises(InvalidArgumentError, match="Hierarchy"):
        sssp(a, 0, backend="cpu", index="ch.npz")


def test_negative_arcs_run_todays_search():
    g = CSRGraph.from_edges(3, [0, 1, 0], [1, 2, 2], [4, -2, 5])
    h = key_hierarchy(CSRGraph.from_edges(3, [0, 1, 0], [1, 2, 2], [4, 2, 5]))
    res = sssp(g, 0, backend="cpu", strategy="bellman_ford_queue", index=h)
    assert res.dist.tolist() == [0, 4, 2] and "index" not in res.extra
    with pytest.raises(InvalidArgumentError):
        key_hierarchy(g)


def test_without_hop_bits():
    # weights so large that key_space_for leaves no hop bits: keys are plain costs
    n = 70_000
    rng = np.random.default_rng(1)
    t = np.arange(n - 1)
    w = rng.integers(1 << 30, (1 << 31) - 1, n - 1)
    g = CSRGraph.from_edges(n, np.r_[t, t + 1, 0], np.r_[t + 1, t, n - 1],
                            np.r_[w, w, 1 << 31 - 1])
    assert key_space_for(g.weights, n).hop_bits == 0
    h = key_hierarchy(g)
    for src in (0, 12345):
        got = sssp(g, src, backend="cpu", index=h)
        assert_same(got, sssp(g, src, backend="cpu"))


def test_parallel_passes_equal_the_sequential_ones(monkeypatch):
    # big maps run the key and predecessor passes on numba's threads (PARALLEL_MIN_N)
    from gpu_core.indexed_sssp import cpu
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 3000, seed=11, max_weight=2))
    h = key_hierarchy(g)
    seq = sssp(g, 7, backend="cpu", index=h)
    monkeypatch.setattr(cpu, "PARALLEL_MIN_N", 0)
    par = sssp(g, 7, backend="cpu", index=h)
    assert_same(par, seq)
    assert_reference(g, 7, par)


@pytest.mark.parametrize("seed", range(4))
def test_in_arcs_match_a_stable_argsort_by_head(seed):
    """The reverse CSR the predecessor pass reads, against numpy (the code it replaced)."""
    from gpu_core.indexed_sssp.cpu import in_arcs

    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 300)), int(rng.integers(0, 1500))
    t = rng.integers(0, n, m)
    g = CSRGraph.from_edges(n, t, rng.integers(0, n, m), rng.integers(0, 50, m))
    rptr, rsrc, rw = in_arcs(g.indptr, g.indices, g.weights)
    order = np.argsort(g.indices, kind="stable")
    assert np.array_equal(rptr, np.r_[0, np.cumsum(np.bincount(g.indices, minlength=n))])
    assert np.array_equal(rsrc, g.arc_sources()[order]) and rsrc.dtype == np.int32
    assert np.array_equal(rw, g.weights[order]) and rw.dtype == np.int32


def test_level_groups_pick_wide_groups_for_long_rows_only():
    from gpu_core.indexed_sssp.groups import WIDTHS, level_groups

    # level 0: one vertex with 100 in-arcs; level 1: 10,000 vertices with 2 each;
    # level 2: 64 vertices with 9 each; level 3: empty
    deg = np.concatenate([[100], np.full(10_000, 2), np.full(64, 9)])
    down_ptr = np.concatenate([[0], np.cumsum(deg)])
    level_ptr = np.array([0, 1, 10_001, 10_065, 10_065])
    g = level_groups(level_ptr, down_ptr, np.array([256, 1024, 256, 1024]))
    assert g.dtype == np.int32 and set(g.tolist()) <= set(WIDTHS)
    assert g[0] == 32  # one row of 100: all lanes of a warp
    assert g[1] == 1   # 10,000 short rows over 1,024 lanes: a lane each
    assert 4 <= g[2] <= 16  # 64 rows of 9 over 256 lanes: a few lanes each
    assert g[3] == 1
