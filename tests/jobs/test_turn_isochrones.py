"""Isochrones on a turn-restricted map (issue 39): each road is entered at the oracle's
least legal cost (tests/turn_oracle.py: a turn-expanded Dijkstra over the map without
restrictions), so the road reached within each cutoff is the legal one, and the polygons
are that road's buffer."""

from __future__ import annotations

import numpy as np
import pytest

from app.jobs import isochrones
from maps.formats.osm import load_osm
from maps.formats.osm_turns import read_restrictions
from maps.model.turns import to_original
from tests.maps.test_turns import grid_osm
from tests.turn_oracle import oracle_arc_end

CUTOFFS = (300, 600, 900)
BUFFER_M = 5.0


@pytest.fixture(scope="module")
def maps(tmp_path_factory):
    p = tmp_path_factory.mktemp("turn_iso") / "grid.osm"
    grid_osm(p)
    path = str(p)
    return (load_osm(path, profile="drive"), load_osm(path, profile="drive",
                                                      turn_restrictions=False),
            read_restrictions(path).restrictions)


def _entered(net, plain, dist: np.ndarray) -> np.ndarray:
    """Per arc of ``plain``: the least cost at which a node-based search on ``net`` (turn
    copies and all) enters it: the least over the arc's copies of its tail's cost."""
    pt = plain.arc_sources()
    key = {(int(a), int(b), int(w)): e for e, (a, b, w) in
           enumerate(zip(pt, plain.indices, plain.edge_source_id, strict=True))}
    t, h = to_original(net, net.arc_sources()), to_original(net, net.indices)
    d = np.asarray(dist, dtype=np.int64)[net.arc_sources()]
    out = np.full(plain.num_arcs, -1, dtype=np.int64)
    for e in np.flatnonzero(d >= 0).tolist():
        k = key[(int(t[e]), int(h[e]), int(net.edge_source_id[e]))]
        if out[k] < 0 or d[e] < out[k]:
            out[k] = d[e]
    return out


def _legal_entry(plain, rules, source: int) -> np.ndarray:
    end = oracle_arc_end(plain, rules, source)
    return np.where(end >= 0, end - np.asarray(plain.weights, np.int64), -1)


def _road_buffer(plain, source: int, start: np.ndarray, cutoff: int):
    """The buffer of the road driven within ``cutoff`` when arc e is entered at start[e]."""
    import shapely

    w = np.asarray(plain.weights, dtype=np.int64)
    lines = isochrones._ArcLines(plain, np.arange(plain.num_arcs), plain.arc_sources())
    ok = (start >= 0) & (start <= cutoff)
    frac = np.ones(plain.num_arcs)
    pos = ok & (w > 0)
    frac[pos] = np.minimum(1.0, (cutoff - start[pos]) / w[pos])
    arcs = np.flatnonzero(ok & (frac > 0))
    parts = lines.slices(arcs, np.zeros(arcs.size), frac[arcs] * lines.length[arcs]).tolist()
    return isochrones._buffer([shapely.Point(plain.x[source], plain.y[source]), *parts],
                              BUFFER_M)


@pytest.mark.parametrize("source", [0, 40, 77])
def test_isochrones_reach_the_oracles_road(maps, source):
    net, plain, rules = maps
    legal = _legal_entry(plain, rules, source)
    res = isochrones.run(net, isochrones.IsochroneOptions(
        source, CUTOFFS, buffer_m=BUFFER_M, backend="cpu", method="union"))
    assert np.array_equal(_entered(net, plain, res.dist), legal)
    for k, c in enumerate(CUTOFFS):
        ref = _road_buffer(plain, source, legal, c)
        # the outline moves by at most a tenth of the buffer (isochrones._buffer simplifies)
        assert res.polygons_xy[k].hausdorff_distance(ref) <= BUFFER_M / 10 + 1e-6, (source, c)


def test_unrestricted_isochrones_would_differ(maps):
    """Without the bans roads are entered cheaper somewhere: the test above has teeth."""
    from gpu_core.sssp import sssp

    net, plain, rules = maps
    cheaper = 0
    for s in (0, 40, 77):
        free = sssp(plain, s, backend="cpu")
        got = _entered(plain, plain, np.where(free.reached, free.dist, -1))
        legal = _legal_entry(plain, rules, s)
        cheaper += int(((got < legal) & (got <= CUTOFFS[-1])).sum())
    assert cheaper > 0
