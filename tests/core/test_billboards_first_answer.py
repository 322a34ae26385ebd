"""The window's first billboards answer on a big map, made faster without changing it
(issue 43): the plain route index read off the key-weighted one the window holds, the
sweep kernel's branch-free form, the upward searches climbing a known tree, the bound's
top-k sum over the positive counts only. Each gives what the code before it gave."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from gpu_core.betweenness import billboards
from gpu_core.graph import prepared
from gpu_core.hierarchy import build_hierarchy, graph_key, key_hierarchy, plain_of_key
from gpu_core.hierarchy.contract import INF
from gpu_core.hierarchy.cpu import sweep_block
from tests.core import families as fam
from tests.core.billboard_events import partials_and_result

GRAPHS = {
    "road grid": lambda: fam.road_grid(14, 14, seed=3),
    "equal weights (ties everywhere)": lambda: fam.equal_weight_grid(seed=1, rows=10, cols=10),
    "parallel arcs": lambda: fam.duplicate_arcs(seed=2),
    "heavy weights": lambda: fam.heavy_weights(seed=4),
}


def _dijkstra(g, srcs):
    m = csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr),
                   shape=(g.num_nodes, g.num_nodes))
    d = dijkstra(m, directed=True, indices=srcs)
    return np.where(np.isfinite(d), d, -1).astype(np.int64)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_plain_index_from_the_key_index_gives_exact_costs(name):
    g = GRAPHS[name]()
    hk = key_hierarchy(g)
    h = plain_of_key(hk, prepared(g).key_space)
    srcs = np.arange(0, g.num_nodes, max(1, g.num_nodes // 9), dtype=np.int32)
    np.testing.assert_array_equal(sweep_block(h, srcs, None), _dijkstra(g, srcs))
    # the key index itself is left as it was (its own weights: keys, not costs)
    assert not np.array_equal(sweep_block(hk, srcs, None), _dijkstra(g, srcs))


KW = dict(mode="weighted", backend="cpu", method="sampled", epsilon=0.05, delta=0.1,
          sampling="progressive", seed=7)


def _run(g, k, **kw):
    return partials_and_result(billboards(g, k, **KW, **kw))


@pytest.mark.parametrize("name", ["road grid", "equal weights (ties everywhere)"])
def test_billboards_through_the_derived_index_equal_the_plain_index(name):
    g = GRAPHS[name]()
    plain = build_hierarchy(g, method="cch")
    derived = plain_of_key(key_hierarchy(g), prepared(g).key_space)
    derived.graph_key = graph_key(g)
    want_parts, want = _run(g, 3, hierarchy=plain, preview=32)
    got_parts, got = _run(g, 3, hierarchy=derived, preview=32)
    assert got.kernel == want.kernel == "indexed"
    assert [(p.stopped_by, p.samples, p.sites.tolist(), p.epsilon_at_stop) for p in got_parts] \
        == [(p.stopped_by, p.samples, p.sites.tolist(), p.epsilon_at_stop) for p in want_parts]
    assert got.sites.tolist() == want.sites.tolist() and got.samples == want.samples
    np.testing.assert_array_equal(got.group_betweenness, want.group_betweenness)


def test_fresh_sweep_in_32_bits_equals_the_64_bit_sweep():
    """The branch-free kernel on int32 blocks (INF32 for unreachable: the relaxation's sum
    must not wrap) against the int64 fill-and-sweep, lanes narrower than the block."""
    from gpu_core.hierarchy.cpu import BIG32, INF32, _sweep, _sweep_fresh, down_w32, upward_searches

    g = fam.disconnected(seed=1)  # unreachable vertices: INF32 rows stay INF32
    h = build_hierarchy(g, method="cch")
    srcs = np.asarray(h.rank_of, np.int32)[: min(7, h.n)]
    off, verts, dists = upward_searches(h, srcs)
    k = srcs.size
    cols = np.repeat(np.arange(k), np.diff(off))
    want = np.full((h.n, k), INF, np.int64)
    want[verts, cols] = dists
    _sweep(want, h.down_ptr, h.down_src, h.down_w, 2)
    got = np.random.default_rng(0).integers(0, 1 << 30, (h.n, k)).astype(np.int32)
    got[verts] = INF32
    got[verts, cols] = dists
    seeded = np.zeros(h.n, np.bool_)
    seeded[verts] = True
    assert _sweep_fresh(got, h.down_ptr, h.down_src, down_w32(h), 3, seeded, INF32,
                        BIG32) == 0
    assert (got == INF32).any()
    np.testing.assert_array_equal(np.where(got == INF32, INF, got.astype(np.int64)), want)


def test_upward_searches_climb_a_known_tree_with_the_same_spaces():
    from gpu_core.hierarchy import cpu

    g = fam.road_grid(12, 12, seed=5)
    h = build_hierarchy(g, method="cch")
    srcs = np.asarray(h.rank_of, np.int32)[[0, 5, 77, 140]]
    climbed = cpu.upward_searches(h, srcs)  # the CCH's topology: its tree is known
    assert getattr(h, "_arc_depth", None) is not None
    off, verts, dists = cpu.search_spaces(srcs, h.up_ptr, h.up_dst, h.up_w, h.n)  # Dijkstra
    starts = np.zeros(off.shape[0] + 1, np.int64)
    np.cumsum(off, out=starts[1:])
    for i in range(srcs.size):
        a = slice(climbed[0][i], climbed[0][i + 1])
        b = slice(starts[i], starts[i + 1])
        assert sorted(zip(climbed[1][a].tolist(), climbed[2][a].tolist(), strict=True)) == \
            sorted(zip(verts[b].tolist(), dists[b].tolist(), strict=True))
