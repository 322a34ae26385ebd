"""The mutable graph on the CPU backend: random edit sequences against a plain model and
against searches on a graph built from scratch; stable ids; typed, atomic errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_core import STRATEGIES, sssp
from gpu_core.betweenness import place_billboards
from gpu_core.dynamic import ARC_DISABLED, ARC_LIVE, EditBatch, MutableGraph
from gpu_core.errors import BackendUnavailableError, InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.multi_source import multi_source_sssp
from tests.core.dynamic_model import Model, assert_same_csr, random_batch
from tests.core.families import make_graph

EDIT_FAMILIES = ["random_sparse", "grid_road", "disconnected", "zero_weights", "single_node",
                 "duplicate_arcs", "self_loops"]


def _same_search(a: CSRGraph, b: CSRGraph, source: int, strategy: str) -> None:
    ra = sssp(a, source, strategy=strategy, backend="cpu")
    rb = sssp(b, source, strategy=strategy, backend="cpu")
    np.testing.assert_array_equal(ra.dist, rb.dist)
    np.testing.assert_array_equal(ra.pred, rb.pred)


@settings(max_examples=30, deadline=None)
@given(family=st.sampled_from(EDIT_FAMILIES), seed=st.integers(0, 2**31 - 1),
       batches=st.integers(1, 4))
def test_random_edits_equal_a_fresh_build(family, seed, batches):
    rng = np.random.default_rng(seed)
    g = make_graph(family, seed % 7)
    mg = MutableGraph(g, backend="cpu", reserve_arcs=int(rng.integers(1, 8)),
                      reserve_nodes=1)
    model = Model(g)
    for _ in range(batches):
        mg.apply(random_batch(mg, model, rng, int(rng.integers(1, 15))))
        fresh = assert_same_csr(mg, model)
    edited = mg.graph()
    if edited.num_nodes == 0:
        return
    src = int(rng.integers(edited.num_nodes))
    for strategy in STRATEGIES:
        _same_search(edited, fresh, src, strategy)
    srcs = rng.integers(0, edited.num_nodes, 3)
    np.testing.assert_array_equal(multi_source_sssp(edited, srcs, backend="cpu").dist,
                                  multi_source_sssp(fresh, srcs, backend="cpu").dist)
    _same_programs(mg, fresh, src, "cpu")


def _same_programs(mg, fresh: CSRGraph, src: int, backend: str) -> None:
    """The vertex programs take the MutableGraph itself and match a fresh build."""
    from gpu_core.programs import bellman_ford, minimum_spanning_forest, pagerank

    np.testing.assert_array_equal(bellman_ford(mg, src, backend=backend).dist,
                                  bellman_ford(fresh, src, backend=backend).dist)
    a = minimum_spanning_forest(mg, backend=backend)
    b = minimum_spanning_forest(fresh, backend=backend)
    np.testing.assert_array_equal(np.c_[a.tails, a.heads, a.weights],
                                  np.c_[b.tails, b.heads, b.weights])
    np.testing.assert_array_equal(pagerank(mg, backend=backend, max_iter=20).rank,
                                  pagerank(fresh, backend=backend, max_iter=20).rank)


@pytest.mark.parametrize("family", ["random_sparse", "grid_road"])
def test_betweenness_on_an_edited_graph(family):
    rng = np.random.default_rng(5)
    g = make_graph(family, 2)
    mg = MutableGraph(g, backend="cpu")
    model = Model(g)
    mg.apply(random_batch(mg, model, rng, 30))
    fresh = assert_same_csr(mg, model)
    a = place_billboards(mg.graph(), 3, backend="cpu")
    b = place_billboards(fresh, 3, backend="cpu")
    np.testing.assert_array_equal(a.sites, b.sites)
    np.testing.assert_array_equal(a.group_betweenness, b.group_betweenness)


def test_stable_ids_and_summary():
    g = make_graph("random_sparse", 1)
    m = g.num_arcs
    mg = MutableGraph(g, backend="cpu", reserve_arcs=1)
    b = mg.batch()
    b.disable([0, 3]).set_weight(5, 77)
    ins = b.insert([1, 2], [3, 4], [10, 20])
    x, a1, a2 = b.split(7, 1, 2)
    b.delete(int(ins[0]))
    s = mg.apply(b)
    assert ins.tolist() == [m, m + 1] and (a1, a2) == (m + 2, m + 3)
    assert x == g.num_nodes == mg.num_nodes - 1
    assert s.arcs.tolist() == [0, 3, 5, 7]  # first-edit order
    assert s.old_state.tolist() == [ARC_LIVE] * 4
    assert s.new_state.tolist() == [ARC_DISABLED, ARC_DISABLED, ARC_LIVE, ARC_DISABLED]
    assert s.new_weight[2] == 77 and s.inserted.tolist() == [m, m + 1, m + 2, m + 3]
    assert s.added_vertices.tolist() == [x] and s.changed == 8
    assert mg.arc(m)[3] == "deleted" and mg.arc(a1)[:3] == (int(g.arc_sources()[7]), x, 1)
    assert mg.out_arcs(x).tolist() == [a2]
    # a deleted id is never handed out again
    (nxt,) = mg.batch().insert(0, 1, 1)
    assert nxt == m + 4
    # ids in the compacted graph map back to the arcs
    csr, ids = mg.compact()
    t, h, w, state = mg.arcs()
    np.testing.assert_array_equal(csr.indices, h[ids])
    np.testing.assert_array_equal(csr.weights, w[ids])
    np.testing.assert_array_equal(csr.arc_sources(), t[ids])
    assert (state[ids] == ARC_LIVE).all() and ids.size == mg.num_live_arcs


def test_out_arcs_walk_the_same_arcs_as_the_csr():
    rng = np.random.default_rng(2)
    g = make_graph("grid_road", 3)
    mg = MutableGraph(g, backend="cpu")
    model = Model(g)
    for _ in range(3):
        mg.apply(random_batch(mg, model, rng, 25))
    csr, ids = mg.compact()
    for v in range(mg.num_nodes):
        row = ids[csr.indptr[v]:csr.indptr[v + 1]]
        assert sorted(mg.out_arcs(v).tolist()) == sorted(row.tolist())


@pytest.mark.parametrize("edit,named", [
    (lambda b: b.disable(10**6), "arc id 1000000 does not exist"),
    (lambda b: b.enable(-1), "arc id -1 does not exist"),
    (lambda b: b.set_weight(0, -3), "weight -3 is negative"),
    (lambda b: b.set_weight(0, 2**31), "weight 2147483648 is above"),
    (lambda b: b.insert(0, 999, 1), "head vertex 999 is outside"),
    (lambda b: b.insert(-2, 0, 1), "tail vertex -2 is outside"),
    (lambda b: b.insert(0, 1, -1), "weight -1 is negative"),
    (lambda b: b.delete(0).enable(0), "arc id 0 was deleted"),
    (lambda b: b.delete([1, 1]), "arc id 1 was deleted"),
])
def test_bad_edits_raise_and_change_nothing(edit, named):
    g = make_graph("random_sparse", 0)
    mg = MutableGraph(g, backend="cpu")
    mg.apply(mg.batch().set_weight(2, 5))
    before = mg.arcs()
    csr0, ids0 = mg.compact()
    b = mg.batch()
    b.disable(3).set_weight(4, 9).insert(5, 6, 7)
    edit(b)
    with pytest.raises(InvalidArgumentError, match=named):
        mg.apply(b)
    for x, y in zip(before, mg.arcs(), strict=True):
        np.testing.assert_array_equal(x, y)
    assert mg.next_arc_id == g.num_arcs and mg.num_nodes == g.num_nodes
    csr1, ids1 = mg.compact()
    np.testing.assert_array_equal(ids0, ids1)
    mg.apply(mg.batch().disable(3))  # still usable


def test_batch_misuse():
    g = make_graph("random_sparse", 0)
    mg = MutableGraph(g, backend="cpu")
    stale = mg.batch()
    b = mg.batch()
    b.insert(0, 1, 1)
    mg.apply(b)
    stale.disable(0)
    with pytest.raises(InvalidArgumentError, match="apply batches in the order made"):
        mg.apply(stale)
    with pytest.raises(InvalidArgumentError, match="weights must be integers"):
        mg.batch().set_weight(0, 1.5)
    with pytest.raises(InvalidArgumentError, match="another length"):
        mg.batch().set_weight([0, 1, 2], [1, 2])
    with pytest.raises(InvalidArgumentError, match="MutableGraph.batch"):
        EditBatch(0, 0).split(0, 1, 1)
    with pytest.raises(InvalidArgumentError, match="vertex 500"):
        mg.out_arcs(500)
    with pytest.raises(InvalidArgumentError, match="gpu"):
        MutableGraph(g, backend="gpu")
    with pytest.raises(InvalidArgumentError, match="an EditBatch"):
        mg.apply([(1, 0)])


def test_the_mutable_graph_is_graph_like():
    rng = np.random.default_rng(4)
    g = make_graph("grid_road", 1)
    mg = MutableGraph(g, backend="cpu")
    model = Model(g)
    mg.apply(random_batch(mg, model, rng, 20))
    fresh = assert_same_csr(mg, model)
    np.testing.assert_array_equal(sssp(mg, 0, backend="cpu").dist,
                                  sssp(fresh, 0, backend="cpu").dist)
    assert mg.indptr is mg.indptr  # cached until the next batch
    old = mg.indices
    mg.apply(mg.batch().disable(int(mg.compact()[1][0])))
    assert mg.indices is not old and mg.indices.size == old.size - 1


def test_new_vertices_in_a_batch_take_arcs_of_the_same_batch():
    g = CSRGraph.from_edges(2, [0], [1], [4])
    mg = MutableGraph(g, backend="cpu", reserve_nodes=1)
    b = mg.batch()
    vs = b.add_vertices(3)
    b.insert([1, int(vs[0]), int(vs[1])], [int(vs[0]), int(vs[1]), int(vs[2])], [1, 0, 2])
    mg.apply(b)
    r = sssp(mg.graph(), 0, backend="cpu")
    assert r.dist.tolist() == [0, 4, 5, 5, 7]


def test_empty_batch_and_cupy_unavailable():
    from gpu_core.backend import cupy_status

    g = make_graph("ring", 0)
    mg = MutableGraph(g, backend="cpu")
    s = mg.apply(mg.batch())
    assert s.changed == 0 and len(mg.batch()) == 0
    np.testing.assert_array_equal(mg.graph().indices, g.indices)
    if not cupy_status()[0]:
        with pytest.raises(BackendUnavailableError):
            MutableGraph(g, backend="cupy")


def test_bench_runs_small(capsys):
    from app.bench.dynamic import main

    assert main(["--nodes", "400", "--edits", "50", "--repeats", "1", "--backend", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "apply one batch" in out and "compact to a host CSRGraph" in out


@pytest.mark.parametrize("seed", range(6))
def test_device_sort_order_equals_the_host_compaction(seed):
    """layout.sorted_csr (the CUDA backend's sort, run here with numpy) and the host's
    counting sort give the same rows and ids, long rows and parallel arcs included."""
    from gpu_core.dynamic.layout import sorted_csr

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    m = int(rng.integers(0, 600))
    t = np.where(rng.random(m) < 0.3, 0, rng.integers(0, n, m))  # vertex 0: a long row
    g = CSRGraph.from_edges(n, t, rng.integers(0, n, m), rng.integers(0, 4, m))
    mg = MutableGraph(g, backend="cpu")
    model = Model(g)
    mg.apply(random_batch(mg, model, rng, 40, wmax=3))
    csr, ids = mg.compact()
    h = mg.host
    live = np.flatnonzero(h.state[: h.total] == ARC_LIVE)
    indptr, indices, weights, ids2 = sorted_csr(np, h.n, live, h.tail[live], h.head[live],
                                                h.weight[live])
    np.testing.assert_array_equal(ids, ids2)
    np.testing.assert_array_equal(csr.indptr, indptr)
    np.testing.assert_array_equal(csr.indices, indices)
    np.testing.assert_array_equal(csr.weights, weights)
    assert_same_csr(mg, model)


def test_sorted_csr_of_arcs_in_order_equals_the_sorts():
    """``layout.sorted_csr`` skips its sorts for arcs already in (tail, weight, head)
    order (a map's own arcs after closures); in order or not, its rows equal a stable
    sort by (tail, weight, head, input position)."""
    from gpu_core.dynamic.layout import sorted_csr

    rng = np.random.default_rng(5)
    for trial in range(300):
        n, m = int(rng.integers(1, 40)), int(rng.integers(0, 300))
        t = np.sort(rng.integers(0, n, m)) if trial % 2 else rng.integers(0, n, m)
        h, w = rng.integers(0, n, m), rng.integers(0, 3, m)
        if trial % 3 == 0:  # in order, as a loaded map's rows are
            o = np.lexsort((h, w, t))
            t, h, w = t[o], h[o], w[o]
        ids = np.sort(rng.choice(10 * max(m, 1), m, replace=False)).astype(np.int64)
        indptr, indices, weights, got = sorted_csr(np, n, ids, t.astype(np.int32),
                                                   h.astype(np.int32), w.astype(np.int32))
        o = np.lexsort((np.arange(m), h, w, t))
        np.testing.assert_array_equal(got, ids[o])
        np.testing.assert_array_equal(indices, h[o])
        np.testing.assert_array_equal(weights, w[o])
        np.testing.assert_array_equal(indptr, np.concatenate([[0], np.cumsum(
            np.bincount(t, minlength=n))]))


@pytest.mark.parametrize("seed", range(8))
def test_a_graph_that_inserted_nothing_compacts_by_masking_its_rows(seed):
    """Closures and new weights only: ``HostArcs.compact`` masks the base rows
    (``layout.base_subset_csr``) where they stay in (weight, head) order, and gives what
    the counting sort and ``sorted_csr`` give; rows out of order go to the sort."""
    from gpu_core.dynamic import cpu
    from gpu_core.dynamic.layout import base_subset_csr, sorted_csr

    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 50)), int(rng.integers(1, 500))
    t = np.where(rng.random(m) < 0.2, 0, rng.integers(0, n, m))  # a long row too
    g = CSRGraph.from_edges(n, t, rng.integers(0, n, m), rng.integers(0, 4, m))
    seen = set()
    for trial in range(12):
        mg = MutableGraph(g, backend="cpu")
        b = mg.batch()
        b.disable(rng.choice(m, int(rng.integers(0, m)), replace=False))
        if trial % 3 == 1:  # new weights: some rows leave (weight, head) order
            e = rng.choice(m, int(rng.integers(1, max(2, m // 4))), replace=False)
            b.set_weight(e, rng.integers(0, 9, e.size))
        mg.apply(b)
        h = mg.host
        live = h.state[:m] == ARC_LIVE
        masked = base_subset_csr(h.base_indptr, h.head[:m], h.weight[:m], live)
        seen.add(masked is not None)
        csr, ids = mg.compact()
        ptr, idx, w, ids2 = cpu._compact.py_func(h.n, h.total, h.tail, h.head, h.weight,
                                                  h.state)
        live_ids = np.flatnonzero(live)
        want = sorted_csr(np, h.n, live_ids, h.tail[live_ids], h.head[live_ids],
                          h.weight[live_ids])
        for got in ([csr.indptr, csr.indices, csr.weights, ids], want) + \
                ((masked,) if masked is not None else ()):
            for a, b2 in zip(got, (ptr, idx, w, ids2), strict=True):
                np.testing.assert_array_equal(a, b2)
    assert seen == {True, False}  # both answers met: masked rows, and rows out of order
