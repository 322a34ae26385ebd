"""Clicks through the index (issue 26): the sssp and route jobs take the map's search
index when one was built (never building one under ``auto``) and give the same dist,
pred and hops as without; explicit strategies and edited maps run today's search."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.jobs import index, route, sssp
from gpu_core.graph import prepared
from gpu_core.reference import reference_sssp
from maps.generate import generate

SAMPLE = str(Path(__file__).resolve().parents[2] / "maps" / "samples" / "helsinki.osm.pbf")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    return tmp_path


def same(a, b) -> None:
    for f in ("dist", "pred", "hops"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)


def test_auto_never_builds_then_uses_the_built_index(cache):
    net = generate("grid", 2000, seed=7)
    before = sssp.run(net, sssp.SsspJobOptions(5, backend="cpu"))
    assert "index" not in before.extra and not list(cache.glob("ch-*.npz"))
    info = index.prepare_search_index(net, backend="cpu")
    assert info.source == "built" and list(cache.glob("ch-*.npz"))
    h = index.key_hierarchy_for(net)[0]
    (ready,) = prepared(net).get("one_to_all")  # checked, with its CPU engine: clicks pay nothing
    assert ready.h is h
    assert ready._cpu is not None
    for src in (5, 1999):
        got = sssp.run(net, sssp.SsspJobOptions(src, backend="cpu"))
        assert got.extra["index"] == "phast"
        same(got, sssp.run(net, sssp.SsspJobOptions(src, backend="cpu", index="off")))
        key, dist, pred = reference_sssp(net, src)
        np.testing.assert_array_equal(got.dist, dist)
        np.testing.assert_array_equal(got.pred, pred)
    explicit = sssp.run(net, sssp.SsspJobOptions(5, "delta", backend="cpu"))
    assert "index" not in explicit.extra
    same(explicit, before)


def test_the_cache_entry_serves_a_fresh_copy_of_the_map(cache):
    net = generate("grid", 1500, seed=8)
    h, info = index.key_hierarchy_for(net, policy="on")
    assert info.source == "built" and h is not None
    twin = generate("grid", 1500, seed=8)  # new arrays: no memo, the file is read
    h2, info2 = index.key_hierarchy_for(twin, policy="auto")
    assert info2.source == "cache" and h2.graph_key == h.graph_key
    # the plain route index of the same map is another entry
    index.hierarchy_for(net, policy="on")
    assert len(list(cache.glob("ch-*.npz"))) == 2


def test_edited_maps_and_negative_or_random_graphs_get_none(cache):
    net = generate("grid", 1500, seed=9)
    net.meta["edits"] = 3
    assert index.key_hierarchy_for(net, policy="auto") == (None, index.IndexInfo())
    rnd = generate("random", 3000, seed=2)
    assert index.prepare_search_index(rnd).source == "none"  # not road-shaped: no build
    assert index.key_hierarchy_for(rnd, policy="auto")[0] is None


def test_sample_map_route_and_field(cache):
    from app.jobs.maps import open_map

    net = open_map(SAMPLE, profile="walk")
    index.prepare_search_index(net)
    opts = route.RouteOptions("node:" + str(int(net.node_ids[10])),
                              "node:" + str(int(net.node_ids[net.num_nodes // 2])),
                              backend="cpu")
    with_index = route.run(net, opts)
    without = route.run(net, route.RouteOptions(opts.from_text, opts.to_text, backend="cpu",
                                                index="off"))
    assert with_index.route.result.extra["index"] == "phast"
    np.testing.assert_array_equal(with_index.route.nodes, without.route.nodes)
    assert with_index.route.cost == without.route.cost
    for src in (0, 10, net.num_nodes - 1):
        got = sssp.run(net, sssp.SsspJobOptions(src, backend="cpu"))
        assert got.extra["index"] == "phast"
        same(got, sssp.run(net, sssp.SsspJobOptions(src, backend="cpu", index="off")))


def test_isochrones_by_cost_take_the_index(cache):
    from app.jobs import isochrones as iso
    from app.jobs.maps import open_map

    net = open_map(SAMPLE, profile="walk")
    index.prepare_search_index(net, backend="cpu")
    src = net.num_nodes // 3
    opts = iso.IsochroneOptions(src, (1000, 3000), backend="cpu")
    with_index = iso.run(net, opts)
    without = iso.run(net, iso.IsochroneOptions(src, (1000, 3000), backend="cpu", index="off"))
    np.testing.assert_array_equal(with_index.dist, without.dist)
    assert [p.area for p in with_index.polygons_xy] == [p.area for p in without.polygons_xy]


@pytest.mark.parametrize("levels,backend,policy,taken", [
    (296, "cupy", "auto", True), (1620, "cupy", "auto", False), (1620, "cupy", "on", True),
    (1620, "cpu", "auto", True)])
def test_gpu_takes_the_index_when_its_sweep_is_short(monkeypatch, levels, backend, policy, taken):
    # the GPU's indexed sweep costs its chain of levels: under policy auto it is taken up
    # to GPU_INDEX_MAX_LEVELS levels, beyond that the one-launch search stays
    import types

    import gpu_core.backend
    from app.jobs import sssp as sssp_job

    h = types.SimpleNamespace(levels=levels)
    monkeypatch.setattr(index, "key_hierarchy_for", lambda net, **kw: (h, None))
    monkeypatch.setattr(gpu_core.backend, "resolve_backend", lambda b="auto": backend)
    assert sssp_job.GPU_INDEX_MAX_LEVELS < 1620
    got = sssp_job.search_index(object(), "auto", policy, backend=backend)
    assert (got is h) == taken
    assert sssp_job.search_index(object(), "bf", policy, backend=backend) is None


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign"])
def test_auto_repairs_a_damaged_or_foreign_search_index(cache, damage, caplog):
    # issue 40, item 9: only "on" and the window rebuilt such a file; "auto" now does too
    net = generate("grid", 1500, seed=11)
    h, info = index.key_hierarchy_for(net, policy="on")
    (path,) = cache.glob("ch-*.npz")
    if damage == "garbage":
        path.write_bytes(b"not an index at all" * 10)
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    else:  # another map's index under this map's name
        other = generate("grid", 1200, seed=12)
        index.key_hierarchy_for(other, policy="on")
        (theirs,) = [p for p in cache.glob("ch-*.npz") if p != path]
        path.write_bytes(theirs.read_bytes())
    twin = generate("grid", 1500, seed=11)  # no memo: the file is read
    with caplog.at_level("WARNING", logger="app.jobs.index"):
        h2, info2 = index.key_hierarchy_for(twin, policy="auto")
    assert h2 is not None and info2.source == "rebuilt" and h2.graph_key == h.graph_key
    assert "could not be used" in info2.reason and str(path) in info2.reason
    assert len([r for r in caplog.records if "rebuilt" in r.getMessage()]) == 1
    third = generate("grid", 1500, seed=11)  # the repaired file now serves
    assert index.key_hierarchy_for(third, policy="auto")[1].source == "cache"
