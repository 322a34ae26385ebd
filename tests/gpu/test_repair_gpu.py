"""Incremental repair on the device: the CPU tests' edit sequences on a cupy MutableGraph,
repaired on the GPU, equal a fresh GPU search and the CPU backend's repair."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_core import sssp
from gpu_core.dynamic import MutableGraph
from gpu_core.multi_source import multi_source_sssp
from gpu_core.repair import RepairOptions, repair, repair_rows
from tests.core.dynamic_model import random_batch
from tests.core.families import make_graph
from tests.core.repair_cases import (
    assert_same,
    close_tree_roads,
    disconnect,
    inverse_batch,
    model_of,
    reopen_all,
)

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu

FAMILIES = ["random_sparse", "grid_road", "bidirectional_ring", "disconnected", "zero_weights",
            "duplicate_arcs", "self_loops", "equal_weight_grid", "isolated_source", "rmat"]


def _both(mg, prev_gpu, prev_cpu, summaries, options=None):
    """GPU and CPU repairs of the same edits; they agree and equal a fresh search. Without
    the GPU's time budget (a share of a fresh search's time, which the CPU has not) both
    take the same path."""
    opts = options or RepairOptions(budget_fraction=None)
    g = repair(mg, prev_gpu, summaries, backend="cupy", options=opts)
    c = repair(mg, prev_cpu, summaries, backend="cpu", options=opts)
    assert_same(g, mg, backend="cupy")
    for name in ("dist", "pred", "key"):
        np.testing.assert_array_equal(getattr(g, name), getattr(c, name))
    if opts.budget_fraction is None:
        assert g.method == c.method
    return g, c


@settings(max_examples=30, deadline=None)
@given(family=st.sampled_from(FAMILIES), seed=st.integers(0, 2**31 - 1),
       batches=st.integers(1, 5))
def test_random_edit_sequences_on_the_device(family, seed, batches):
    rng = np.random.default_rng(seed)
    g0 = make_graph(family, seed % 5)
    mg = MutableGraph(g0, backend="cupy", reserve_arcs=4, reserve_nodes=1)
    src = np.unique(rng.integers(0, g0.num_nodes, int(rng.integers(1, 3))))
    rg = rc = sssp(mg, src, backend="cupy")
    pending = []
    for _ in range(batches):
        kind = rng.random()
        if kind < 0.4 and not pending:
            b = close_tree_roads(mg, rg, rng, int(rng.integers(1, 4)))
        elif kind < 0.5:
            b = reopen_all(mg)
        else:
            b = random_batch(mg, model_of(mg), rng, int(rng.integers(1, 10)))
        pending.append(mg.apply(b))
        if rng.random() < 0.7:
            rg, rc = _both(mg, rg, rc, pending)
            pending = []
    if pending:
        _both(mg, rg, rc, pending)


def test_disconnect_reopen_and_undo_on_the_device():
    g0 = make_graph("grid_road", 3)
    mg = MutableGraph(g0, backend="cupy")
    r0 = sssp(mg, 7, backend="cupy")
    big = RepairOptions(max_affected=10**6, budget_fraction=None)
    s = mg.apply(disconnect(mg, 7))
    r1, c1 = _both(mg, r0, r0, s, options=big)
    assert r1.method == "repair" and r1.affected == g0.num_nodes - 1
    r2, _ = _both(mg, r1, c1, mg.apply(inverse_batch(mg, s)), options=big)
    for name in ("dist", "pred", "key"):
        np.testing.assert_array_equal(getattr(r2, name), getattr(r0, name))


def test_limits_fall_back_to_fresh_on_the_device():
    g0 = make_graph("grid_road", 2)
    mg = MutableGraph(g0, backend="cupy")
    r0 = sssp(mg, 0, backend="cupy")
    s = mg.apply(disconnect(mg, 0))
    r1 = repair(mg, r0, s, backend="cupy",
                options=RepairOptions(max_affected=3, budget_fraction=None))
    assert r1.method == "fresh" and "more than 3 vertices" in r1.reason
    assert_same(r1, mg, backend="cupy")
    s2 = mg.apply(reopen_all(mg))
    r2 = repair(mg, r1, s2, backend="cupy",
                options=RepairOptions(max_affected=10**6, max_rounds=2,
                                      budget_fraction=None))
    assert r2.method == "fresh" and "rounds" in r2.reason
    assert_same(r2, mg, backend="cupy")
    s3 = mg.apply(disconnect(mg, 0))  # r2 is a fresh search: its time sets the budget
    r3 = repair(mg, r2, s3, backend="cupy",
                options=RepairOptions(max_affected=10**6, budget_fraction=1e-6))
    assert r3.method == "fresh" and "device-time budget" in r3.reason
    assert_same(r3, mg, backend="cupy")


def test_chained_closures_on_a_road_map():
    from maps.generate import generate

    net = generate("kanto", 20_000, seed=3)
    mg = MutableGraph(net, backend="cupy")
    rng = np.random.default_rng(2)
    rg = rc = sssp(mg, rng.integers(0, net.num_nodes, 2), backend="cupy")
    for i in range(15):  # with the default options too (the GPU's time budget on)
        opts = RepairOptions() if i % 2 else None
        rg, rc = _both(mg, rg, rc, mg.apply(close_tree_roads(mg, rg, rng)), options=opts)
    _both(mg, rg, rc, mg.apply(reopen_all(mg)))
    assert rg.extra.get("rounds", 0) >= 0


def test_repair_rows_on_the_device():
    rng = np.random.default_rng(3)
    g0 = make_graph("grid_road", 4)
    mg = MutableGraph(g0, backend="cupy")
    src = rng.integers(0, g0.num_nodes, 8)
    before = multi_source_sssp(mg, src, backend="cupy").dist
    res = sssp(mg, int(src[0]), backend="cupy")
    s = mg.apply(close_tree_roads(mg, res, rng, 3))
    got, _ = repair_rows(mg, src, before, s, backend="cupy")
    np.testing.assert_array_equal(got, multi_source_sssp(mg, src, backend="cupy").dist)
