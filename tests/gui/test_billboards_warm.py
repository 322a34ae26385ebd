"""Once the window's route index is ready on a map where the billboards sample on the CPU,
the placement's once-per-map set-up runs on the index's worker (issue 43: the first
click's first answer waited for it), and the placement then gives the same sites."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch, road_net):
    from collections import OrderedDict

    import app.jobs.index as index
    from gpu_core.graph import forget_prepared

    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    forget_prepared(road_net)
    monkeypatch.setattr(index, "_RECENT", OrderedDict())


def test_the_ready_index_warms_the_sampled_billboards(qtbot, make_window, road_net,
                                                      monkeypatch):
    import app.gui.route_index as ri_mod
    from app.jobs import billboards
    from gpu_core.graph import prepared

    monkeypatch.setattr(ri_mod, "AUTO_MIN_NODES", 1000)  # the sample map counts as big
    monkeypatch.setattr(billboards, "sampled_by_default", lambda net, backend: True)
    warmed: list[float] = []
    real = billboards.warm_sampled
    monkeypatch.setattr(billboards, "warm_sampled", lambda g: warmed.append(real(g)) or 0.0)
    win = make_window(road_net)
    ri = win.route_index
    qtbot.waitUntil(lambda: ri.state == "ready", timeout=180000)
    qtbot.waitUntil(lambda: bool(warmed), timeout=120000)
    assert warmed[0] > 0  # it drew through the index read off the window's key index
    assert prepared(win.graph).get("reverse_topology") is not None
    assert not win.compute.busy()  # the index's worker did it, not the clicks' worker
    # the placement after it: through the same index, the same sites as a fresh process's
    opts = billboards.BillboardsOptions(3, method="sampled", backend="cpu", epsilon=0.3,
                                        seed=2)
    got = billboards.run(win.graph, opts)
    assert got.index["index"] == "search index"
    from gpu_core.graph import CSRGraph

    g = win.graph
    fresh = billboards.run(CSRGraph(g.indptr.copy(), g.indices.copy(), g.weights.copy()),
                           billboards.BillboardsOptions(**{**opts.__dict__, "index": "on"}))
    assert got.billboards.sites.tolist() == fresh.billboards.sites.tolist()
    qtbot.waitUntil(lambda: not win.loader.busy(), timeout=120000)


def test_no_warm_up_where_the_billboards_are_exact(qtbot, make_window, road_net,
                                                   monkeypatch):
    import app.gui.route_index as ri_mod
    from app.jobs import billboards

    monkeypatch.setattr(ri_mod, "AUTO_MIN_NODES", 1000)
    called: list = []
    monkeypatch.setattr(billboards, "warm_sampled", lambda g: called.append(g) or 0.0)
    win = make_window(road_net)
    qtbot.waitUntil(lambda: win.route_index.state == "ready", timeout=180000)
    assert not billboards.sampled_by_default(win.graph, "cpu")  # 5.5K nodes: exact
    qtbot.wait(300)
    assert not called
    qtbot.waitUntil(lambda: not win.loader.busy(), timeout=120000)
