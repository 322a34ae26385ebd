"""One-to-all on a turn-restricted map in the copies-near numbering (issue 39,
app.jobs.turn_search): the same costs as the search on the map's own numbering, folded, and
routes read back in the map's node indices."""

from __future__ import annotations

import numpy as np
import pytest

from app.jobs import sssp as sssp_job
from app.jobs.turn_search import legal_costs, sssp_copies_near, view
from gpu_core.sssp import sssp
from maps.formats.osm import load_osm
from maps.model.turns import copies_of, fold, interleaved_order, to_original
from tests.maps.test_turns import grid_osm


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    p = tmp_path_factory.mktemp("turn_search") / "grid.osm"
    grid_osm(p, k=12, share=0.9)
    return load_osm(str(p), profile="drive")


def test_interleaved_order_puts_each_copy_after_its_original(net):
    order = interleaved_order(net)
    c = copies_of(net)
    n0 = net.num_nodes - c.shape[0]
    assert sorted(order.tolist()) == list(range(net.num_nodes))
    assert np.all(np.diff(order[order < n0]) > 0)  # the file's nodes keep their order
    orig = to_original(net, order)
    assert np.all(np.diff(orig) >= 0)  # a node, then its copies: runs in node order


@pytest.mark.parametrize("strategy", ["auto", "delta", "conventional"])
def test_legal_costs_are_the_folded_search(net, strategy):
    n0 = net.num_nodes - copies_of(net).shape[0]
    for s in (0, 7, n0 // 2, n0 - 1):
        res = sssp(net, s, strategy=strategy, backend="cpu")
        want = fold(net, np.where(res.reached, res.dist, -1))
        assert np.array_equal(legal_costs(net, s, strategy=strategy, backend="cpu"), want)


def test_full_result_read_back_in_the_maps_numbering(net):
    s = 5
    res = sssp(net, s, backend="cpu")
    got = sssp_copies_near(net, s, backend="cpu")
    assert np.array_equal(got.dist, res.dist) and int(got.sources[0]) == s
    reached = np.flatnonzero(got.reached)
    for v in reached[:: max(1, reached.size // 40)].tolist():
        path = got.path_to(v)  # a chain of arcs of the map, each step at its cost
        assert path[0] == s and path[-1] == v
        for a, b in zip(path[:-1], path[1:], strict=False):
            row = slice(net.indptr[a], net.indptr[a + 1])
            w = net.weights[row][net.indices[row] == b]
            assert w.size and int(got.dist[b]) == int(got.dist[a]) + int(w.min())
    job = sssp_job.run(net, sssp_job.SsspJobOptions(s, "auto", "cpu"))
    assert np.array_equal(job.dist, res.dist)
    assert view(net) is not None and view(net)[0] is view(net)[0]  # made once, kept
    copy = net.num_nodes - 1  # a copy as the source: its position found too
    assert np.array_equal(sssp_copies_near(net, copy, backend="cpu").dist,
                          sssp(net, copy, backend="cpu").dist)
