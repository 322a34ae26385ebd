"""The mutable graph on the device backend: the same random edit sequences as on the CPU
give the same compacted graph and ids; the device lists walk the live arcs; searches of
every strategy (GPU), many-source searches and billboards on the edited graph equal
those on a fresh build."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_core import STRATEGIES, sssp
from gpu_core.betweenness import place_billboards
from gpu_core.dynamic import MutableGraph
from gpu_core.errors import GpuOutOfMemoryError, InvalidArgumentError
from gpu_core.multi_source import multi_source_sssp
from tests.core.dynamic_model import Model, assert_same_csr, random_batch
from tests.core.families import make_graph

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu

EDIT_FAMILIES = ["random_sparse", "grid_road", "disconnected", "zero_weights", "single_node",
                 "duplicate_arcs", "self_loops"]


def _check_device_lists(mg: MutableGraph) -> None:
    csr, _ = mg.compact()
    deg = mg.device.live_out_degree().get()
    np.testing.assert_array_equal(deg, np.diff(csr.indptr.astype(np.int64)))


@settings(max_examples=25, deadline=None)
@given(family=st.sampled_from(EDIT_FAMILIES), seed=st.integers(0, 2**31 - 1),
       batches=st.integers(1, 4))
def test_random_edits_on_the_device_equal_a_fresh_build(family, seed, batches):
    rng = np.random.default_rng(seed)
    g = make_graph(family, seed % 7)
    mg = MutableGraph(g, backend="cupy", reserve_arcs=int(rng.integers(1, 8)),
                      reserve_nodes=1)
    cpu = MutableGraph(g, backend="cpu", reserve_arcs=1, reserve_nodes=1)
    assert mg.backend == "cupy" and mg.device is not None
    model = Model(g)
    for _ in range(batches):
        b = random_batch(mg, model, rng, int(rng.integers(1, 15)))
        mg.apply(b)
        cpu.apply(b)  # the same edits on the CPU twin (same history, so the same ids)
        fresh = assert_same_csr(mg, model)
        _check_device_lists(mg)
    a, ia = mg.compact()
    c, ic = cpu.compact()
    np.testing.assert_array_equal(ia, ic)
    np.testing.assert_array_equal(a.indices, c.indices)
    edited = mg.graph()
    if edited.num_nodes == 0:
        return
    src = int(rng.integers(edited.num_nodes))
    for strategy in STRATEGIES:
        ra = sssp(edited, src, strategy=strategy, backend="cupy")
        rb = sssp(fresh, src, strategy=strategy, backend="cupy")
        np.testing.assert_array_equal(ra.dist, rb.dist)
        np.testing.assert_array_equal(ra.pred, rb.pred)
    srcs = rng.integers(0, edited.num_nodes, 3)
    np.testing.assert_array_equal(multi_source_sssp(edited, srcs, backend="cupy").dist,
                                  multi_source_sssp(fresh, srcs, backend="cupy").dist)
    from gpu_core.programs import bellman_ford, minimum_spanning_forest

    np.testing.assert_array_equal(bellman_ford(mg, src, backend="cupy").dist,
                                  bellman_ford(fresh, src, backend="cpu").dist)
    a = minimum_spanning_forest(mg, backend="cupy")
    b = minimum_spanning_forest(fresh, backend="cpu")
    np.testing.assert_array_equal(np.c_[a.tails, a.heads, a.weights],
                                  np.c_[b.tails, b.heads, b.weights])


def test_billboards_on_an_edited_device_graph():
    rng = np.random.default_rng(5)
    g = make_graph("grid_road", 2)
    mg = MutableGraph(g, backend="cupy")
    model = Model(g)
    mg.apply(random_batch(mg, model, rng, 30))
    fresh = assert_same_csr(mg, model)
    np.testing.assert_array_equal(sssp(mg, 0, backend="cupy").dist,
                                  sssp(fresh, 0, backend="cupy").dist)
    a = place_billboards(mg.graph(), 3, backend="cupy")
    b = place_billboards(fresh, 3, backend="cupy")
    np.testing.assert_array_equal(a.sites, b.sites)


def test_large_batch_grows_device_capacity():
    g = make_graph("grid_road", 1)
    mg = MutableGraph(g, backend="cupy", reserve_arcs=1, reserve_nodes=1)
    model = Model(g)
    rng = np.random.default_rng(9)
    for size in (200, 2000):
        mg.apply(random_batch(mg, model, rng, size))
        assert_same_csr(mg, model)
        _check_device_lists(mg)


def test_bad_edit_leaves_the_device_untouched():
    g = make_graph("random_sparse", 0)
    mg = MutableGraph(g, backend="cupy")
    csr0, ids0 = mg.compact()
    b = mg.batch()
    b.disable(3).insert(0, 1, 5)
    b.set_weight(4, -1)
    with pytest.raises(InvalidArgumentError, match="weight -1"):
        mg.apply(b)
    ind, _, _, ids = mg.device.compact_device()
    np.testing.assert_array_equal(ids.get(), ids0)
    np.testing.assert_array_equal(ind.get(), csr0.indptr)


def test_full_device_raises_typed_oom(monkeypatch):
    from gpu_core.device import memory

    monkeypatch.setattr(memory, "free_memory", lambda: (0, 1 << 30))
    monkeypatch.setattr(memory, "HEADROOM_BYTES", 1 << 40)
    with pytest.raises(GpuOutOfMemoryError):
        MutableGraph(make_graph("ring", 0), backend="cupy")


def test_bench_runs_small_on_the_device(capsys):
    from gpu_core.dynamic.bench import main

    assert main(["--nodes", "2500", "--edits", "500", "--repeats", "2", "--backend", "cupy"]) == 0
    out = capsys.readouterr().out
    assert "compact, device arrays" in out


def test_compact_stays_on_the_device():
    """compact() on CUDA: a DeviceCSRGraph over the device compaction; device_graph()
    reuses its arrays (no upload) and a search on it reads no host copy of the rows."""
    from gpu_core.device.graph import DeviceCSRGraph, device_graph
    from gpu_core.graph import CSRGraph

    g = make_graph("grid_road", 2)
    mg = MutableGraph(g, backend="cupy")
    cpu = MutableGraph(g, backend="cpu")
    for m in (mg, cpu):
        b = m.batch()
        b.disable([0, 5]).set_weight(7, 1).insert([1, 2], [3, 4], [2, 9])
        m.apply(b)
    edited = mg.graph()
    assert isinstance(edited, DeviceCSRGraph) and edited.host_copies == 0
    assert device_graph(edited) is edited.device and CSRGraph.from_any(mg) is edited
    ref, ref_ids = cpu.compact()
    assert (edited.num_nodes, edited.num_arcs) == (ref.num_nodes, ref.num_arcs)
    got = sssp(mg, 0, backend="cupy")
    assert edited.host_copies <= 2  # key-space validation may read the weights (and ids)
    np.testing.assert_array_equal(got.dist, sssp(ref, 0, backend="cpu").dist)
    _, ids = mg.compact()
    np.testing.assert_array_equal(ids, ref_ids)
    np.testing.assert_array_equal(edited.indptr, ref.indptr)
    np.testing.assert_array_equal(edited.indices, ref.indices)
    np.testing.assert_array_equal(edited.weights, ref.weights)
    assert edited.host_copies == 3
