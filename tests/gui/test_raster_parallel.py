"""The rasteriser and the colour passes on numba's threads (issue 27, full redraw): the same
pixels as the serial kernels, and a distance field's colour per arc kept between renders
(app/gui/raster.py, app/gui/raster_view.py)."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from app.gui import raster
from app.gui.geometry import build_geometry
from gpu_core.sssp import sssp
from tests.gui.conftest import raster_settled


def _random_segments(rng: np.random.Generator, n: int) -> raster.SegmentSet:
    """A random map: short segments along random walks (most under a pixel or two when
    zoomed out, as on a big road map), long ones across the whole extent, overlaps, both
    widths, and several segments per arc."""
    steps = rng.normal(0.0, 3.0, size=(n, 2)).cumsum(axis=0) % 1000.0
    x0, y0 = steps[:, 0], steps[:, 1]
    x1, y1 = x0 + rng.normal(0, 4, n), y0 + rng.normal(0, 4, n)
    long = rng.random(n) < 0.02
    x1[long] = rng.uniform(-200, 1200, long.sum())
    y1[long] = rng.uniform(-200, 1200, long.sum())
    arc = np.sort(rng.integers(0, n // 3, n)).astype(np.int32)  # draw order: ascending arcs
    f32 = np.float32
    return raster.SegmentSet(
        x0=x0.astype(f32), y0=y0.astype(f32), x1=x1.astype(f32), y1=y1.astype(f32), arc=arc,
        thick=rng.integers(1, 3, n).astype(np.uint8),
        road_colour=rng.integers(1, 2**32, n // 3, dtype=np.uint32), dim_colour=np.zeros(n // 3, np.uint32),
    )


def _oracle(img, seg, ox, oy, scale):
    """The rasteriser's rule in plain Python, as the kernel before issue 27's full-redraw
    work wrote it (a segment inside one pixel: that pixel once; else clipped and stepped)."""
    h, w = img.shape

    def put(py, px, c, th):
        img[py, px] = c
        if th > 1:
            if px + 1 < w:
                img[py, px + 1] = c
            if py + 1 < h:
                img[py + 1, px] = c

    def clip(p, q, t0, t1):
        if p == 0.0:
            return q >= 0.0, t0, t1
        r = q / p
        if p < 0.0:
            return (False, t0, t1) if r > t1 else (True, max(t0, r), t1)
        return (False, t0, t1) if r < t0 else (True, t0, min(t1, r))

    for i in range(seg.size):
        ax, bx = (float(seg.x0[i]) - ox) * scale, (float(seg.x1[i]) - ox) * scale
        ay, by = (float(seg.y0[i]) - oy) * scale, (float(seg.y1[i]) - oy) * scale
        if (ax < 0 and bx < 0) or (ax >= w and bx >= w) or (ay < 0 and by < 0) or (ay >= h and by >= h):
            continue
        c, th = int(seg.arc[i]) + 1, int(seg.thick[i])
        dx, dy = bx - ax, by - ay
        if 0 <= ax < w and 0 <= bx < w and 0 <= ay < h and 0 <= by < h:
            sx, sy, ex, ey = ax, ay, bx, by
            if int(sx) == int(ex) and int(sy) == int(ey):
                put(int(sy), int(sx), c, th)
                continue
        else:
            ok, t0, t1 = clip(-dx, ax, 0.0, 1.0)
            for p, q in ((dx, w - 1e-3 - ax), (-dy, ay), (dy, h - 1e-3 - ay)):
                if ok:
                    ok, t0, t1 = clip(p, q, t0, t1)
            if not ok:
                continue
            sx, sy, ex, ey = ax + t0 * dx, ay + t0 * dy, ax + t1 * dx, ay + t1 * dy
        steps = int(max(abs(ex - sx), abs(ey - sy))) + 1
        fx, fy = (ex - sx) / steps, (ey - sy) / steps
        for k in range(steps + 1):
            px, py = int(sx + fx * k), int(sy + fy * k)
            if 0 <= px < w and 0 <= py < h:
                put(py, px, c, th)


@pytest.mark.parametrize("view", [(0.0, 0.0, 1000.0), (-300.0, 100.0, 1600.0), (300.0, 250.0, 300.0),
                                  (100.0, 50.0, 200.0), (0.0, 0.0, 12000.0)])
def test_rasteriser_draws_the_pixels_of_the_rule_it_had(view):
    """Inside segments are now stepped without the one-pixel test (it cost a quarter of the
    pass in mispredicted branches): the same pixels as before, on a random map with many
    segments inside single pixels (the last view: most of them)."""
    seg = _random_segments(np.random.default_rng(7), 4000)
    w, h = 160, 100
    x, y, rw = view
    want = np.zeros((h, w), np.int32)
    _oracle(want, seg, x, y, w / rw)
    got = np.zeros((h, w), np.int32)
    raster.draw_segments(got, seg.x0, seg.y0, seg.x1, seg.y1, seg.arc, seg.thick, x, y, w / rw)
    assert (want > 0).sum() > 200
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("view", [(0.0, 0.0, 1000.0), (-300.0, 100.0, 1600.0), (400.0, 380.0, 90.0),
                                  (990.0, -5.0, 30.0)])
@pytest.mark.parametrize("nt, blk", [(2, 64), (3, 7), (4, 4096)])
def test_parallel_rasteriser_equals_the_serial_one(view, nt, blk):
    rng = np.random.default_rng(nt * 1000 + blk)
    seg = _random_segments(rng, 30_000)
    w, h = 320, 200
    x, y, rw = view
    scale = w / rw
    args = (seg.x0, seg.y0, seg.x1, seg.y1, seg.arc, seg.thick, x, y, scale)
    base = np.where(rng.random((h, w)) < 0.1, rng.integers(1, 50, (h, w)), 0).astype(np.int32)
    serial, parallel = base.copy(), base.copy()  # drawn over an image (a pan's strips)
    raster.draw_segments(serial, *args)
    raster.draw_segments_parallel(parallel, *args, nt, blk)
    assert (serial != base).sum() > 500  # the view shows something
    np.testing.assert_array_equal(parallel, serial)


def test_render_on_threads_equals_one_thread(fixture_net, monkeypatch):
    """Through render_ids / render_coloured / render_shifted (the level of detail's tail of
    the segments)."""
    monkeypatch.setattr(raster, "PARALLEL_MIN_SEGMENTS", 0)
    geo = build_geometry(fixture_net)
    seg = raster.build_segments(fixture_net, geo)
    x0, y0 = float(fixture_net.x.min()), float(fixture_net.y.min())
    w, h = 400, 300
    for frac, min_z in ((1.0, 0), (1.0, 6), (0.3, 0)):
        rw = float(np.ptp(fixture_net.x)) * frac
        rect = (x0, y0, rw, rw * h / w)
        one = raster.render_ids(seg, rect, (w, h), min_z=min_z, threads=1)
        assert (one > 0).sum() > 1000
        np.testing.assert_array_equal(raster.render_ids(seg, rect, (w, h), min_z=min_z, threads=2), one)
        cols = seg.road_colour[::-1].copy()  # any colour per arc
        for threads in (1, 2):
            ids, argb = raster.render_coloured(seg, rect, (w, h), cols, min_z, threads=threads)
            np.testing.assert_array_equal(ids, one)
            np.testing.assert_array_equal(argb, raster.colourise(one, cols))
        moved = (x0 - 30 * rw / w, y0 + 17 * rw / w, rw, rw * h / w)
        np.testing.assert_array_equal(raster.render_shifted(seg, one, (30, -17), moved, min_z, threads=3),
                                      raster.render_shifted(seg, one, (30, -17), moved, min_z, threads=1))


def test_colour_passes_equal_their_oracles(fixture_net):
    """The gather (colourise) against np.take, and the field per pixel against the field's
    colour per arc gathered: the cache of the latter gives the same image."""
    net = fixture_net
    geo = build_geometry(net)
    seg = raster.build_segments(net, geo)
    rect = (float(net.x.min()), float(net.y.min()), float(np.ptp(net.x)), float(np.ptp(net.y)))
    ids = raster.render_ids(seg, rect, (500, 400))
    cols = seg.road_colour
    np.testing.assert_array_equal(raster.colourise(ids, cols), np.take(np.concatenate([[0], cols]), ids))
    dist = sssp(net, 3, backend="cpu").dist
    lut = raster.lut_argb(np.random.default_rng(0).integers(0, 256, (256, 3)).astype(np.uint8))
    for bands in (0, 7):
        per_pixel, top = raster.field_image(ids, geo, seg, dist, lut, bands)
        per_arc, top2 = raster.field_arc_colours(geo, seg, dist, lut, bands)
        assert top == top2 == int(dist.max())
        assert len(np.unique(per_pixel)) > 5
        np.testing.assert_array_equal(raster.colourise(ids, per_arc), per_pixel)


def test_a_fields_colours_are_kept_between_renders(qtbot, make_window, fixture_net, monkeypatch):
    monkeypatch.setattr(raster, "RASTER_MIN_SEGMENTS", 100)
    made = []
    real = raster.field_arc_colours

    def spy(*a, **k):
        made.append(1)
        return real(*a, **k)

    monkeypatch.setattr(raster, "field_arc_colours", spy)
    c = make_window(fixture_net).canvas
    rv = c.raster
    settled = partial(raster_settled, rv)
    qtbot.waitUntil(settled, timeout=5000)
    dist = sssp(fixture_net, 5, backend="cpu").dist
    c.show_field(dist, "turbo", fixture_net.unit)
    field = rv.field

    def on_screen_is_the_field() -> None:
        want = raster.field_image(rv.ids, rv.geo, rv.seg, *field)[0]
        np.testing.assert_array_equal(rv.item._buf, want)

    on_screen_is_the_field()
    for f in (0.5, 0.7):  # new zoom levels: rendered whole, coloured from the arcs' colours
        with qtbot.waitSignal(rv.rendered, timeout=5000):
            c.vb.scaleBy((f, f))
        qtbot.waitUntil(settled, timeout=5000)
        assert not rv.shifted
        on_screen_is_the_field()
    assert len(made) == 1  # made once for the field, then kept
    c.show_field(sssp(fixture_net, 9, backend="cpu").dist, "turbo", fixture_net.unit)
    field = rv.field
    with qtbot.waitSignal(rv.rendered, timeout=5000):
        c.vb.scaleBy((0.8, 0.8))
    qtbot.waitUntil(settled, timeout=5000)
    on_screen_is_the_field()
    assert len(made) == 2  # a new field: its own colours


def test_core_check_goes_to_one_thread_when_the_threads_shared_a_core():
    cc = raster.CoreCheck()
    assert cc.threads(2) == 2 and cc.threads(1) == 1
    cc.record(2, wall_s=0.010, cpu_s=0.019)  # side by side: keep them
    assert cc.threads(2) == 2
    cc.record(2, wall_s=0.010, cpu_s=0.011)  # one core between the two
    assert [cc.threads(2) for _ in range(cc.RETRY)] == [1] * cc.RETRY
    assert cc.threads(2) == 2  # then tried again
    cc.record(1, wall_s=0.010, cpu_s=0.010)  # one thread tells nothing
    assert cc.threads(2) == 2


def test_draw_follows_the_core_check_with_the_same_pixels(fixture_net, monkeypatch):
    geo = build_geometry(fixture_net)
    seg = raster.build_segments(fixture_net, geo)
    rect = (float(fixture_net.x.min()), float(fixture_net.y.min()), float(np.ptp(fixture_net.x)),
            float(np.ptp(fixture_net.y)))
    monkeypatch.setattr(raster, "PARALLEL_MIN_SEGMENTS", 0)
    monkeypatch.setattr(raster.numba, "get_num_threads", lambda: 2)
    cc = raster.CoreCheck()
    monkeypatch.setattr(raster, "CORES", cc)
    calls = []
    real = raster._draw_threads
    monkeypatch.setattr(raster, "_draw_threads", lambda *a: calls.append(1) or real(*a))
    recorded = []
    monkeypatch.setattr(cc, "record", lambda nt, wall, cpu: recorded.append(nt))
    want = raster.render_ids(seg, rect, (300, 300), threads=1)
    cc.serial_left = 2
    for _ in range(3):
        np.testing.assert_array_equal(raster.render_ids(seg, rect, (300, 300)), want)
    assert len(calls) == 1 and recorded == [2]  # two draws on one thread, then the threads
    np.testing.assert_array_equal(raster.render_ids(seg, rect, (300, 300), threads=2), want)
    assert len(calls) == 2 and recorded == [2]  # threads asked for: not recorded
