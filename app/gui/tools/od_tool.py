"""The origin–destination tool: points by shift-click (or a points file), the cost matrix
between them (``app.jobs.matrix``) as a heat-map table, exported as CSV."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QFileDialog, QWidget

from app.jobs import matrix
from gpu_core.errors import InvalidArgumentError
from maps.errors import MapError
from maps.points.resolve import read_point_rows

from ..compare import before_after_job
from ..od import ODPanel, write_matrix_csv
from .base import Tool, job


class ODTool(Tool):
    name = "od"
    title = "OD matrix"
    clicks = ("od",)
    exports = {"od": ("Origin–destination matrix (CSV)…", "CSV (*.csv)")}

    def __init__(self, window):
        super().__init__(window)
        self.panel = ODPanel()
        self.panel.computeRequested.connect(self.run)
        self.panel.loadRequested.connect(self._load_dialog)
        self.panel.exportRequested.connect(lambda: window.export_dialog("od"))
        self.panel.cleared.connect(lambda: window.canvas.show_od([], []))
        self.panel.compareRequested.connect(self.compare)

    def widget(self) -> QWidget:
        return self.panel

    def result_layers(self) -> list:
        from ..layers import Layer

        canvas = self.win.canvas
        return [Layer("OD points", lambda: [canvas.od_item, *canvas.od_labels], self.panel.clear)]

    def stage(self, wait) -> None:
        from ..staging import idle, spread_points

        for p in spread_points(self.win, 4):
            self.win.canvas.click_at(*p, "shift")
        self.run()
        wait(lambda: idle(self.win) and self.panel.matrix is not None, 120)

    def map_changed(self, net) -> None:
        self.panel.clear()

    def clicked(self, which: str, point, seg: tuple) -> None:
        self.panel.add_point(point)
        self._show_points()
        self.win.layers.shown("OD points")
        self.win.dock(self.name).raise_()

    def _show_points(self) -> None:
        nodes = [int(p.node) for p in self.panel.points]
        self.win.canvas.show_od(self.map_net().x[nodes], self.map_net().y[nodes])

    def _load_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.dialog_parent(), "Load points", "",
                                              "CSV (*.csv);;GeoJSON (*.geojson);;GeoPackage (*.gpkg);;"
                                              "All files (*)")
        if path:
            self.load_csv(path)

    def load_csv(self, path: str) -> int:
        """Add the points of a file (maps.points.resolve.read_point_texts); errors go to a dialog."""
        win = self.win
        if win.net is None:
            win.status("Open a map first", 5000)
            return 0
        try:
            pts = []
            for line, text, rid in read_point_rows(path):
                try:
                    pts.append((win.resolve(text), rid))
                except MapError as exc:  # name the file and line of the bad point
                    raise MapError(exc.detail, path=path, line=line or None) from None
        except (MapError, OSError) as exc:
            win.show_error("Could not read the points", str(exc))
            return 0
        for p, rid in pts:
            self.panel.add_point(p, rid)
        self._show_points()
        return len(pts)

    def run(self) -> int:
        """Costs between all OD points on the compute worker."""
        win = self.win
        if win.graph is None or len(self.panel.points) < 1:
            win.status("Shift+click at least one point first", 5000)
            return 0
        nodes = tuple(int(p.node) for p in self.panel.points)
        opts = matrix.MatrixOptions(nodes, nodes, backend=win.algo_panel.backend)
        jid = win.submit(job(matrix.run, win.graph, opts), self._done)
        win.status(f"Computing a {len(nodes)} × {len(nodes)} cost matrix…")
        return jid

    def compare(self) -> int:
        """The matrix on the unedited and on the edited map (the Edit tool's), side by side."""
        win = self.win
        sc = self.edited_scenario()
        if sc is None:
            return 0
        if win.graph is None or len(self.panel.points) < 2:
            win.status("Shift+click at least two points first", 5000)
            return 0
        nodes = tuple(int(p.node) for p in self.panel.points)
        backend = win.algo_panel.backend
        fn = before_after_job(matrix.run, win.net, sc,
                              lambda _net: matrix.MatrixOptions(nodes, nodes, backend=backend))
        jid = win.submit(fn, self._compare_done)
        win.status(f"Computing the {len(nodes)} × {len(nodes)} matrix before and after the edits…")
        return jid

    def _compare_done(self, both) -> None:
        before, after = (np.asarray(r.matrix) for r in both)
        self.panel.show_before_after(before, after, self.map_net().unit)
        self.win.status(self.panel.lbl.text(), 8000)

    def _done(self, result: matrix.MatrixResult) -> None:
        self.panel.show_matrix(np.asarray(result.matrix), self.map_net().unit)
        self.win.status(self.panel.lbl.text(), 8000)

    def export(self, what: str, path: str) -> None:
        if self.panel.matrix is None:
            raise InvalidArgumentError("no origin–destination matrix to export: compute it first")
        ids, labels = self.panel.node_ids(), self.panel.labels
        write_matrix_csv(path, ids, ids, self.panel.matrix, labels, labels)
