"""The fused perfect customization + arc removal (``perfect.perfect_and_kept``) and the
removal from a given perfect metric (``perfect.kept_given``), with heavy vertices cut over
the threads (thresholds forced low): bit for bit the two separate serial passes
(``perfect_metric``, ``removable``), and scipy's costs through the pruned index."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import perfect
from gpu_core.hierarchy.cch import build_topology, customize, customize_metric
from gpu_core.hierarchy.plan import TASKS
from tests.core.test_cch import phast_rows, scipy_rows
from tests.core.test_cch_parallel import FORCED, _grid, _random_graph
from tests.core.test_cch_perfect import _graph, _unit_grid

pytest.importorskip("pymetis")


def _serial(t, up, down):
    """The two passes, one thread, no cut: the reference."""
    from gpu_core.hierarchy.metric import upper_pass

    pu, pd = upper_pass(t, up, down, ways=1)
    ku, kd = perfect.removable(t, pu, pd)
    return pu, pd, ku, kd


def _assert_same(got, want) -> None:
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def _positive(g: CSRGraph) -> CSRGraph:
    return CSRGraph.from_edges(g.num_nodes, g.arc_sources(), g.indices,
                               np.maximum(g.weights, 1))


GRAPHS = [("random", lambda: _positive(_random_graph(400, 800, 5))),
          ("random-zero", lambda: _random_graph(400, 800, 5)),
          ("grid", lambda: _grid(2500, 3)),
          ("unit-grid", lambda: _unit_grid(30, 0.3, seed=2))]


@pytest.mark.parametrize("name,make", GRAPHS, ids=[n for n, _ in GRAPHS])
@pytest.mark.parametrize("ways", [1, 2, 3, 8])
def test_fused_pass_equals_the_two_serial_passes(name, make, ways):
    g = make()
    t = build_topology(g)
    up, down = customize_metric(t, g)
    u0, d0 = up.copy(), down.copy()
    want = _serial(t, up, down)
    got = perfect.perfect_and_kept(t, up, down, ways=ways, **FORCED)
    _assert_same(got, want)
    _assert_same((up, down), (u0, d0))  # the basic metric is left as it is
    if ways > 1:  # the intra-vertex path ran: heavy rows cut into copies
        p = t._plans[("perfect", ways, 0, 1)]
        assert p.cut_vertices > 0 and (p.mode == TASKS).any()
    _assert_same(perfect.perfect_and_kept(t, up, down), want)  # this machine's schedule


@pytest.mark.parametrize("name,make", GRAPHS, ids=[n for n, _ in GRAPHS])
@pytest.mark.parametrize("ways", [1, 2, 5])
def test_removal_from_a_given_perfect_metric(name, make, ways):
    # the GPU path: the device's perfect metric, the removal on the host in one group
    g = make()
    t = build_topology(g)
    up, down = customize_metric(t, g)
    pu, pd, ku, kd = _serial(t, up, down)
    _assert_same(perfect.kept_given(t, up, down, pu, pd, ways=ways, **FORCED), (ku, kd))
    if ways > 1 and "zero" not in name:  # one group of every vertex, dealt as tasks
        p = t._plans[("removal", ways, 0, 1)]
        assert p.mode.shape == (1,) and p.mode[0] == TASKS and p.bin_ptr[0, 1] > 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 40), data=st.data())
def test_fused_pass_on_ties_and_zero_weights(n, data):
    weights = data.draw(st.sampled_from([(1, 2, 3), (1,), (0, 1, 2), (0, 0, 1, 5)]))
    g = _graph(n, data, weights)
    t = build_topology(g)
    up, down = customize_metric(t, g)
    want = _serial(t, up, down)
    ways = data.draw(st.integers(1, 4))
    _assert_same(perfect.perfect_and_kept(t, up, down, ways=ways, **FORCED), want)
    _assert_same(perfect.kept_given(t, up, down, *want[:2], ways=ways, **FORCED), want[2:])


@pytest.mark.parametrize("name,make", GRAPHS[:3], ids=[n for n, _ in GRAPHS[:3]])
def test_pruned_index_through_the_fused_pass_equals_scipy(name, make):
    g = make()
    t = build_topology(g)
    h = customize(t, g, prune=True, reuse=False)
    up, down = customize_metric(t, g)
    pu, pd, ku, kd = _serial(t, up, down)
    assert h.up_dst.shape[0] == int(ku.sum()) and h.down_src.shape[0] == int(kd.sum())
    src = np.arange(0, g.num_nodes, max(g.num_nodes // 40, 1))
    np.testing.assert_array_equal(phast_rows(g, h, src), scipy_rows(g, src))


def test_plan_cost_bounds_the_speed_up():
    from gpu_core.hierarchy.plan import UPPER, build_plan, plan_cost, vertex_work

    g = _grid(2500, 3)
    t = build_topology(g)
    sweep, lp = perfect.topology_layout(t)
    verts = np.empty(t.n, np.int32)
    verts[sweep] = np.arange(t.n, dtype=np.int32)
    total = int(vertex_work(UPPER, t.n, t.up_ptr, t.dn_ptr, t.dn_src, t.dn_edge).sum())
    args = (t.up_ptr, t.dn_ptr, t.dn_src, t.dn_edge)
    one = plan_cost(UPPER, build_plan(UPPER, lp, verts, *args, 1), lp, verts, *args)
    assert one["work"] == one["path"] == total and one["barriers"] == 0
    for ways in (2, 4):
        p = build_plan(UPPER, lp, verts, *args, ways, 0, 1, True)
        c = plan_cost(UPPER, p, lp, verts, *args)
        # every group split: the busiest bin carries at least its share of the work
        assert c["work"] == total and total / ways <= c["path"] < total
        assert c["barriers"] >= c["groups"]
