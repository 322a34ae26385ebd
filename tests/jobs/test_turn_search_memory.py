"""The copies-near view instead of, not beside, the map's own CSR (issue 39, memory): while
the view serves the searches and nothing else holds the map's indptr/indices/weights, they
are freed, and made again from the view, exactly, when something reads them."""

from __future__ import annotations

import pickle
import weakref

import numpy as np
import pytest

from app.jobs import turn_search
from app.jobs.turn_search import legal_costs, view
from gpu_core.graph import CSRGraph, prepared
from gpu_core.sssp import sssp
from maps.formats.osm import load_osm
from maps.model.turns import fold
from tests.maps.test_turns import grid_osm


@pytest.fixture()
def net(tmp_path):
    p = tmp_path / "grid.osm"
    grid_osm(p, k=10, share=0.9)
    return load_osm(str(p), profile="drive")


def _want(net, s: int) -> np.ndarray:
    # the copies-last search on arrays of its own (the map's left as they are)
    g = CSRGraph(net.indptr.copy(), net.indices.copy(), net.weights.copy())
    res = sssp(g, s, backend="cpu")
    return fold(net, np.where(res.reached, res.dist, -1))


def test_the_maps_csr_is_freed_and_given_back_exactly(net):
    want = {s: _want(net, s) for s in (0, 9, 40)}
    before = tuple(a.copy() for a in (net.indptr, net.indices, net.weights))
    shape = (net.num_nodes, net.num_arcs)
    key_space = prepared(net).key_space  # something the map's handle derived
    gone = weakref.ref(net.indices)
    assert np.array_equal(legal_costs(net, 0, backend="cpu"), want[0])
    assert not net.csr_held and gone() is None  # freed, not only hidden
    assert (net.num_nodes, net.num_arcs) == shape and net.csr_held is False
    assert prepared(net).key_space is key_space and not net.csr_held  # no rebuild for that
    assert np.array_equal(legal_costs(net, 9, backend="cpu"), want[9])
    for a, b in zip((net.indptr, net.indices, net.weights), before, strict=True):
        assert a.dtype == b.dtype == np.int32 and np.array_equal(a, b)
    assert net.csr_held
    net.validate()
    h = prepared(net)  # the same handle, its derived values kept, answering for the new arrays
    assert h.key_space is key_space and h.csr.indices is net.indices
    mine = CSRGraph(*(a.copy() for a in before))
    assert np.array_equal(sssp(net, 40, backend="cpu").dist, sssp(mine, 40, backend="cpu").dist)
    assert np.array_equal(legal_costs(net, 40, backend="cpu"), want[40])


def test_held_elsewhere_it_stays(net):
    mine = net.indices  # a caller's reference: freeing would free nothing
    legal_costs(net, 3, backend="cpu")
    assert net.csr_held and net.indices is mine
    del mine
    g = CSRGraph.from_any(net)  # the map's CSRGraph held by a caller (the window does)
    legal_costs(net, 3, backend="cpu")
    assert net.csr_held and g.indices is net.indices
    del g
    legal_costs(net, 3, backend="cpu")
    assert not net.csr_held


def test_given_back_at_most_twice_per_view(net):
    for k in range(turn_search.MAX_RESTORES + 2):
        legal_costs(net, 1, backend="cpu")
        assert net.csr_held is (k >= turn_search.MAX_RESTORES)
        assert net.weights.shape[0] == net.num_arcs  # a reader between searches: given back
    assert net.csr_held


def test_pickled_released_map_carries_its_arrays(net):
    ref = tuple(a.copy() for a in (net.indptr, net.indices, net.weights))
    view(net)
    assert not net.csr_held
    back = pickle.loads(pickle.dumps(net))
    assert back.csr_held
    for a, b in zip((back.indptr, back.indices, back.weights), ref, strict=True):
        assert np.array_equal(a, b)


def test_the_view_goes_with_its_map(tmp_path):
    import gc

    p = tmp_path / "g.osm"
    grid_osm(p, k=8, share=0.9)
    net = load_osm(str(p), profile="drive")
    view(net)
    key = id(net)
    assert key in turn_search._views
    del net
    gc.collect()
    assert key not in turn_search._views
