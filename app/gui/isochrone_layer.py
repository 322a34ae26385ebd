"""Isochrone polygons on the map canvas: filled, outlined areas (largest at the bottom) and
a discrete legend, one entry per cutoff. The polygons come from ``app.jobs.isochrones`` in
the map's x/y metres, the canvas's own coordinates."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsItem

from .map_canvas import PathItem, make_path

FILL_ALPHA = 70  # of 255: the roads stay visible through the areas
# The window's polygons outline the road within this share of the map's extent (never
# less than the CLI's 50 m buffer): a country's 50 m outlines are sub-pixel at its scale
# and cost minutes of tracing and seconds per repaint (issue 42, item 1).
EXTENT_PER_BUFFER = 1000.0


def display_buffer(net, default_m: float) -> float:
    """The buffer (metres) of the window's polygons on ``net``: ``default_m`` on a city,
    coarser on a region (rounded to 10 m)."""
    if net.num_nodes == 0:
        return default_m
    extent = max(float(np.ptp(net.x)), float(np.ptp(net.y)))
    return max(default_m, 10.0 * round(extent / EXTENT_PER_BUFFER / 10.0))


def band_paths(polygons: list, tolerance: float = 0.0) -> list[QPainterPath]:
    """One path per band (ascending cutoffs), made off the GUI thread: band k is polygon
    k with polygon k-1 inside it under the odd-even rule (the polygons nest), so no fill
    stacks on another and no GEOS difference is needed; outlines thinned to
    ``tolerance`` metres (:func:`polygon_path`; GEOS's simplification took minutes on a
    polygon with 10^5 holes)."""
    import shapely

    return [polygon_path(p if k == 0 else shapely.GeometryCollection([p, polygons[k - 1]]), tolerance)
            for k, p in enumerate(polygons)]


def polygon_path(geom, tolerance: float = 0.0) -> QPainterPath:
    """A shapely (Multi)Polygon, or a collection of them, as one path of closed rings
    (holes by the odd-even rule). ``tolerance`` > 0: vertices that fall in the same
    ``tolerance``-metre square as the one before are dropped, and rings that shrink
    below a triangle (holes smaller than that) left out: for drawing, in numpy."""
    import shapely

    # (a collection of (Multi)Polygons too: a band, its polygon and the one inside it)
    polys = shapely.get_parts(shapely.get_parts(geom))
    rings = shapely.get_rings(polys[~shapely.is_empty(polys)])
    if rings.size == 0:
        return QPainterPath()
    xy, rid = shapely.get_coordinates(rings, return_index=True)
    if tolerance > 0:
        q = np.floor(xy / tolerance).astype(np.int64)
        keep = np.ones(rid.size, dtype=bool)
        keep[1:] = (q[1:] != q[:-1]).any(axis=1) | (rid[1:] != rid[:-1])
        keep[:-1] |= rid[1:] != rid[:-1]  # each ring's closing vertex stays
        keep[-1] = True
        xy, rid = xy[keep], rid[keep]
        big = np.bincount(rid)[rid] >= 4
        xy, rid = xy[big], rid[big]
        if rid.size == 0:
            return QPainterPath()
    connect = np.ones(rid.size, dtype=bool)
    connect[:-1] = rid[1:] == rid[:-1]
    connect[-1] = False
    path = make_path(xy[:, 0].copy(), xy[:, 1].copy(), connect)
    path.setFillRule(Qt.FillRule.OddEvenFill)
    return path


# Maps of this many arcs get their bands as one image of a band grid (``app.jobs.iso_bands``,
# no polygon traced; the export traces them): on a 64,000-arc map the traced polygons took
# 1.5 s and 110 MB, the grid 0.05 s and 12 MB (2-core CPU; issue 42, item 1). Smaller maps
# get vector outlines, crisp when zoomed in to the street.
IMAGE_MIN_ARCS = 50_000


def grid_image(grid: tuple, colours: list):
    """The raster method's band grid (``IsochroneResult.band_grid``) as the image of the
    bands and the map rectangle it covers: a colour lookup in numpy, any thread (painting
    the paths held the GIL for seconds and silenced the GUI thread)."""
    band, x0, y0, h = grid
    lut = np.zeros((len(colours) + 1, 4), dtype=np.uint8)  # premultiplied RGBA; the last
    a = FILL_ALPHA / 255.0  # row (band -1, no band) transparent: the grid indexes it as is
    for k, rgb in enumerate(colours):
        lut[k, :3] = [int(round(int(v) * a)) for v in rgb]
        lut[k, 3] = FILL_ALPHA
    ny, nx = band.shape
    img = QImage(nx, ny, QImage.Format.Format_RGBA8888_Premultiplied)
    if ny * nx:  # coloured in place, in the image's own memory (no RGBA copy beside it)
        pixels = np.frombuffer(img.bits(), dtype=np.uint8).reshape(ny, img.bytesPerLine())
        # band -1 (none) wraps to the lut's last row
        np.take(lut, band, axis=0, out=pixels[:, :4 * nx].reshape(ny, nx, 4), mode="wrap")
    return img, QRectF(x0 - h / 2, y0 - h / 2, nx * h, ny * h)


class ImageItem(QGraphicsItem):
    """A painted image over a map rectangle (the bands of a big map)."""

    def __init__(self, img: QImage, rect: QRectF, z: float = 15):
        super().__init__()
        self._img, self._rect = img, QRectF(rect)
        self.setZValue(z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, p, *args) -> None:
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        p.drawImage(self._rect, self._img)

    def dataBounds(self, ax, frac=1.0, orthoRange=None):  # pyqtgraph auto-range protocol
        r = self._rect
        return (r.left(), r.right()) if ax == 0 else (r.top(), r.bottom())


class IsochroneLayer:
    """The polygons and their legend on ``canvas`` (a MapCanvas); ``show([])`` clears."""

    def __init__(self, canvas):
        self.canvas = canvas
        self.items: list[QGraphicsItem] = []
        self.legend = pg.LegendItem(offset=None, labelTextColor="w",
                                    brush=pg.mkBrush(30, 33, 39, 200), labelTextSize="8pt")
        self.legend.setVisible(False)
        canvas.overlays.add("isochrone legend", self.legend, "bottom-left")
        self._samples: list = []

    def show(self, polygons: list, colours: list, labels: list[str], image=None) -> None:
        """Draw ``polygons`` (ascending cutoffs; shapely geometries, or the paths of
        :func:`band_paths`) filled with ``colours`` (RGB tuples); ``image``: the same
        painted by :func:`band_image`, drawn instead."""
        vb = self.canvas.vb
        for it in self.items:
            vb.removeItem(it)
        self.items.clear()
        self.legend.clear()
        self._samples.clear()
        if image is not None:
            self.items.append(ImageItem(*image))
            vb.addItem(self.items[0])
            polygons = []
        for k in range(len(polygons) - 1, -1, -1):  # largest first: smaller ones on top
            r, g, b = (int(v) for v in colours[k])
            # z falls as the cutoff grows: the smallest band is drawn last, on top
            geom = polygons[k]
            path = geom if isinstance(geom, QPainterPath) else polygon_path(geom)
            item = PathItem(path, QColor(r, g, b), 1.5, z=15 - 0.01 * k)
            item.setBrush(QBrush(QColor(r, g, b, FILL_ALPHA)))
            vb.addItem(item)
            self.items.append(item)
        for rgb, text in zip(colours, labels, strict=True):
            rgb = [int(v) for v in rgb]
            sample = pg.PlotDataItem([0, 1], [0, 0], pen=pg.mkPen(*rgb, width=1.5),
                                     fillLevel=0, fillBrush=pg.mkBrush(*rgb, 160))
            self._samples.append(sample)
            self.legend.addItem(sample, text)
        self.legend.setVisible(bool(self.items))
        self.canvas.overlays.place()
