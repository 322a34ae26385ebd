"""The CPU greedy compiles one queue's search per map (issue 41): on a map searched with
Dial's buckets the heap search ``cpu._search`` is not compiled at all (the bucket probe,
``api.eccentricity``, is a plain heapq Dijkstra on small graphs and scipy's on large ones:
neither compiles, and a small map's greedy imports no ``scipy.sparse``; ``lane_search``
prunes the branch it does not take), with the same sites and gains."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpu_core.betweenness import place_billboards
from gpu_core.betweenness.api import _dial_buckets, eccentricity
from gpu_core.betweenness.common import search_weights
from gpu_core.betweenness.cpu import _search
from tests.core import families as fam

ROOT = Path(__file__).resolve().parents[2]


def _last_settled(g, w, s: int) -> int:
    """The cost of the last vertex the heap search settles (the probe before)."""
    n, m = g.num_nodes, g.num_arcs
    dist = np.empty(n, np.int64)
    order = np.empty(n, np.int32)
    cnt = _search(g.indptr, g.indices, w, np.int32(s), False, dist, np.empty(n),
                  np.empty(n), order, np.zeros(n, np.bool_), np.empty(m + 1, np.int64),
                  np.empty(m + 1, np.int32))
    return int(dist[order[cnt - 1]])


@pytest.mark.parametrize("name", ["grid_road", "disconnected", "duplicate_arcs",
                                  "zero_weights", "random_sparse", "self_loops"])
@pytest.mark.parametrize("probe", ["heapq", "scipy"])
def test_the_probe_is_the_heap_search_s_farthest_cost(name, probe, monkeypatch):
    from gpu_core.betweenness import api

    if probe == "scipy":
        monkeypatch.setattr(api, "PROBE_HEAPQ_MAX_NODES", 0)
    g = getattr(fam, name)(3)
    assert (g.num_nodes <= api.PROBE_HEAPQ_MAX_NODES) == (probe == "heapq")
    w = search_weights(g, "weighted")
    s = int(g.indices[0])
    before = g.indptr.copy(), g.indices.copy()
    assert eccentricity(g, w, s) == _last_settled(g, w, s)
    assert np.array_equal(g.indptr, before[0]) and np.array_equal(g.indices, before[1])


_CHILD = """
import json, sys
from gpu_core.betweenness import place_billboards
from gpu_core.betweenness.cpu import _search
from gpu_core.betweenness.cpu_lanes import lane_search
from tests.core import families as fam
r = place_billboards(fam.road_grid(20, 20, seed=3), 3, mode="weighted", backend="cpu",
                     method="exact")
json.dump({"sites": [int(v) for v in r.sites], "gains": [float(x) for x in r.gains],
           "heap": len(_search.signatures), "lane": len(lane_search.signatures),
           "csgraph": "scipy.sparse.csgraph" in sys.modules}, open(sys.argv[1], "w"))
"""


def test_a_dial_map_compiles_no_heap_search(tmp_path):
    g = fam.road_grid(20, 20, seed=3)
    assert _dial_buckets(g, search_weights(g, "weighted")) > 0  # a Dial map
    out = tmp_path / "r.json"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", _CHILD, str(out)], cwd=str(ROOT), env=env,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(out.read_text())
    # (Dial's search is inlined into the one lane_search compiled: issue 41)
    assert got["lane"] == 1 and got["heap"] == 0, got
    assert not got["csgraph"]  # the small map's probe imports no scipy.sparse.csgraph
    here = place_billboards(g, 3, mode="weighted", backend="cpu", method="exact")
    assert got["sites"] == [int(v) for v in here.sites]
    assert got["gains"] == [float(x) for x in here.gains]


@pytest.mark.parametrize("name", ["grid_road", "disconnected", "duplicate_arcs",
                                  "random_sparse", "self_loops", "ring"])
def test_scipy_s_bfs_finds_the_kernel_s_eccentricity(name):
    from gpu_core.shape import _bfs_ecc, _bfs_ecc_scipy

    g = getattr(fam, name)(5)
    before = g.indptr.copy(), g.indices.copy()
    for s in (0, g.num_nodes // 2, g.num_nodes - 1):
        got = _bfs_ecc_scipy(g, s)
        assert np.array_equal(g.indptr, before[0]) and np.array_equal(g.indices, before[1])
        ecc, far = _bfs_ecc(g.indptr, g.indices, np.int64(s))
        assert got == (int(ecc), int(far))


_SAMPLED = """
import json, sys
from numba.core.dispatcher import Dispatcher
seen, real = [], Dispatcher.compile
def spy(disp, sig):
    seen.append(disp.py_func.__module__ + "." + disp.py_func.__qualname__)
    return real(disp, sig)
Dispatcher.compile = spy
from gpu_core.betweenness import place_billboards
from gpu_core.hierarchy import road_shaped
from tests.core import families as fam
g = fam.road_grid(20, 20, seed=3)
shaped = road_shaped(g)  # the same graph: its arrays must not change
r = place_billboards(g, 2, mode="weighted", backend="cpu", method="sampled", epsilon=0.3)
json.dump({"seen": seen, "shaped": bool(shaped), "sites": [int(v) for v in r.sites]},
          open(sys.argv[1], "w"))
"""


def test_a_fresh_sampled_run_compiles_no_error_message_nor_bfs(tmp_path):
    from gpu_core.hierarchy import road_shaped

    out = tmp_path / "r.json"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", _SAMPLED, str(out)], cwd=str(ROOT), env=env,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(out.read_text())
    assert not [f for f in got["seen"] if "raise_with_shape" in f or "_bfs_ecc" in f], got
    assert got["shaped"] == road_shaped(fam.road_grid(20, 20, seed=3))
    here = place_billboards(fam.road_grid(20, 20, seed=3), 2, mode="weighted", backend="cpu", method="sampled",
                            epsilon=0.3)
    assert got["sites"] == [int(v) for v in here.sites]
