"""Drawing helpers without a window: geometry, distance-field bands, the raster kernel."""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import dijkstra

from app.gui import raster
from app.gui.geometry import build_geometry, class_groups, field_bins, nice_step
from app.jobs.route import read_route
from gpu_core.sssp import sssp


def test_geometry_draws_each_street_once_with_inner_points(fixture_net):
    net = fixture_net
    geo = build_geometry(net)
    # Every arc has its reverse in the fixture map: half of them are drawn.
    assert geo.num_drawn == net.num_arcs // 2
    inner = 0 if net.geom_xy is None else net.geom_xy.shape[0] // 2
    assert geo.px.shape[0] == 2 * geo.num_drawn + inner
    x, y, c = geo.gather()
    assert (~c).sum() == geo.num_drawn  # one break after each polyline
    groups = class_groups(net, geo)
    assert sum(len(sel) for _, sel in groups) == geo.num_drawn
    assert {"rail", "residential"} <= {st.name for st, _ in groups}
    assert set(geo.stations.tolist()) == {600, 605}


def test_field_bins_partition_reached_arcs(fixture_net):
    net = fixture_net
    geo = build_geometry(net)
    dist = sssp(net, 0, backend="cpu").dist
    for bands in (0, 5):
        fb = field_bins(geo, dist, bands=bands)
        got = np.sort(np.concatenate(fb.bins + [fb.unreached]))
        assert np.array_equal(got, np.arange(geo.num_drawn))
        assert fb.max_cost == int(dist.max())
        if bands:
            step = fb.edges[1] - fb.edges[0]
            assert step == nice_step(fb.max_cost, 5) and fb.edges[-1] >= fb.max_cost
    assert nice_step(3900, 5) == 1000 and nice_step(26000, 10) == 5000


def test_route_from_pred_matches_dijkstra(fixture_net):
    net = fixture_net
    res = sssp(net, 17, backend="cpu")
    ref = dijkstra(net.to_scipy(), indices=17)
    for t in (0, 250, 599, 605):
        r = read_route(net, res, 17, t)
        assert r.cost == int(ref[t]) == int(net.weights[r.arcs].sum())
        assert len(r.xs) >= r.num_nodes  # inner points included


def test_raster_draws_the_segments_it_is_given():
    # Two arcs: a horizontal line (arc 0) and a vertical one (arc 1) in a 100 m square.
    seg = raster.SegmentSet(
        x0=np.array([0, 50], np.float32), y0=np.array([10, 0], np.float32),
        x1=np.array([100, 50], np.float32), y1=np.array([10, 100], np.float32),
        arc=np.array([0, 1], np.int32), thick=np.array([1, 1], np.uint8),
        road_colour=np.array([0xFF0000FF, 0xFF00FF00], np.uint32),
        dim_colour=np.zeros(2, np.uint32),
    )
    ids = raster.render_ids(seg, (0.0, 0.0, 100.0, 100.0), (100, 100))
    assert set(np.unique(ids[10, :]).tolist()) <= {1, 2} and (ids[10, :] > 0).all()
    assert (ids[:, 50] > 0).all()
    assert ids[50, 10] == 0 and ids[90, 90] == 0
    img = raster.colourise(ids, seg.road_colour)
    assert img[10, 5] == 0xFF0000FF and img[80, 50] == 0xFF00FF00 and img[50, 10] == 0
    # Zoomed into a corner: the long line is clipped, not drawn out of bounds.
    ids2 = raster.render_ids(seg, (40.0, 0.0, 20.0, 20.0), (200, 200))
    assert (ids2[100, :] > 0).all() and ids2[100, 0] == 1 and (ids2[:, 100] == 2).all()


def test_field_colours_follow_cost(fixture_net):
    net = fixture_net
    geo = build_geometry(net)
    seg = raster.build_segments(net, geo)
    assert seg.size == int((geo.pt_count - 1).sum())
    dist = sssp(net, 0, backend="cpu").dist
    lut = np.arange(1, 257, dtype=np.uint32)  # colour k+1 = level k: readable
    cols, top = raster.field_arc_colours(geo, seg, dist, lut)
    assert top == int(dist.max())
    reached = (dist[geo.tails] >= 0) | (dist[geo.heads] >= 0)
    assert np.array_equal(cols[~reached], seg.dim_colour[~reached])
    v = np.minimum(np.where(dist[geo.tails] >= 0, dist[geo.tails], 1 << 62),
                   np.where(dist[geo.heads] >= 0, dist[geo.heads], 1 << 62))[reached]
    assert np.array_equal(cols[reached], (v * 255 // top).astype(np.uint32) + 1)


def test_field_image_is_the_arc_colours_per_pixel(fixture_net):
    """The per-pixel pass (rows in parallel) paints each pixel with its arc's field colour
    (field_arc_colours), background 0, for plain and banded fields."""
    net = fixture_net
    geo = build_geometry(net)
    seg = raster.build_segments(net, geo)
    x0, y0 = float(net.x.min()), float(net.y.min())
    span = float(max(net.x.max() - x0, net.y.max() - y0))
    ids = raster.render_ids(seg, (x0, y0, span, span), (173, 131))
    assert (ids > 0).any() and (ids == 0).any()
    dist = sssp(net, 0, backend="cpu").dist
    lut = np.arange(1, 257, dtype=np.uint32)
    for bands in (0, 4):
        cols, top = raster.field_arc_colours(geo, seg, dist, lut, bands)
        img, top2 = raster.field_image(ids, geo, seg, dist, lut, bands)
        assert top2 == top
        want = np.where(ids > 0, cols[np.maximum(ids, 1) - 1], 0).astype(np.uint32)
        assert np.array_equal(img, want)


def test_segments_match_the_polylines_in_draw_order(fixture_net):
    """build_segments' kernel against the plain numpy split (np.repeat) it replaced."""
    net = fixture_net
    geo = build_geometry(net)
    seg = raster.build_segments(net, geo)
    groups = class_groups(net, geo)
    order = np.concatenate([sel for _, sel in groups])
    zs = np.repeat([min(max(st.z, 0), 15) for st, _ in groups], [sel.size for _, sel in groups])
    counts = geo.pt_count[order] - 1
    ends = np.cumsum(counts)
    first = np.arange(int(counts.sum())) + np.repeat(geo.pt_start[order] - (ends - counts), counts)
    assert np.array_equal(seg.arc, np.repeat(order, counts))
    assert np.array_equal(seg.x0, geo.px[first].astype(np.float32))
    assert np.array_equal(seg.y0, geo.py[first].astype(np.float32))
    assert np.array_equal(seg.x1, geo.px[first + 1].astype(np.float32))
    assert np.array_equal(seg.y1, geo.py[first + 1].astype(np.float32))
    width = {st.name: 2 if st.width >= 2.0 else 1 for st, _ in groups}
    by_arc = np.zeros(geo.num_drawn, np.uint8)
    for st, sel in groups:
        by_arc[sel] = width[st.name]
    assert np.array_equal(seg.thick, by_arc[seg.arc])
    seg_z = np.repeat(zs, counts)
    assert np.array_equal(seg.z_first, np.searchsorted(seg_z, np.arange(16)))
    assert seg.size > geo.num_drawn  # the fixture has polylines of several segments
