"""The raster level of detail on the canvas (issue 27): the pixel→arc image of the view is
rendered on a worker thread of its own, so a pan or zoom never waits for it.

Until a render lands, the image on screen is the previous one: :class:`RasterItem` places
it over the rectangle of map metres it shows, so Qt draws it moved and scaled with the view
at once. A pan at the same zoom copies the previous ids and rasterises only the uncovered
strips (:func:`raster.render_shifted`), and so does a zoom back to one of the last few
zoom levels (their id images are kept); another zoom renders the view again. A render is a new
array every time: the compute worker may still be colouring a distance field over the
previous one (``RouteTool._worker_field``).

Far zooms of a big map are resampled from its overview (:mod:`app.gui.overview`): made on
this worker once the first view has landed, then any view whose pixels are at least the
overview's (the full view, zoomed in up to about 2x) is a pass over the overview's pixels,
not over every segment of the map (a pan's strips there too); nearer views are rasterised
as above.
"""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QObject, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem

from . import overview, raster
from .geometry import MapGeometry
from .workers import Job, JobRunner

SCALE_RTOL = 1e-9  # two views of the same scale (a pan, not a zoom)
CACHED_LEVELS = 4  # id images kept, one per zoom level (6.4 MB each at 1600 x 1000)
# The overview is made this long after a view first lands (not at once: while a big map
# opens the loader thread makes the snapping index on the same cores, and the view widget
# may not have its size yet)
OVERVIEW_DELAY_MS = 1000


class RasterItem(QGraphicsItem):
    """A pre-rendered image of the network placed over a rectangle of map metres."""

    def __init__(self):
        super().__init__()
        self._rect = QRectF()
        self._image: QImage | None = None
        self._buf: np.ndarray | None = None  # keeps the pixels the QImage points at alive
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(5)

    def set_image(self, argb: np.ndarray, rect: QRectF) -> None:
        h, w = argb.shape
        self._buf = np.ascontiguousarray(argb)
        self._image = QImage(self._buf.data, w, h, 4 * w, QImage.Format.Format_ARGB32)
        self.prepareGeometryChange()
        self._rect = QRectF(rect)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, p: QPainter, *args) -> None:
        if self._image is not None:
            p.drawImage(self._rect, self._image)


class RasterView(QObject):
    """Which arc shows in each pixel of the canvas's view, and its colours (module doc).

    ``ids``/``rect``: the id image on screen and the map rectangle it covers; ``colours``:
    one ARGB per drawn arc (roads, or a class view), or None while a distance ``field``
    (dist, lut, bands) is shown, coloured per pixel. ``rendered`` is emitted when a new
    id image is on screen; ``render_ms``/``shifted``/``resampled`` tell how the last one was
    made; ``overview``: the map's, far views are resampled from (:mod:`app.gui.overview`)."""

    rendered = Signal()

    def __init__(self, canvas, vb):
        super().__init__(canvas)
        self.canvas, self.vb = canvas, vb
        self.seg: raster.SegmentSet | None = None
        self.geo: MapGeometry | None = None
        self.item: RasterItem | None = None
        self.ids: np.ndarray | None = None
        self.rect: QRectF | None = None
        self.colours: np.ndarray | None = None
        self.field: tuple | None = None
        self._field_cols: tuple | None = None  # (colour gen, ARGB per drawn arc) of ``field``
        self._key: tuple | None = None  # (w, h, scale, min_z, x, y) of ``ids``
        self._cache: list[tuple[tuple, np.ndarray]] = []  # (key, ids), newest first
        self._colour_gen = 0  # bumped whenever colours or field change
        self._job = 0
        self.render_ms = 0.0
        self.shifted = False
        self.resampled = False  # the last render was made from the overview
        self.overview: overview.Overview | None = None
        self.runner = JobRunner("signpost-raster", self)
        self.runner.finished_job.connect(self._rendered)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(30)  # re-render once a pan/zoom pauses
        self.timer.timeout.connect(self.request)
        self.ov_timer = QTimer(self)
        self.ov_timer.setSingleShot(True)
        self.ov_timer.setInterval(OVERVIEW_DELAY_MS)
        self.ov_timer.timeout.connect(self._overview_due)
        self._ov_due = False  # the delay is over: build once the worker is idle

    # ---- state ------------------------------------------------------------------------
    def set_segments(self, seg: raster.SegmentSet, geo: MapGeometry) -> RasterItem:
        """A new map: its segments; returns the item to add to the view."""
        self.clear()
        self.seg, self.geo = seg, geo
        self.colours = seg.road_colour
        self.overview = overview.Overview(seg, geo.bounds)
        self.item = RasterItem()
        return self.item

    def clear(self) -> None:
        self.timer.stop()
        self.ov_timer.stop()
        self._ov_due = False
        self._job = -1  # a render of the old map lands unheard
        self.seg = self.geo = self.item = self.overview = None
        self.ids = self.rect = self.colours = self.field = self._key = self._field_cols = None
        self._cache = []
        self._colour_gen += 1

    def shutdown(self) -> bool:
        self.timer.stop()
        self.ov_timer.stop()
        self._job = -1  # a render still queued to this thread lands unheard
        return self.runner.shutdown()

    # ---- colours ------------------------------------------------------------------------
    def show_colours(self, colours: np.ndarray) -> None:
        """One ARGB colour per drawn arc (the roads, a class view): recoloured now."""
        self.field, self.colours = None, colours
        self._colour_gen += 1
        self.recolour()

    def show_field(self, dist: np.ndarray, lut: np.ndarray, bands: int,
                   image: tuple | None = None) -> int:
        """A distance field: the pixels on screen coloured now (or ``image`` = (ids, rect,
        ARGB, top), coloured in the compute worker over the ids still on screen); the
        per-arc colours are never needed: each render colours its own pixels."""
        self.field, self.colours = (dist, lut, bands), None
        self._colour_gen += 1
        shown = self._on_screen()
        if shown is None:
            return raster._field_scale(dist, bands)[2]
        item, rect, geo, seg, ids = shown
        if image is not None and image[0] is ids and image[1] == rect:
            img, top = image[2:]
        else:
            img, top = raster.field_image(ids, geo, seg, dist, lut, bands)
        item.set_image(img, rect)
        return top

    def recolour(self) -> None:
        shown = self._on_screen()
        if shown is None:
            return
        item, rect, geo, seg, ids = shown
        item.set_image(_colour(geo, seg, ids, self.colours, self.field), rect)

    def _on_screen(self) -> tuple[RasterItem, QRectF, MapGeometry, raster.SegmentSet, np.ndarray] | None:
        """The item, its rectangle, the map and the id image on screen; None before the
        first render of a map (all are set together: ``set_segments``, ``_rendered``)."""
        if (self.ids is None or self.item is None or self.rect is None or self.geo is None
                or self.seg is None):
            return None
        return self.item, self.rect, self.geo, self.seg, self.ids

    # ---- rendering ----------------------------------------------------------------------
    def schedule(self, *_) -> None:
        if self.seg is not None:
            self.timer.start()

    def request(self) -> None:
        """Render the view now on the worker (a newer request supersedes this one)."""
        self.timer.stop()
        if self.seg is None:
            return
        try:
            rect = self.vb.viewRect()
        except RuntimeError:  # the view is being destroyed
            return
        dpr = self.canvas.devicePixelRatioF() or 1.0
        pw = max(int(self.vb.width() * dpr), 1)
        ph = max(int(round(pw * rect.height() / max(rect.width(), 1e-9))), 1)
        if ph > 8 * max(int(self.vb.height() * dpr), 1):  # degenerate view: do not allocate
            return
        scale = pw / max(rect.width(), 1e-9)
        min_z = raster.lod_min_z(1.0 / scale, self.seg.z_max)
        x, y = rect.x(), rect.y()
        prev, shift = None, None
        for k, ids in self._cache:  # the view on screen first, then zoom levels seen lately
            if k[:2] != (pw, ph) or k[3] != min_z or abs(k[2] - scale) > SCALE_RTOL * scale:
                continue
            # a pan (or back to a zoom level): snap the view onto that image's pixel grid
            dx, dy = int(round((k[4] - x) * scale)), int(round((k[5] - y) * scale))
            if abs(dx) >= pw or abs(dy) >= ph:
                continue
            if dx == dy == 0 and ids is self.ids and not self.runner.busy():
                return  # the view on screen already
            scale = k[2]
            x, y = k[4] - dx / scale, k[5] - dy / scale
            prev, shift = ids, (dx, dy)
            break
        # a far view: resampled from the overview (a pan's strips too: no pass over the map)
        ov = self.overview.covering(scale, min_z) if self.overview else None
        seg, geo, colours, field, gen = self.seg, self.geo, self.colours, self.field, self._colour_gen
        if field is not None:  # its colour per arc, once made (a render is then a gather)
            colours = self._field_cols[1] if self._field_cols and self._field_cols[0] == gen else None
        key = (pw, ph, scale, min_z, x, y)
        box = (x, y, pw / scale, ph / scale)

        def fn(ctx):
            cols = colours
            if cols is None:  # a distance field: one colour per drawn arc, kept for the
                # next renders of the same field (pixels of a zoomed-out view ~ arcs drawn)
                assert field is not None and geo is not None  # no colours: a field is shown
                cols = raster.field_arc_colours(geo, seg, *field)[0]
            t1 = time.perf_counter()
            img: np.ndarray | None
            if prev is not None:
                assert shift is not None  # found with prev
                strip = None if ov is None else \
                    (lambda b, size: overview.resample(ov[1], ov[0], seg, b, size, min_z)[0])
                ids = raster.render_shifted(seg, prev, shift, box, min_z, strip=strip)
                img = raster.colourise(ids, cols)
            elif ov is not None:  # a far view: the overview resampled (and coloured)
                ids, img = overview.resample(ov[1], ov[0], seg, box, (pw, ph), min_z, cols)
            else:  # rasterised and coloured (in one pass with the threads' merge)
                ids, img = raster.render_coloured(seg, box, (pw, ph), cols, min_z)
            how = "shifted" if prev is not None else ("overview" if ov is not None else "whole")
            return ids, key, img, gen, how, (time.perf_counter() - t1) * 1e3, cols

        self._job = self.runner.submit(Job(fn, kind="raster"))

    def _widget_px(self) -> tuple[float, float]:
        dpr = self.canvas.devicePixelRatioF() or 1.0
        return self.vb.width() * dpr, self.vb.height() * dpr

    def _overview_due(self) -> None:
        self._ov_due = True
        self._build_overview()

    def build_overview(self) -> bool:
        """Make the overview now if one is wanted (the bench, tests): True when a build was
        queued on the worker (``runner.busy()`` until it is done)."""
        self.ov_timer.stop()
        self._ov_due = True
        return self._build_overview()

    def _build_overview(self) -> bool:
        """The overview of a big map for the view widget's size (again if the window grew
        much), on this worker once it is idle: a render asked meanwhile waits for it, once."""
        if self.overview is None or self.runner.busy():
            return False  # (due: tried again when the render in flight lands)
        self._ov_due = False
        spec = self.overview.wanted(self._widget_px())
        if spec is None:
            return False
        ov = self.overview
        self.runner.submit(Job(lambda ctx: ov.build(spec), kind="overview"))
        return True

    def _rendered(self, jid: int, kind: str, result) -> None:
        if jid != self._job or self.item is None:
            return
        ids, key, img, gen, how, ms, cols = result
        self.ids, self._key = ids, key
        self._cache = [(key, ids)] + [e for e in self._cache if e[0][:4] != key[:4]][:CACHED_LEVELS - 1]
        self.rect = QRectF(key[4], key[5], key[0] / key[2], key[1] / key[2])
        self.shifted, self.resampled, self.render_ms = how == "shifted", how == "overview", ms
        if gen == self._colour_gen:
            if self.field is not None:
                self._field_cols = (gen, cols)
            self.item.set_image(img, self.rect)
        else:  # the colours changed meanwhile: the new ones over the new ids
            self.recolour()
        self.rendered.emit()
        if self._ov_due:
            self._build_overview()
        elif self.overview is not None and not self.ov_timer.isActive() \
                and self.overview.wanted(self._widget_px()) is not None:
            self.ov_timer.start()


def _colour(geo, seg, ids: np.ndarray, colours: np.ndarray | None, field: tuple | None) -> np.ndarray:
    """ARGB pixels of an id image: one colour per drawn arc, or a distance field."""
    if colours is not None:
        return raster.colourise(ids, colours)
    assert field is not None  # no colours: a distance field is shown
    dist, lut, bands = field
    return raster.field_image(ids, geo, seg, dist, lut, bands)[0]
