"""The search index of an edited map (issue 27): closures and new weights re-customize the
map's key index over its topology; the edited map's searches through it equal a fresh
search (and the reference); an added road gets none; undo reuses a recent one."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

from app.jobs import edit_index, index, sssp
from app.jobs.edits import Edit, Scenario
from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import topology_key
from gpu_core.reference import reference_sssp
from gpu_core.sssp import sssp as core_sssp
from maps.generate import generate


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(index, "_RECENT", OrderedDict())
    monkeypatch.setattr(edit_index, "_recent", OrderedDict())
    return tmp_path


def _close(net, arc: int) -> Edit:
    t = int(np.searchsorted(net.indptr, arc, side="right") - 1)
    a, b = int(net.node_ids[t]), int(net.node_ids[net.indices[arc]])
    return Edit("close", nodes=(a, b), label=f"close {a},{b}")


def test_closures_recustomize_and_equal_a_fresh_search():
    net = generate("grid", 2500, seed=3)
    assert index.prepare_search_index(net, backend="cpu").source == "built"
    t = index._cached_topology(topology_key(CSRGraph.from_any(net)))
    assert t._metric.hierarchy is not None  # made ahead: the first edit only updates
    sc = Scenario(net, backend="cpu")
    base = core_sssp(net, 0, backend="cpu")
    far = int(np.argmax(base.dist))
    u = int(base.pred[far])
    arc = int(np.flatnonzero((net.arc_sources() == u) & (net.indices == far))[0])
    sc.apply(_close(net, arc))
    sc.apply(_close(net, int(net.indptr[7])))
    # before: the edited map has no index (auto never builds one)
    assert "index" not in sssp.run(sc.graph, sssp.SsspJobOptions(far, backend="cpu")).extra
    h, info = edit_index.edited_key_index(sc.graph, sc.base_topology_key(), backend="cpu")
    assert h is not None and info.source == "customized", info.reason
    assert h.customized.startswith("partial")
    g = sc.graph.graph()
    for src in (0, far, 1234):
        got = sssp.run(sc.graph, sssp.SsspJobOptions(src, backend="cpu"))
        assert got.extra.get("index") == "phast"
        fresh = core_sssp(g, src, backend="cpu")
        for f in ("dist", "pred", "hops"):
            np.testing.assert_array_equal(getattr(got, f), getattr(fresh, f), err_msg=f)
        _, ref_dist, ref_pred = reference_sssp(g, src)  # the scipy oracle and its pred rule
        np.testing.assert_array_equal(got.dist, ref_dist)
        np.testing.assert_array_equal(got.pred, ref_pred)
    # undo, redo: the same edit state's index comes back without customizing
    sc.undo()
    sc.redo()
    h2, info2 = edit_index.edited_key_index(sc.graph, sc.base_topology_key(), backend="cpu")
    assert h2 is h and info2.source == "recent"


def test_no_topology_or_an_added_road_gives_no_index():
    net = generate("grid", 900, seed=5)
    sc = Scenario(net, backend="cpu")
    sc.apply(_close(net, 3))
    h, info = edit_index.edited_key_index(sc.graph, sc.base_topology_key(), backend="cpu")
    assert h is None and "not built" in info.reason  # the map's index was never built
    index.prepare_search_index(net, backend="cpu")
    lon, lat = float(net.lon[0]), float(net.lat[0])
    lon2, lat2 = float(net.lon[net.num_nodes - 1]), float(net.lat[net.num_nodes - 1])
    sc.apply(Edit("add", line=((lon, lat), (lon2, lat2)), value=5.0, label="add a bridge"))
    h, info = edit_index.edited_key_index(sc.graph, sc.base_topology_key(), backend="cpu")
    assert h is None and info.reason
    assert "index" not in sssp.run(sc.graph, sssp.SsspJobOptions(0, backend="cpu")).extra
