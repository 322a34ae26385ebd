"""The "Network analysis" tool: minimum spanning forest and PageRank of the open map
(``app.jobs.mst`` / ``app.jobs.pagerank``, seed 003's vertex programs) on the compute
worker. The forest is drawn as lines over the map, PageRank as coloured nodes with a
legend; each superstep's telemetry streams live into the phase dock."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from app.jobs import mst, pagerank
from gpu_core.errors import InvalidArgumentError
from gpu_core.programs import telemetry_csv
from osutil.atomic import atomic_open

from ..analysis import AnalysisLayers, AnalysisPanel, mst_summary, pagerank_summary
from ..words import plural
from ..workers import JobContext
from .base import Tool


def _compiled(seconds: float) -> str:
    """The kernels' load time, said apart from the algorithm's (none when warm)."""
    return f" (kernels loaded first: {seconds * 1000:,.0f} ms, not counted)" if seconds >= 0.05 else ""


def superstep_job(run, net, opts):
    """``run(net, opts, progress=, cancel=, on_superstep=)`` as a worker job whose
    superstep rows go to the phase chart as they arrive."""

    def fn(ctx: JobContext):
        return run(net, opts, progress=ctx.progress, cancel=ctx.cancelled,
                   on_superstep=ctx.on_superstep)

    fn.__name__ = run.__module__.rsplit(".", 1)[-1]
    return fn


class AnalysisTool(Tool):
    name = "analysis"
    title = "Analysis"  # the dock's tab: five tabs share a 380 px dock at 1024 × 700
    exports = {
        "mst": ("Minimum spanning forest (GeoJSON / CSV)…", "GeoJSON (*.geojson);;CSV (*.csv)"),
        "pagerank": ("PageRank (CSV)…", "CSV (*.csv)"),
        "supersteps": ("Superstep telemetry of the last analysis (CSV)…", "CSV (*.csv)"),
    }

    def __init__(self, window):
        super().__init__(window)
        self.mst_result: mst.MSTResult | None = None
        self.pagerank_result: pagerank.PageRankResult | None = None
        self.telemetry = None  # SUPERSTEP_DTYPE rows of the last finished run
        self.layers = AnalysisLayers(window.canvas)
        self.panel = AnalysisPanel()
        self.panel.mstRequested.connect(self.run_mst)
        self.panel.pagerankRequested.connect(self.run_pagerank)
        self.panel.cancelRequested.connect(window.compute.cancel)
        self.panel.clearRequested.connect(self.layers.clear)
        self.panel.exportRequested.connect(window.export_dialog)

    def widget(self) -> QWidget:
        return self.panel

    def result_layers(self) -> list:
        from ..layers import Layer

        lay = self.layers
        return [Layer("Spanning forest", lambda: [lay.forest_item, lay.forest_legend],
                      lay.clear_forest),
                Layer("PageRank", lambda: [*lay.rank_items, lay.legend], lay.clear_ranks)]

    def stage(self, wait) -> None:
        from ..staging import idle

        self.run_mst()
        wait(lambda: idle(self.win) and self.mst_result is not None, 120)
        self.run_pagerank()
        wait(lambda: idle(self.win) and self.pagerank_result is not None, 120)

    def map_changed(self, net) -> None:
        self.mst_result = self.pagerank_result = self.telemetry = None
        self.layers.clear()
        p = self.panel
        p.lbl_mst.setText("MST: not run")
        p.lbl_pr.setText("PageRank: not run")
        p.btn_export_mst.setEnabled(False)
        p.btn_export_pr.setEnabled(False)

    # ---- running ----------------------------------------------------------------------
    def run_mst(self) -> int:
        """Borůvka's minimum spanning forest of the open map on the compute worker."""
        return self._submit("MST", mst.run, mst.MSTOptions(backend=self.panel.backend),
                            self._mst_done)

    def run_pagerank(self) -> int:
        """PageRank with the panel's damping, tolerance and iterations; 0 (and a message)
        when one of them is refused."""
        try:
            damping, tol, max_iter = self.panel.pagerank_values()
        except InvalidArgumentError as exc:
            self.panel.set_progress(0.0, f"Not run: {exc}")
            self.win.show_error("PageRank", str(exc))
            return 0
        opts = pagerank.PageRankOptions(damping=damping, tol=tol, max_iter=max_iter,
                                        backend=self.panel.backend)
        return self._submit("PageRank", pagerank.run, opts, self._pagerank_done)

    def _submit(self, what: str, run, opts, done) -> int:
        win = self.win
        if win.net is None:
            win.status("Open a map first", 5000)
            return 0
        win.chart.clear()
        win.chart.begin_run(what, supersteps=True)
        self.panel.set_progress(0.0, f"{what}: starting…")
        self.panel.progress.setRange(0, 0)  # busy: the superstep count is not known ahead
        jid = win.submit(superstep_job(run, win.net, opts), done, failed=self._failed(what),
                         cancelled=lambda: self.panel.set_progress(0.0, f"{what}: cancelled"),
                         progress=self.panel.set_progress, tag=what, busy=True)
        win.status(f"Running {what} ({opts.backend})…")
        return jid

    def _failed(self, what: str):
        def failed(exc) -> None:
            self.panel.set_progress(0.0, f"{what} failed: {exc}")
            self.win.show_error(f"{what} failed", str(exc))

        return failed

    def _mst_done(self, res: mst.MSTResult) -> None:
        net, f = self.map_net(), res.forest
        self.mst_result = res
        self.telemetry = f.telemetry
        self.win.chart.set_run("MST", f.telemetry, f.backend, search_s=f.elapsed_s)
        if net.has_coordinates:  # x, y of a map without coordinates mean nothing
            self.layers.show_forest(net.x, net.y, f.tails, f.heads)
            self.win.layers.shown("Spanning forest")
        self.panel.lbl_mst.setText(mst_summary(res, net.unit))
        self.panel.btn_export_mst.setEnabled(True)
        self._finished(f"MST: {f.num_edges:,} edges in {f.elapsed_s * 1000:.1f} ms"
                       + _compiled(res.compile_s))

    def _pagerank_done(self, res: pagerank.PageRankResult) -> None:
        net, r = self.map_net(), res.ranks
        self.pagerank_result = res
        self.telemetry = r.telemetry
        self.win.chart.set_run("PageRank", r.telemetry, r.backend, search_s=r.elapsed_s)
        if net.has_coordinates:
            self.layers.show_ranks(net.x, net.y, r.rank)
            self.win.layers.shown("PageRank")
        self.panel.lbl_pr.setText(pagerank_summary(res))
        self.panel.btn_export_pr.setEnabled(True)
        self._finished(f"PageRank: {plural(int(r.iterations), 'iteration')} in {r.elapsed_s * 1000:.1f} ms"
                       + _compiled(res.compile_s))

    def _finished(self, text: str) -> None:
        if not self.map_net().has_coordinates:
            text += " (this map has no coordinates: nothing drawn)"
        self.panel.set_progress(1.0, text)
        self.win.status(text, 10000)

    # ---- exports ----------------------------------------------------------------------
    def export(self, what: str, path: str) -> None:
        if what == "supersteps":
            if self.telemetry is None:
                raise InvalidArgumentError("no superstep telemetry: run MST or PageRank first")
            with atomic_open(path, "w") as fh:  # whole or not at all, as the CLI's --out
                fh.write(telemetry_csv(self.telemetry))
            return
        if what == "mst":
            if self.mst_result is None:
                raise InvalidArgumentError("no spanning forest to export: run MST first")
            net = self.map_net()
            geo = path.lower().endswith((".geojson", ".json"))
            if geo and not net.has_coordinates:
                raise InvalidArgumentError("this map has no coordinates: export the forest as .csv")
            with atomic_open(path, "w") as fh:
                if geo:
                    mst.write_geojson(fh, net, self.mst_result)
                else:
                    mst.write_csv(fh, self.mst_result)
            return
        if self.pagerank_result is None:
            raise InvalidArgumentError("no PageRank to export: run PageRank first")
        with atomic_open(path, "w") as fh:
            pagerank.write_csv(fh, self.pagerank_result.node_ids, self.pagerank_result.ranks.rank)
