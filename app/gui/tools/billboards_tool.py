"""The billboards tool: K sites by greedy group betweenness (``app.jobs.billboards``) on
the window's compute worker; numbered markers, the panel's table and SB-vs-k chart."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from app.jobs import billboards
from gpu_core.errors import InvalidArgumentError

from ..billboards import BillboardPanel, candidate_mask, export_sites
from ..compare import before_after_job
from .base import Tool

SAMPLING_RUN = "billboard sampling"  # the phase chart's run (phase_chart.STEP_NAMES)

LONG_JOB_S = 120.0  # a placement estimated longer is announced before it starts
# sampled placements show the sites of their first samples while the first round goes on
# (a loose bound, said; issue 43): a first answer in seconds on a country-sized map
PREVIEW_SAMPLES = 64


def long_job_text(est: dict, v: dict) -> str:
    """'About 1 h on the CPU: 14,771 full searches (sampled) ...; shorter: ...'."""
    from ..words import duration_words

    return (f"K = {v['k']} sites on this map take roughly {duration_words(est['seconds'])} on "
            f"the {'GPU' if est['backend'] == 'cupy' else 'CPU'}: {est['searches']:,} full "
            f"searches ({est['method']}). Shorter: fewer sites (K), candidates 'in view' "
            "(zoom in first), the 'hops' mode, or a GPU.")


class BillboardsTool(Tool):
    name = "billboards"
    title = "Billboards"
    exports = {"billboards": ("Billboard sites (GeoJSON / CSV)…", "GeoJSON (*.geojson);;CSV (*.csv)")}

    def __init__(self, window):
        super().__init__(window)
        self.result = None  # gpu_core BillboardResult on screen
        self._partials: list = []  # progressive sampling: the rounds' best sites so far
        self._shown = 0
        self.panel = BillboardPanel()
        self.panel.runRequested.connect(self.run)
        self.panel.cancelRequested.connect(window.compute.cancel)
        self.panel.exportRequested.connect(lambda: window.export_dialog("billboards"))
        self.panel.compareRequested.connect(self.compare)

    def widget(self) -> QWidget:
        return self.panel

    def result_layers(self) -> list:
        from ..layers import Layer

        canvas = self.win.canvas
        return [Layer("Billboard sites", lambda: [canvas.site_item, *canvas.site_labels],
                      self.clear)]

    def stage(self, wait) -> None:
        from ..staging import idle

        self.panel.sp_k.setValue(5)
        self.run()
        wait(lambda: idle(self.win) and self.result is not None, 600)

    def map_changed(self, net) -> None:
        self.result = None

    def clear(self) -> None:
        """No sites on the map or in the table (View → Layers → Clear)."""
        self.result = None
        self.win.canvas.show_sites([], [])
        self.panel.table.setRowCount(0)
        self.panel.curve.setData([], [])
        self.panel.btn_export.setEnabled(False)
        self.panel.lbl.setText("—")

    def run(self, confirmed: bool = False) -> int:
        """Greedy K billboard sites on the compute worker. A placement estimated past
        LONG_JOB_S is announced first (with what would make it shorter) and starts only
        when the user says so (``confirmed``)."""
        win = self.win
        if win.graph is None or win.net is None:
            win.status("Open a map first", 5000)
            return 0
        v = self.panel.values()
        r = win.canvas.vb.viewRect()
        cand = candidate_mask(win.net, v["candidates"], (r.x(), r.y(), r.width(), r.height()))
        opts = billboards.BillboardsOptions(v["k"], mode=v["mode"], method=v["method"],
                                            candidates=cand, backend=win.algo_panel.backend,
                                            preview=PREVIEW_SAMPLES)
        est = billboards.estimate(win.net.num_nodes, win.net.num_arcs, opts)
        if est["seconds"] > LONG_JOB_S and not confirmed:
            self.announce_long(est, v)
            return 0
        self.result = None
        win.canvas.show_sites([], [])
        self.panel.set_progress(0.0, "starting…")
        partials: list = []  # appended on the worker thread, read here on progress
        self._partials, self._shown = partials, 0
        win.chart.clear()
        if est["method"] == "sampled":  # samples against the bound, round by round
            win.chart.begin_run(SAMPLING_RUN, supersteps=True)
        graph = _junction_map(win) or win.graph

        def fn(ctx):
            return billboards.run(graph, opts, progress=ctx.progress, cancel=ctx.cancelled,
                                  on_partial=partials.append)

        fn.__name__ = "billboards"
        jid = win.submit(fn, self._done, failed=self._failed, cancelled=self._cancelled,
                         progress=self._progress)
        win.status(f"Placing {v['k']} billboards ({v['mode']}, {v['method']})…")
        return jid

    def announce_long(self, est: dict, v: dict) -> None:
        """Say how long the placement may take and what would shorten it; Start / Cancel."""
        from PySide6.QtWidgets import QMessageBox

        text = long_job_text(est, v)
        self.announced = text
        self.panel.set_progress(0.0, "Not started: " + text)
        self.win.status("Billboards not started: see the panel", 10000)
        if os.environ.get("SIGNPOST_NO_DIALOGS"):
            return
        box = QMessageBox(QMessageBox.Icon.Question, "A long placement", text + "\n\nStart it anyway?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self.dialog_parent())
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.accepted.connect(lambda: self.run(confirmed=True))
        box.open()

    def compare(self) -> int:
        """The sites on the unedited and on the edited map (the Edit tool's), side by side."""
        import numpy as np

        win = self.win
        sc = self.edited_scenario()
        if sc is None:
            return 0
        v = self.panel.values()
        r = win.canvas.vb.viewRect()
        cand = candidate_mask(self.map_net(), v["candidates"], (r.x(), r.y(), r.width(), r.height()))
        backend = win.algo_panel.backend

        def opts(net):
            c = cand
            if c is not None and net.num_nodes > c.shape[0]:  # added vertices: not candidates
                c = np.concatenate([c, np.zeros(net.num_nodes - c.shape[0], dtype=bool)])
            return billboards.BillboardsOptions(v["k"], mode=v["mode"], method=v["method"],
                                                candidates=c, backend=backend)

        self.panel.set_progress(0.0, "before / after: starting…")
        jid = win.submit(before_after_job(billboards.run, win.net, sc, opts), self._compare_done,
                         failed=self._failed,
                         cancelled=lambda: self.panel.set_progress(0.0, "Cancelled"),
                         progress=self.panel.set_progress)
        win.status(f"Placing {v['k']} billboards before and after the edits…")
        return jid

    def _compare_done(self, both) -> None:
        before, after = both
        sc = self.win.scenario
        self.panel.show_before_after(self.map_net(), before.billboards, sc.network(), after.billboards)
        self.win.status(self.panel.lbl.text(), 10000)

    def _progress(self, frac, text: str) -> None:
        """Progress, and the best sites so far when a sampling round brought new ones:
        on the map and in the table while sampling goes on (progressive sampling)."""
        self.panel.set_progress(frac if frac is not None else 0.0, text)
        if len(self._partials) > self._shown:
            self._chart_rounds()  # every round since the last event (two can come between)
            self._show(self._partials[-1])
            self.panel.lbl.setText(self.refining_text(self._partials[-1]))

    def _chart_rounds(self) -> None:
        """A chart row for each round not charted yet."""
        for r in self._partials[self._shown:]:
            self._chart_round(r)
        self._shown = len(self._partials)

    def _chart_round(self, r) -> None:
        """One row of the phase chart: this round's samples against the fixed bound."""
        import numpy as np

        from gpu_core.programs import SUPERSTEP_DTYPE

        row = np.zeros(1, dtype=SUPERSTEP_DTYPE)
        row["superstep"] = self.win.chart.num_phases(SAMPLING_RUN) + 1
        row["active"], row["messages"] = r.samples, r.sample_bound
        row["time_us"] = 1e6 * sum(r.phase_s.values())
        self.win.chart.append(SAMPLING_RUN, row)

    @staticmethod
    def refining_text(r) -> str:
        what = "first answer" if r.stopped_by == "preview" else "refining"
        return (f"{what}: {r.samples:,} samples (fixed bound {r.sample_bound:,}), error "
                f"{r.epsilon_at_stop:.3g} of target {r.epsilon:g}")

    def _cancelled(self) -> None:
        """Cancel keeps the best sites so far (progressive sampling), with their bound."""
        if self._partials:
            best = self._partials[-1]
            best.stopped_by = "cancelled"
            self._show(best)
            self.panel.set_progress(0.0, f"Cancelled: kept the best so far ({best.samples:,} "
                                    f"samples, error {best.epsilon_at_stop:.3g})")
        else:
            self.panel.set_progress(0.0, "Cancelled")

    def _show(self, result) -> None:
        net = self.map_net()
        self.result = result
        self.panel.show_result(net, result)
        self.win.canvas.show_sites(net.x[result.sites], net.y[result.sites])

    def _done(self, done: billboards.BillboardsResult) -> None:
        net, result = self.map_net(), done.billboards
        if result.sampling == "progressive":
            self._chart_rounds()  # rounds whose progress event came after the end too
            self._chart_round(result)
        self.result = result
        self.panel.show_result(net, result)
        self.win.canvas.show_sites(net.x[result.sites], net.y[result.sites])
        self.win.layers.shown("Billboard sites")
        self.win.status(self.panel.lbl.text(), 10000)

    def _failed(self, exc) -> None:  # the panel would keep saying "starting…"
        self.panel.set_progress(0.0, f"Failed: {exc}")
        self.win.show_error("Billboard placement failed", str(exc))

    def export(self, what: str, path: str) -> None:
        if self.result is None:
            raise InvalidArgumentError("no billboard sites to export: place them first")
        export_sites(self.map_net(), self.result, path)


def _junction_map(win):
    """The map (edited, when edits are on) as a RoadNetwork when it has turn copies: the
    greedy then counts legal routes per junction (``app.jobs.billboards_turns``); else None."""
    sc = getattr(win, "scenario", None)
    net = sc.network() if sc is not None and sc.edits else win.net
    return net if (getattr(net, "meta", None) or {}).get("turn_copies") else None
