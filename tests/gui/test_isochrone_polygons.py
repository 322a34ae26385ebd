"""The route tool's isochrone polygons: filled areas at the band edges, a discrete legend,
and an export that reads back as the job's polygons."""

from __future__ import annotations

import json

import numpy as np
import shapely

from tests.gui.helpers import mouse_click_map


def test_polygons_at_band_edges_drawn_and_exported(qtbot, window, fixture_net, tmp_path):
    net = fixture_net
    tool = window.tools["route"]
    panel = window.algo_panel
    panel.sp_bands.setValue(4)
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, float(net.x[0]), float(net.y[0]))
    assert tool.isochrones is None  # polygons are off by default
    panel.chk_polys.setChecked(True)
    qtbot.waitUntil(lambda: tool.isochrones is not None, timeout=30000)
    res, labels = tool.isochrones
    layer = tool._iso_layer
    assert len(layer.items) == len(res.cutoffs) == len(labels) >= 2
    assert layer.legend.isVisible() and len(layer.legend.items) == len(labels)
    # the cutoffs are the band edges; every node reached within one lies in its polygon
    dist = tool.result.dist
    for c, poly in zip(res.cutoffs, res.polygons_xy, strict=True):
        inside = (dist >= 0) & (dist <= c)
        pts = shapely.points(np.column_stack([net.x[inside], net.y[inside]]))
        assert shapely.contains(poly, pts).all()
    out = tmp_path / "iso.geojson"
    window.export("isochrones", str(out))
    feats = json.loads(out.read_text())["features"]
    assert [f["properties"]["cost"] for f in feats] == list(res.cutoffs)
    assert [f["properties"]["label"] for f in feats] == labels
    panel.chk_polys.setChecked(False)
    assert tool.isochrones is None and not layer.items and not layer.legend.isVisible()
