"""Incremental repair on the CPU backend: random edit sequences, tree closures, undo,
ties through zero-weight arcs, fallbacks, and many-source rows, each against a fresh
search on the edited graph."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_core import sssp
from gpu_core.dynamic import MutableGraph
from gpu_core.errors import InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.multi_source import multi_source_sssp
from gpu_core.repair import RepairOptions, RepairResult, repair, repair_rows
from gpu_core.telemetry import MODE_NAMES
from tests.core.dynamic_model import Model, random_batch
from tests.core.families import make_graph
from tests.core.repair_cases import (
    assert_same,
    close_tree_roads,
    disconnect,
    inverse_batch,
    model_of,
    reopen_all,
)

FAMILIES = ["random_sparse", "grid_road", "bidirectional_ring", "disconnected", "zero_weights",
            "duplicate_arcs", "self_loops", "equal_weight_grid", "isolated_source", "ring"]
SAMPLE = Path(__file__).resolve().parents[2] / "maps" / "samples" / "helsinki.osm.pbf"


def _sources(rng, n: int) -> np.ndarray:
    return np.unique(rng.integers(0, n, int(rng.integers(1, 3))))


@settings(max_examples=40, deadline=None)
@given(family=st.sampled_from(FAMILIES), seed=st.integers(0, 2**31 - 1),
       batches=st.integers(1, 5))
def test_random_edit_sequences_repair_like_a_fresh_search(family, seed, batches):
    rng = np.random.default_rng(seed)
    g = make_graph(family, seed % 5)
    mg = MutableGraph(g, backend="cpu", reserve_arcs=4, reserve_nodes=1)
    res = sssp(mg, _sources(rng, g.num_nodes), backend="cpu")
    pending = []
    for _ in range(batches):
        kind = rng.random()
        if kind < 0.4 and not pending:  # tree arcs of the result at hand
            b = close_tree_roads(mg, res, rng, int(rng.integers(1, 4)))
        elif kind < 0.5:
            b = reopen_all(mg)
        else:
            b = random_batch(mg, model_of(mg), rng, int(rng.integers(1, 10)))
        pending.append(mg.apply(b))
        if rng.random() < 0.7:  # repair now, or with the next batch (several summaries)
            res = repair(mg, res, pending, backend="cpu")
            pending = []
            assert_same(res, mg)
    if pending:
        res = repair(mg, res, pending, backend="cpu")
        assert_same(res, mg)


@settings(max_examples=25, deadline=None)
@given(family=st.sampled_from(FAMILIES), seed=st.integers(0, 2**31 - 1))
def test_undo_restores_the_earlier_result_exactly(family, seed):
    rng = np.random.default_rng(seed)
    g = make_graph(family, seed % 5)
    mg = MutableGraph(g, backend="cpu")
    r0 = sssp(mg, _sources(rng, g.num_nodes), backend="cpu")
    b = random_batch(mg, Model(g), rng, int(rng.integers(1, 5)))
    summary = mg.apply(b)
    if summary.added_vertices.size:  # undo cannot remove vertices: a different graph
        return
    r1 = repair(mg, r0, summary, backend="cpu")
    assert_same(r1, mg)
    r2 = repair(mg, r1, mg.apply(inverse_batch(mg, summary)), backend="cpu")
    for name in ("dist", "pred", "key"):
        np.testing.assert_array_equal(getattr(r2, name), getattr(r0, name))


def test_disconnecting_the_source_and_reopening_everything():
    g = make_graph("grid_road", 3)
    mg = MutableGraph(g, backend="cpu")
    r0 = sssp(mg, 7, backend="cpu")
    r1 = repair(mg, r0, mg.apply(disconnect(mg, 7)), backend="cpu",
                options=RepairOptions(max_affected=10**6))
    assert r1.method == "repair" and r1.affected == g.num_nodes - 1
    assert_same(r1, mg)
    assert (r1.dist >= 0).sum() == 1
    r2 = repair(mg, r1, mg.apply(reopen_all(mg)), backend="cpu",
                options=RepairOptions(max_affected=10**6))
    assert_same(r2, mg)
    np.testing.assert_array_equal(r2.pred, r0.pred)


def _tie_graph() -> CSRGraph:
    """0 -> 1 (w 0), 0 -> 2 (w 0), 1 -> 3 (w 5), 2 -> 3 (w 5), 3 -> 4 (w 0): vertex 3 has
    two tight in-arcs with equal keys; pred[3] = 1 by the rule."""
    return CSRGraph.from_edges(5, [0, 0, 1, 2, 3], [1, 2, 3, 3, 4], [0, 0, 5, 5, 0])


def test_a_tie_moves_the_pred_with_an_unchanged_key():
    mg = MutableGraph(_tie_graph(), backend="cpu")
    r0 = sssp(mg, 0, backend="cpu")
    assert r0.pred[3] == 1
    arc_13 = int(next(e for e in range(5) if mg.arc(e)[:2] == (1, 3)))
    r1 = repair(mg, r0, mg.apply(mg.batch().disable(arc_13)), backend="cpu")
    assert_same(r1, mg)
    assert r1.pred[3] == 2 and r1.key[3] == r0.key[3]
    # a new arc 1 -> 3 ties (same cost, same hops) from a smaller tail: the key stays, the
    # pred moves back to 1 (only the edited head's pred pass sees this)
    b = mg.batch()
    b.insert(1, 3, 5)
    r1 = repair(mg, r1, mg.apply(b), backend="cpu")
    assert_same(r1, mg)
    assert r1.pred[3] == 1 and r1.key[3] == r0.key[3] and r1.affected == 0
    # a new arc 0 -> 3 with the same key (cost 5 in one hop is shorter in hops): pred 0
    b = mg.batch()
    b.insert(0, 3, 5)
    r2 = repair(mg, r1, mg.apply(b), backend="cpu")
    assert_same(r2, mg)
    assert r2.pred[3] == 0
    # a zero-cost parallel arc 1 -> 3 that ties on cost but not on hops changes nothing
    b = mg.batch()
    b.insert([1, 1], [3, 3], [5, 5])
    r3 = repair(mg, r2, mg.apply(b), backend="cpu")
    assert_same(r3, mg)


def test_a_large_part_falls_back_to_a_fresh_search_and_says_why():
    g = make_graph("grid_road", 2)
    mg = MutableGraph(g, backend="cpu")
    r0 = sssp(mg, 0, backend="cpu")
    r1 = repair(mg, r0, mg.apply(disconnect(mg, 0)), backend="cpu",
                options=RepairOptions(max_affected=3))
    assert isinstance(r1, RepairResult)
    assert r1.method == "fresh" and "more than 3 vertices" in r1.reason
    assert_same(r1, mg)


def test_a_new_hop_bit_falls_back_to_fresh():
    g = make_graph("ring", 0)  # 64 vertices: 7 hop bits, 128 need 8
    mg = MutableGraph(g, backend="cpu")
    r0 = sssp(mg, 0, backend="cpu")
    b = mg.batch()
    b.add_vertices(1)
    r1 = repair(mg, r0, mg.apply(b), backend="cpu")
    assert r1.method == "repair"
    assert_same(r1, mg)
    b = mg.batch()
    (x,) = b.add_vertices(70)[:1]
    b.insert(0, int(x), 3)
    r2 = repair(mg, r1, mg.apply(b), backend="cpu")
    assert r2.method == "fresh" and "hop bits 7 -> 8" in r2.reason
    assert_same(r2, mg)


def test_repair_phases_are_named_in_the_telemetry():
    g = make_graph("grid_road", 1)
    mg = MutableGraph(g, backend="cpu")
    r0 = sssp(mg, 0, backend="cpu")
    seen = []
    r1 = repair(mg, r0, mg.apply(close_tree_roads(mg, r0, np.random.default_rng(1))),
                backend="cpu", on_phase=seen.append)
    names = [MODE_NAMES[m] for m in r1.phases.rows["mode"].tolist()]
    assert names == ["repair_invalidate", "repair_seed", "repair_settle", "repair_pred"]
    assert seen and seen[0] is r1.phases
    assert r1.strategy == "repair" and r1.reason == "" and r1.affected >= 1
    # the fresh search's time travels along the chain (the GPU's time budget uses it)
    assert r1.extra["fresh_s"] == r0.elapsed_s


def test_bad_arguments_name_the_problem():
    g = make_graph("grid_road", 1)
    mg = MutableGraph(g, backend="cpu")
    r0 = sssp(mg, 0, backend="cpu")
    s = mg.apply(mg.batch().disable(0))
    with pytest.raises(InvalidArgumentError, match="MutableGraph"):
        repair(g, r0, s, backend="cpu")
    with pytest.raises(InvalidArgumentError, match="EditSummary"):
        repair(mg, r0, [object()], backend="cpu")
    b = mg.batch()
    b.add_vertices(2)
    s2 = mg.apply(b)
    with pytest.raises(InvalidArgumentError, match="edits add 0"):
        repair(mg, r0, s, backend="cpu")
    assert repair(mg, r0, [s, s2], backend="cpu").method == "repair"


def test_chained_repairs_on_the_sample_map():
    pytest.importorskip("osmium")
    from maps.load import load_map

    net = load_map(str(SAMPLE))
    mg = MutableGraph(net, backend="cpu")
    rng = np.random.default_rng(4)
    res = sssp(mg, rng.integers(0, net.num_nodes, 2), backend="cpu")
    methods = set()
    for _ in range(12):
        res = repair(mg, res, mg.apply(close_tree_roads(mg, res, rng)), backend="cpu")
        methods.add(res.method)
        assert_same(res, mg)
    res = repair(mg, res, mg.apply(reopen_all(mg)), backend="cpu")
    assert_same(res, mg)
    assert "repair" in methods


@settings(max_examples=15, deadline=None)
@given(family=st.sampled_from(["random_sparse", "grid_road", "zero_weights",
                               "duplicate_arcs", "disconnected"]),
       seed=st.integers(0, 2**31 - 1))
def test_repair_rows_equal_a_fresh_matrix(family, seed):
    rng = np.random.default_rng(seed)
    g = make_graph(family, seed % 5)
    mg = MutableGraph(g, backend="cpu")
    src = rng.integers(0, g.num_nodes, 6)
    before = multi_source_sssp(mg, src, backend="cpu").dist
    res = sssp(mg, int(src[0]), backend="cpu")
    b = close_tree_roads(mg, res, rng, 2) if rng.random() < 0.5 else random_batch(
        mg, Model(g), rng, int(rng.integers(1, 6)))
    s = mg.apply(b)
    got, rows = repair_rows(mg, src, before, s, backend="cpu")
    want = multi_source_sssp(mg, src, backend="cpu").dist
    np.testing.assert_array_equal(got, want)
    pad = np.full((src.size, got.shape[1] - before.shape[1]), -1, np.int64)
    untouched = np.setdiff1d(np.arange(src.size), rows)
    np.testing.assert_array_equal(got[untouched], np.c_[before, pad][untouched])


def test_result_arrays_are_recycled_only_when_nothing_holds_them(monkeypatch):
    from gpu_core.host import result_buffers as buffers

    monkeypatch.setattr(buffers, "MIN_N", 1)
    monkeypatch.setattr(buffers, "_pool", [])
    rng = np.random.default_rng(8)
    mg = MutableGraph(make_graph("grid_road", 5), backend="cpu")

    def step(prev):
        return repair(mg, prev, mg.apply(close_tree_roads(mg, prev, rng)), backend="cpu")

    r1 = step(sssp(mg, 3, backend="cpu"))
    ids1 = {id(r1.key), id(r1.pred), id(r1.dist)}
    view, kept = r1.dist[2:], r1.dist.copy()
    r2 = step(r1)
    del r1  # its dist is still seen through the view: its arrays are not reused
    r3 = step(r2)
    assert not ids1 & {id(r3.key), id(r3.pred), id(r3.dist)}
    np.testing.assert_array_equal(view, kept[2:])
    del view, r2
    keep3 = (r3.key.copy(), r3.pred.copy(), r3.dist.copy())
    r4 = step(r3)
    assert {id(r4.key), id(r4.pred), id(r4.dist)} == ids1  # nothing holds them now
    assert_same(r4, mg)
    for got, want in zip((r3.key, r3.pred, r3.dist), keep3, strict=True):
        np.testing.assert_array_equal(got, want)


def test_closing_and_reopening_rail_arcs():
    """Rail lines of the generated Kanto-like map (long cheap arcs many routes use)."""
    from maps.generate import generate
    from maps.model.network import KIND_RAIL

    net = generate("kanto", 4000, seed=2, rail_lines=3)
    rail = np.flatnonzero(net.edge_kind == KIND_RAIL)
    assert rail.size
    mg = MutableGraph(net, backend="cpu")  # arc ids = the network's CSR indices
    rng = np.random.default_rng(6)
    res = sssp(mg, rng.integers(0, net.num_nodes, 2), backend="cpu")
    for _ in range(4):
        pick = rng.choice(rail, size=min(6, rail.size), replace=False)
        res = repair(mg, res, mg.apply(mg.batch().disable(pick)), backend="cpu")
        assert_same(res, mg)
        res = repair(mg, res, mg.apply(mg.batch().enable(pick).set_weight(pick[:2], 0)),
                     backend="cpu")
        assert_same(res, mg)
