"""Small work on the CPU needs no compilation and answers bit-identically (issue 41):
``SSSPOptions(small_work=True)`` runs ``auto`` as scipy's Dijkstra on the key weights."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.sssp import SSSPOptions, sssp

from .families import FAMILY_NAMES, make_graph, road_grid

ROOT = Path(__file__).resolve().parents[2]
# by name: the package gpu_core re-exports the function sssp over its module's name
small_mod = importlib.import_module("gpu_core.sssp.cpu.small")
SMALL = SSSPOptions(small_work=True)
REAL_KERNEL_READY = small_mod.kernel_ready


@pytest.fixture(autouse=True)
def cold(monkeypatch):
    """As on a fresh install: the near-far kernel neither compiled nor cached."""
    monkeypatch.setattr(small_mod, "kernel_ready", lambda: False)


def _same(g, src, target=None):
    kernel = sssp(g, src, strategy="auto", backend="cpu", target=target)
    small = sssp(g, src, strategy="auto", backend="cpu", target=target, options=SMALL)
    np.testing.assert_array_equal(small.dist, kernel.dist)
    np.testing.assert_array_equal(small.pred, kernel.pred)
    np.testing.assert_array_equal(small.key, kernel.key)
    assert small.phases.mode_names() == ["cpu"]
    return small


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_bit_identical_on_every_family(name):
    g = make_graph(name, 3)
    _same(g, 0)
    _same(g, [0, g.num_nodes - 1])
    far = int(np.argmax(sssp(g, 0, backend="cpu").dist))
    _same(g, 0, target=far)


def test_bit_identical_with_ties_and_parallel_arcs():
    g = road_grid(40, 40, seed=5)
    _same(g, 7)
    # parallel arcs of different weights, ties everywhere (unit weights)
    tails = [0, 0, 1, 1, 2, 0, 3, 4, 2]
    heads = [1, 1, 2, 3, 4, 2, 4, 5, 5]
    w = [5, 1, 1, 1, 1, 2, 1, 1, 2]
    _same(CSRGraph.from_edges(6, tails, heads, w), 0)


def test_zero_weights_fall_back_to_the_kernel():
    g = CSRGraph.from_edges(3, [0, 1], [1, 2], [0, 0])
    r = sssp(g, 0, strategy="auto", backend="cpu", options=SMALL)
    assert r.dist.tolist() == [0, 0, 0]


def test_small_work_compiles_nothing(tmp_path):
    code = (
        "import numpy as np, numba.core.dispatcher as d\n"
        "done = []\n"
        "orig = d.Dispatcher.compile\n"
        "def comp(self, sig):\n"
        "    done.append(self.py_func.__qualname__)\n"
        "    return orig(self, sig)\n"
        "d.Dispatcher.compile = comp\n"
        "from gpu_core.sssp import SSSPOptions, sssp, warm_up\n"
        "from tests.core.families import road_grid\n"
        "warm_up(['auto'], 'cpu', target=True, small_work=True)\n"
        "r = sssp(road_grid(30, 30, seed=1), 0, backend='cpu', target=5,\n"
        "         options=SSSPOptions(small_work=True))\n"
        "print(sorted(set(done)))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True).stdout.strip()
    assert out == "[]"


def test_a_ready_kernel_is_used(monkeypatch):
    monkeypatch.setattr(small_mod, "kernel_ready", lambda: True)
    g = road_grid(10, 10, seed=2)
    r = sssp(g, 0, strategy="auto", backend="cpu", options=SMALL)
    assert set(r.phases.mode_names()) == {"delta"}


def test_kernel_ready_follows_the_compiled_kernel():
    sssp(road_grid(5, 5, seed=1), 0, strategy="auto", backend="cpu")  # compiled or loaded
    assert REAL_KERNEL_READY()
