"""What the map canvas draws over the map rather than on it: the distance field's legend
(a gradient, or one swatch per isochrone band), a centred notice for a map that cannot
be drawn (no coordinates), and zooming out to show a route that is off screen."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QLinearGradient, QPainter, QPen
from PySide6.QtWidgets import QGraphicsObject

from .geometry import LayerStyle
from .words import change_words

BAND_LEGEND_MAX = 12  # more bands than this: every k-th band is named


class FieldLegend:
    """The distance field's legend on a view box: a titled colour bar for a continuous
    field, a discrete list of bands ("0–500 m") for isochrones; both stacked top right
    by the canvas's :class:`OverlayStack`."""

    def __init__(self, vb: pg.ViewBox, format_cost, stack: OverlayStack | None = None):
        self.format_cost = format_cost
        self.gradient = ColorBar((16, 110))
        self.gradient.setParentItem(vb)
        self.gradient.setVisible(False)
        self.bands = pg.LegendItem(offset=None, labelTextColor="#e0e0e0",
                                   brush=pg.mkBrush(30, 33, 39, 210), labelTextSize="8pt")
        self.bands.setParentItem(vb)
        self.bands.setVisible(False)
        self.stack = stack
        if stack is not None:
            stack.add("field colour bar", self.gradient, "top-right")
            stack.add("field bands", self.bands, "top-right")
        self.labels: list[str] = []  # the band labels shown (tests read them)
        self.note = ""  # why fewer bands than asked are shown, when they are

    def _placed(self) -> None:
        if self.stack is not None:
            self.stack.place()

    def show_gradient(self, lut: np.ndarray, unit: str, top: float, title: str = "") -> None:
        self.bands.setVisible(False)
        self.gradient.set_colors(lut)
        f = self.format_cost
        self.gradient.set_labels(title or field_title(unit),
                                 {f(0, unit): 0.0, f(top / 2, unit): 0.5, f(top, unit): 1.0})
        self.labels = [f(0, unit), f(top, unit)]
        self.gradient.setVisible(True)
        self._placed()

    def show_diverging(self, lut: np.ndarray, unit: str, span: float, nothing: bool = False) -> None:
        """A gradient from −span (bottom) through 0 to +span (a change of cost);
        ``nothing``: no cost changed, and the legend says so instead of "±0 m"."""
        self.bands.setVisible(False)
        self.gradient.set_colors(lut)
        f = self.format_cost
        title = f"change of {field_title(unit, plain=True)}"
        if nothing:
            self.gradient.set_labels(title, {"no change anywhere": 0.5})
        else:
            grew, shrank = change_words(unit)
            self.gradient.set_labels(title, {f"−{f(span, unit)} {shrank}": 0.0, "no change": 0.5,
                                             f"+{f(span, unit)} {grew}": 1.0})
        self.labels = [f"−{f(span, unit)}", f"+{f(span, unit)}"]
        self.gradient.setVisible(True)
        self._placed()

    def show_bands(self, edges: np.ndarray, colours: np.ndarray, unit: str, asked: int = 0) -> None:
        """One swatch per band [edges[i], edges[i+1]) in colours[i] (RGB); ``asked``: the
        bands the user asked for (the legend says why fewer are shown)."""
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
        self.note = ""
        if asked and nb != asked:
            # short: the legend's box is as wide as its longest line
            self.note = (f"{asked} asked: round steps of "
                         f"{self.format_cost(edges[1] - edges[0], unit)}")
            # a row of its own with an empty sample: the legend sizes and clears it as any
            # other (a label added to its layout by hand outlived clear() and stretched the
            # box across the canvas, issue 42)
            self.bands.addItem(pg.ScatterPlotItem(pen=None, brush=None, size=0), self.note)
            self.bands.items[-1][1].setText(self.note, color="#9aa0a6", size="7pt")
            self.bands.layout.activate()
            self.bands.updateSize()
        self.bands.setVisible(True)
        self._placed()

    def hide(self) -> None:
        self.gradient.setVisible(False)
        self.bands.setVisible(False)
        self._placed()

    def isVisible(self) -> bool:  # noqa: N802 - reads like the Qt items it stands for
        return self.gradient.isVisible() or self.bands.isVisible()


def field_title(unit: str, plain: bool = False) -> str:
    """What a field of costs in ``unit`` measures ("travel time from A")."""
    from maps.model.weights import unit_scale

    dim = (unit_scale(unit) or (None, 0))[0]
    # the file's own weights ("unit": PACE, generated maps) have no unit to name
    own = f"cost ({unit})" if unit and unit != "unit" else "cost (weights without a unit)"
    what = {"time": "travel time", "length": "distance"}.get(dim or "", own)
    return what if plain else f"{what} from A"


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


OVERLAY_Z = 1_000_000  # over every map layer (roads, fields, dots, markers)
MARGIN_PX = 10
GAP_PX = 6
SCALE_BAR_PX = 44  # the scale bar's corner (bottom right), kept free of other overlays


class ColorBar(QGraphicsObject):
    """A titled colour bar on the map (a distance field, PageRank): the title above, the
    gradient (low at the bottom) and labels at the bottom, middle and top."""

    def __init__(self, bar_size: tuple[int, int] = (16, 120)):
        super().__init__()
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(OVERLAY_Z)
        self.bar_w, self.bar_h = bar_size
        self.title = ""
        self.labels: dict[str, float] = {}
        self.stops: list[tuple[float, QColor]] = []
        self.font = QFont()
        self.font.setPointSizeF(8.0)
        self._rect = QRectF(0, 0, 10, 10)

    def set_colors(self, lut: np.ndarray) -> None:
        """The gradient from ``lut`` (rows of RGB, first = bottom)."""
        n = lut.shape[0]
        self.stops = [(i / max(n - 1, 1), QColor(*[int(v) for v in lut[i][:3]]))
                      for i in range(0, n, max(1, n // 32))]
        if n > 1 and self.stops[-1][0] < 1.0:
            self.stops.append((1.0, QColor(*[int(v) for v in lut[-1][:3]])))
        self.update()

    def set_labels(self, title: str, labels: dict[str, float]) -> None:
        self.prepareGeometryChange()
        self.title, self.labels = title, dict(labels)
        fm = QFontMetricsF(self.font)
        lw = max((fm.horizontalAdvance(t) for t in self.labels), default=0.0)
        tw = fm.horizontalAdvance(self.title)
        self._lh = fm.height()
        w = max(tw, self.bar_w + 6 + lw) + 12
        h = (self._lh + 4 if self.title else 0) + self.bar_h + self._lh + 8
        self._rect = QRectF(0, 0, w, h)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, p: QPainter, *args) -> None:
        p.setPen(QPen(QColor("#5f6368")))
        p.setBrush(QColor(30, 33, 39, 215))
        p.drawRect(self._rect)
        p.setFont(self.font)
        p.setPen(QColor("#e0e0e0"))
        y0 = 4.0
        if self.title:
            p.drawText(QRectF(6, y0, self._rect.width() - 12, self._lh),
                       int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), self.title)
            y0 += self._lh + 4
        y0 += self._lh / 2
        bar = QRectF(6, y0, self.bar_w, self.bar_h)
        g = QLinearGradient(0, bar.bottom(), 0, bar.top())
        for pos, c in self.stops:
            g.setColorAt(pos, c)
        p.setBrush(g)
        p.setPen(QPen(QColor("#111111")))
        p.drawRect(bar)
        p.setPen(QColor("#e0e0e0"))
        for text, frac in self.labels.items():
            y = bar.bottom() - frac * self.bar_h
            p.drawText(QRectF(bar.right() + 6, y - self._lh / 2, self._rect.width(), self._lh),
                       int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)


class OverlayStack:
    """What the map shows over its layers, stacked in the view's corners so that nothing
    overlaps: legends top left / top right, the attribution bottom left (never covered),
    the scale bar bottom right. Every overlay is drawn above every map layer."""

    CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")

    def __init__(self, vb: pg.ViewBox):
        self.vb = vb
        self.items: dict[str, tuple] = {}  # name: (item, corner), in stacking order
        vb.sigResized.connect(self.place)

    def add(self, name: str, item, corner: str) -> None:
        """Stack ``item`` (a child of the view box) in ``corner``; later ones go further in."""
        assert corner in self.CORNERS
        if item.parentItem() is not self.vb:
            item.setParentItem(self.vb)
        item.setZValue(OVERLAY_Z)
        self.items[name] = (item, corner)
        self.place()

    def _size(self, item) -> tuple[float, float]:
        r = item.mapRectToParent(item.boundingRect())
        return r.width(), r.height()

    def place(self, *_) -> None:
        """Put every visible overlay in its corner, one under (or over) another."""
        w, h = self.vb.width(), self.vb.height()
        used = {c: float(MARGIN_PX) for c in self.CORNERS}
        used["bottom-right"] = float(SCALE_BAR_PX)
        for item, corner in self.items.values():
            if not item.isVisible():
                continue
            iw, ih = self._size(item)
            left = corner.endswith("left")
            x = MARGIN_PX if left else w - MARGIN_PX - iw
            if corner.startswith("top"):
                y = used[corner]
            else:
                y = h - used[corner] - ih
            used[corner] += ih + GAP_PX
            off = item.boundingRect().topLeft()
            item.setPos(max(x, 0.0) - off.x(), max(y, 0.0) - off.y())

    def rects(self) -> dict[str, QRectF]:
        """Scene rectangles of the visible overlays (tests check they do not overlap)."""
        out = {name: item.sceneBoundingRect() for name, (item, _c) in self.items.items()
               if item.isVisible()}
        return out


def class_legend_entries(styles: dict[str, LayerStyle], per_line: int = 3) -> list[tuple[LayerStyle, str]]:
    """The road-class legend: one entry per distinct look (colour, width, dash), naming
    every class drawn that way (so no class drawn is left out), most important first.
    ``styles``: name → LayerStyle; returns (style, label with line breaks)."""
    groups: dict[tuple, list] = {}
    for name, st in styles.items():
        groups.setdefault((str(st.colour), float(st.width), st.dash), []).append((st.z, name, st))
    out = []
    for members in sorted(groups.values(), key=lambda m: -max(z for z, _n, _s in m)):
        members.sort(key=lambda t: -t[0])
        names = [n for _z, n, _s in members]
        lines = [", ".join(names[i:i + per_line]) for i in range(0, len(names), per_line)]
        out.append((members[0][2], "<br>".join(lines)))
    return out
