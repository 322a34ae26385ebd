"""The origin–destination panel (``tools/od_tool.py`` runs it): the cost matrix as a
table coloured by cost (heat map), exported as the CSV `signpost matrix` writes
(``from,to,cost,from_id,to_id``: app.jobs.matrix.CsvRows)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from osutil.atomic import atomic_open
from resources import colormap_lut

from .compare import BeforeAfterTable
from .map_canvas import OD_PREFIX, format_cost
from .panels import button_row


def write_matrix_csv(path: str, from_ids, to_ids, matrix: np.ndarray,
                     from_labels=None, to_labels=None) -> None:
    """The matrix in `signpost matrix`'s CSV format (app.jobs.matrix.CsvRows): ``from`` /
    ``to`` the points' 0-based rows (the table's numbers minus one), ``cost`` empty when
    unreachable, ``from_id`` / ``to_id`` each point's id (its file's id column, else the
    node id)."""
    from app.jobs.matrix import CsvRows

    fl = list(from_labels) if from_labels is not None else [int(v) for v in from_ids]
    tl = list(to_labels) if to_labels is not None else [int(v) for v in to_ids]
    rows = CsvRows(fl, tl)
    block = np.asarray(matrix, dtype=np.int64)
    with atomic_open(path, "w") as fh:
        fh.write(rows.header)
        fh.write(rows.lines(0, block))


OD_PROMPT = "Shift+click the map to add points (each is origin and destination)."


class ODPanel(QWidget):
    computeRequested = Signal()
    loadRequested = Signal()
    exportRequested = Signal()
    compareRequested = Signal()
    cleared = Signal()
    # made by button_row in __init__
    btn_compute: QPushButton
    btn_compare: QPushButton
    btn_load: QPushButton
    btn_export: QPushButton
    btn_clear: QPushButton

    def __init__(self, parent=None):
        super().__init__(parent)
        self.points: list = []  # maps.points.resolve.ResolvedPoint
        self.labels: list = []  # each point's id: its file's id column, else the node id
        self.matrix: np.ndarray | None = None
        self.lbl = QLabel(OD_PROMPT)
        self.lbl.setWordWrap(True)
        row = button_row(self, ("btn_compute", "Compute matrix", self.computeRequested),
                         ("btn_compare", "Before / after edits", self.compareRequested))
        row2 = button_row(self, ("btn_load", "Load points…", self.loadRequested),
                          ("btn_export", "Export CSV…", self.exportRequested),
                          ("btn_clear", "Clear", self.clear))
        self.btn_export.setEnabled(False)
        self.btn_load.setToolTip("Add points from a CSV, GeoJSON or GeoPackage file")
        self.btn_compare.setToolTip("The matrix on the unedited and on the edited map (Edit tool), "
                                    "pair by pair")
        self.table = QTableWidget(0, 0)
        self.compare = BeforeAfterTable(["from", "to", "before", "after", "change"])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.lbl)
        lay.addLayout(row)
        lay.addLayout(row2)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.compare, 1)

    def add_point(self, point, label=None) -> None:
        self.points.append(point)
        self.labels.append(point.node_id if label is None else label)
        self.matrix = None
        self.btn_export.setEnabled(False)
        self.lbl.setText(f"{len(self.points)} points; Compute matrix for the costs between them.")

    def clear(self) -> None:
        """No points, no matrix, and the label says so (it used to keep the old map's
        count after a profile reload)."""
        self.points.clear()
        self.labels.clear()
        self.matrix = None
        self.lbl.setText(OD_PROMPT)
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self.compare.clear_rows()
        self.btn_export.setEnabled(False)
        self.cleared.emit()

    def node_ids(self) -> list[int]:
        return [int(p.node_id) for p in self.points]

    def marker_labels(self) -> list[str]:
        """The names the map shows on the points (P1, P2, ...), as the table's headers;
        a point named by its file's id column keeps that name after its number."""
        out = []
        for i, (p, label) in enumerate(zip(self.points, self.labels, strict=True)):
            named = str(label) != str(p.node_id)
            out.append(f"{OD_PREFIX}{i + 1} {label}" if named else f"{OD_PREFIX}{i + 1}")
        return out

    def show_matrix(self, matrix: np.ndarray, unit: str) -> None:
        """Fill the table: headers are the map's marker numbers, cells the cost in a
        human unit (m/km, s/min), each cell's background by its cost (unreachable: grey);
        the tooltip has the node ids and the exact cost in the map's unit."""
        self.matrix = matrix
        k = len(self.points)
        labels = [str(v) for v in self.labels]
        self.table.setRowCount(k)
        self.table.setColumnCount(k)
        marks = self.marker_labels()
        self.table.setHorizontalHeaderLabels(marks)
        self.table.setVerticalHeaderLabels(marks)
        for i, text in enumerate(labels):
            for item in (self.table.horizontalHeaderItem(i), self.table.verticalHeaderItem(i)):
                assert item is not None  # made by the set*HeaderLabels above
                item.setToolTip(f"point {OD_PREFIX}{i + 1}: {text}")
        reached = matrix[matrix >= 0]
        top = max(int(reached.max()), 1) if reached.size else 1
        lut = colormap_lut("traffic", 256)
        for i in range(k):
            for j in range(k):
                c = int(matrix[i, j])
                item = QTableWidgetItem("—" if c < 0 else format_cost(c, unit))
                if c >= 0:
                    r, g, b = (int(v) for v in lut[min(255, c * 255 // top)])
                    item.setBackground(QColor(r, g, b))
                    item.setForeground(QColor("#111111"))
                else:
                    item.setBackground(QColor("#555555"))
                item.setToolTip(f"{OD_PREFIX}{i + 1} → {OD_PREFIX}{j + 1} ({labels[i]} → {labels[j]}): "
                                f"{'unreachable' if c < 0 else f'{c:,} {unit}'}")
                self.table.setItem(i, j, item)
        self.table.resizeColumnsToContents()
        self.btn_export.setEnabled(True)
        self.lbl.setText(f"{k} × {k} costs between the numbered points (rows: from, "
                         "columns: to); hover a cell for the exact cost.")

    def show_before_after(self, before: np.ndarray, after: np.ndarray, unit: str) -> None:
        """Every pair (from ≠ to): cost on the unedited map, on the edited map, change."""
        labels = self.marker_labels()
        f = format_cost
        rows, signs = [], []
        for i in range(before.shape[0]):
            for j in range(before.shape[1]):
                if i == j:
                    continue
                b, a = int(before[i, j]), int(after[i, j])
                if b >= 0 and a >= 0:
                    d = a - b
                    ch = ("same" if d == 0 else ("+" if d > 0 else "−") + f(abs(d), unit))
                    sign = (a > b) - (a < b)
                else:
                    ch = "same" if b == a else ("cut off" if a < 0 else "now reached")
                    sign = 0 if b == a else (1 if a < 0 else -1)
                rows.append((labels[i], labels[j], "—" if b < 0 else f(b, unit), "—" if a < 0 else f(a, unit), ch))
                signs.append(sign)
        self.compare.show_rows(rows, signs)
        worse = sum(1 for s in signs if s > 0)
        better = sum(1 for s in signs if s < 0)
        self.lbl.setText(f"Before / after edits: {worse} pairs worse, {better} better, "
                         f"{len(rows) - worse - better} unchanged.")
