"""Billboards per junction on the GPU (issue 39): the exact junction greedy and the
sampled one give the CPU's sites and numbers on a turn-restricted map; a turn-ban edit's
map too."""

from __future__ import annotations

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

from app.jobs import billboards  # noqa: E402
from app.jobs.edits import Edit, Scenario  # noqa: E402
from maps.formats.osm import load_osm  # noqa: E402
from maps.formats.osm_turns import read_restrictions  # noqa: E402
from tests.maps.test_turns import grid_osm  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    p = tmp_path_factory.mktemp("turn_bb_gpu") / "grid.osm"
    grid_osm(p, k=8, seed=4)
    return load_osm(str(p), profile="drive")


@pytest.mark.parametrize("method", ["exact", "sampled"])
def test_junction_billboards_gpu_equal_cpu(net, method):
    got = {}
    for be in ("cpu", "cupy"):
        opts = billboards.BillboardsOptions(4, backend=be, method=method, epsilon=0.2)
        got[be] = billboards.run(net, opts).billboards
    assert got["cpu"].sites.tolist() == got["cupy"].sites.tolist()
    np.testing.assert_allclose(got["cpu"].group_betweenness, got["cupy"].group_betweenness,
                               rtol=1e-9)


def test_turn_ban_edit_gpu_scenario_equals_cpu(net):
    from app.jobs.edits import EditError
    from gpu_core.sssp import sssp
    from maps.model.turns import fold

    sc = {be: Scenario(net, backend=be) for be in ("cpu", "cupy")}
    for r in read_restrictions(net.source_path).restrictions:
        if r.via_node is None:
            continue
        edit = Edit("lift_turn", turn=(r.from_ways[0], r.via_node, r.to_ways[0]))
        try:
            sc["cpu"].apply(edit)
        except EditError:  # legal already (a one-way from-way): try the next
            continue
        sc["cupy"].apply(edit)
        break
    assert sc["cupy"].edits
    a, b = (sc[be].network() for be in ("cpu", "cupy"))
    for s in (0, 30):
        ra, rb = sssp(a, s, backend="cpu"), sssp(b, s, backend="cupy")
        assert np.array_equal(fold(a, np.where(ra.reached, ra.dist, -1)),
                              fold(b, np.where(rb.reached, rb.dist, -1)))
