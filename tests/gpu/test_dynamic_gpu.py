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
    from app.bench.dynamic import main

    assert main(["--nodes", "2500", "--edits", "500", "--repeats", "2", "--backend", "cupy"]) == 0
    out = capsys.readouterr().out
    assert "compact, device arrays" in out


def test_compact_stays_on_the_device():
    """compact() on CUDA: a DeviceCSRGraph over the device compaction; device_graph()
    reuses its arrays (no upload) and a search on it reads no host copy of the rows."""
    from gpu_core.device.csr import DeviceCSRGraph, device_graph
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


# ---- validation on the device: the CPU backend's errors, messages and results ----------

def _device_arcs(mg: MutableGraph) -> tuple[np.ndarray, ...]:
    """(tail, head, weight, state) by id read from the device arrays (ends of deleted
    arcs are not kept up to date: zeroed here)."""
    d, k = mg.device, mg.device.total
    t, h, w, s = (x[:k].get() for x in (d.tail, d.head, d.weight, d.state))
    gone = s == 0
    t[gone] = h[gone] = 0
    return t, h, w, s


def _same_arcs(mg: MutableGraph, cpu: MutableGraph) -> None:
    t, h, w, s = cpu.arcs()
    t[s == 0] = h[s == 0] = 0
    for x, y in zip(_device_arcs(mg), (t, h, w, s), strict=True):
        np.testing.assert_array_equal(x, y)
    for x, y in zip(mg.arcs(), cpu.arcs(), strict=True):  # the host mirror
        np.testing.assert_array_equal(x, y)
    assert (mg.device.total, mg.device.n) == (cpu.next_arc_id, cpu.num_nodes)


def _both(g, **kw) -> tuple[MutableGraph, MutableGraph]:
    return MutableGraph(g, backend="cupy", **kw), MutableGraph(g, backend="cpu", **kw)


def _apply_both(mg: MutableGraph, cpu: MutableGraph, fill) -> str | None:
    """Apply the batch ``fill`` builds (the same edits) to both; the error message, if
    any, after checking that both raise the same one."""
    msgs = []
    for m in (mg, cpu):
        b = m.batch()
        fill(b)
        try:
            m.apply(b)
            msgs.append(None)
        except InvalidArgumentError as exc:
            msgs.append(str(exc))
    assert msgs[0] == msgs[1]
    return msgs[0]


M = 40  # arcs of the graph of the next test


@pytest.mark.parametrize("fill,named", [
    (lambda b: b.disable(10**6), "edit 3 (disable): arc id 1000000 does not exist"),
    (lambda b: b.enable(-1), "edit 3 (enable): arc id -1 does not exist"),
    (lambda b: b.set_weight(0, -3), "edit 3 (set_weight): weight -3 is negative"),
    (lambda b: b.set_weight(0, 2**31), "weight 2147483648 is above"),
    (lambda b: b.insert(0, 999, 1), "edit 3 (insert): head vertex 999 is outside"),
    (lambda b: b.insert(-2, 0, 1), "tail vertex -2 is outside"),
    (lambda b: b.insert(0, 1, -1), "edit 3 (insert): weight -1 is negative"),
    (lambda b: b.delete(0).enable(0), "edit 4 (enable): arc id 0 was deleted"),
    (lambda b: b.delete([1, 1]), "edit 4 (delete): arc id 1 was deleted"),
    (lambda b: b.delete(1).set_weight(1, 4), "edit 4 (set_weight): arc id 1 was deleted"),
    (lambda b: b.delete(M - 1), "arc id 39 was deleted"),  # deleted by the first batch
    # ids and vertices of this batch exist from their insert / add_vertex on, not before
    (lambda b: b.disable(b.next_arc_id).insert(0, 1, 1), "edit 3 (disable): arc id "),
    (lambda b: (b.insert(0, b.next_node_id, 1), b.add_vertices(1)), "edit 3 (insert): head"),
    (lambda b: b.delete(b.insert(0, 1, 1)).enable(b.next_arc_id - 1), "edit 5 (enable)"),
    # the first invalid edit is named, whichever check finds it
    (lambda b: b.delete(2).disable(2).set_weight(0, -1), "edit 4 (disable): arc id 2"),
    (lambda b: b.set_weight(0, -1).delete(2).disable(2), "edit 3 (set_weight): weight -1"),
    (lambda b: b.enable([5, 6]).disable(10**9).delete([7, 7]), "edit 5 (disable)"),
])
def test_device_validation_raises_the_cpu_error_and_applies_nothing(fill, named):
    from gpu_core.graph import CSRGraph

    rng = np.random.default_rng(3)
    g = CSRGraph.from_edges(12, rng.integers(0, 12, M), rng.integers(0, 12, M),
                            rng.integers(1, 50, M))
    mg, cpu = _both(g, reserve_arcs=2, reserve_nodes=1)
    assert _apply_both(mg, cpu, lambda b: b.set_weight(2, 5).delete(M - 1)) is None
    csr0, ids0 = mg.compact()

    def batch(b):
        b.disable(3).set_weight(4, 9).insert(5, 6, 7)
        fill(b)

    msg = _apply_both(mg, cpu, batch)
    assert msg is not None and named in msg
    _same_arcs(mg, cpu)  # nothing applied, on the device or the mirror
    csr1, ids1 = mg.compact()
    np.testing.assert_array_equal(ids0, ids1)
    np.testing.assert_array_equal(csr0.indptr, csr1.indptr)
    _check_device_lists(mg)
    assert _apply_both(mg, cpu, lambda b: b.disable(3).insert(0, 1, 2)) is None  # usable
    _same_arcs(mg, cpu)


def test_in_batch_dependencies_resolve_as_the_host_loop():
    g = make_graph("grid_road", 2)
    mg, cpu = _both(g, reserve_arcs=1, reserve_nodes=1)

    def batch(b):
        b.disable([0, 1, 2]).enable([1, 0]).disable(1)  # last state edit wins
        b.set_weight(3, 8).set_weight([3, 4], [9, 0])  # last weight edit wins
        (x,) = b.add_vertices(1)
        new = b.insert([0, x, x], [x, 1, x], [5, 6, 7])  # new vertex used by its batch
        b.set_weight(new[0], 1).disable(new[1]).enable(new[1]).delete(new[2])
        b.delete(5).split(6, 2, 3)

    assert _apply_both(mg, cpu, batch) is None
    _same_arcs(mg, cpu)
    _check_device_lists(mg)
    s = mg.apply(mg.batch().disable(0).enable(0))
    ref = cpu.apply(cpu.batch().disable(0).enable(0))
    for f in ("arcs", "old_state", "new_state", "old_weight", "new_weight", "inserted",
              "added_vertices"):
        np.testing.assert_array_equal(getattr(s, f), getattr(ref, f))
    assert s.changed == ref.changed == 0


@settings(max_examples=25, deadline=None)
@given(family=st.sampled_from(EDIT_FAMILIES), seed=st.integers(0, 2**31 - 1))
def test_random_batches_with_bad_edits_match_the_cpu(family, seed):
    """Random valid batches with random (often invalid) edits mixed in: the device and
    the CPU backend raise the same message or give the same arcs and summary."""
    import pickle

    rng = np.random.default_rng(seed)
    g = make_graph(family, seed % 7)
    mg, cpu = _both(g, reserve_arcs=int(rng.integers(1, 8)), reserve_nodes=1)
    for _ in range(4):
        b = mg.batch()  # the CPU twin has the same history: the same ids
        picks = []
        for _ in range(int(rng.integers(1, 12))):
            kind = int(rng.integers(6))
            e = int(rng.integers(-1, b.next_arc_id + 2))
            v = [int(x) for x in rng.integers(-1, b.next_node_id + 2, 2)]
            w = int(rng.choice([-1, 0, 7, 2**31]) if rng.random() < 0.2 else rng.integers(9))
            picks.append((kind, e, v, w))
            if kind == 4:
                b.insert(v[0], v[1], w)
            elif kind == 5:
                b.add_vertices(1)
            elif kind == 3:
                b.set_weight(e, w)
            else:
                (b.disable, b.enable, b.delete)[kind](e)
        msgs, sums = [], []
        for m in (mg, cpu):
            try:
                sums.append(m.apply(b))
                msgs.append(None)
            except InvalidArgumentError as exc:
                msgs.append(str(exc))
        assert msgs[0] == msgs[1], picks
        _same_arcs(mg, cpu)
        if msgs[0] is None:
            a, c = pickle.loads(pickle.dumps(sums[0])), sums[1]
            for f in ("arcs", "old_state", "new_state", "old_weight", "new_weight",
                      "inserted", "added_vertices"):
                np.testing.assert_array_equal(getattr(a, f), getattr(c, f))
    _check_device_lists(mg)
