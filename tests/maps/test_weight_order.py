"""Issue 40 item 6: float weights scaled to int32 keep path sums in order wherever int32
allows (the finest scale), and a load that still rounds says so in a warning."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

import maps
from app.cli import main
from maps.load import load_map
from tests.maps.gis_files import write_lines

A, B, C, D, E = (8.53, 47.37), (8.531, 47.37), (8.532, 47.37), (8.533, 47.37), (8.5315, 47.371)


def test_one_arc_of_0_9999995_beats_three_of_a_third() -> None:
    # exact order: 0.9999995 < 3 x 1/3; at x 10**6 (1/3 "whole to 1e-6") it flipped
    net = maps.from_edges([1, 2, 3, 1], [2, 3, 4, 4], [1 / 3, 1 / 3, 1 / 3, 0.9999995])
    d = dijkstra(net.to_scipy(), indices=net.index_of(1))[net.index_of(4)]
    direct = int(net.weights[net.arc_between(net.index_of(1), net.index_of(4))])
    assert d == direct and 3 * int(net.weights.min()) > direct


def _map(tmp_path, big: float):
    lines = [np.array(x) for x in ([A, B], [B, C], [C, D], [A, E, D], [D, (8.54, 47.37)])]
    props = [{"cost": c} for c in (1 / 3, 1 / 3, 1 / 3, 0.9999, big)]
    return write_lines(tmp_path / "w.geojson", lines, props, crs=None)


def test_rounding_that_can_change_an_order_is_said(tmp_path, capsys) -> None:
    p = _map(tmp_path, 1e6)  # 1e6 leaves x 10**3: 3 x 333 < 1000, the order flips
    net = load_map(str(p), weight="cost", use_cache=False)
    (note,) = net.meta["load_warnings"]
    assert "'cost'" in note and "rounded" in note and "other order" in note
    for _ in range(2):  # fresh and from the cache: the warning each time
        rc = main(["info", str(p), "--weight", "cost"])
        err = capsys.readouterr().err
        assert rc == 0 and "warning:" in err and "rounded" in err
        assert "never rounded" not in err


def test_exact_columns_give_no_warning(tmp_path) -> None:
    p = _map(tmp_path, 2.5)
    lines = load_map(str(p), weight="cost", use_cache=False)
    assert "load_warnings" in lines.meta  # 1/3 is never whole
    q = write_lines(tmp_path / "x.geojson", [np.array([A, B])], [{"cost": 0.25}], crs=None)
    assert "load_warnings" not in load_map(str(q), weight="cost", use_cache=False).meta


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
