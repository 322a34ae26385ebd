"""``walk``, ``length`` and ``multimodal`` ignore car turn restrictions (issue 39): their
maps have no turn copies and their routes take turns a ``drive`` ban forbids (costs lower
than the oracle's legal ones, tests/turn_oracle.py, on the same graph)."""

from __future__ import annotations

import numpy as np
import pytest

from maps.formats.osm import load_osm
from maps.formats.osm_turns import read_restrictions
from tests.maps.test_turns import grid_osm
from tests.turn_oracle import oracle_dist


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    p = tmp_path_factory.mktemp("turn_profiles") / "grid.osm"
    grid_osm(p)
    return str(p)


@pytest.mark.parametrize("profile", ["walk", "length", "multimodal"])
def test_profile_ignores_car_restrictions(grid, profile):
    from gpu_core.sssp import sssp

    net = load_osm(grid, profile=profile)
    rules = read_restrictions(grid).restrictions
    assert "turn_restrictions" not in net.meta and "turn_copies" not in net.meta
    below = 0
    for s in (0, 17, 40, 80):
        res = sssp(net, s, backend="cpu")
        got = np.where(res.reached, res.dist, -1)
        legal = oracle_dist(net, rules, s)
        assert np.all((got <= legal) | (legal < 0))
        below += int(((got < legal) & (legal >= 0)).sum())
    assert below > 0  # a route here takes a turn a drive ban forbids


def test_drive_honours_them(grid):
    """The same check on drive finds no cost below the legal one (the one above has teeth)."""
    from gpu_core.sssp import sssp
    from maps.model.turns import fold

    net = load_osm(grid, profile="drive")
    plain = load_osm(grid, profile="drive", turn_restrictions=False)
    rules = read_restrictions(grid).restrictions
    for s in (0, 17, 40, 80):
        res = sssp(net, s, backend="cpu")
        assert np.array_equal(fold(net, np.where(res.reached, res.dist, -1)),
                              oracle_dist(plain, rules, s))
