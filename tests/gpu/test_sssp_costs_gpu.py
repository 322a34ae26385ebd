"""``gpu_core.sssp.costs`` on the GPU (issue 39): the fold on the device gives the CPU's
costs byte for byte, on random graphs and on turn-restricted maps (``legal_costs``)."""

from __future__ import annotations

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

from app.jobs.turn_search import legal_costs  # noqa: E402
from gpu_core.sssp.costs import costs  # noqa: E402
from maps.formats.osm import load_osm  # noqa: E402
from maps.model.turns import copies_of  # noqa: E402
from tests.core.families import FAMILY_NAMES, make_graph  # noqa: E402
from tests.core.test_sssp_costs import random_fold  # noqa: E402
from tests.maps.test_turns import grid_osm  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("family", [f for f in FAMILY_NAMES if "single" not in f])
def test_device_fold_equals_the_host_fold(family):
    g = make_graph(family, 7)
    fold = random_fold(g.num_nodes, 3)
    for s in (0, g.num_nodes // 3):
        assert np.array_equal(costs(g, s, backend="cupy"), costs(g, s, backend="cpu"))
        got = costs(g, s, backend="cupy", fold=fold)
        assert np.array_equal(got, costs(g, s, backend="cpu", fold=fold)), (family, s)
    assert len(fold.device_arrays) == 1  # uploaded once, reused


def test_legal_costs_on_the_gpu_equal_the_cpus(tmp_path):
    p = tmp_path / "grid.osm"
    grid_osm(p, k=20, share=0.5)
    net = load_osm(str(p), profile="drive")
    n0 = net.num_nodes - copies_of(net).shape[0]
    for s in (0, 9, n0 // 2, n0 - 1):
        want = legal_costs(net, s, backend="cpu")
        assert want.shape == (n0,)
        assert np.array_equal(legal_costs(net, s, backend="cupy"), want), s
