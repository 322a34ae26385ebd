"""Isochrone polygons on the map canvas: filled, outlined areas (largest at the bottom) and
a discrete legend, one entry per cutoff. The polygons come from ``app.jobs.isochrones`` in
the map's x/y metres, the canvas's own coordinates."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath

from .map_canvas import PathItem, make_path

FILL_ALPHA = 70  # of 255: the roads stay visible through the areas


def polygon_path(geom) -> QPainterPath:
    """A shapely (Multi)Polygon as one path of closed rings (holes by the odd-even rule)."""
    import shapely

    rings = []
    for poly in shapely.get_parts(geom).tolist():
        if poly.is_empty:
            continue
        rings.append(np.asarray(poly.exterior.coords))
        rings.extend(np.asarray(r.coords) for r in poly.interiors)
    if not rings:
        return QPainterPath()
    xy = np.concatenate(rings)
    connect = np.ones(xy.shape[0], dtype=bool)
    connect[np.cumsum([r.shape[0] for r in rings]) - 1] = False
    path = make_path(xy[:, 0].copy(), xy[:, 1].copy(), connect)
    path.setFillRule(Qt.FillRule.OddEvenFill)
    return path


class IsochroneLayer:
    """The polygons and their legend on ``canvas`` (a MapCanvas); ``show([])`` clears."""

    def __init__(self, canvas):
        self.canvas = canvas
        self.items: list[PathItem] = []
        self.legend = pg.LegendItem(offset=None, labelTextColor="w",
                                    brush=pg.mkBrush(30, 33, 39, 200), labelTextSize="8pt")
        self.legend.setVisible(False)
        canvas.overlays.add("isochrone legend", self.legend, "bottom-left")
        self._samples: list = []

    def show(self, polygons: list, colours: list, labels: list[str]) -> None:
        """Draw ``polygons`` (ascending cutoffs) filled with ``colours`` (RGB tuples)."""
        vb = self.canvas.vb
        for it in self.items:
            vb.removeItem(it)
        self.items.clear()
        self.legend.clear()
        self._samples.clear()
        for k in range(len(polygons) - 1, -1, -1):  # largest first: smaller ones on top
            r, g, b = (int(v) for v in colours[k])
            # z falls as the cutoff grows: the smallest band is drawn last, on top
            item = PathItem(polygon_path(polygons[k]), QColor(r, g, b), 1.5, z=15 - 0.01 * k)
            item.setBrush(QBrush(QColor(r, g, b, FILL_ALPHA)))
            vb.addItem(item)
            self.items.append(item)
        for rgb, text in zip(colours, labels, strict=True):
            rgb = [int(v) for v in rgb]
            sample = pg.PlotDataItem([0, 1], [0, 0], pen=pg.mkPen(*rgb, width=1.5),
                                     fillLevel=0, fillBrush=pg.mkBrush(*rgb, 160))
            self._samples.append(sample)
            self.legend.addItem(sample, text)
        self.legend.setVisible(bool(polygons))
        self.canvas.overlays.place()
