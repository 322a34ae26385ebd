"""Raster isochrone polygons (app/jobs/iso_raster.py) on grid and random-geometry maps:
every node scipy reaches is inside, nothing far from the reached road is, cutoffs nest,
and the outline stays within a cell diagonal of GEOS's exact union of buffers."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from scipy.sparse.csgraph import dijkstra

from app.jobs import isochrones as iso
from maps.generate import grid
from maps.model.build import build_network

ORIGIN = (139.0, 35.0)


def _random_geometric(seed: int, n: int = 400):
    """Nodes uniform in a 3 km square, each joined both ways to its 3 nearest others;
    weights the rounded length in decimetres."""
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(seed)
    xy = rng.random((n, 2)) * 3000
    _, nb = cKDTree(xy).query(xy, k=4)
    t = np.repeat(np.arange(n), 3)
    h = nb[:, 1:].ravel()
    t, h = np.r_[t, h], np.r_[h, t]
    w = np.maximum(np.rint(np.hypot(*(xy[t] - xy[h]).T) * 10), 1).astype(np.int64)
    return build_network(tails=t, heads=h, weights=w, node_ids=np.arange(n) + 1, unit="dm",
                         profile="length", x=xy[:, 0], y=xy[:, 1], origin=ORIGIN)


NETS = {"grid": lambda s: grid(900, seed=s), "random": _random_geometric}


@pytest.mark.parametrize("kind", sorted(NETS))
@pytest.mark.parametrize("seed", [1, 2])
def test_raster_polygons_hold_reached_nodes_nest_and_match_the_union(kind, seed):
    net = NETS[kind](seed)
    rng = np.random.default_rng(seed)
    src = int(rng.integers(net.num_nodes))
    d = dijkstra(net.to_scipy(), indices=src)
    fin = np.sort(d[np.isfinite(d)])
    cuts = tuple(int(fin[int(q * (fin.size - 1))]) for q in (0.1, 0.3, 0.6))
    b = 30.0
    ras = iso.run(net, iso.IsochroneOptions(src, cuts, buffer_m=b, backend="cpu"))
    uni = iso.run(net, iso.IsochroneOptions(src, cuts, buffer_m=b, backend="cpu",
                                            method="union"))
    h = ras.timings["cell_m"]
    assert h <= b / 10
    pts = shapely.points(np.column_stack([net.x, net.y]))
    for c, pr, pu in zip(ras.cutoffs, ras.polygons_xy, uni.polygons_xy, strict=True):
        assert pr.is_valid and pr.geom_type in ("Polygon", "MultiPolygon")
        reached = d <= c
        assert shapely.contains(pr, pts[reached]).all()
        # the outline within a cell diagonal (and GEOS's simplification, b / 10) of the
        # exact union's
        tol = 1.5 * h + b / 10
        assert pu.buffer(tol).contains(pr)
        assert pr.buffer(tol).contains(pu)
        assert not shapely.contains(pr, pts[~shapely.intersects(pu.buffer(tol), pts)]).any()
    for small, big in zip(ras.polygons_xy, ras.polygons_xy[1:], strict=False):
        assert big.buffer(1e-6).contains(small)
    for small, big in zip(ras.polygons, ras.polygons[1:], strict=False):
        assert big.buffer(1e-9).contains(small)


def test_bad_method_is_one_clear_error():
    net = grid(16)
    with pytest.raises(ValueError, match="method must be one of"):
        iso.run(net, iso.IsochroneOptions(0, (100,), method="tiles", backend="cpu"))
