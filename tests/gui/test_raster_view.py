"""The raster level of detail off the GUI thread (issue 27, app/gui/raster_view.py): a pan
re-uses the previous pixel→arc image and rasterises only the uncovered strips (checked
against a whole render), and the rasteriser never runs on the GUI thread."""

from __future__ import annotations

import threading
from functools import partial

import numpy as np
import pytest

from app.gui import raster
from app.gui.geometry import build_geometry
from tests.gui.conftest import raster_settled


@pytest.mark.parametrize("shift", [(40, 0), (-25, 17), (3, -60), (0, 33)])
def test_a_pan_renders_the_strips_as_a_whole_render_would(fixture_net, shift):
    geo = build_geometry(fixture_net)
    seg = raster.build_segments(fixture_net, geo)
    w, h = 300, 200
    x0, y0 = float(fixture_net.x.min()), float(fixture_net.y.min())
    rw = float(np.ptp(fixture_net.x)) * 0.6
    scale = w / rw
    rect = (x0, y0, rw, h / scale)
    before = raster.render_ids(seg, rect, (w, h))
    kept = before.copy()
    dx, dy = shift
    moved = (x0 - dx / scale, y0 - dy / scale, rw, h / scale)
    got = raster.render_shifted(seg, before, shift, moved)
    want = raster.render_ids(seg, moved, (w, h))
    np.testing.assert_array_equal(before, kept)  # the image on screen is never written
    assert (want > 0).sum() > 1000
    # a line crossing a strip's edge may step one pixel off: nearly every pixel agrees
    assert (got != want).sum() <= 0.01 * (want > 0).sum()
    # the copied part is the previous image, moved
    inner = got[max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)]
    np.testing.assert_array_equal(inner, before[max(-dy, 0):h + min(-dy, 0), max(-dx, 0):w + min(-dx, 0)])


def test_pan_and_zoom_rasterise_on_the_worker(qtbot, make_window, fixture_net, monkeypatch):
    monkeypatch.setattr(raster, "RASTER_MIN_SEGMENTS", 100)
    threads = []
    for name in ("render_ids", "render_shifted", "render_coloured"):
        real = getattr(raster, name)

        def spy(*a, _real=real, **k):
            threads.append(threading.current_thread() is threading.main_thread())
            return _real(*a, **k)

        monkeypatch.setattr(raster, name, spy)
    c = make_window(fixture_net).canvas
    rv = c.raster
    settled = partial(raster_settled, rv)
    qtbot.waitUntil(settled, timeout=5000)
    # (the first change of the fitted view also fits its aspect: a zoom)
    c.vb.translateBy(x=1.0)
    qtbot.wait(100)
    qtbot.waitUntil(settled, timeout=5000)
    key0 = rv._key
    r = c.vb.viewRect()
    with qtbot.waitSignal(rv.rendered, timeout=5000):
        c.vb.translateBy(x=r.width() * 0.1)
    assert rv.shifted, (key0, rv._key)  # a pan: the previous ids moved, the strip rasterised
    with qtbot.waitSignal(rv.rendered, timeout=5000):
        c.vb.scaleBy((0.5, 0.5))
    assert not rv.shifted
    with qtbot.waitSignal(rv.rendered, timeout=5000):
        c.vb.scaleBy((2.0, 2.0))  # back to the level before: its image is kept
    assert rv.shifted
    want = raster.render_ids(rv.seg, (rv.rect.x(), rv.rect.y(), rv.rect.width(), rv.rect.height()),
                             rv.ids.shape[::-1], min_z=rv._key[3])
    assert (rv.ids != want).sum() <= 0.01 * (want > 0).sum()
    ran = threads[:-1]  # (the last: this test's own render, on this thread)
    assert ran and not any(ran), "the rasteriser ran on the GUI thread"
    # the image on screen is the view's: the rect it is placed over holds the view
    assert rv.rect.contains(c.vb.viewRect().center())
