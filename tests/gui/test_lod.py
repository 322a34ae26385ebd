"""Class-based level of detail (issue 27): minor classes only when zoomed in, in the
raster (a tail of the z-ordered segments) and on the vector canvas (class paths left
unpainted); a map of one class is always drawn whole; rail at every scale."""

from __future__ import annotations

import numpy as np

from app.gui import raster
from app.gui.geometry import build_geometry, class_groups


def test_lod_rule():
    assert raster.lod_min_z(1.0, 9) == 0  # zoomed in: everything
    assert raster.lod_min_z(5.0, 9) == 2
    assert raster.lod_min_z(500.0, 9) == raster.LOD_COARSE_Z
    assert raster.lod_min_z(500.0, 2) == 2  # one class of z 2 (a generated map): all of it


def test_raster_draws_only_major_classes_when_zoomed_out(fixture_net):
    net = fixture_net
    geo = build_geometry(net)
    seg = raster.build_segments(net, geo)
    z_of = {}
    for style, sel in class_groups(net, geo):
        z_of.update(dict.fromkeys(sel.tolist(), style.z))
    rect = (float(net.x.min()), float(net.y.min()), float(np.ptp(net.x)), float(np.ptp(net.y)))
    all_ids = raster.render_ids(seg, rect, (400, 400))
    assert seg.z_max == 7  # primary; rail (z 10) does not count
    major = raster.render_ids(seg, rect, (400, 400), min_z=6)
    shown_all = {z_of[i - 1] for i in np.unique(all_ids) if i}
    shown_major = {z_of[i - 1] for i in np.unique(major) if i}
    assert 3 in shown_all and min(shown_major) >= 6 and 7 in shown_major
    assert 10 in shown_major  # rail stays
    assert np.count_nonzero(major) < np.count_nonzero(all_ids)


def test_vector_canvas_leaves_minor_classes_out_at_full_extent(window, fixture_net):
    canvas = window.canvas
    assert not canvas.raster_mode
    net = fixture_net
    cx, cy = float(net.x.mean()), float(net.y.mean())
    canvas.vb.setRange(xRange=(cx - 50_000, cx + 50_000), yRange=(cy - 50_000, cy + 50_000),
                       padding=0)
    hidden = {k for k, it in canvas.road_items.items() if it.lod_hidden}
    assert "residential" in hidden and "primary" not in hidden
    canvas.vb.setRange(xRange=(cx - 300, cx + 300), yRange=(cy - 300, cy + 300), padding=0)
    assert not any(it.lod_hidden for it in canvas.road_items.values())
