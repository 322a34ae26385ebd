"""The window's band grid without polygons (``app.jobs.iso_bands``, issue 42 item 1)
against the geometry it stands for: the road reached within each cutoff, cut along the
drawn polylines by the independent slicing code of the polygon method (``_ArcLines``),
measured with shapely. A cell is in band <= k where its centre lies well within the
buffer of that road, and only where it lies within the buffer plus a cell's reach."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import shapely
from scipy.sparse.csgraph import dijkstra

from app.jobs import isochrones as iso
from app.jobs.iso_bands import band_grid
from app.jobs.maps import open_map, resolve_texts
from maps.generate import generate
from maps.model.build import build_network

SAMPLE = str(Path(__file__).resolve().parents[2] / "maps" / "samples" / "helsinki.osm.pbf")


def _dist(net, src) -> np.ndarray:
    d = dijkstra(net.to_scipy(), indices=src)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def _reached_road(net, dist, cut, source):
    """The road within ``cut`` of the source, cut mid-arc along the drawn geometry."""
    lines = iso._ArcLines(net, np.arange(net.num_arcs), net.arc_sources())
    return shapely.union_all(lines.reached(dist, np.asarray(net.weights), cut, source))


def _check_bands(net, src, cuts, buffer_m, max_cells=2_500_000):
    dist = _dist(net, src)
    band, x0, y0, h = band_grid(net, dist, cuts, buffer_m, src, max_cells=max_cells)
    ny, nx = band.shape
    assert ny * nx <= max_cells * 1.01 + 2 * (nx + ny) + 1
    assert band.min() >= -1 and band.max() < len(cuts)
    cx, cy = np.meshgrid(x0 + h * np.arange(nx), y0 + h * np.arange(ny))
    centres = shapely.points(cx.ravel(), cy.ravel())
    node_cells = (np.rint((net.y - y0) / h).astype(int), np.rint((net.x - x0) / h).astype(int))
    for k, cut in enumerate(cuts):
        road = _reached_road(net, dist, cut, src)
        gap = shapely.distance(road, centres).reshape(ny, nx)
        inside = band.ravel().reshape(ny, nx)
        inside = (inside >= 0) & (inside <= k)
        # sound: a cell in the band lies within the buffer of a sample's cell centre,
        # the sample within half a cell diagonal of that centre
        assert gap[inside].max() < buffer_m + h * 0.7072
        # complete: samples every cell along the road, so a centre that deep inside
        # the buffer has a marked cell within it
        deep = gap < buffer_m - h * (0.5 + 0.7072)
        assert inside[deep].all() and (deep.sum() > 0 or buffer_m < 1.3 * h)
        # every node reached within the cutoff lies in a cell of the band or a smaller one
        r = np.nonzero((dist >= 0) & (dist <= cut))[0]
        got = band[node_cells[0][r], node_cells[1][r]]
        assert ((got >= 0) & (got <= k)).all()
    return band


def test_bands_follow_the_drawn_geometry_on_the_sample_map():
    net = open_map(SAMPLE, profile="walk", contract=True)  # chains merged: drawn points
    assert net.geom_xy is not None and net.geom_xy.shape[0] > 0  # arcs with drawn points
    src = resolve_texts(net, "24.94,60.17")[0].node
    dist = _dist(net, src)
    reach = np.sort(dist[dist >= 0])
    cuts = tuple(int(reach[int(q * (reach.size - 1))]) for q in (0.1, 0.3, 0.6))
    band = _check_bands(net, src, cuts, 60.0, max_cells=200_000)
    assert set(np.unique(band)) == {-1, 0, 1, 2}


def test_bands_on_a_generated_map_without_drawn_points():
    net = generate("kanto", 3_000, seed=2)
    dist = _dist(net, 0)
    reach = np.sort(dist[dist >= 0])
    cuts = tuple(int(reach[int(q * (reach.size - 1))]) for q in (0.2, 0.5, 0.8, 1.0))
    _check_bands(net, 0, cuts, 400.0, max_cells=100_000)


def test_long_bent_arcs_with_cutoffs_inside_them():
    """A star of 2-3 km two-way roads drawn with bends, cost = decimetres: every cutoff
    falls inside an arc, far from any node, where only the sampling along the road and
    the exact frontier points mark the cells."""
    rng = np.random.default_rng(7)
    tails, heads, geometry = [], [], []
    x, y = [0.0], [0.0]
    for k in range(6):
        ang = 2 * np.pi * k / 6 + rng.uniform(-0.2, 0.2)
        r = rng.uniform(2000, 3000)
        bend = np.array([[np.cos(ang + 0.3) * r / 2, np.sin(ang + 0.3) * r / 2]])
        x.append(np.cos(ang) * r)
        y.append(np.sin(ang) * r)
        tails += [0, k + 1]
        heads += [k + 1, 0]
        geometry += [bend, bend[::-1]]
    x, y = np.array(x), np.array(y)
    tails, heads = np.array(tails), np.array(heads)
    bx, by = np.array([g[0, 0] for g in geometry]), np.array([g[0, 1] for g in geometry])
    metres = (np.hypot(bx - x[tails], by - y[tails]) + np.hypot(x[heads] - bx, y[heads] - by))
    net = build_network(tails=tails, heads=heads, weights=np.rint(metres * 10).astype(np.int64),
                        node_ids=np.arange(1, 8), unit="dm", profile="length", x=x, y=y,
                        origin=(24.9, 60.2), geometry=geometry)
    for cells in (2_500_000, 2_000):  # fine cells, and cells coarser than the buffer
        _check_bands(net, 0, (3_000, 9_000, 17_000), 25.0, max_cells=cells)


def test_a_cutoff_inside_a_long_arc_marks_the_road_up_to_it():
    """One 1,000 m arc, cost 1,000: the cutoff 400 falls inside it; the band reaches 400 m
    along the road (within a cell) and no farther."""
    net = build_network(tails=np.array([0]), heads=np.array([1]), weights=np.array([1000]),
                        node_ids=np.array([1, 2]), unit="dm", profile="length",
                        x=np.array([0.0, 1000.0]), y=np.array([0.0, 0.0]), origin=(24.9, 60.2))
    band, x0, y0, h = band_grid(net, np.array([0, 1000]), (400, 1000), 20.0, 0)
    row = int(np.rint(-y0 / h))
    xs = x0 + h * np.arange(band.shape[1])
    in0 = xs[band[row] == 0]
    assert in0.min() < 0 and 400 - h < in0.max() < 400 + 20 + h
    in1 = xs[band[row] == 1]
    assert in1.min() > 400 - h and in1.max() > 1000
    on_road = (xs >= 0) & (xs <= 1000)
    assert (band[row][on_road] >= 0).all()  # no gap along the road


def test_an_unreachable_map_gives_the_source_cell_only():
    net = build_network(tails=np.array([1]), heads=np.array([0]), weights=np.array([10]),
                        node_ids=np.array([1, 2]), unit="dm", profile="length",
                        x=np.array([0.0, 500.0]), y=np.array([0.0, 0.0]), origin=(24.9, 60.2))
    band, x0, y0, h = band_grid(net, np.array([0, -1]), (100,), 20.0, 0)
    cells = np.argwhere(band == 0)
    assert cells.size and np.hypot(*(cells.mean(axis=0) - [-y0 / h, -x0 / h])) < 1.0
    assert (band == 0).sum() <= np.pi * (20.0 / h + 1) ** 2


@pytest.mark.parametrize("cells", [50_000, 400_000])
def test_the_window_path_returns_the_grid_and_no_polygon(cells):
    net = generate("kanto", 2_000, seed=4)
    dist = _dist(net, 5)
    cut = (int(np.max(dist)),)
    res = iso.run(net, iso.IsochroneOptions(5, cut, lonlat=False, trace=False, buffer_m=100.0,
                                            max_cells=cells), dist=dist)
    assert res.polygons_xy == [] and res.band_grid is not None
    band = res.band_grid[0]
    assert band.size <= cells * 1.01 + 2 * sum(band.shape) + 1
    assert (band == 0).any() and res.timings["cell_m"] == res.band_grid[3]
