"""Reading N points costs O(N + n), not O(N x n) (issue 41): the map's coordinate check
(a scan of every node) runs once per map, not once per point."""

from __future__ import annotations

import numpy as np
import pytest

import maps.model.network as network_mod
from maps.model.build import build_network
from maps.points.resolve import read_points


def _grid(side: int):
    """A side x side grid road map with coordinates (two arcs per neighbour pair)."""
    n = side * side
    ids = np.arange(n, dtype=np.int64)
    r, c = np.divmod(ids, side)
    right = ids[c < side - 1]
    down = ids[r < side - 1]
    tails = np.concatenate([right, right + 1, down, down + side])
    heads = np.concatenate([right + 1, right, down + side, down])
    return build_network(
        tails=tails.astype(np.int32), heads=heads.astype(np.int32),
        weights=np.full(tails.size, 10, dtype=np.int32), node_ids=ids + 1,
        unit="dm", profile="file", lon=10.0 + c * 1e-4, lat=50.0 + r * 1e-4,
    )


class _CountingNumpy:
    """numpy for maps.model.network, counting np.isfinite calls (the per-node scan)."""

    def __init__(self, calls: list) -> None:
        self._calls = calls

    def __getattr__(self, name: str):
        return getattr(np, name)

    def isfinite(self, a, *args, **kw):
        self._calls.append(np.size(a))
        return np.isfinite(a, *args, **kw)


@pytest.fixture
def scans(monkeypatch):
    calls: list = []
    monkeypatch.setattr(network_mod, "np", _CountingNumpy(calls))
    return calls


@pytest.mark.parametrize("kind", ["lonlat", "node"])
def test_many_points_scan_the_map_once(tmp_path, scans, kind):
    net = _grid(60)
    rng = np.random.default_rng(1)
    pick = rng.integers(0, net.num_nodes, 400)
    if kind == "lonlat":
        text = "lon,lat\n" + "".join(f"{float(net.lon[i])!r},{float(net.lat[i])!r}\n" for i in pick)
    else:
        text = "node\n" + "".join(f"{int(net.node_ids[i])}\n" for i in pick)
    path = tmp_path / "p.csv"
    path.write_text(text)
    got = read_points(str(path), net)
    assert list(got.nodes) == [int(i) for i in pick]
    assert len(scans) <= 1  # was one scan per point (400)


def test_coordinate_answer_follows_a_replaced_lon_array(scans):
    net = _grid(4)
    assert net.has_coordinates and net.has_coordinates
    assert len(scans) == 1
    lon = net.lon.copy()
    lon[2] = np.nan
    net.lon = lon  # a new array: asked again
    assert not net.has_coordinates
    assert len(scans) == 2
