"""The grid snapping index (app/jobs/snap_index.py) against maps.points.snap.Snapper (shapely's
STRtree) and a brute-force nearest segment: same distance, node and point; the arc the
same or its reverse twin (both directions of a street lie at one distance: Snapper's GEOS
distances differ in the last bit between them, the grid takes the lowest index)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.jobs.snap_index import GridSnapper
from maps.errors import PointError
from maps.generate import grid
from maps.load import load_map
from maps.points.snap import Snapper

SAMPLE = str(Path(__file__).resolve().parents[2] / "maps" / "samples" / "helsinki.osm.pbf")


def _brute(g: GridSnapper, x: float, y: float) -> float:
    d, _ = g._dist(np.arange(g.seg_arc.size), x, y)
    return float(d.min())


@pytest.mark.parametrize("which", ["helsinki", "grid"])
def test_grid_index_answers_as_the_strtree(which):
    net = load_map(SAMPLE) if which == "helsinki" else grid(2500, seed=3)
    g, s = GridSnapper(net), Snapper(net)
    rng = np.random.default_rng(7)
    x0, x1, y0, y1 = net.x.min(), net.x.max(), net.y.min(), net.y.max()
    pts = np.column_stack([rng.uniform(x0 - 400, x1 + 400, 150),
                           rng.uniform(y0 - 400, y1 + 400, 150)])
    pts = np.vstack([pts, np.column_stack([net.x[:20], net.y[:20]])])  # on nodes: ties
    tails = net.arc_sources()
    for x, y in pts:
        a = g.snap(x, y, max_distance_m=1e9)
        b = s.snap(x, y, max_distance_m=1e9)
        assert a.distance_m == pytest.approx(b.distance_m, rel=1e-9, abs=1e-9)
        assert a.distance_m == pytest.approx(_brute(g, x, y), rel=1e-12, abs=1e-12)
        assert (a.x, a.y) == pytest.approx((b.x, b.y), abs=1e-6)
        if a.arc != b.arc:  # reverse twins: same ends swapped, fractions complementary
            assert {tails[a.arc], net.indices[a.arc]} == {tails[b.arc], net.indices[b.arc]}
            assert a.fraction == pytest.approx(1 - b.fraction, abs=1e-9)
            assert a.arc < b.arc
        else:
            assert a.fraction == pytest.approx(b.fraction, abs=1e-9)
            assert a.node == b.node


def test_too_far_is_one_clear_error():
    net = grid(100, seed=1)
    g = GridSnapper(net)
    with pytest.raises(PointError, match="from the nearest road"):
        g.snap(float(net.x.max()) + 5000, float(net.y.max()), max_distance_m=1000)
    with pytest.raises(PointError, match="not finite"):
        g.snap(float("nan"), 0.0)


@pytest.mark.parametrize("radius", [0.5, 15.0, 120.0])
def test_arcs_within_a_radius_as_the_strtree(radius):
    """The click picking's query (app/gui/picking.py) gives the STRtree's arcs and
    distances on the grid too."""
    net = load_map(SAMPLE)
    g, s = GridSnapper(net), Snapper(net)
    rng = np.random.default_rng(11)
    pts = np.column_stack([rng.uniform(net.x.min(), net.x.max(), 60),
                           rng.uniform(net.y.min(), net.y.max(), 60)])
    for x, y in pts:
        pg_, dg = g.arcs_within(x, y, radius)
        ps, ds = s.arcs_within(x, y, radius)
        order = np.argsort(ps)
        # a segment exactly at the radius may fall either side of it by rounding
        inside = ds[order] < radius * (1 - 1e-9)
        got = dict(zip(pg_.tolist(), dg.tolist(), strict=True))
        for p, d in zip(ps[order][inside].tolist(), ds[order][inside].tolist(), strict=True):
            assert got[p] == pytest.approx(d, rel=1e-9, abs=1e-9)
        assert set(got) <= set(ps.tolist()) | {p for p, d in got.items() if d >= radius * (1 - 1e-9)}


def test_segments_equal_the_polylines_of_arc_polylines():
    """The numba pass that lists the segments gives exactly what the array operations on
    maps.points.snap.arc_polylines gave (ends, arc, where each starts, arc lengths)."""
    from maps.points.snap import arc_polylines

    net = load_map(SAMPLE, contract=True)  # degree-2 chains merged: inner points
    assert net.geom_xy is not None and net.geom_xy.shape[0] > 0
    g = GridSnapper(net)
    coords, idx = arc_polylines(net, g.arcs)
    same = idx[1:] == idx[:-1]
    seg_arc = idx[:-1][same]
    ax, ay = coords[:-1, 0][same], coords[:-1, 1][same]
    bx, by = coords[1:, 0][same], coords[1:, 1][same]
    seg_len = np.hypot(bx - ax, by - ay)
    cum = np.cumsum(seg_len)
    first = np.searchsorted(seg_arc, np.arange(g.arcs.size))
    start_of_arc = np.where(first > 0, cum[np.maximum(first - 1, 0)], 0.0)
    for got, want in ((g.ax, ax), (g.ay, ay), (g.bx, bx), (g.by, by), (g.seg_arc, seg_arc),
                      (g.seg_at, cum - seg_len - start_of_arc[seg_arc]), (g.first_seg, first),
                      (g.arc_len, np.bincount(seg_arc, weights=seg_len, minlength=g.arcs.size))):
        np.testing.assert_array_equal(got, want)
