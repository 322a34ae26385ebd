"""The contraction hierarchy and its PHAST sweep give exactly the costs of Dijkstra."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_core.errors import CancelledError, InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import (
    Hierarchy,
    HierarchyTooDenseError,
    build_hierarchy,
    road_shaped,
)
from gpu_core.hierarchy import api as hapi
from gpu_core.multi_source import multi_source_sssp
from tests.core.families import FAMILIES, FAMILY_NAMES


def dijkstra_rows(g: CSRGraph, sources, targets=None) -> np.ndarray:
    return multi_source_sssp(g, sources, targets=targets, backend="cpu", variant="auto").dist


def phast_rows(g: CSRGraph, h: Hierarchy, sources, targets=None) -> np.ndarray:
    return multi_source_sssp(g, sources, targets=targets, backend="cpu", variant="phast",
                             hierarchy=h).dist


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_families_all_pairs(name, make):
    g = make(seed=5)
    h = build_hierarchy(g, method="ch")
    src = np.arange(g.num_nodes)
    np.testing.assert_array_equal(phast_rows(g, h, src), dijkstra_rows(g, src))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 40), data=st.data())
def test_random_multigraphs(n, data):
    # parallel arcs, self-loops, zero weights, unreachable parts: all as Dijkstra has them
    m = data.draw(st.integers(0, 4 * n))
    t = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    hd = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = data.draw(st.lists(st.integers(0, 30), min_size=m, max_size=m))
    g = CSRGraph.from_edges(n, t, hd, w)
    h = build_hierarchy(g, method="ch")
    src = np.arange(n)
    np.testing.assert_array_equal(phast_rows(g, h, src), dijkstra_rows(g, src))


def test_road_map_and_targets_subset():
    from maps.generate import generate

    net = generate("grid", 2500, seed=3)
    g = CSRGraph.from_any(net)
    h = build_hierarchy(g)
    assert h.levels > 1 and h.shortcuts > 0
    r = np.random.default_rng(0)
    src = r.integers(0, g.num_nodes, 70)
    src[5] = src[9]  # duplicates keep their rows
    tgt = r.integers(0, g.num_nodes, 33)
    np.testing.assert_array_equal(phast_rows(g, h, src, tgt), dijkstra_rows(g, src, tgt))
    # several CPU sweep blocks give the same rows
    got = multi_source_sssp(g, src, targets=tgt, backend="cpu", variant="phast", hierarchy=h,
                            chunk=8).dist
    np.testing.assert_array_equal(got, dijkstra_rows(g, src, tgt))


def test_sample_map_matrix():
    import os

    from maps.load import load_map

    net = load_map(os.path.join(os.path.dirname(__file__), "../../maps/samples/helsinki.osm.pbf"))
    g = CSRGraph.from_any(net)
    h = build_hierarchy(g)
    src = np.random.default_rng(2).integers(0, g.num_nodes, 40)
    np.testing.assert_array_equal(phast_rows(g, h, src), dijkstra_rows(g, src))


def test_save_load_and_wrong_graph(tmp_path):
    from tests.core.families import random_sparse

    g = random_sparse(seed=1)
    h = build_hierarchy(g)
    p = tmp_path / "h.npz"
    h.save(p)
    h2 = Hierarchy.load(p, g)
    assert h2.summary() == h.summary()
    src = np.arange(g.num_nodes)
    np.testing.assert_array_equal(phast_rows(g, h2, src), dijkstra_rows(g, src))
    with pytest.raises(InvalidArgumentError, match="another graph"):
        Hierarchy.load(p, random_sparse(seed=2))
    with pytest.raises(InvalidArgumentError, match="vertices"):
        phast_rows(random_sparse(seed=2, n=50), h, [0])


def test_cancel_stops_the_build():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 40000, seed=1))
    with pytest.raises(CancelledError):
        build_hierarchy(g, cancel=lambda: True)


def test_dense_graph_refused(monkeypatch):
    from gpu_core.hierarchy import model
    from tests.core.families import random_sparse

    monkeypatch.setattr(hapi, "MAX_SHORTCUTS_PER_ARC", 0)  # the CH's bound
    monkeypatch.setattr(model, "MAX_SHORTCUTS_PER_ARC", 0)  # the CCH's
    for method in ("ch", "cch"):
        with pytest.raises(HierarchyTooDenseError, match="not road-shaped"):
            build_hierarchy(random_sparse(seed=3, n=200, avg_deg=8), method=method)


def test_shape_probe():
    from maps.generate import generate

    assert road_shaped(generate("grid", 10000, seed=1))
    assert not road_shaped(generate("random", 10000, seed=1))


@pytest.mark.parametrize("threads", [1, 3, 8])
def test_search_spaces_equal_dijkstra_in_the_upward_graph(threads):
    """One pass per thread with kept scratch (``cpu.search_spaces``): every source's
    upward search space and costs are scipy's Dijkstra over the upward arcs, in source
    order, called twice (the kept scratch is clean again) and with repeated sources."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    from gpu_core.hierarchy.cpu import search_spaces
    from maps.generate import generate

    g = CSRGraph.from_any(generate("kanto", 3000, seed=5))
    h = build_hierarchy(g)
    n = h.n
    up = sp.csr_matrix((h.up_w.astype(np.float64), h.up_dst, h.up_ptr), shape=(n, n))
    seeds = np.random.default_rng(2).integers(0, n, 40).astype(np.int32)
    seeds[5] = seeds[4]
    want = dijkstra(up, indices=seeds)
    for _ in range(2):
        counts, verts, costs = search_spaces(seeds, h.up_ptr, h.up_dst, h.up_w, n, threads)
        assert counts.sum() == verts.shape[0] == costs.shape[0]
        at = np.concatenate([[0], np.cumsum(counts)])
        for i in range(seeds.shape[0]):
            v, c = verts[at[i]:at[i + 1]], costs[at[i]:at[i + 1]]
            reach = np.flatnonzero(np.isfinite(want[i]))
            np.testing.assert_array_equal(np.sort(v), reach)
            np.testing.assert_array_equal(c, want[i][v].astype(np.int64))
