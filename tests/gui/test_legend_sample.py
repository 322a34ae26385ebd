"""The class legend's samples (issue 27, opening a map): a light :class:`LegendLine` per road
class instead of a PlotDataItem each, drawn pixel for pixel as pyqtgraph drew the
PlotDataItem's sample."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QImage, QPainter

from app.gui.map_canvas import _DASH, LegendLine


def _sample_pixels(item) -> np.ndarray:
    sample = pg.graphicsItems.LegendItem.ItemSample(item)
    img = QImage(24, 24, QImage.Format.Format_ARGB32)
    img.fill(0)
    p = QPainter(img)
    sample.paint(p)
    p.end()
    return np.frombuffer(img.constBits(), np.uint32, 24 * 24).copy()


def test_legend_line_draws_as_a_plot_data_item_sample(qtbot):
    for colour, width, dash in (("#e8a33d", 2.5, "solid"), ("#8a8a8a", 1.0, "dash"), ("#4fc3f7", 1.5, "dot")):
        pen = pg.mkPen(colour, width=max(width, 1.5), style=_DASH[dash])
        want = _sample_pixels(pg.PlotDataItem(pen=pen))
        got = _sample_pixels(LegendLine(pen))
        assert (want != 0).sum() > 10
        np.testing.assert_array_equal(got, want)


def test_class_legend_samples_are_the_class_pens(window):
    canvas = window.canvas
    styles = {st.colour for st in canvas.road_styles.values()}
    samples = [s.item for s, _label in canvas.legend.items if isinstance(s.item, LegendLine)]
    assert len(samples) >= 3
    assert {s.opts["pen"].color().name() for s in samples} <= {c.lower() for c in styles}
