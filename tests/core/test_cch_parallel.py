"""The parallel customization schedule (``gpu_core.hierarchy.plan``): heavy vertices cut
into chunks over the threads (thresholds forced low here) give the serial pass's metric
bit for bit, for the triangles, the prune and the partial update, and scipy's costs."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import metric, partial
from gpu_core.hierarchy.cch import build_topology, customize, customize_metric, slots_for
from gpu_core.hierarchy.plan import TASKS, TRIANGLES, UPPER
from tests.core.test_cch import phast_rows, scipy_rows

pytest.importorskip("pymetis")

FORCED = {"serial_work": 0, "split_work": 1}  # every group parallel, every vertex cut


def _random_graph(n: int, m: int, seed: int) -> CSRGraph:
    """Random arcs (one-ways, parallel arcs, self-loops, zero weights): a dense chordal
    graph with heavy vertices."""
    r = np.random.default_rng(seed)
    return CSRGraph.from_edges(n, r.integers(0, n, m), r.integers(0, n, m),
                               r.integers(0, 40, m))


def _grid(n: int, seed: int) -> CSRGraph:
    from maps.generate import generate

    return CSRGraph.from_any(generate("grid", n, seed=seed))


GRAPHS = [("random", lambda: _random_graph(400, 800, 5)), ("grid", lambda: _grid(2500, 3))]


def _inputs(t, g):
    s = slots_for(t, g)
    assert not isinstance(s, str)
    return metric.initial(t.edges, s, g.weights)


@pytest.mark.parametrize("name,make", GRAPHS, ids=[n for n, _ in GRAPHS])
@pytest.mark.parametrize("ways", [2, 3, 8])
def test_cut_vertices_equal_the_serial_pass(name, make, ways):
    g = make()
    t = build_topology(g)
    up0, down0 = _inputs(t, g)
    ref_u, ref_d = up0.copy(), down0.copy()
    metric.triangles(t, ref_u, ref_d, parallel=False)
    up, down = up0.copy(), down0.copy()
    metric.triangles(t, up, down, ways=ways, **FORCED)
    p = metric._plan(t, TRIANGLES, t.lvl_ptr, t.lvl_vert, ways, 0, 1)
    assert p.cut_vertices > 0 and (p.mode == TASKS).any()  # the intra-vertex path ran
    np.testing.assert_array_equal(up, ref_u)
    np.testing.assert_array_equal(down, ref_d)
    # the default schedule (this machine's threads) too
    up, down = up0.copy(), down0.copy()
    metric.triangles(t, up, down)
    np.testing.assert_array_equal(up, ref_u)
    np.testing.assert_array_equal(down, ref_d)
    h = customize(t, g, reuse=False)
    src = np.random.default_rng(1).integers(0, g.num_nodes, 40)
    np.testing.assert_array_equal(phast_rows(g, h, src), scipy_rows(g, src))


@pytest.mark.parametrize("name,make", GRAPHS, ids=[n for n, _ in GRAPHS])
def test_cut_prune_keeps_the_same_arcs(name, make):
    # pruning lowers each arc to its endpoints' distance whatever the order, so the
    # kept arcs do not depend on the cut
    g = make()
    t = build_topology(g)
    up, down = customize_metric(t, g)
    want = metric.prune(t, up, down, ways=1)
    for ways in (2, 5):
        got = metric.prune(t, up, down, ways=ways, **FORCED)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    assert t._plans[(UPPER, 5, 0, 1)].cut_vertices > 0  # the intra-vertex path ran
    pruned = customize(t, g, prune=True)
    src = np.arange(0, g.num_nodes, max(g.num_nodes // 40, 1))
    np.testing.assert_array_equal(phast_rows(g, pruned, src), scipy_rows(g, src))


@pytest.mark.parametrize("name,make", GRAPHS, ids=[n for n, _ in GRAPHS])
def test_partial_update_with_cut_rows(name, make):
    g = make()
    t = build_topology(g)
    customize(t, g)
    r = np.random.default_rng(11)
    tails, heads = g.arc_sources(), g.indices
    stats = np.zeros(3, np.int64)
    for step in range(4):  # closures, then new weights, each on top of the last
        w = g.weights.astype(np.int64).copy()
        live = np.ones(g.num_arcs, bool)
        live[r.integers(0, g.num_arcs, 3 + step)] = False
        w[r.integers(0, g.num_arcs, 3)] = r.integers(0, 40, 3)
        g2 = CSRGraph.from_edges(g.num_nodes, tails[live], heads[live], w[live])
        bu, bd = _inputs(t, g2)
        with partial.lock_for(t):
            done = partial.try_partial(t, bu, bd, ways=3, split_work=1, stats=stats)
        assert done is not None
        up, down = customize_metric(t, g2)
        np.testing.assert_array_equal(t._metric.up, up)
        np.testing.assert_array_equal(t._metric.down, down)
        src = np.arange(0, g.num_nodes, max(g.num_nodes // 30, 1))
        np.testing.assert_array_equal(phast_rows(g2, done[0], src), scipy_rows(g2, src))
    # both parallel paths ran: whole rows cut over threads, and batches of single edges
    assert stats[0] > 0 and stats[1] > 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_initial_weights_by_rows_equal_the_serial_scatter(seed):
    """``metric.initial`` with the graph's rows (threads per tail vertex) keeps the least
    of parallel arcs on each edge and direction, as the one-thread scatter does."""
    g = _random_graph(300, 3000, seed)  # many parallel arcs and self-loops
    t = build_topology(g)
    s = slots_for(t, g)
    assert not isinstance(s, str)
    serial = metric.initial(t.edges, s, g.weights)
    rows = metric.initial(t.edges, s, g.weights, g.indptr)
    for a, b in zip(serial, rows, strict=True):
        np.testing.assert_array_equal(a, b)
    # the least weight of every arc per slot, by numpy
    want_u = np.full(t.edges, metric.INF, np.int64)
    want_d = np.full(t.edges, metric.INF, np.int64)
    ok = s >= 0
    for want, bit in ((want_u, 0), (want_d, 1)):
        sel = ok & ((s & 1) == bit)
        np.minimum.at(want, s[sel] >> 1, g.weights[sel].astype(np.int64))
    np.testing.assert_array_equal(rows[0], want_u)
    np.testing.assert_array_equal(rows[1], want_d)
