"""Small maps build and query the route index with the serial twins of the parallel
kernels (``gpu_core.host.serial``, issue 41): nothing of numba's parfor passes to compile,
the same index and costs bit for bit as the parallel kernels give."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import metric, order
from gpu_core.hierarchy.api import iter_rows
from gpu_core.hierarchy.cch import build_topology, customize
from gpu_core.host import serial
from maps.generate import generate

pytest.importorskip("pymetis")


def _index(g):
    t = build_topology(g)
    return t, customize(t, g, reuse=False)


def _rows(h, src, tgt, query):
    return np.vstack([b for _, b in iter_rows(h, src, tgt, "cpu", query=query)])


def test_a_twin_is_its_own_function_for_numba_and_its_cache():
    twin = order._undirected_serial
    assert twin is not order._undirected
    assert twin.py_func.__qualname__ == "_undirected_serial"
    assert not twin.targetoptions.get("parallel") and order._undirected.targetoptions["parallel"]
    assert twin.py_func.__code__ is order._undirected.py_func.__code__


def test_a_small_map_is_planned_serially_and_a_big_one_is_not(monkeypatch):
    g = CSRGraph.from_any(generate("grid", 900, seed=4))
    t = build_topology(g)
    p = metric._plan(t, metric.TRIANGLES, t.lvl_ptr, t.lvl_vert, None, metric.SERIAL_WORK,
                     metric.SPLIT_WORK)
    assert p.serial and p.ways == 1
    monkeypatch.setattr(serial, "SMALL_NODES", 10)
    monkeypatch.setattr(serial, "BUILD_SERIAL_THREADS", 0)  # as on a machine of many threads
    p = metric._plan(t, metric.TRIANGLES, t.lvl_ptr, t.lvl_vert, None, metric.SERIAL_WORK,
                     metric.SPLIT_WORK)
    assert not p.serial


@pytest.mark.parametrize("seed", [3, 8])
def test_serial_and_parallel_kernels_give_the_same_index(monkeypatch, seed):
    g = CSRGraph.from_any(generate("grid", 1600, seed=seed))
    r = np.random.default_rng(seed)
    src = r.integers(0, g.num_nodes, 12).astype(np.int32)
    tgt = r.integers(0, g.num_nodes, 9).astype(np.int32)
    t_small, h_small = _index(g)
    small = {q: _rows(h_small, src, tgt, q) for q in ("phast", "rphast", "buckets")}
    monkeypatch.setattr(serial, "SMALL_NODES", 0)  # every pick: the parallel kernel
    monkeypatch.setattr(serial, "BUILD_SERIAL_THREADS", 0)  # the build's too
    t_big, h_big = _index(g)
    np.testing.assert_array_equal(t_small.rank, t_big.rank)
    np.testing.assert_array_equal(t_small.up_nb, t_big.up_nb)
    for a in ("rank_of", "up_ptr", "up_dst", "up_w", "down_ptr", "down_src", "down_w"):
        np.testing.assert_array_equal(getattr(h_small, a), getattr(h_big, a), err_msg=a)
    for q, rows in small.items():
        np.testing.assert_array_equal(rows, _rows(h_big, src, tgt, q), err_msg=q)


def test_few_threads_build_serially_on_a_big_map_and_queries_stay_parallel(monkeypatch):
    """Issue 43: on a machine of at most two numba threads the index's build takes the
    serial twins whatever the map's size (its parallel kernels cost a fresh install ~27 s
    of compilation for at most 2x on two threads); the queries keep the parallel ones."""
    g = CSRGraph.from_any(generate("grid", 900, seed=4))
    t = build_topology(g)
    monkeypatch.setattr(serial, "SMALL_NODES", 10)  # a "big" map
    monkeypatch.setattr(serial, "build_threads", lambda: 2)
    assert serial.serial_build(g.num_nodes)
    assert serial.pick_build(order._undirected, order._undirected_serial, g.num_nodes) is (
        order._undirected_serial)
    assert serial.pick(order._undirected, order._undirected_serial, g.num_nodes) is (
        order._undirected)
    p = metric._plan(t, metric.TRIANGLES, t.lvl_ptr, t.lvl_vert, None, metric.SERIAL_WORK,
                     metric.SPLIT_WORK)
    assert p.serial
    monkeypatch.setattr(serial, "build_threads", lambda: 3)
    assert not serial.serial_build(g.num_nodes)
    assert serial.pick_build(order._undirected, order._undirected_serial, g.num_nodes) is (
        order._undirected)
    assert serial.serial_build(10)  # a small map: serial whatever the threads
