"""The "Network analysis" panel (``tools/analysis_tool.py`` runs it) and its map layers.

The panel: backend, PageRank damping / tolerance / iterations, run buttons for the
minimum spanning forest and PageRank (seed 003's vertex programs), a summary of each
result and its export. The layers: the forest as one path of line pairs over the roads,
PageRank as node dots coloured by a colour map in a few bands (one scatter item per
band, so a big map is a handful of items) with a gradient legend.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QWidget,
)

from gpu_core.backend import BACKENDS
from gpu_core.errors import InvalidArgumentError
from resources import colormap_lut

from .map_canvas import LegendLine, PathItem, format_cost
from .overlays import ColorBar
from .panels import button_row, form_panel
from .words import plural

RANK_BANDS = 12  # colour bands of the PageRank layer
RANK_COLORMAP = "magma"
TOP_SHOWN = 5  # top nodes named in the PageRank summary
FOREST_COLOUR = "#b400e5"  # the spanning forest's lines and their legend entry


class AnalysisLayers:
    """The forest and the PageRank dots on a :class:`~app.gui.map_canvas.MapCanvas`."""

    def __init__(self, canvas):
        self.canvas = canvas
        self.forest_item: PathItem | None = None
        self.rank_items: list[pg.ScatterPlotItem] = []
        self.legend = ColorBar((16, 100))  # titled, stacked under the field's legend
        self.legend.setVisible(False)
        canvas.overlays.add("PageRank colour bar", self.legend, "top-right")
        # the forest's own legend entry (issue 42: after MST the map was purple lines with
        # only the field's colour bar to read it by)
        self.forest_legend = pg.LegendItem(offset=None, labelTextColor="#e0e0e0",
                                           brush=pg.mkBrush(30, 33, 39, 200), labelTextSize="8pt")
        self.forest_legend.setVisible(False)
        canvas.overlays.add("spanning forest legend", self.forest_legend, "bottom-left")

    def show_forest(self, x: np.ndarray, y: np.ndarray, tails: np.ndarray,
                    heads: np.ndarray) -> None:
        """One straight line per forest edge (tails[i]–heads[i]); empty arrays clear it."""
        self.clear_forest()
        if tails.size == 0:
            return
        xs = np.column_stack([x[tails], x[heads]]).ravel()
        ys = np.column_stack([y[tails], y[heads]]).ravel()
        ok = np.isfinite(xs) & np.isfinite(ys)
        if not ok.all():  # an edge without coordinates at either end is not drawn
            pair = ok.reshape(-1, 2).all(axis=1)
            xs, ys = xs.reshape(-1, 2)[pair].ravel(), ys.reshape(-1, 2)[pair].ravel()
        path = pg.arrayToQPath(xs, ys, connect="pairs")
        self.forest_item = PathItem(path, FOREST_COLOUR, 1.4, z=38)  # over the rank dots
        self.canvas.vb.addItem(self.forest_item)
        self.forest_legend.addItem(LegendLine(pg.mkPen(FOREST_COLOUR, width=2)),
                                   f"minimum spanning forest ({tails.size:,} edges)")
        self.forest_legend.setVisible(True)
        self.canvas.overlays.place()

    def show_ranks(self, x: np.ndarray, y: np.ndarray, rank: np.ndarray) -> None:
        """Nodes coloured by rank, relative to the uniform rank 1/n (a log scale: road
        networks' ranks are close to uniform with a long upper tail)."""
        self.clear_ranks()
        n = rank.shape[0]
        ok = np.isfinite(x) & np.isfinite(y)
        if n == 0 or not ok.any():
            return
        rel = np.log10(np.maximum(rank * n, 1e-12))
        lo, hi = float(rel[ok].min()), float(rel[ok].max())
        span = hi - lo if hi > lo else 1.0
        band = np.minimum(((rel - lo) / span * RANK_BANDS).astype(np.int64), RANK_BANDS - 1)
        lut = colormap_lut(RANK_COLORMAP, RANK_BANDS)
        for b in range(RANK_BANDS):
            sel = np.nonzero(ok & (band == b))[0]
            if sel.size == 0:
                continue
            item = pg.ScatterPlotItem(x[sel], y[sel], size=3 + 4 * b / RANK_BANDS, pen=None,
                                      brush=pg.mkBrush(QColor(*[int(v) for v in lut[b]])))
            item.setZValue(36 + b / RANK_BANDS)  # high ranks on top, under the forest
            self.canvas.vb.addItem(item)
            self.rank_items.append(item)
        self.legend.set_colors(colormap_lut(RANK_COLORMAP, 64))
        self.legend.set_labels("PageRank (× average)",
                               {f"{10 ** lo:.2g}×": 0.0, f"{10 ** ((lo + hi) / 2):.2g}×": 0.5,
                                f"{10 ** hi:.2g}×": 1.0})
        self.legend.setVisible(True)
        self.canvas.overlays.place()

    def clear_forest(self) -> None:
        self.forest_legend.clear()
        self.forest_legend.setVisible(False)
        if self.forest_item is not None:
            self.canvas.vb.removeItem(self.forest_item)
            self.forest_item = None

    def clear_ranks(self) -> None:
        for it in self.rank_items:
            self.canvas.vb.removeItem(it)
        self.rank_items.clear()
        self.legend.setVisible(False)
        self.canvas.overlays.place()

    def clear(self) -> None:
        self.clear_forest()
        self.clear_ranks()


def mst_summary(res, unit: str) -> str:
    """Total weight, edges and components of an ``app.jobs.mst.MSTResult``."""
    f = res.forest
    how = f"{f.supersteps} supersteps, {f.rounds} rounds" if f.method == "boruvka" else f.method
    return (f"Forest: {plural(f.num_edges, 'edge')}, total weight "
            f"{format_cost(float(f.total_weight), unit)}, "
            f"{plural(int(f.components), 'component')} ({how}; {f.backend})")


def pagerank_summary(res) -> str:
    """Iterations, convergence and the top nodes of an ``app.jobs.pagerank`` result."""
    r = res.ranks
    state = "converged" if r.converged else "did NOT converge"
    top = ", ".join(f"{i} ({x:.3g})" for i, x in res.top(TOP_SHOWN))
    return (f"PageRank: {state} after {plural(int(r.iterations), 'iteration')} (last change {r.delta:.3g}; "
            f"{r.backend}). Top nodes: {top}")


class AnalysisPanel(QWidget):
    """Backend and PageRank settings; Run MST / Run PageRank / Cancel / Clear; the two
    summaries and their exports."""

    mstRequested = Signal()
    pagerankRequested = Signal()
    cancelRequested = Signal()
    clearRequested = Signal()
    exportRequested = Signal(str)  # "mst" | "pagerank"
    # made by button_row in __init__
    btn_mst: QPushButton
    btn_pagerank: QPushButton
    btn_cancel: QPushButton
    btn_clear: QPushButton
    btn_export_mst: QPushButton
    btn_export_pr: QPushButton

    def __init__(self, parent=None):
        super().__init__(parent)
        self.cb_backend = QComboBox()
        self.cb_backend.addItems(list(BACKENDS))
        self.sp_damping = QDoubleSpinBox()
        self.sp_damping.setRange(0.0, 1.0)  # the ends are refused by values(): (0, 1) open
        self.sp_damping.setDecimals(3)
        self.sp_damping.setSingleStep(0.01)
        self.sp_damping.setValue(0.85)
        self.ed_tol = QLineEdit("1e-6")  # a spin box cannot show 1e-6 readably
        self.ed_tol.setToolTip("stop when the L1 change is below tol × min(nodes, 1000); >= 0")
        self.sp_iter = QSpinBox()
        self.sp_iter.setRange(1, 100_000)
        self.sp_iter.setValue(100)
        runs = button_row(self, ("btn_mst", "Run MST", self.mstRequested),
                          ("btn_pagerank", "Run PageRank", self.pagerankRequested))
        more = button_row(self, ("btn_cancel", "Cancel", self.cancelRequested),
                          ("btn_clear", "Clear map", self.clearRequested))
        exports = button_row(self, ("btn_export_mst", "Export MST…", lambda: self.exportRequested.emit("mst")),
                             ("btn_export_pr", "Export PageRank…",
                              lambda: self.exportRequested.emit("pagerank")))
        self.btn_export_mst.setEnabled(False)
        self.btn_export_pr.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.lbl = QLabel("—")
        self.lbl.setWordWrap(True)
        self.lbl_mst = QLabel("MST: not run")
        self.lbl_pr = QLabel("PageRank: not run")
        for lbl in (self.lbl_mst, self.lbl_pr):
            lbl.setWordWrap(True)

        lay = form_panel(self, "Network analysis", [
            ("Backend", self.cb_backend), ("Damping", self.sp_damping), ("Tolerance", self.ed_tol),
            ("Max iterations", self.sp_iter), runs, more, self.progress, self.lbl])
        lay.addWidget(self.lbl_mst)
        lay.addWidget(self.lbl_pr)
        lay.addLayout(exports)
        lay.addStretch(1)

    @property
    def backend(self) -> str:
        return self.cb_backend.currentText()

    def pagerank_values(self) -> tuple[float, float, int]:
        """(damping, tol, max_iter); InvalidArgumentError naming a bad one."""
        from gpu_core.programs.api import check_pagerank_args

        damping = float(self.sp_damping.value())
        try:
            tol = float(self.ed_tol.text().strip())
        except ValueError:
            raise InvalidArgumentError(f"tolerance {self.ed_tol.text()!r} is not a number") from None
        max_iter = int(self.sp_iter.value())
        check_pagerank_args(damping, tol, max_iter)
        return damping, tol, max_iter

    def set_progress(self, frac: float | None, text: str = "") -> None:
        if frac is not None:  # None: a superstep message, the bar stays busy
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(frac * 1000))
        if text:
            self.lbl.setText(text)
