"""The "Place billboards" panel (``tools/billboards_tool.py`` runs it): K, mode, method,
candidates; results as a table, the SB-vs-k chart and the covered share; exports as
GeoJSON or CSV."""

from __future__ import annotations

import json

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from app.jobs.billboards import DEFAULT_MODE
from maps.model.network import KIND_ROAD, RoadNetwork
from osutil.atomic import atomic_open

from .compare import BeforeAfterTable
from .panels import button_row, form_panel

CANDIDATES = ("all nodes", "road nodes", "nodes in view")


def candidate_mask(net: RoadNetwork, which: str, view=None) -> np.ndarray | None:
    """Bool mask of allowed sites (None = all)."""
    if which == "road nodes":
        mask = np.zeros(net.num_nodes, dtype=bool)
        mask[net.arc_sources()[net.edge_kind == KIND_ROAD]] = True
        return mask
    if which == "nodes in view" and view is not None:
        x0, y0, w, h = view
        return (net.x >= x0) & (net.x <= x0 + w) & (net.y >= y0) & (net.y <= y0 + h)
    return None


def sites_rows(net: RoadNetwork, result) -> list[dict]:
    """One dict per chosen site: rank, node id, lon, lat, gain, SB, covered share."""
    rows = []
    for i, v in enumerate(result.sites.tolist()):
        rows.append({
            "rank": i + 1,
            "node_id": int(net.node_ids[v]),
            "lon": float(net.lon[v]),
            "lat": float(net.lat[v]),
            "gain": float(result.gains[i]),
            "group_betweenness": float(result.group_betweenness[i]),
            "covered_share": float(result.coverage[i]),
        })
    return rows


def export_sites(net: RoadNetwork, result, path: str) -> None:
    """Sites as GeoJSON points (.geojson/.json) or CSV (anything else)."""
    rows = sites_rows(net, result)
    if path.lower().endswith((".geojson", ".json")):
        feats = [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [r["lon"], r["lat"]]},
                  "properties": {k: v for k, v in r.items() if k not in ("lon", "lat")}} for r in rows]
        doc = {"type": "FeatureCollection", "mode": result.mode, "method": result.method,
               "backend": result.backend, "features": feats}
        with atomic_open(path, "w") as fh:
            json.dump(doc, fh)
        return
    with atomic_open(path, "w") as fh:
        fh.write("rank,node_id,lon,lat,gain,group_betweenness,covered_share\n")
        for r in rows:
            fh.write(f"{r['rank']},{r['node_id']},{r['lon']:.7f},{r['lat']:.7f},{r['gain']:.6g},"
                     f"{r['group_betweenness']:.6g},{r['covered_share']:.6f}\n")


def k_ticks(k: int, most: int = 10) -> list[tuple[float, str]]:
    """Whole-number ticks 1..k (never k = 1.5): every step-th when there are many."""
    step = max(1, int(np.ceil(k / most)))
    return [(float(i), str(i)) for i in range(1, k + 1, step)]


def sb_ticks(top: float) -> list[tuple[float, str]]:
    """A few round ticks from 0 to ``top`` written short (2.2e+07 → "22M")."""
    if top <= 0:
        return [(0.0, "0")]
    mag = 10 ** np.floor(np.log10(top))
    step = next(m * mag for m in (0.2, 0.5, 1, 2, 5) if top / (m * mag) <= 5)
    out = []
    v = 0.0
    while v <= top * 1.0001:
        out.append((v, _short(v)))
        v += step
    return out


def _short(v: float) -> str:
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:.3g}{suf}"
    return f"{v:.3g}"


class BillboardPanel(QWidget):
    """K, mode, method, candidates; run/cancel; results table, SB-vs-k chart, export."""

    runRequested = Signal()
    cancelRequested = Signal()
    exportRequested = Signal()
    compareRequested = Signal()
    # made by button_row in __init__
    btn_run: QPushButton
    btn_cancel: QPushButton
    btn_export: QPushButton
    btn_compare: QPushButton

    def __init__(self, parent=None):
        super().__init__(parent)
        from gpu_core.betweenness import METHODS, MODES

        self.sp_k = QSpinBox()
        self.sp_k.setRange(1, 200)
        self.sp_k.setValue(5)
        self.cb_mode = QComboBox()
        self.cb_mode.addItems(list(MODES))
        self.cb_mode.setCurrentText(DEFAULT_MODE)  # as `signpost billboards`
        self.cb_mode.setToolTip("hops: shortest paths by arc count (seed 002); weighted: by the map's weights")
        self.cb_method = QComboBox()
        self.cb_method.addItems(list(METHODS))
        self.cb_cand = QComboBox()
        self.cb_cand.addItems(list(CANDIDATES))
        row = button_row(self, ("btn_run", "Place billboards", self.runRequested),
                         ("btn_cancel", "Cancel", self.cancelRequested),
                         ("btn_export", "Export…", self.exportRequested))
        self.btn_export.setEnabled(False)
        row2 = button_row(self, ("btn_compare", "Before / after edits", self.compareRequested))
        self.btn_compare.setToolTip("Place the sites on the unedited and on the edited map "
                                    "(Edit tool), side by side")
        self.compare = BeforeAfterTable(["#", "before", "covered", "after", "covered", "change"])
        self.compare.setToolTip("Rank by rank: the site (node id) and the share of shortest "
                                "paths it covers, on the unedited and on the edited map")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.lbl = QLabel("—")
        self.lbl.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["#", "node", "gain", "covered"])
        self.table.verticalHeader().setVisible(False)
        # compact rows: five of them and the SB-vs-k chart fit the dock at 1024 × 700
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self._fit_table(3)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.plot = pg.PlotWidget(background="#1e2127")
        # A title above the plot, not a rotated axis title beside the tick labels
        self.plot.setTitle("group betweenness SB(R) after k sites", size="8pt", color="#c8c8c8")
        self.plot.setLabel("bottom", "sites placed (k)")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.getAxis("left").setWidth(52)
        self.plot.setMinimumHeight(110)  # whole below five rows in the dock at 1024 × 700
        self.curve = self.plot.plot([], [], pen=pg.mkPen("#f39c12", width=2), symbol="o", symbolSize=6,
                                    symbolBrush="#f39c12")

        lay = form_panel(self, "Place billboards", [
            ("Sites K", self.sp_k), ("Paths", self.cb_mode), ("Method", self.cb_method),
            ("Candidates", self.cb_cand), row, row2, self.progress, self.lbl])
        # The table as tall as its rows (up to 8), the chart takes the rest: it was
        # pushed below the dock by an empty stretch of table.
        lay.addWidget(self.table, 0)
        lay.addWidget(self.compare, 0)
        lay.addWidget(self.plot, 1)

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        """The least height at ``width``: the dock's scroll area sized the panel by the
        preferred height (890 px at 1024 × 700: its wrapped label makes it ask), pushing
        the SB-vs-k chart below the fold; the chart takes what the dock has instead."""
        lay = self.layout()
        return lay.minimumHeightForWidth(width) if lay is not None else super().heightForWidth(width)

    def values(self) -> dict:
        return {"k": int(self.sp_k.value()), "mode": self.cb_mode.currentText(),
                "method": self.cb_method.currentText(), "candidates": self.cb_cand.currentText()}

    def set_progress(self, frac: float, text: str = "") -> None:
        self.progress.setValue(int(frac * 1000))
        if text:
            self.lbl.setText(text)

    def show_result(self, net: RoadNetwork, result) -> None:
        rows = sites_rows(net, result)
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            for j, text in enumerate((str(r["rank"]), str(r["node_id"]), f"{r['gain']:.4g}",
                                      f"{100 * r['covered_share']:.1f} %")):
                self.table.setItem(i, j, QTableWidgetItem(text))
        k = np.arange(1, len(rows) + 1)
        self.curve.setData(k, np.asarray(result.group_betweenness, dtype=float))
        self.plot.getAxis("bottom").setTicks([k_ticks(len(rows))])
        self.plot.getAxis("left").setTicks([sb_ticks(float(np.max(result.group_betweenness)))
                                            if len(rows) else []])
        share = 100 * float(result.coverage[-1]) if len(rows) else 0.0
        extra = f", ±{result.error_bound:.3g} (sampled)" if result.method == "sampled" else ""
        self.lbl.setText(f"{len(rows)} sites cover {share:.1f} % of shortest-path pairs "
                         f"(SB = {float(result.group_betweenness[-1]):.4g}{extra}; {result.method}, "
                         f"{result.mode}, {result.backend}/{result.kernel})")
        self.progress.setValue(1000)
        self.btn_export.setEnabled(True)
        self._fit_table(len(rows))

    def _fit_table(self, n: int) -> None:
        """The table's height: its header and up to 8 rows (more scroll)."""
        t = self.table
        rows = min(max(n, 3), 8)
        h = t.horizontalHeader().height() + rows * t.verticalHeader().defaultSectionSize()
        t.setFixedHeight(h + 2 * t.frameWidth() + 2)

    def show_before_after(self, net_before: RoadNetwork, before, net_after: RoadNetwork, after) -> None:
        """Rank by rank: the site and covered share on the unedited and on the edited map."""
        rb, ra = sites_rows(net_before, before), sites_rows(net_after, after)
        rows, signs = [], []
        for i in range(max(len(rb), len(ra))):
            b = rb[i] if i < len(rb) else None
            a = ra[i] if i < len(ra) else None
            cb = b["covered_share"] if b else 0.0
            ca = a["covered_share"] if a else 0.0
            rows.append((str(i + 1), str(b["node_id"]) if b else "—", f"{100 * cb:.1f} %",
                         str(a["node_id"]) if a else "—", f"{100 * ca:.1f} %",
                         f"{100 * (ca - cb):+.1f} pt"))
            signs.append(0)
        self.compare.show_rows(rows, signs)
        moved = sum(1 for r in rows if r[1] != r[3])
        self.lbl.setText(f"Before / after edits: {moved} of {len(rows)} sites moved; SB "
                         f"{float(before.group_betweenness[-1]) if len(rb) else 0:.4g} → "
                         f"{float(after.group_betweenness[-1]) if len(ra) else 0:.4g}")
        self.progress.setValue(1000)

