"""What the map canvas draws over the map rather than on it: the distance field's legend
(a gradient, or one swatch per isochrone band), a centred notice for a map that cannot
be drawn (no coordinates), and zooming out to show a route that is off screen."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF

BAND_LEGEND_MAX = 12  # more bands than this: every k-th band is named


class FieldLegend:
    """The distance field's legend on a view box: a gradient for a continuous field, a
    discrete list of bands ("0–500 m") for isochrones."""

    def __init__(self, vb: pg.ViewBox, format_cost):
        self.format_cost = format_cost
        self.gradient = pg.GradientLegend((18, 150), (-10, 10))
        self.gradient.setParentItem(vb)
        self.gradient.setVisible(False)
        self.bands = pg.LegendItem(offset=(-10, 10), labelTextColor="#e0e0e0",
                                   brush=pg.mkBrush(30, 33, 39, 210), labelTextSize="8pt")
        self.bands.setParentItem(vb)
        self.bands.setVisible(False)
        self.labels: list[str] = []  # the band labels shown (tests read them)

    def show_gradient(self, lut: np.ndarray, unit: str, top: float) -> None:
        self.bands.setVisible(False)
        self.gradient.setColorMap(pg.ColorMap(np.linspace(0.0, 1.0, lut.shape[0]), lut))
        f = self.format_cost
        self.gradient.setLabels({f(0, unit): 0.0, f(top / 2, unit): 0.5, f(top, unit): 1.0})
        self.gradient.setVisible(True)

    def show_diverging(self, lut: np.ndarray, unit: str, span: float) -> None:
        """A gradient from −span (bottom) through 0 to +span (a change of cost)."""
        self.bands.setVisible(False)
        self.gradient.setColorMap(pg.ColorMap(np.linspace(0.0, 1.0, lut.shape[0]), lut))
        f = self.format_cost
        self.gradient.setLabels({f"−{f(span, unit)} (faster)": 0.0, "no change": 0.5,
                                 f"+{f(span, unit)} (slower)": 1.0})
        self.labels = [f"−{f(span, unit)}", f"+{f(span, unit)}"]
        self.gradient.setVisible(True)

    def show_bands(self, edges: np.ndarray, colours: np.ndarray, unit: str) -> None:
        """One swatch per band [edges[i], edges[i+1]) in colours[i] (RGB)."""
        self.gradient.setVisible(False)
        self.bands.clear()
        self.labels = []
        nb = len(colours)
        every = max(1, int(np.ceil(nb / BAND_LEGEND_MAX)))
        for i in range(0, nb, every):
            j = min(i + every, nb)
            text = f"{self.format_cost(edges[i], unit)} – {self.format_cost(edges[j], unit)}"
            # A scatter item: the legend draws its own symbol options (a PlotDataItem's
            # come from its data, and it has none).
            sample = pg.ScatterPlotItem(symbol="s", size=11, pen=None,
                                        brush=pg.mkBrush(*[int(v) for v in colours[i][:3]]))
            self.bands.addItem(sample, text)
            self.labels.append(text)
        self.bands.setVisible(True)

    def hide(self) -> None:
        self.gradient.setVisible(False)
        self.bands.setVisible(False)

    def isVisible(self) -> bool:  # noqa: N802 - reads like the Qt items it stands for
        return self.gradient.isVisible() or self.bands.isVisible()


class CanvasNotice:
    """A message in the middle of the view (e.g. a map without coordinates), instead of an
    empty canvas."""

    def __init__(self, vb: pg.ViewBox):
        self.vb = vb
        self.item = pg.TextItem("", color="#e0e0e0", anchor=(0.5, 0.5),
                                fill=pg.mkBrush(30, 33, 39, 230), border=pg.mkPen("#5f6368"))
        self.item.setParentItem(vb)
        self.item.setVisible(False)
        vb.sigResized.connect(self._place)

    def show(self, text: str) -> None:
        self.item.setText(text)
        self.item.setVisible(True)
        self._place()

    def hide(self) -> None:
        self.item.setVisible(False)

    def text(self) -> str:
        return self.item.textItem.toPlainText() if self.item.isVisible() else ""

    def _place(self, *_) -> None:
        self.item.setPos(self.vb.width() / 2, self.vb.height() / 2)


def ensure_visible(vb: pg.ViewBox, xs: np.ndarray, ys: np.ndarray, margin: float = 0.08) -> bool:
    """Zoom/pan ``vb`` so the polyline (xs, ys) is on screen, when part of it is not;
    True when the view changed. A route wholly in view leaves the view as it is."""
    ok = np.isfinite(xs) & np.isfinite(ys)
    if not ok.any():
        return False
    x0, x1 = float(xs[ok].min()), float(xs[ok].max())
    y0, y1 = float(ys[ok].min()), float(ys[ok].max())
    (vx0, vx1), (vy0, vy1) = vb.viewRange()
    if vx0 <= x0 and x1 <= vx1 and vy0 <= y0 and y1 <= vy1:
        return False
    # The union of the view and the route: the user's context stays, the route is added.
    ux0, ux1 = min(x0, vx0), max(x1, vx1)
    uy0, uy1 = min(y0, vy0), max(y1, vy1)
    if (ux1 - ux0) * (uy1 - uy0) > 16 * max((vx1 - vx0) * (vy1 - vy0), 1e-9):
        ux0, ux1, uy0, uy1 = x0, x1, y0, y1  # far away: show the route alone
    w, h = max(ux1 - ux0, 1.0), max(uy1 - uy0, 1.0)
    vb.setRange(QRectF(ux0, uy0, w, h), padding=margin)
    return True
