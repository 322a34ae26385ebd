"""The billboards job in the window's process (issue 43): with the map's key-weighted
index held for the clicks, the sampled method reads its plain index off it (no file, no
build: ``index`` "search index") and places the same sites as through the cached file."""

from __future__ import annotations

import numpy as np

from app.jobs import billboards
from app.jobs.billboards import BillboardsOptions
from app.jobs.index import key_hierarchy_for, known_key_index
from gpu_core.graph import CSRGraph
from tests.core import families as fam


def _copy(g: CSRGraph) -> CSRGraph:
    return CSRGraph(g.indptr.copy(), g.indices.copy(), g.weights.copy())


def test_the_window_s_key_index_serves_the_sampled_method(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    g = fam.road_grid(16, 16, seed=6)
    held = _copy(g)
    h, _ = key_hierarchy_for(held, policy="on")  # as the window's worker does at map open
    assert h is not None and known_key_index(held)[0] is h
    opts = BillboardsOptions(k=3, backend="cpu", method="sampled", epsilon=0.2, seed=3,
                             preview=32)
    parts: list = []
    got = billboards.run(held, opts, on_partial=parts.append)
    assert got.index["index"] == "search index" and got.billboards.kernel == "indexed"
    assert parts and parts[0].stopped_by == "preview"
    want = billboards.run(_copy(g), BillboardsOptions(**{**opts.__dict__, "index": "on"}))
    assert want.index["index"] in ("built", "customized", "cache")
    assert got.billboards.sites.tolist() == want.billboards.sites.tolist()
    assert got.billboards.samples == want.billboards.samples
    np.testing.assert_array_equal(got.billboards.group_betweenness,
                                  want.billboards.group_betweenness)
    # index "off" still means none, key index held or not
    off = billboards.run(held, BillboardsOptions(**{**opts.__dict__, "index": "off"}))
    assert not off.index and off.billboards.kernel == "cpu"


def test_no_key_index_of_zero_weight_arcs(tmp_path, monkeypatch):
    """Arcs of weight 0: the search weights are the keys, not the costs; the plain index
    is not read off the key index (the job takes its usual path)."""
    from app.jobs.index import plain_from_key_index

    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    g = fam.road_grid(10, 10, seed=1)
    w = g.weights.copy()
    w[::7] = 0
    z = CSRGraph(g.indptr.copy(), g.indices.copy(), w)
    key_hierarchy_for(z, policy="on")
    assert known_key_index(z)[0] is not None
    assert plain_from_key_index(z) is None


def test_a_placement_waits_for_a_warm_up_in_flight(tmp_path, monkeypatch):
    """The window's warm-up (``warm_sampled``) and a click's placement do not do the same
    once-per-map work side by side: the placement starts when the warm-up has ended."""
    import threading

    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    g = fam.road_grid(12, 12, seed=4)
    order: list[str] = []
    real_index = billboards._index

    def spy(*a, **k):
        order.append("placement")
        return real_index(*a, **k)

    monkeypatch.setattr(billboards, "_index", spy)
    held, go = threading.Event(), threading.Event()

    def warm() -> None:
        with billboards._WARMING:
            held.set()
            go.wait(30)
            order.append("warm-up ended")

    th = threading.Thread(target=warm)
    th.start()
    held.wait(30)
    opts = BillboardsOptions(k=2, backend="cpu", method="sampled", epsilon=0.3, seed=1,
                             index="off")
    placing = threading.Thread(target=billboards.run, args=(g, opts))
    placing.start()
    placing.join(0.5)
    assert order == [] and placing.is_alive()  # waiting for the warm-up
    go.set()
    th.join(30)
    placing.join(60)
    assert order == ["warm-up ended", "placement"]


def test_warm_sampled_without_a_key_index_does_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    g = _copy(fam.road_grid(8, 8, seed=1))
    assert billboards.warm_sampled(g) == 0.0
    assert not billboards._WARMING.locked()
