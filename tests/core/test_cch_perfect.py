"""Perfect customization and arc removal (``gpu_core.hierarchy.perfect``): every CCH arc
weighs its ends' distance, the pruned index keeps a subset of the strictly pruned one's
arcs in sweep levels of its own, and every answer through it (PHAST rows, the restricted
sweep, buckets, the indexed one-to-all) equals scipy / ``sssp()`` on graphs full of
ties: weights 1..3, zero weights, one-way arcs, unreachable parts, unit-weight grids."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import few
from gpu_core.hierarchy.cch import build_topology, customize, customize_metric
from gpu_core.hierarchy.contract import INF
from gpu_core.hierarchy.metric import prune as strict_prune
from gpu_core.hierarchy.perfect import perfect_metric, removable
from tests.core.test_cch import phast_rows, scipy_rows

pytest.importorskip("pymetis")


def _graph(n, data, weights):
    m = data.draw(st.integers(0, 4 * n))
    t = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    hd = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = data.draw(st.lists(st.sampled_from(weights), min_size=m, max_size=m))
    return CSRGraph.from_edges(n, t, hd, w)


def _unit_grid(side: int, one_way: float = 0.0, seed: int = 0) -> CSRGraph:
    """A side x side grid of unit roads (two arcs each; a share ``one_way`` keeps one)."""
    rng = np.random.default_rng(seed)
    v = np.arange(side * side).reshape(side, side)
    a = np.concatenate([v[:, :-1].ravel(), v[:-1, :].ravel()])
    b = np.concatenate([v[:, 1:].ravel(), v[1:, :].ravel()])
    fwd = rng.random(a.shape[0]) >= one_way / 2
    bwd = rng.random(a.shape[0]) >= one_way / 2
    bwd |= ~fwd & ~bwd  # every road keeps at least one direction
    tails = np.concatenate([a[fwd], b[bwd]])
    heads = np.concatenate([b[fwd], a[bwd]])
    return CSRGraph.from_edges(side * side, tails, heads, np.ones(tails.shape[0], np.int64))


def _edge_ends(t):
    """(lower, upper) graph vertex of every CCH edge."""
    lower = np.repeat(np.arange(t.n), np.diff(t.up_ptr))
    return t.order[lower], t.order[t.up_nb]


def _assert_sweep_order(h) -> None:
    """Every downward arc runs from an earlier level to a later one (what each sweep
    needs); levels are consecutive sweep-id ranges."""
    level = np.repeat(np.arange(h.levels), np.diff(h.level_ptr))
    head = np.repeat(np.arange(h.n), np.diff(h.down_ptr))
    assert (level[h.down_src] < level[head]).all()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 30), data=st.data())
def test_perfect_metric_is_the_distance(n, data):
    g = _graph(n, data, data.draw(st.sampled_from([(1, 2, 3), (0, 1, 2), (0, 0, 1, 5)])))
    t = build_topology(g)
    up, down = customize_metric(t, g)
    pu, pd = perfect_metric(t, up, down)
    d = scipy_rows(g, np.arange(n))
    lo, hi = _edge_ends(t)
    want_up = d[lo, hi]
    want_down = d[hi, lo]
    np.testing.assert_array_equal(np.where(pu >= INF, -1, pu), want_up)
    np.testing.assert_array_equal(np.where(pd >= INF, -1, pd), want_down)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 40), data=st.data())
def test_pruned_rows_equal_scipy_on_ties(n, data):
    # weights 1..3 tie often; zero weights could make two arcs witness each other
    weights = data.draw(st.sampled_from([(1, 2, 3), (0, 1, 2), (0, 0, 1), (1,)]))
    g = _graph(n, data, weights)
    t = build_topology(g)
    h = customize(t, g, prune=True, reuse=False)
    full = customize(t, g, prune=False, reuse=False)
    _assert_sweep_order(h)
    # perfect customization may give a basic INF arc its distance (a path over higher
    # vertices) and a zero-weight leg keeps it: arcs bounded by the edges, not the basic
    assert h.levels <= full.levels and h.down_src.shape[0] <= t.edges
    src = np.arange(n)
    np.testing.assert_array_equal(phast_rows(g, h, src), scipy_rows(g, src))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 40), data=st.data())
def test_equal_witnesses_remove_a_superset_of_the_strict_ones(n, data):
    g = _graph(n, data, (1, 2, 3))
    t = build_topology(g)
    up, down = customize_metric(t, g)
    su, sd = strict_prune(t, up, down)
    ku, kd = removable(t, *perfect_metric(t, up, down))
    assert not (ku & ~su).any() and not (kd & ~sd).any()


@pytest.mark.parametrize("one_way", [0.0, 0.3])
def test_unit_grid_loses_most_arcs_and_levels(one_way):
    g = _unit_grid(30, one_way, seed=2)
    t = build_topology(g)
    full = customize(t, g, prune=False, reuse=False)
    h = customize(t, g, prune=True, reuse=False)
    up, down = customize_metric(t, g)
    su, _ = strict_prune(t, up, down)
    # the grid's ties: the equal rule removes well beyond the strict one
    assert h.up_dst.shape[0] < 0.8 * int(su.sum())
    assert h.levels < full.levels
    _assert_sweep_order(h)
    src = np.arange(0, g.num_nodes, 7)
    np.testing.assert_array_equal(phast_rows(g, h, src), scipy_rows(g, src))


def test_few_to_few_through_the_pruned_index():
    g = _unit_grid(25, 0.2, seed=5)
    t = build_topology(g)
    h = customize(t, g, prune=True, reuse=False)
    rng = np.random.default_rng(3)
    src = rng.integers(0, g.num_nodes, 40)
    dst = rng.integers(0, g.num_nodes, 30)
    want = scipy_rows(g, src, dst)
    for query in ("rphast", "buckets"):
        got = np.concatenate([b for _, b in few.cpu_rows(h, src, dst, query, 16)])
        np.testing.assert_array_equal(got, want, err_msg=query)


def test_indexed_one_to_all_through_the_pruned_key_index():
    from gpu_core.hierarchy import key_hierarchy
    from gpu_core.sssp import sssp
    from tests.core.test_indexed_sssp import assert_reference, assert_same

    g = _unit_grid(20, 0.25, seed=7)  # hop ties everywhere: pred follows the key rule
    h = key_hierarchy(g, topology=build_topology(g))
    assert h.customized == "full" and h.up_dst.shape[0] < h.cch_edges
    for src in (0, 137, g.num_nodes - 1):
        got = sssp(g, src, backend="cpu", index=h)
        assert got.extra["index"] == "phast"
        assert_same(got, sssp(g, src, backend="cpu"))
        assert_reference(g, src, got)


def test_closures_after_a_pruned_build_and_no_change_keeps_it():
    g = _unit_grid(20, 0.0, seed=1)
    t = build_topology(g)
    h0 = customize(t, g)  # pruned by default, its basic metric kept
    again = customize(t, g)
    assert again.customized.startswith("partial") and again.up_w is h0.up_w
    keep = np.ones(g.num_arcs, bool)
    keep[np.random.default_rng(4).integers(0, g.num_arcs, 10)] = False
    g2 = CSRGraph.from_edges(g.num_nodes, g.arc_sources()[keep], g.indices[keep],
                             g.weights[keep])
    h2 = customize(t, g2)
    assert h2.customized.startswith("partial")
    _assert_sweep_order(h2)
    src = np.arange(0, g.num_nodes, 9)
    np.testing.assert_array_equal(phast_rows(g2, h2, src), scipy_rows(g2, src))
