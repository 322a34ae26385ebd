"""Partial re-customization (``gpu_core.hierarchy.partial``): after any sequence of edits
the kept metric and the Hierarchy equal a full customization bit for bit, and the costs
equal scipy's Dijkstra."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy.cch import build_topology, customize, customize_metric, to_hierarchy
from tests.core.test_cch import phast_rows, scipy_rows

pytest.importorskip("pymetis")

ARRAYS = ("rank_of", "up_ptr", "up_dst", "up_w", "down_ptr", "down_src", "down_w", "level_ptr")


def arc_lists(g):
    """(tails, heads, weights, live) int64/bool copies of ``g``'s arcs, for ``_edit``."""
    tails = g.arc_sources().astype(np.int64)
    return tails, g.indices.astype(np.int64), g.weights.astype(np.int64).copy(), \
        np.ones(tails.shape[0], bool)


def _edit(tails, heads, w, live, rng, steps):
    """``steps`` random edits in place: closures, reopenings, new weights (0..60)."""
    for _ in range(steps):
        a = int(rng.integers(0, tails.shape[0]))
        kind = rng.integers(0, 4)
        if kind == 0:
            live[a] = False
        elif kind == 1 and (~live).any():
            live[rng.choice(np.flatnonzero(~live))] = True
        elif kind == 2:
            w[a] = int(rng.integers(0, 60))
        else:  # a closure and its reopening at once: the same inputs again
            pass


def _assert_same_as_full(t, g2, h):
    up, down = customize_metric(t, g2)
    np.testing.assert_array_equal(t._metric.up, up)
    np.testing.assert_array_equal(t._metric.down, down)
    # a partial update is unpruned; a full customization (pruned by default) and, while
    # no customized weight changed since it, a partial one serve the pruned hierarchy
    how = getattr(h, "customized", "")
    pruned = how in ("full", "partial (0 edges changed)") and t._metric.pruned is not None
    full = to_hierarchy(t, up, down, prune=pruned)
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(h, name), getattr(full, name), err_msg=name)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(1, 10), family=st.sampled_from(
    ["grid", "kanto"]))
def test_partial_equals_full_customization(seed, steps, family):
    from maps.generate import generate

    g = CSRGraph.from_any(generate(family, 500, seed=seed % 7))
    t = build_topology(g)
    customize(t, g)  # kept: the next ones are partial
    rng = np.random.default_rng(seed)
    tails, heads, w, live = arc_lists(g)
    src = np.arange(0, g.num_nodes, 11)
    for _ in range(4):  # a sequence: each edit on top of the previous map
        _edit(tails, heads, w, live, rng, steps)
        g2 = CSRGraph.from_edges(g.num_nodes, tails[live], heads[live], w[live])
        h = customize(t, g2)
        assert h.customized.startswith("partial")
        _assert_same_as_full(t, g2, h)
        np.testing.assert_array_equal(phast_rows(g2, h, src), scipy_rows(g2, src))


def test_partial_touches_few_edges_and_shares_arrays():
    from gpu_core.hierarchy import partial
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 2500, seed=3))
    t = build_topology(g)
    h0 = customize(t, g, prune=False)  # unpruned: the partial update shares its arrays
    w = g.weights.astype(np.int64).copy()
    w[7] += 5  # one new weight: at most a small part of the edges moves
    g2 = CSRGraph.from_edges(g.num_nodes, g.arc_sources(), g.indices, w)
    from gpu_core.hierarchy.metric import initial

    bu, bd = initial(t.edges, partial_slots(t, g2), g2.weights)
    with partial.lock_for(t):
        h1, changed = partial.try_partial(t, bu, bd)
    assert 1 <= changed.shape[0] < t.edges // 10
    assert h1.rank_of is h0.rank_of and h1.level_ptr is h0.level_ptr
    _assert_same_as_full(t, g2, h1)
    # the same weights again: nothing to do, the same arrays
    with partial.lock_for(t):
        h2, changed = partial.try_partial(t, bu.copy(), bd.copy())
    assert changed.shape[0] == 0 and h2.up_w is h1.up_w


def partial_slots(t, g):
    from gpu_core.hierarchy.cch import slots_for

    s = slots_for(t, g)
    assert not isinstance(s, str)
    return s


def test_many_changes_customize_in_full():
    from gpu_core.hierarchy import partial
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 900, seed=4))
    t = build_topology(g)
    customize(t, g)
    g2 = CSRGraph.from_edges(g.num_nodes, g.arc_sources(), g.indices, g.weights * 2 + 1)
    from gpu_core.hierarchy.metric import initial

    bu, bd = initial(t.edges, partial_slots(t, g2), g2.weights)
    with partial.lock_for(t):
        assert partial.try_partial(t, bu, bd) is None
    h = customize(t, g2)
    assert h.customized == "full"
    _assert_same_as_full(t, g2, h)


def test_pointer_shift_in_pieces_equals_the_running_sum():
    """``patch._shift`` (pieces side by side) against the plain running sum, across
    several pieces and with dirty ids at piece borders."""
    from gpu_core.hierarchy.patch import COPY_PIECE, _shift

    rng = np.random.default_rng(5)
    N = 3 * COPY_PIECE + 17
    ptr = np.cumsum(rng.integers(0, 5, N)).astype(np.int64)
    dirty = np.unique(np.concatenate([rng.integers(0, N, 300),
                                      [0, COPY_PIECE - 1, COPY_PIECE, 2 * COPY_PIECE, N - 1]]))
    delta = rng.integers(-3, 4, dirty.shape[0]).astype(np.int64)
    out = np.empty_like(ptr)
    _shift(ptr, dirty, delta, out)
    cum = np.concatenate([[0], np.cumsum(delta)])
    np.testing.assert_array_equal(out, ptr + cum[np.searchsorted(dirty, np.arange(N))])


def test_spare_buffers_are_writable_arrays_of_small_pages():
    """``patch.small_pages`` (the spares' memory, never asked for huge pages): a writable
    C array of the dtype and size, zero-filled, that numba takes as any other."""
    from gpu_core.hierarchy.patch import Spares, _copy, small_pages

    for dtype, size in ((np.int64, 1000), (np.int32, 7), (np.int64, 0)):
        a = small_pages(dtype, size)
        assert a.dtype == dtype and a.shape == (size,) and a.flags.writeable
        assert a.flags.c_contiguous and not a.any()
        src = np.arange(size, dtype=dtype)
        _copy(src, a)
        np.testing.assert_array_equal(a, src)
    sp = Spares()
    b = sp.take(np.int64, 64, 10)
    b[:] = 5
    del b
    c = sp.take(np.int64, 64, 20)  # the free buffer handed out again
    assert c.shape == (20,) and c.base is not None
