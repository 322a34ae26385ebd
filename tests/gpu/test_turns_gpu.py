"""Turn restrictions on the GPU (issue 39): the split graph's searches, matrices and the
route index give the CPU's bytes, folded to the file's nodes."""

from __future__ import annotations

import os

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

from gpu_core.sssp import STRATEGIES, sssp  # noqa: E402
from maps.formats.osm import load_osm  # noqa: E402
from maps.model.turns import fold  # noqa: E402
from tests.maps.test_turns import SHARED, grid_osm  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def maps(tmp_path_factory):
    p = tmp_path_factory.mktemp("turns") / "grid.osm"
    grid_osm(p, k=15)
    out = [str(p)]
    andorra = f"{SHARED}/andorra.osm.pbf"
    return out + ([andorra] if os.path.exists(andorra) else [])


def test_sssp_gpu_equals_cpu_on_split_graph(maps):
    for path in maps:
        net = load_osm(path, profile="drive")
        assert net.meta["turn_restrictions"]["applied"] > 0
        for s in (0, net.num_nodes // 3):
            ref = sssp(net, s, backend="cpu")
            want = fold(net, np.where(ref.reached, ref.dist, -1))
            for strat in (x for x in STRATEGIES if x != "auto"):
                res = sssp(net, s, strategy=strat, backend="cupy")
                got = fold(net, np.where(res.reached, res.dist, -1))
                assert np.array_equal(got, want), (path, s, strat)


def test_matrix_gpu_equals_cpu_on_split_graph(maps):
    from app.jobs import matrix

    net = load_osm(maps[0], profile="drive")
    n0 = net.num_nodes - len(net.meta["turn_copies"])
    src = (0, 5, n0 // 2)
    for variant, index in (("auto", "off"), ("task_parallel", "off"), ("phast", "on")):
        cpu = matrix.run(net, matrix.MatrixOptions(src, tuple(range(n0)), backend="cpu",
                                                   variant=variant, index=index)).matrix
        gpu = matrix.run(net, matrix.MatrixOptions(src, tuple(range(n0)), backend="cupy",
                                                   variant=variant, index=index)).matrix
        assert np.array_equal(cpu, gpu), variant
