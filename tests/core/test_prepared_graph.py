"""One prepared handle per graph (issue 38): validated once whatever runs on it, shared by a
map and the CSRGraph wrapping its arrays, weak-keyed, and the one rule for "an index can
serve this graph"."""

from __future__ import annotations

import copy
import gc
import pickle
import weakref

import numpy as np
import pytest

import gpu_core.validate as validate
from gpu_core.errors import NegativeWeightsError
from gpu_core.graph import CSRGraph, prepared
from gpu_core.multi_source import distance_matrix
from gpu_core.sssp import sssp
from maps.generate import generate


@pytest.fixture
def checks(monkeypatch):
    """Counts check_csr calls (the O(m) validation)."""
    calls = []
    real = validate.check_csr

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(validate, "check_csr", counting)
    return calls


def test_a_map_is_checked_once_across_capabilities(checks):
    net = generate("grid", 400, seed=2)
    for _ in range(3):
        sssp(net, 0, backend="cpu")
        distance_matrix(net, [0, 5], [7, 9], backend="cpu")
        CSRGraph.from_any(net)
    assert len(checks) == 1


def test_map_and_its_csr_share_one_handle_and_its_derived_data(checks):
    net = generate("grid", 400, seed=2)
    g = CSRGraph.from_any(net)
    assert prepared(net) is prepared(g)
    built = []
    assert prepared(net).derived("x", lambda: built.append(1) or 42) == 42
    assert prepared(g).derived("x", lambda: built.append(1) or 0) == 42
    assert built == [1] and len(checks) == 1


def test_int64_arrays_are_converted_once_and_the_copies_find_the_handle(checks):
    g0 = generate("grid", 100, seed=1)
    g = CSRGraph(g0.indptr.astype(np.int64), g0.indices.astype(np.int64),
                 g0.weights.astype(np.int64))
    h = prepared(g)
    assert h.csr.indices.dtype == np.int32
    assert prepared(h.csr) is h and len(checks) == 1


def test_replaced_weights_make_a_new_handle():
    net = generate("grid", 100, seed=1)
    first = prepared(net)
    net.weights = net.weights * 2
    second = prepared(net)
    assert second is not first
    np.testing.assert_array_equal(second.csr.weights, net.weights)


def test_a_freed_graph_lets_its_handle_go():
    net = generate("grid", 100, seed=1)
    h = weakref.ref(prepared(net))
    prepared(net).derived("big", lambda: np.zeros(10))
    g = CSRGraph.from_any(net)
    assert h() is prepared(g)
    del net, g
    gc.collect()
    assert h() is None


def test_a_pickled_or_copied_graph_is_prepared_again_where_it_lands():
    net = generate("grid", 100, seed=1)
    prepared(net).derived("x", lambda: 1)
    for other in (pickle.loads(pickle.dumps(net)), copy.deepcopy(net),
                  pickle.loads(pickle.dumps(CSRGraph.from_any(net)))):
        h = prepared(other)
        assert h is not prepared(net) and h.get("x") is None
        np.testing.assert_array_equal(h.csr.weights, net.weights)


def test_negative_arcs_decided_once():
    g = CSRGraph.from_edges(3, [0, 1], [1, 2], [4, -1])
    h = prepared(g)
    assert h.negative and not h.indexable and h.min_weight == -1
    with pytest.raises(NegativeWeightsError):
        h.refuse_negative()
    plain = generate("grid", 100, seed=1)
    assert prepared(plain).indexable


def test_from_any_refuses_negative_maps_but_not_for_label_correcting(checks):
    net = generate("grid", 100, seed=1)
    net.weights = net.weights.copy()
    net.weights[0] = -3
    with pytest.raises(NegativeWeightsError, match="-3"):
        CSRGraph.from_any(net)
    assert CSRGraph.from_any(net, allow_negative=True).weights[0] == -3
    assert len(checks) == 1


def test_an_edited_graphs_compaction_is_not_checked_again(checks):
    """A MutableGraph's compaction is valid by construction (edits are checked when applied):
    preparing it after each edit costs no O(m) check_csr (it did after the refactor: +10%
    on bench edits' compact column, docs/perf/house_bench.md)."""
    from gpu_core.dynamic import MutableGraph

    net = generate("grid", 400, seed=2)
    mg = MutableGraph(net, backend="cpu")
    before = len(checks)
    handles = []
    for arc in (3, 10, 25):
        mg.apply(mg.batch().disable([arc]))
        h = prepared(mg)
        assert h.csr.num_arcs == net.num_arcs - len(handles) - 1
        handles.append(h)
        assert sssp(mg, 0, backend="cpu").dist[0] == 0
    assert len({id(h) for h in handles}) == 3  # one handle per compaction
    assert len(checks) == before


def test_a_graph_and_its_handle_form_no_reference_cycle():
    """Freed by reference counting alone, without the cyclic GC: a CSRGraph, a map (and the
    CSRGraph its handle made), a MutableGraph's stale compaction. With a cycle the stale
    compactions' arrays waited for the GC (bench edits: compact +22%, docs/perf/house_bench.md)."""
    from gpu_core.dynamic import MutableGraph

    gc.collect()
    gc.disable()
    try:
        g0 = generate("grid", 100, seed=1)
        g = CSRGraph(g0.indptr.copy(), g0.indices.copy(), g0.weights.copy())
        prepared(g).derived("x", lambda: 1)
        refs = [weakref.ref(g), weakref.ref(prepared(g))]
        net = generate("grid", 100, seed=1)
        refs += [weakref.ref(net), weakref.ref(prepared(net)), weakref.ref(prepared(net).csr)]
        assert prepared(prepared(net).csr) is prepared(net)  # the map's CSRGraph finds it
        mg = MutableGraph(generate("grid", 100, seed=1), backend="cpu")
        sssp(mg, 0, backend="cpu")
        refs += [weakref.ref(mg.as_csr_graph()), weakref.ref(prepared(mg))]
        mg.apply(mg.batch().disable([3]))
        sssp(mg, 0, backend="cpu")  # a new compaction and handle: the old ones go
        del g, net
        assert [r() is None for r in refs] == [True] * len(refs)
    finally:
        gc.enable()
