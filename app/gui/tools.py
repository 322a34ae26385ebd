"""The window side of the billboard and origin–destination tools (a mixin of MainWindow).

Both run on the window's compute worker, so a new click (or search) supersedes them, and
report through the same finished/failed/cancelled handlers as the route search.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QFileDialog

from maps.errors import MapError

from .billboards import candidate_mask
from .od import read_points_csv_lines
from .routing import resolve_point
from .workers import Job, JobContext


class ToolsMixin:
    """Billboards (gpu_core.betweenness) and OD matrices (gpu_core.multi_source)."""

    def run_billboards(self) -> int:
        """Greedy K billboard sites (gpu_core.betweenness) on the compute worker."""
        if self.graph is None or self.net is None:
            self.status("Open a map first", 5000)
            return 0
        v = self.bb_panel.values()
        r = self.canvas.vb.viewRect()
        cand = candidate_mask(self.net, v["candidates"], (r.x(), r.y(), r.width(), r.height()))
        graph, backend = self.graph, self.algo_panel.backend

        def fn(ctx: JobContext):
            from gpu_core.betweenness import BillboardResult, billboards

            result = None
            for ev in billboards(graph, v["k"], mode=v["mode"], method=v["method"], candidates=cand,
                                 backend=backend, cancel=ctx.cancelled):
                if isinstance(ev, BillboardResult):
                    result = ev
                else:
                    ctx.progress(ev.fraction, f"round {ev.round} of {ev.rounds}: "
                                 f"{ev.sources_done:,}/{ev.sources_total:,} sources")
            return result

        self.billboards = None
        self.canvas.show_sites([], [])
        self.bb_panel.set_progress(0.0, "starting…")
        self._search_job = self._bb_job = self.compute.submit(Job(fn, kind="billboards"))
        self.progress.setRange(0, 1000)
        self.progress.setVisible(True)
        self.btn_cancel.setVisible(True)
        self.status(f"Placing {v['k']} billboards ({v['mode']}, {v['method']})…")
        return self._bb_job

    def add_od_point(self, point) -> None:
        self.od_panel.add_point(point)
        self._show_od_points()
        self.od_dock.raise_()

    def _show_od_points(self) -> None:
        nodes = [int(p.node) for p in self.od_panel.points]
        self.canvas.show_od(self.net.x[nodes], self.net.y[nodes])

    def _load_od_csv(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load points", "", "CSV (*.csv);;All files (*)")
        if path:
            self.load_od_csv(path)

    def load_od_csv(self, path: str) -> int:
        """Add the points of a CSV (see od.read_points_csv); errors go to a dialog."""
        if self.net is None:
            self.status("Open a map first", 5000)
            return 0
        try:
            pts = []
            for line, text in read_points_csv_lines(path):
                try:
                    pts.append(resolve_point(self.net, self.snapper, text, self.snap_max_m))
                except MapError as exc:  # name the file and line of the bad point
                    raise MapError(exc.detail, path=path, line=line) from None
        except (MapError, OSError) as exc:
            self.show_error("Could not read the points", str(exc))
            return 0
        for p in pts:
            self.od_panel.add_point(p)
        self._show_od_points()
        return len(pts)

    def run_od_matrix(self) -> int:
        """Costs between all OD points (gpu_core.multi_source) on the compute worker."""
        if self.graph is None or len(self.od_panel.points) < 1:
            self.status("Shift+click at least one point first", 5000)
            return 0
        nodes = np.array([int(p.node) for p in self.od_panel.points], dtype=np.int64)
        graph, backend = self.graph, self.algo_panel.backend

        def fn(ctx: JobContext):
            from gpu_core.multi_source import distance_matrix

            return distance_matrix(graph, nodes, nodes, backend=backend, cancel=ctx.cancelled,
                                   on_progress=lambda d, t: ctx.progress(d / max(t, 1), ""))

        self._search_job = self._od_job = self.compute.submit(Job(fn, kind="od"))
        self.progress.setRange(0, 1000)
        self.progress.setVisible(True)
        self.btn_cancel.setVisible(True)
        self.status(f"Computing a {len(nodes)} × {len(nodes)} cost matrix…")
        return self._od_job

    def _job_progress(self, jid: int, frac: float, msg: str) -> None:
        if jid == self._od_job and jid == self._search_job:
            self.progress.setValue(int(frac * 1000))
        if jid == self._bb_job and jid == self._search_job:
            self.bb_panel.set_progress(frac, msg)
            self.progress.setValue(int(frac * 1000))

    def _tool_finished(self, kind: str, result) -> None:
        if kind == "od":
            self.od_panel.show_matrix(np.asarray(result), self.net.unit)
            self.status(self.od_panel.lbl.text(), 8000)
        else:
            self.billboards = result
            self.bb_panel.show_result(self.net, result)
            sites = result.sites
            self.canvas.show_sites(self.net.x[sites], self.net.y[sites])
            self.status(self.bb_panel.lbl.text(), 10000)
