"""Find what a user cannot read in a window: clipped or elided text, widgets squeezed
below their minimum size, visible siblings that overlap, chart axis titles longer than
their axis, chart legends that leave their plot or sit on its data, and short tables whose
rows are below the fold (issue 42).

Used by the screenshot test of every tool (``tests/gui/test_screens.py``) and by
``scripts/screenshots.py``; each problem is one line naming the widget and its text.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRect
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QComboBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QScrollArea,
    QStyle,
    QTabBar,
    QWidget,
)

SLACK_PX = 2  # rounding of font metrics: a pixel or two is not a clipped glyph


def _name(w: QWidget) -> str:
    text = ""
    if isinstance(w, (QLabel, QAbstractButton)):
        text = w.text()
    return f"{type(w).__name__}{' ' + repr(text[:40]) if text else ''} ({w.objectName() or 'unnamed'})"


def _shown(w: QWidget, root: QWidget) -> bool:
    return w.isVisibleTo(root) and w.isVisible() and w.width() > 0 and w.height() > 0


def _in_scroll_area(w: QWidget) -> bool:
    p = w.parentWidget()
    while p is not None:
        if isinstance(p, QScrollArea):
            return True
        p = p.parentWidget()
    return False


def _text_clipped(w: QWidget) -> str | None:
    if isinstance(w, QLabel):
        if not w.text() or w.pixmap() is not None and not w.pixmap().isNull():
            return None
        if w.wordWrap():
            need = w.heightForWidth(w.width())
            if need > w.height() + SLACK_PX:
                return f"wrapped text needs {need} px of height, has {w.height()}"
            return None
        need = w.minimumSizeHint().width()
        if need > w.width() + SLACK_PX:
            return f"text needs {need} px, has {w.width()}"
        return None
    if isinstance(w.parentWidget(), QTabBar):
        return None  # a tab bar's scroll arrows: drawn by the style at its own size
    if isinstance(w, (QAbstractButton, QComboBox)):
        need = w.minimumSizeHint().width()
        if need > w.width() + SLACK_PX:
            return f"needs {need} px, has {w.width()}"
    if isinstance(w, QLineEdit):
        return None
    return None


def _tabs_clipped(bar: QTabBar) -> list[str]:
    out = []
    fm = bar.fontMetrics()
    for i in range(bar.count()):
        text = bar.tabText(i)
        # what the style needs to show the title whole: text + the tab's side padding
        pad = bar.style().pixelMetric(QStyle.PixelMetric.PM_TabBarTabHSpace, None, bar)
        need = fm.horizontalAdvance(text) + pad
        if bar.tabRect(i).width() + SLACK_PX < need:
            out.append(f"tab {text!r} is elided ({bar.tabRect(i).width()} of {need} px)")
    return out


def _headers_clipped(h: QHeaderView) -> list[str]:
    out = []
    model = h.model()
    if model is None:
        return out
    fm = h.fontMetrics()
    for i in range(h.count()):
        if h.isSectionHidden(i):
            continue
        text = str(model.headerData(i, h.orientation()) or "")
        if not text:
            continue
        need = fm.horizontalAdvance(text) + 8
        size = h.sectionSize(i)
        if h.orientation().name == "Horizontal" and size + SLACK_PX < need:
            out.append(f"header {text!r} cut ({size} of {need} px)")
    return out


def _overlaps(parent: QWidget, root: QWidget) -> list[str]:
    kids = [c for c in parent.findChildren(QWidget, options=_direct()) if _shown(c, root)
            and not c.isWindow()]
    out = []
    for i, a in enumerate(kids):
        ra: QRect = a.geometry()
        for b in kids[i + 1:]:
            inter = ra.intersected(b.geometry())
            if inter.width() > SLACK_PX and inter.height() > SLACK_PX:
                out.append(f"{_name(a)} overlaps {_name(b)}")
    return out


def _direct():
    from PySide6.QtCore import Qt

    return Qt.FindChildOption.FindDirectChildrenOnly


def _plots_clipped(glw) -> list[str]:
    """pyqtgraph plots: axis titles longer than the axis, legends outside their plot."""
    out = []
    for item in glw.scene().items():
        if isinstance(item, pg.AxisItem) and item.isVisible() and item.label.isVisible():
            text = item.labelText or ""
            if not text:
                continue
            along = item.height() if item.orientation in ("left", "right") else item.width()
            need = item.label.boundingRect().width()
            if along > 0 and need > along + SLACK_PX:
                out.append(f"axis title {text!r} longer than its axis ({need:.0f} of {along:.0f} px)")
        if isinstance(item, pg.LegendItem) and item.isVisible() and item.items:
            parent = item.parentItem()
            if parent is None:
                continue
            box = parent.sceneBoundingRect()
            r = item.sceneBoundingRect()
            if not box.adjusted(-SLACK_PX, -SLACK_PX, SLACK_PX, SLACK_PX).contains(r):
                names = ", ".join(lbl.text for _s, lbl in item.items)
                out.append(f"legend ({names}) does not fit its plot")
            elif _legend_on_data(item):
                names = ", ".join(lbl.text for _s, lbl in item.items)
                out.append(f"legend ({names}) sits on the plot's data")
    return out


def _legend_on_data(legend) -> bool:
    """Whether a point of a curve or scatter of the legend's plot falls under the legend."""
    import numpy as np

    vb = legend.parentItem()
    if not isinstance(vb, pg.ViewBox):
        return False
    r = legend.sceneBoundingRect().adjusted(SLACK_PX, SLACK_PX, -SLACK_PX, -SLACK_PX)
    if r.width() <= 0 or r.height() <= 0:
        return False
    for it in vb.addedItems:
        if not isinstance(it, (pg.PlotDataItem, pg.ScatterPlotItem)) or not it.isVisible():
            continue
        xs, ys = it.getData() if isinstance(it, pg.PlotDataItem) else it.getData()
        if xs is None or len(xs) == 0:
            continue
        xs, ys = np.asarray(xs, float), np.asarray(ys, float)
        ok = np.isfinite(xs) & np.isfinite(ys)
        for x, y in zip(xs[ok][:2000].tolist(), ys[ok][:2000].tolist(), strict=True):
            p = vb.mapViewToScene(pg.Point(x, y))
            if r.contains(p):
                return True
    return False


SHORT_TABLE_ROWS = 12  # a table this short should show every row without scrolling


def _rows_below_fold(view: QAbstractItemView) -> str | None:
    """'shows 1 of 5 rows' for a short table whose rows do not all fit its height."""
    model = view.model()
    if model is None:
        return None
    n = model.rowCount()
    if not 0 < n <= SHORT_TABLE_ROWS or view.verticalScrollBar().maximum() <= 0:
        return None
    shown = sum(1 for i in range(n)
                if view.visualRect(model.index(i, 0)).bottom() <= view.viewport().height())
    return f"shows {shown} of {n} rows (the rest below the fold)"


def _below_scroll_fold(w: QWidget) -> str | None:
    """'below the fold' for a table or chart in a scrolled dock that the dock, scrolled to
    its top, cuts off at its bottom edge (issue 42: billboards' rows and SB-vs-k chart)."""
    area = w.parentWidget()
    while area is not None and not isinstance(area, QScrollArea):
        area = area.parentWidget()
    inner = area.widget() if area is not None else None
    if area is None or inner is None or area.verticalScrollBar().maximum() <= 0:
        return None
    bottom = w.mapTo(inner, w.rect().bottomLeft()).y()
    if bottom > area.viewport().height() + SLACK_PX:
        return (f"ends {bottom - area.viewport().height()} px below the fold of its dock "
                f"({area.viewport().height()} px tall)")
    return None


def problems(root: QWidget) -> list[str]:
    """Every readability problem among the visible widgets under ``root``."""
    out: list[str] = []
    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        if not _shown(w, root) or w.isWindow() and w is not root:
            continue
        why = _text_clipped(w)
        if why:
            out.append(f"{_name(w)}: {why}")
        if isinstance(w, QTabBar):
            out += _tabs_clipped(w)
        if isinstance(w, QHeaderView):
            out += _headers_clipped(w)
        if isinstance(w, QAbstractItemView) and w.horizontalScrollBar().maximum() > 0:
            out.append(f"{_name(w)} needs sideways scrolling to show its columns")
        if isinstance(w, QAbstractItemView) and not isinstance(w, QHeaderView):
            why = _rows_below_fold(w)
            if why:
                out.append(f"{_name(w)} {why}")
        inner = w.widget() if isinstance(w, QScrollArea) else None
        if isinstance(w, QScrollArea) and inner is not None:
            need = inner.minimumSizeHint().width()
            have = w.viewport().width()
            if need > have + SLACK_PX:
                out.append(f"{_name(inner)} needs {need} px of width, its dock shows {have} "
                           "(a sideways scroll bar)")
        if isinstance(w, pg.GraphicsView):
            out += _plots_clipped(w)
        if isinstance(w, (QAbstractItemView, pg.GraphicsView)) and not isinstance(w, QHeaderView):
            why = _below_scroll_fold(w)
            if why:
                out.append(f"{_name(w)} {why}")
        if not isinstance(w, (QAbstractScrollArea, QMainWindow)) and (
                w.layout() is not None or type(w) is QWidget):
            out += _overlaps(w, root)
    return sorted(set(out))
