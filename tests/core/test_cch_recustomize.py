"""Re-customization after closures (issue 26): the changed inputs found by comparing rows
with the kept graph (``gpu_core.hierarchy.inputs``) equal those of slotting every arc
again; the patched lists in recycled buffers (``patch.Spares``) leave every Hierarchy
handed out before intact; the lazily hashed graph key is the graph's; costs equal
scipy's after random closure / reopening / weight sequences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import graph_key, partial
from gpu_core.hierarchy.cch import build_topology, customize, slots_for, to_hierarchy
from gpu_core.hierarchy.inputs import KeptInputs, changed_inputs
from gpu_core.hierarchy.metric import initial
from tests.core.test_cch import phast_rows, scipy_rows
from tests.core.test_cch_partial import ARRAYS, _edit, arc_lists

pytest.importorskip("pymetis")


def _map(family: str, n: int, seed: int) -> CSRGraph:
    from maps.generate import generate

    return CSRGraph.from_any(generate(family, n, seed=seed))


def _inputs(t, g):
    s = slots_for(t, g)
    assert not isinstance(s, str)
    return initial(t.edges, s, g.weights)


@pytest.mark.parametrize("family,seed", [("grid", 1), ("kanto", 2), ("grid", 3)])
def test_changed_inputs_equal_slotting_every_arc(family, seed):
    g = _map(family, 700, seed)
    t = build_topology(g)
    rng = np.random.default_rng(seed)
    tails, heads, w, live = arc_lists(g)
    prev = g
    bu, bd = _inputs(t, g)
    for step in range(12):
        _edit(tails, heads, w, live, rng, int(rng.integers(1, 8)))
        g2 = CSRGraph.from_edges(g.num_nodes, tails[live], heads[live], w[live])
        want_u, want_d = _inputs(t, g2)
        want = np.flatnonzero((want_u != bu) | (want_d != bd))
        diff = changed_inputs(t, KeptInputs.of(prev), g2, bu, bd)
        assert diff is not None, step
        np.testing.assert_array_equal(diff[0], want)
        np.testing.assert_array_equal(bu, want_u)  # brought to g2 in place
        np.testing.assert_array_equal(bd, want_d)
        prev = g2


def test_added_road_is_not_compared():
    g = _map("grid", 400, 4)
    t = build_topology(g)
    bu, bd = _inputs(t, g)
    far = np.argsort(t.rank)[[0, -1]]  # lowest and highest rank: no edge between them
    assert partial._has(t.up_ptr, t.up_nb, min(t.rank[far]), max(t.rank[far])) < 0
    g2 = CSRGraph.from_edges(g.num_nodes, np.r_[g.arc_sources(), far[0]],
                             np.r_[g.indices, far[1]], np.r_[g.weights, 5])
    before = bu.copy(), bd.copy()
    assert changed_inputs(t, KeptInputs.of(g), g2, bu, bd) is None
    np.testing.assert_array_equal(bu, before[0])  # nothing written
    np.testing.assert_array_equal(bd, before[1])
    customize(t, g)
    with pytest.raises(Exception, match="no edge of the index topology"):
        customize(t, g2)


def test_sequence_equals_scipy_and_full_customization():
    g = _map("kanto", 900, 5)
    t = build_topology(g)
    customize(t, g)  # pruned: the first closure makes the unpruned Hierarchy
    rng = np.random.default_rng(11)
    tails, heads, w, live = arc_lists(g)
    src = np.arange(0, g.num_nodes, 13)
    held = []  # every Hierarchy handed out stays as it was (buffers recycled only when free)
    for step in range(10):
        _edit(tails, heads, w, live, rng, 10)
        g2 = CSRGraph.from_edges(g.num_nodes, tails[live], heads[live], w[live])
        h = customize(t, g2)
        assert h.customized.startswith("partial"), step
        assert h.graph_key == graph_key(g2)
        np.testing.assert_array_equal(phast_rows(g2, h, src), scipy_rows(g2, src))
        held.append((g2, h, {a: getattr(h, a).copy() for a in ARRAYS}))
        if step % 3 == 2:
            held = held[-1:]  # drop the older ones: their buffers may be reused
    for _, h, arrays in held:
        for a in ARRAYS:
            np.testing.assert_array_equal(getattr(h, a), arrays[a], err_msg=a)
    g2, h, _ = held[-1]
    if not h.customized.endswith("(0 edges changed)"):
        full = to_hierarchy(t, t._metric.up, t._metric.down)
        for a in ARRAYS:
            np.testing.assert_array_equal(getattr(h, a), getattr(full, a), err_msg=a)


def test_caller_writing_its_arrays_changes_nothing():
    g = _map("grid", 600, 6)
    t = build_topology(g)
    w = g.weights.copy()
    g1 = CSRGraph(g.indptr.copy(), g.indices.copy(), w)
    h1 = customize(t, g1)
    key1 = graph_key(CSRGraph(g1.indptr, g1.indices, g1.weights.copy()))
    w[:] = w + 3  # the caller reuses its array: the kept copy still shows g1
    assert h1.graph_key == key1
    g2 = CSRGraph(g1.indptr.copy(), g1.indices.copy(), w.copy())
    h2 = customize(t, g2)  # every weight changed: in full, and right
    src = np.arange(0, g.num_nodes, 17)
    np.testing.assert_array_equal(phast_rows(g2, h2, src), scipy_rows(g2, src))


def test_prepare_then_closures_recycle_buffers():
    g = _map("grid", 900, 7)
    t = build_topology(g)
    customize(t, g)
    assert partial.prepare(t)
    m = t._metric
    assert m.hierarchy is not None  # the unpruned Hierarchy made ahead
    assert any(t._spares.bufs.values())  # (a list of them here would hold them all)
    rng = np.random.default_rng(3)
    src = np.arange(0, g.num_nodes, 7)
    made = []
    for step in range(6):
        keep = np.ones(g.num_arcs, bool)
        keep[rng.integers(0, g.num_arcs, 10)] = False
        g2 = CSRGraph.from_edges(g.num_nodes, g.arc_sources()[keep], g.indices[keep],
                                 g.weights[keep])
        h = customize(t, g2)
        np.testing.assert_array_equal(phast_rows(g2, h, src), scipy_rows(g2, src))
        if step % 2 == 0:
            made.append((g2, h))  # its lazy key holds its kept copy of g2
    # the patched lists live in pooled buffers (views of them)
    bases = {id(b) for lst in t._spares.bufs.values() for b in lst}
    assert any(getattr(h, a).base is not None and id(getattr(h, a).base) in bases
               for a in ("up_dst", "up_w", "down_src", "down_w"))
    # the kept copies of the graphs live in pooled buffers, and one a Hierarchy still
    # holds (its key not hashed yet) was never handed out again
    assert t._metric.inputs.indices.base is not None
    for g_old, h_old in made:
        assert h_old.graph_key == graph_key(g_old)


def test_weights_and_keys_keep_a_metric_each():
    from gpu_core.hierarchy import key_hierarchy

    g = _map("grid", 900, 8)
    t = build_topology(g)
    customize(t, g)
    key_hierarchy(g, topology=t)  # the search index's metric: kept beside the map's
    rng = np.random.default_rng(4)
    src = np.arange(0, g.num_nodes, 11)
    for _ in range(3):  # an edit re-customizes both: each one partially
        keep = np.ones(g.num_arcs, bool)
        keep[rng.integers(0, g.num_arcs, 5)] = False
        g2 = CSRGraph.from_edges(g.num_nodes, g.arc_sources()[keep], g.indices[keep],
                                 g.weights[keep])
        h = customize(t, g2)
        kh = key_hierarchy(g2, topology=t)
        assert h.customized.startswith("partial") and kh.customized.startswith("partial")
        np.testing.assert_array_equal(phast_rows(g2, h, src), scipy_rows(g2, src))
    assert set(t._metrics) == {"weights", "keys"}


def test_copies_share_caches_and_pickles_ship_the_fields():
    import copy
    import pickle

    g = _map("grid", 400, 9)
    t = build_topology(g)
    customize(t, g)
    keep = np.ones(g.num_arcs, bool)
    keep[[3, 50]] = False
    g2 = CSRGraph.from_edges(g.num_nodes, g.arc_sources()[keep], g.indices[keep],
                             g.weights[keep])
    h = customize(t, g2)
    assert h.customized.startswith("partial") and callable(h.__dict__["_graph_key"])
    c = copy.copy(h)
    assert c._device_box is h._device_box  # one device copy serves both
    assert callable(c.__dict__["_graph_key"])  # copying hashes nothing
    back = pickle.loads(pickle.dumps(h))
    assert back.graph_key == graph_key(g2) and back.customized == h.customized
    assert "_device_box" not in back.__dict__
    for a in ARRAYS:
        np.testing.assert_array_equal(getattr(back, a), getattr(h, a))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 30), data=st.data())
def test_changed_inputs_on_random_multigraphs(n, data):
    """Parallel arcs, self-loops, zero weights, rows reordered: the rows compared give the
    same changed inputs as slotting every arc."""
    m = data.draw(st.integers(1, 4 * n))
    ints = st.lists(st.integers(0, n - 1), min_size=m, max_size=m)
    tails, heads = np.array(data.draw(ints)), np.array(data.draw(ints))
    w = np.array(data.draw(st.lists(st.integers(0, 9), min_size=m, max_size=m)))
    g = CSRGraph.from_edges(n, tails, heads, w)
    t = build_topology(g)
    bu, bd = _inputs(t, g)
    # g2: a subset of g's arcs (tail, head pairs that fit), duplicated, reweighted, plus
    # self-loops, in any order
    pick = np.array(data.draw(st.lists(st.integers(0, m - 1), max_size=2 * m)), np.int64)
    loops = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=3)), np.int64)
    w2 = np.array(data.draw(st.lists(st.integers(0, 9), min_size=pick.size + loops.size,
                                     max_size=pick.size + loops.size)), np.int64)
    g2 = CSRGraph.from_edges(n, np.r_[tails[pick], loops], np.r_[heads[pick], loops], w2)
    want_u, want_d = _inputs(t, g2)
    want = np.flatnonzero((want_u != bu) | (want_d != bd))
    from gpu_core.hierarchy import inputs

    share, inputs.ROWS_MAX_SHARE = inputs.ROWS_MAX_SHARE, 0  # compare however many changed
    try:
        diff = changed_inputs(t, KeptInputs.of(g), g2, bu, bd)
    finally:
        inputs.ROWS_MAX_SHARE = share
    assert diff is not None
    np.testing.assert_array_equal(diff[0], want)
    np.testing.assert_array_equal(bu, want_u)
    np.testing.assert_array_equal(bd, want_d)


def test_a_failing_device_update_leaves_the_host_update_exact(monkeypatch):
    """The device update failing (a driver error, say) hands the work to the host's,
    which starts from the unchanged host arrays: the result equals a full customization."""
    import sys
    import types

    def boom(t, m, seeds):
        raise RuntimeError("launch failed")

    fake = types.ModuleType("gpu_core.hierarchy.partial_cuda")
    fake.update_device = boom
    monkeypatch.setitem(sys.modules, "gpu_core.hierarchy.partial_cuda", fake)
    monkeypatch.setattr(partial, "PARTIAL_DEVICE_MIN_EDGES", 0)
    g = _map("grid", 900, 9)
    t = build_topology(g)
    customize(t, g)
    keep = np.ones(g.num_arcs, bool)
    keep[np.random.default_rng(4).integers(0, g.num_arcs, 5)] = False
    g2 = CSRGraph.from_edges(g.num_nodes, g.arc_sources()[keep], g.indices[keep],
                             g.weights[keep])
    m = t._metric
    m.device = object()  # a stale copy: dropped
    bu, bd = initial(t.edges, slots_for(t, g2), g2.weights, g2.indptr)
    seeds = np.flatnonzero((m.base_up != bu) | (m.base_down != bd))
    m.base_up, m.base_down = bu, bd
    assert partial._update_on_device(t, m, seeds) is None and m.device is None
    h, changed = partial._partial(t, m, seeds, False, None, partial.PARTIAL_SPLIT_WORK, None,
                                  False)
    full = customize(build_topology(g2), g2)
    src = np.arange(0, g.num_nodes, 11)
    np.testing.assert_array_equal(phast_rows(g2, h, src), phast_rows(g2, full, src))
    np.testing.assert_array_equal(phast_rows(g2, h, src), scipy_rows(g2, src))
