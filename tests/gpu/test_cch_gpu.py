"""The CUDA customization of a CCH topology equals the numba one weight for weight, and
GPHAST over it equals Dijkstra."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_core.errors import InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.hierarchy.cch import build_topology, customize, customize_metric
from gpu_core.multi_source import multi_source_sssp
from tests.core.families import FAMILIES, FAMILY_NAMES

cp = pytest.importorskip("cupy")
pytest.importorskip("pymetis")
pytestmark = pytest.mark.gpu


def _same_metric(g):
    t = build_topology(g)
    up_c, down_c = customize_metric(t, g, backend="cpu")
    up_g, down_g = customize_metric(t, g, backend="cupy")
    np.testing.assert_array_equal(up_g, up_c)
    np.testing.assert_array_equal(down_g, down_c)
    return t


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_families_metric_and_rows(name, make):
    g = make(seed=3)
    t = _same_metric(g)
    src = np.arange(g.num_nodes)
    want = multi_source_sssp(g, src, backend="cpu").dist
    for prune in (False, True):  # the device's pruning may keep other arcs: rows are equal
        h = customize(t, g, backend="cupy", prune=prune)
        got = multi_source_sssp(g, src, backend="cupy", variant="phast", hierarchy=h).dist
        np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 60), data=st.data())
def test_random_multigraphs(n, data):
    m = data.draw(st.integers(0, 5 * n))
    t = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    hd = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = data.draw(st.lists(st.integers(0, 40), min_size=m, max_size=m))
    _same_metric(CSRGraph.from_edges(n, t, hd, w))


def test_road_map_closures_on_the_device():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 40000, seed=2))
    t = _same_metric(g)
    r = np.random.default_rng(5)
    for _ in range(5):  # 10 closures and 10 new weights, re-customized each time
        g2 = _edited(g, r, reweights=10)
        up_c, down_c = customize_metric(t, g2, backend="cpu")
        up_g, down_g = customize_metric(t, g2, backend="cupy")
        np.testing.assert_array_equal(up_g, up_c)
        np.testing.assert_array_equal(down_g, down_c)
        h = customize(t, g2, backend="cupy", prune=bool(r.integers(0, 2)))
        _rows_equal_dijkstra(g2, h, r.integers(0, g.num_nodes, 64))


def _edited(g, r, closures: int = 10, reweights: int = 0):
    """``g`` with ``closures`` random arcs removed and ``reweights`` given new weights."""
    keep = np.ones(g.num_arcs, bool)
    keep[r.integers(0, g.num_arcs, closures)] = False
    w = g.weights.astype(np.int64).copy()
    if reweights:
        w[r.integers(0, g.num_arcs, reweights)] = r.integers(0, 5000, reweights)
    return CSRGraph.from_edges(g.num_nodes, g.arc_sources()[keep], g.indices[keep], w[keep])


def _rows_equal_dijkstra(g, h, src):
    got = multi_source_sssp(g, src, backend="cupy", variant="phast", hierarchy=h).dist
    np.testing.assert_array_equal(got, multi_source_sssp(g, src, backend="cpu").dist)


def test_added_arc_refused_on_the_device():
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 400, seed=1))
    t = build_topology(g)
    g2 = CSRGraph.from_edges(g.num_nodes, np.concatenate([g.arc_sources(), [0]]),
                             np.concatenate([g.indices, [g.num_nodes - 1]]),
                             np.concatenate([g.weights, [1]]))
    with pytest.raises(InvalidArgumentError, match="new road"):
        customize_metric(t, g2, backend="cupy")


def test_matrix_job_recustomizes_on_the_device(tmp_path, monkeypatch):
    from app.jobs import index, matrix
    from app.jobs.edits import apply_edits, parse_close
    from maps.generate import generate

    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    net = generate("grid", 5000, seed=4)
    assert index.hierarchy_for(net, policy="on", backend="cupy")[1].source == "built"
    tails = np.repeat(np.arange(net.num_nodes), np.diff(net.indptr))
    r = np.random.default_rng(2)
    specs = [f"nodes:{net.node_ids[tails[a]]},{net.node_ids[net.indices[a]]}"
             for a in r.integers(0, net.num_arcs, 10)]
    edited, _ = apply_edits(net, [parse_close(s) for s in specs], backend="cpu")
    src = tuple(int(x) for x in r.integers(0, net.num_nodes, 100))
    on = matrix.run(edited, matrix.MatrixOptions(src, src, backend="cupy", index="on"))
    assert on.stats["index"] == "customized"
    off = matrix.run(edited, matrix.MatrixOptions(src, src, backend="cpu", index="off"))
    np.testing.assert_array_equal(on.matrix, off.matrix)


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_device_perfect_metric_and_pruned_index_equal_the_hosts(name, make, monkeypatch):
    from gpu_core.hierarchy import cch
    from gpu_core.hierarchy.metric_cuda import customize_perfect_device
    from gpu_core.hierarchy.perfect import perfect_metric

    g = make(seed=5)
    t = build_topology(g)
    up, down, pu, pd = customize_perfect_device(t, g)
    up_c, down_c = customize_metric(t, g, backend="cpu")
    np.testing.assert_array_equal(up, up_c)
    np.testing.assert_array_equal(down, down_c)
    pu_c, pd_c = perfect_metric(t, up_c, down_c)
    np.testing.assert_array_equal(pu, pu_c)
    np.testing.assert_array_equal(pd, pd_c)
    monkeypatch.setattr(cch, "DEVICE_MIN_EDGES", 0)  # every full customization on the device
    for prune in (True, False):
        h_g = customize(t, g, backend="cupy", prune=prune, reuse=False)
        h_c = customize(t, g, backend="cpu", prune=prune, reuse=False)
        _same_hierarchy(h_g, h_c)


def _same_hierarchy(h_g, h_c):
    for f in ("rank_of", "up_ptr", "up_dst", "up_w", "down_ptr", "down_src", "down_w",
              "level_ptr"):
        np.testing.assert_array_equal(getattr(h_g, f), getattr(h_c, f), err_msg=f)


@pytest.mark.parametrize("kind,n", [("kanto", 30_000), ("grid", 20_000)])
def test_device_full_customization_of_wide_separators(kind, n, monkeypatch):
    """Vertices with hundreds of upward edges (many tiles each): the device's basic and
    perfect metric and keep flags equal the host's fused pass, and a re-customization
    after closures starts from the device's kept metric."""
    from gpu_core.hierarchy import cch
    from gpu_core.hierarchy.metric_cuda import customize_full_device
    from gpu_core.hierarchy.perfect import perfect_and_kept
    from maps.generate import generate

    g = CSRGraph.from_any(generate(kind, n, seed=3))
    t = build_topology(g)
    assert int(np.diff(t.up_ptr).max()) > 64
    up, down, pu, pd, ku, kd, zero = customize_full_device(t, g, prune=True)
    up_c, down_c = customize_metric(t, g, backend="cpu")
    np.testing.assert_array_equal(up, up_c)
    np.testing.assert_array_equal(down, down_c)
    want = perfect_and_kept(t, up_c, down_c)
    assert zero == bool((want[0] == 0).any() or (want[1] == 0).any())
    for got, w in zip((pu, pd, ku, kd)[:2 if zero else 4], want, strict=False):
        np.testing.assert_array_equal(got, w)
    monkeypatch.setattr(cch, "DEVICE_MIN_EDGES", 0)
    h = customize(t, g, backend="cupy")
    assert h.customized == "full"
    _same_hierarchy(h, customize(t, g, backend="cpu", reuse=False))
    r = np.random.default_rng(1)
    g2 = _edited(g, r)
    _rows_equal_dijkstra(g2, customize(t, g2, backend="cupy"), r.integers(0, g.num_nodes, 32))


def test_device_full_customization_reports_progress_and_cancels():
    from gpu_core.errors import CancelledError
    from gpu_core.hierarchy.metric_cuda import customize_full_device
    from maps.generate import generate

    g = CSRGraph.from_any(generate("kanto", 150_000, seed=2))
    t = build_topology(g)
    assert t.lvl_ptr.shape[0] - 1 > 512  # progress and cancel are polled every 256 launches
    seen: list[float] = []
    customize_full_device(t, g, prune=True, progress=lambda f, what: seen.append(f))
    assert seen and seen == sorted(seen) and 0 < seen[0] and seen[-1] <= 1.0
    with pytest.raises(CancelledError):
        customize_full_device(t, g, prune=True, cancel=lambda: True)


def test_device_full_customization_falls_back_to_the_host_when_the_device_is_full(monkeypatch):
    from gpu_core.device import memory
    from gpu_core.hierarchy import cch
    from maps.generate import generate

    g = CSRGraph.from_any(generate("kanto", 30_000, seed=4))
    t = build_topology(g)
    want = customize(t, g, backend="cpu", reuse=False)
    from gpu_core.hierarchy import metric_cuda

    def not_here(*a, **k):
        raise AssertionError("the device customization ran on a full device")

    cp.get_default_memory_pool().free_all_blocks()  # no pooled bytes count as free
    monkeypatch.setattr(cch, "DEVICE_MIN_EDGES", 0)
    monkeypatch.setattr(memory, "free_memory", lambda: (1 << 20, 80 << 30))  # 1 MiB free
    monkeypatch.setattr(metric_cuda, "_slots_initial", not_here)
    got = customize(t, g, backend="cupy", reuse=False)
    assert got.customized == "full"
    _same_hierarchy(got, want)
