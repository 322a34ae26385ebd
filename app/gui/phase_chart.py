"""Live phase charts: per-phase frontier size (log y) and phase time, by launch mode.
(Over 600 lines: the two plots, their legends' room, replay and the three kinds of rows
share one widget's state; its row helpers (``envelope``, the axis labels) run at every
redraw of a click's search, so a module of their own would add a file to the click path,
tests/gui/test_click_path.py, issue 38.)

Rows arrive in chunks through the worker's ``phases`` signal; the plots are redrawn by a
timer at most once per screen refresh, never once per row. Several runs can be shown at
once (compare mode: conventional / selection / adaptive / auto on the same source, as in
seed 001's Figure 6). A finished run can be replayed as an animation.

Vertex-program runs (seed 003: MST, PageRank) share the dock: their rows are
``SUPERSTEP_DTYPE`` (told apart by dtype), drawn as active vertices (solid) and messages
(dashed) per superstep over the superstep time. Billboards' progressive sampling shares
them too (``STEP_NAMES``): samples drawn (solid) against the fixed bound (dashed) per round.

Over 500 lines: one widget whose drawing, streaming, replay and legend share its state
(its legends' room too: :func:`make_room`, :func:`fit_legend`).
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.jobs.sssp import COMPARE_STRATEGIES
from gpu_core.programs import SUPERSTEP_DTYPE
from gpu_core.telemetry import MODE_NAMES, PHASE_DTYPE, PhaseLog

MODE_COLOURS = {
    "conventional": "#f39c12",
    "selection": "#3498db",
    "switch": "#e74c3c",
    "eval_dijkstra": "#9b59b6",
    "bellman_ford_queue": "#1abc9c",
    "delta": "#2ecc71",
    "persistent": "#ecf0f1",
    "cpu": "#95a5a6",
    "repair_invalidate": "#c0392b",
    "repair_seed": "#d35400",
    "repair_settle": "#27ae60",
    "repair_pred": "#2980b9",
    "phast_up": "#f1c40f",
    "phast": "#e67e22",
    "phast_pred": "#8e44ad",
}


def ms_text(ms: float) -> str:
    """A time in milliseconds written the same way everywhere in the app (panel, chart,
    status bar): two decimals below 10 ms, one below 100, none above."""
    return f"{ms:.2f} ms" if ms < 10 else (f"{ms:.1f} ms" if ms < 100 else f"{ms:,.0f} ms")


def decade_label(d: int) -> str:
    """10**d as a short label: 1, 10, 100, 1k, 10k, 100k, 1M, ..."""
    v = 10 ** d
    for div, suf in ((10**9, "G"), (10**6, "M"), (10**3, "k")):
        if v >= div:
            return f"{v // div}{suf}"
    return str(v)


# Superstep-shaped runs whose two counts are not active vertices and messages: run name ->
# (solid line, dashed line, left title, right title, x title)
STEP_NAMES = {"billboard sampling": ("samples", "fixed bound", "samples drawn · fixed bound "
                                     "(log)", "time per round (µs)", "round")}


def is_superstep(rows: np.ndarray) -> bool:
    """True for a vertex program's telemetry (SUPERSTEP_DTYPE), False for SSSP phase rows."""
    return rows.dtype.names is not None and "superstep" in rows.dtype.names


MESSAGE_COLOUR = "#4fc3f7"  # a vertex program's messages (dashed), apart from its active line
RUN_COLOURS = ["#f39c12", "#3498db", "#e74c3c", "#2ecc71", "#9b59b6", "#1abc9c", "#ecf0f1"]
# Past this many phases a curve is drawn as the min/max envelope of ENVELOPE_BUCKETS
# buckets (every spike stays visible; a million points would not be readable or fast).
DECIMATE_AT = 4000
# While a search streams its rows the chart is redrawn at most this often: one redraw
# (curves, dots, axes, legend) and its paint take 30-60 ms of the GUI thread on a 2-core
# machine, and at every screen refresh they froze the window for the whole search (issue 27).
STREAM_REDRAW_S = 0.25
ENVELOPE_BUCKETS = 1500


def envelope(x: np.ndarray, y: np.ndarray, buckets: int = ENVELOPE_BUCKETS) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) reduced to the min and the max of each of ``buckets`` consecutive buckets,
    in x order (a line through them draws the envelope); short inputs unchanged."""
    n = y.shape[0]
    if n <= 2 * buckets:
        return x, y
    edges = np.linspace(0, n, buckets + 1).astype(np.int64)
    starts = edges[:-1]
    lo = np.minimum.reduceat(y, starts)
    hi = np.maximum.reduceat(y, starts)
    # x of each bucket's min and max, in bucket order (whichever comes first first).
    seg = np.repeat(np.arange(buckets), np.diff(edges))
    first_lo = _first_index(seg, y == lo[seg], buckets)
    first_hi = _first_index(seg, y == hi[seg], buckets)
    order = np.column_stack([np.minimum(first_lo, first_hi), np.maximum(first_lo, first_hi)]).ravel()
    return x[order], y[order]


def _first_index(seg: np.ndarray, mask: np.ndarray, buckets: int) -> np.ndarray:
    """Per bucket, the first index where ``mask`` holds (each bucket has one)."""
    where = np.nonzero(mask)[0]
    first = np.full(buckets, -1, dtype=np.int64)
    b = seg[where]
    keep = np.r_[True, b[1:] != b[:-1]]
    first[b[keep]] = where[keep]
    return first


class PhaseChart(QWidget):
    """Two stacked plots plus totals and buttons (replay, compare, export)."""

    compareRequested = Signal()
    exportRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.runs: dict[str, np.ndarray] = {}
        self.meta: dict[str, str] = {}
        self.search_ms: dict[str, float] = {}  # a run's search wall time (its result's)
        self._dirty = False
        self._held = False  # a redraw due was put off by one tick (_tick)
        self._streamed = False  # rows arrived since the last redraw (redrawn throttled)
        self._redrawn_t = 0.0
        self._legend_modes: tuple = ()
        self._tick_n: int | None = None
        self._x_shown: tuple = ()  # ((0, last phase), x range) set by _x_range
        self._decades_shown: tuple = ()  # (first, last decade, step, y range) of the log axis
        self._replay_k: int | None = None
        self._replay_run: str | None = None

        pg.setConfigOptions(antialias=False)
        self.glw = pg.GraphicsLayoutWidget()
        self.glw.setBackground("#1e2127")
        self.glw.setMinimumHeight(150)  # two readable plots: the dock must not fold them flat
        # Side by side, each titled above (a rotated axis title does not fit a short plot:
        # "frontier (node" at 1024 × 700), x axes linked.
        self.p_frontier = self.glw.addPlot(row=0, col=0)
        # log10 values on a linear axis labelled by whole decades only (pyqtgraph's log
        # axis crowds a short plot with minor-tick labels: "2·10³ 3·10³ ... 8·10³")
        self.p_frontier.showGrid(x=True, y=True, alpha=0.2)
        self.p_time = self.glw.addPlot(row=0, col=1)
        self.p_time.showGrid(x=True, y=True, alpha=0.2)
        # Axes (labels and grid) painted from a pixmap until their range changes: replaying
        # their text was 4 ms an axis per frame of the chart, most of a click's GUI time.
        for p in (self.p_frontier, self.p_time):
            for side in ("left", "bottom"):
                p.getAxis(side).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.p_time.setXLink(self.p_frontier)
        for p in (self.p_frontier, self.p_time):
            p.getAxis("left").enableAutoSIPrefix(False)
            p.getAxis("bottom").enableAutoSIPrefix(False)
            p.setDefaultPadding(0.02)
        self._titles = ("", "", "")
        self.set_titles("frontier per phase (nodes, log)", "time per phase (µs)", "phase")
        self.legend = self.p_frontier.addLegend(offset=(-6, 4), labelTextSize="8pt",
                                                brush=pg.mkBrush(30, 33, 39, 200))
        self.mode_legend = self.p_time.addLegend(offset=(-6, 4), labelTextSize="8pt",
                                                 brush=pg.mkBrush(30, 33, 39, 200))
        self._items: dict[str, tuple] = {}
        self._step_items: dict[str, tuple] = {}  # superstep runs: active, messages, time
        for p in (self.p_frontier, self.p_time):  # a resized chart keeps room for its legend
            p.getViewBox().sigResized.connect(lambda *_: self._room_for_legends())

        self.totals = QLabel("no search yet")
        # A fixed two-line summary: the dock keeps its size whatever the text (it grew
        # with a long compare summary and never shrank back); the whole text is the tooltip.
        self.totals.setFixedHeight(2 * self.totals.fontMetrics().lineSpacing() + 4)
        self.totals.setMinimumWidth(0)
        self.totals.setWordWrap(True)  # beside the full-height tool dock it can be narrow
        from PySide6.QtWidgets import QSizePolicy

        self.totals.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.btn_replay = QPushButton("Replay")
        self.btn_replay.setToolTip("Animate the last finished run phase by phase")
        self.btn_compare = QPushButton("Compare strategies")
        self.btn_compare.setToolTip("Run " + ", ".join(COMPARE_STRATEGIES) + " from the same source and overlay them")
        self.btn_export = QPushButton("Export CSV…")
        self.cb_log_time = QCheckBox("log time")
        self.cb_log_time.setToolTip("Phase times on a log axis (a few slow phases among many fast ones)")
        self.cb_log_time.toggled.connect(self._log_time_toggled)
        self.btn_replay.clicked.connect(self.replay)
        self.btn_compare.clicked.connect(self.compareRequested)
        self.btn_export.clicked.connect(self.exportRequested)
        buttons = QHBoxLayout()
        for b in (self.btn_replay, self.btn_compare, self.btn_export, self.cb_log_time):
            buttons.addWidget(b)
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.glw, 1)
        lay.addWidget(self.totals)
        lay.addLayout(buttons)

        self._empty_ranges()
        self.timer = QTimer(self)
        self.timer.setInterval(16)  # about one screen refresh
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    # ---- data -------------------------------------------------------------------------
    def clear(self) -> None:
        self.runs.clear()
        self.meta.clear()
        self.search_ms.clear()
        self._replay_k = None
        for a, b, c, d in self._items.values():
            for it, plot in ((a, self.p_frontier), (b, self.p_frontier), (c, self.p_time), (d, self.p_time)):
                plot.removeItem(it)
        self._items.clear()
        for a, m, t in self._step_items.values():
            self.p_frontier.removeItem(a)
            self.p_frontier.removeItem(m)
            self.p_time.removeItem(t)
        self._step_items.clear()
        self.legend.clear()
        self.mode_legend.clear()
        self._legend_modes, self._tick_n, self._streamed = (), None, False
        self.totals.setText("no search yet")
        self._empty_ranges()
        self._dirty = True

    def _empty_ranges(self) -> None:
        """Round, sparse axes while nothing is shown (1 to 100 nodes, 0 to 10 µs,
        phases 0 to 10), so the empty chart's tick labels do not crowd each other."""
        self._decades(0.0, 2.0)
        self.p_time.setYRange(0, 10, padding=0)
        self.p_frontier.setXRange(0, 10, padding=0)

    def restart(self, name: str) -> None:
        """:meth:`clear` and :meth:`begin_run` ``name`` (an SSSP run), keeping the plot
        items and legend entry when the chart shows that one run alone: a click or drag
        frame then does not remove and remake them on the GUI thread. One SSSP run shown
        under another name (a click's, then an edit's repair) is renamed ``name`` in place:
        clearing made the chart empty its axes and fill them again, up to 20 axis repaints
        (~80 ms of the window's thread) over a first closure on a 60K-node map (issue 41)."""
        shown = list(self.runs)
        if len(shown) != 1 or self._step_items or is_superstep(self.runs[shown[0]]):
            self.clear()
            self.begin_run(name)
            return
        old = shown[0]
        if old != name:  # the run's items and legend entry carry over to the new name
            del self.runs[old]
            self.meta.pop(old, None)
            self.search_ms.pop(old, None)
            if old in self._items:
                self._items[name] = self._items.pop(old)
        self.runs[name] = np.zeros(0, dtype=PHASE_DTYPE)
        self.meta.pop(name, None)
        self.search_ms.pop(name, None)
        self._replay_k = None
        if name in self._items:
            for sample, label in self.legend.items:
                if getattr(sample, "item", sample) is self._items[name][0]:
                    label.setText(name)
        self._streamed = True  # redrawn with the first rows or the result, not empty first

    def begin_run(self, name: str, supersteps: bool = False) -> None:
        """An empty run ``name``: SSSP phases, or a vertex program's ``supersteps``."""
        self.runs[name] = np.zeros(0, dtype=SUPERSTEP_DTYPE if supersteps else PHASE_DTYPE)
        self._dirty = True

    def append(self, name: str, rows: np.ndarray) -> None:
        """New phase rows of run ``name`` (called from the worker's signal)."""
        old = self.runs.get(name)
        self.runs[name] = rows.copy() if old is None or old.size == 0 else np.concatenate([old, rows])
        self._streamed = True

    def set_run(self, name: str, log: PhaseLog | np.ndarray, meta: str = "",
                search_s: float | None = None) -> None:
        """Replace run ``name`` by its final log (the authoritative one from the result):
        a PhaseLog, or a vertex program's telemetry array (SUPERSTEP_DTYPE)."""
        rows = log if isinstance(log, np.ndarray) else log.rows
        if is_superstep(rows):
            self.runs[name] = rows.copy()
        else:
            self.runs[name] = np.array(rows, dtype=PHASE_DTYPE, copy=True)
        if search_s is not None:
            self.search_ms[name] = float(search_s) * 1000.0
        if meta:
            self.meta[name] = meta
            if name in self._items:  # created while the rows streamed in: name it fully now
                for sample, label in self.legend.items:
                    if getattr(sample, "item", sample) is self._items[name][0]:
                        label.setText(self.run_label(name))
        self._dirty = True

    def num_phases(self, name: str | None = None) -> int:
        if name is None:
            return sum(int(r.shape[0]) for r in self.runs.values())
        return int(self.runs.get(name, np.zeros(0)).shape[0])

    # ---- drawing ----------------------------------------------------------------------
    def _log_time_toggled(self, on: bool) -> None:
        self.p_time.setLogMode(y=on)
        self._dirty = True

    def _time_y(self, t_us: np.ndarray) -> np.ndarray:
        """Phase times as plotted: log10 on the log axis (curve items want log values)."""
        return np.log10(np.maximum(t_us, 0.01)) if self.cb_log_time.isChecked() else t_us

    def decimated(self, name: str) -> bool:
        """True when run ``name`` is drawn as a min/max envelope."""
        return self.num_phases(name) > DECIMATE_AT

    def _tick(self) -> None:
        if self._replay_k is not None:
            self._replay_step()
        if self._streamed and time.perf_counter() - self._redrawn_t >= STREAM_REDRAW_S:
            self._dirty = True
        if self._dirty and self._replay_k is None and not self._held:
            # one tick later: a result dirties the chart as the window draws its field and
            # route, and both in one turn of the event loop froze it 50 ms at a first closure
            # on a 60K-node map (issue 41); the next tick redraws (16 ms later)
            self._held = True
            return
        if self._dirty:
            self._dirty = self._streamed = self._held = False
            self._redrawn_t = time.perf_counter()
            self.redraw()

    def _ensure_items(self, name: str, colour: str):
        if name not in self._items:
            pen = pg.mkPen(colour, width=1.5)
            lf = pg.PlotCurveItem(pen=pen, skipFiniteCheck=True)
            sf = pg.ScatterPlotItem(size=5, pen=None)
            lt = pg.PlotCurveItem(pen=pen, skipFiniteCheck=True)
            st = pg.ScatterPlotItem(size=5, pen=None)
            self.p_frontier.addItem(lf)
            self.p_frontier.addItem(sf)
            self.p_time.addItem(lt)
            self.p_time.addItem(st)
            self._items[name] = (lf, sf, lt, st)
            self.legend.addItem(lf, self.run_label(name))
        return self._items[name]

    def _ensure_step_items(self, name: str, colour: str):
        if name not in self._step_items:
            active = pg.PlotCurveItem(pen=pg.mkPen(colour, width=1.5), skipFiniteCheck=True)
            msgs = pg.PlotCurveItem(pen=pg.mkPen(MESSAGE_COLOUR, width=1.4, style=Qt.PenStyle.DashLine),
                                    skipFiniteCheck=True)
            t = pg.PlotCurveItem(pen=pg.mkPen(colour, width=1.5), skipFiniteCheck=True)
            self.p_frontier.addItem(active)
            self.p_frontier.addItem(msgs)
            self.p_time.addItem(t)
            self._step_items[name] = (active, msgs, t)
            self.legend.addItem(active, f"{name}: active")
            self.legend.addItem(msgs, f"{name}: messages")
        return self._step_items[name]

    def _name_step_lines(self, name: str, active, msgs, same: bool) -> None:
        """One line "active = messages" when the two counts are equal in every superstep
        (PageRank: every vertex active sends one message a vertex), else two lines."""
        msgs.setVisible(not same)
        listed = any(getattr(s, "item", s) is msgs for s, _l in self.legend.items)
        if same and listed:
            self.legend.removeItem(msgs)
        elif not same and not listed:
            self.legend.addItem(msgs, f"{name}: messages")
        one, two = STEP_NAMES.get(name, ("active", "messages"))[:2]
        if not same:  # the second line's own name (it was kept at "messages" when the line
            # was listed from the first row on: the billboards chart's "fixed bound")
            for sample, label in self.legend.items:
                if getattr(sample, "item", sample) is msgs:
                    label.setText(f"{name}: {two}")
        for sample, label in self.legend.items:
            if getattr(sample, "item", sample) is active:
                label.setText(f"{name}: {one} = {two}" if same else f"{name}: {one}")

    def run_label(self, name: str) -> str:
        """A run as the legend names it: its name and where it ran ("adaptive · cuda")."""
        return f"{name} · {self.meta[name]}" if self.meta.get(name) else name

    def legend_labels(self) -> list[str]:
        return [label.text for _sample, label in self.legend.items]

    def set_titles(self, left: str, right: str, x: str) -> None:
        """Titles of the two plots and of their x axes (set only when they change)."""
        if self._titles == (left, right, x):
            return
        self._titles = (left, right, x)
        self.p_frontier.setTitle(left, size="8pt", color="#c8c8c8")
        self.p_time.setTitle(right, size="8pt", color="#c8c8c8")
        for p in (self.p_frontier, self.p_time):
            p.setLabel("bottom", x)

    def _label_axes(self) -> None:
        steps = any(is_superstep(r) for r in self.runs.values())
        phases = any(not is_superstep(r) for r in self.runs.values())
        named = [STEP_NAMES[n] for n in self.runs if n in STEP_NAMES]
        if named and len(named) == len(self.runs):
            self.set_titles(*named[0][2:])
        elif steps and not phases:
            self.set_titles("vertices per superstep (log)", "time per superstep (µs)", "superstep")
        elif steps:
            self.set_titles("frontier · active / messages (log)", "time per step (µs)", "step")
        else:
            self.set_titles("frontier per phase (nodes, log)", "time per phase (µs)", "phase")

    def redraw(self) -> None:
        modes_seen: set[int] = set()
        if self.runs:
            self.p_time.enableAutoRange(axis="y")
        lo_hi: list[float] = []  # the frontier plot's log10 values, for whole decades
        x_hi = -1.0  # the last phase or step drawn
        self._label_axes()
        # Compare mode (several SSSP runs): each run one colour, its dots too, and the
        # legend names the runs; launch-mode dots only when one run is shown.
        sssp_runs = sum(1 for r in self.runs.values() if not is_superstep(r))
        for i, (name, rows) in enumerate(self.runs.items()):
            if self._replay_k is not None and name == self._replay_run:
                rows = rows[: self._replay_k]
            colour = RUN_COLOURS[i % len(RUN_COLOURS)]
            if is_superstep(rows):
                a, m, t = self._ensure_step_items(name, colour)
                x = rows["superstep"].astype(np.float64)
                x_hi = max(x_hi, float(x.max()) if x.size else -1.0)
                ya = np.log10(np.maximum(rows["active"].astype(np.float64), 1.0))
                if ya.size:
                    lo_hi += [float(ya.min()), float(ya.max())]
                a.setData(*envelope(x, ya))
                ym = np.log10(np.maximum(rows["messages"].astype(np.float64), 1.0))
                if ym.size:
                    lo_hi += [float(ym.min()), float(ym.max())]
                m.setData(*envelope(x, ym))
                self._name_step_lines(name, a, m, bool(np.array_equal(rows["active"], rows["messages"])))
                t.setData(*envelope(x, self._time_y(rows["time_us"].astype(np.float64))))
                continue
            lf, sf, lt, st = self._ensure_items(name, colour)
            x = rows["phase"].astype(np.float64)
            x_hi = max(x_hi, float(x.max()) if x.size else -1.0)
            yf = np.log10(np.maximum(rows["frontier"].astype(np.float64), 1.0))  # log axis: no zeros
            yt = self._time_y(rows["time_us"].astype(np.float64))
            if yf.size:
                lo_hi += [float(yf.min()), float(yf.max())]
            lf.setData(*envelope(x, yf))  # PlotCurveItem in a log plot wants log values
            lt.setData(*envelope(x, yt))
            if rows.shape[0] > DECIMATE_AT:  # dots would be a solid smear: the envelope only
                sf.setData([], [])
                st.setData([], [])
                continue
            if sssp_runs > 1:
                brushes = pg.mkBrush(colour)
            else:
                # one brush object per mode: pyqtgraph renders a symbol per distinct brush
                # object (a new brush per dot: ~0.4 s on the GUI thread for 3,500 phases)
                by_mode = {int(m): pg.mkBrush(MODE_COLOURS.get(MODE_NAMES[m], "#ffffff"))
                           for m in np.unique(rows["mode"])}
                # one mode (an index search, a short run): one brush, not a list (pyqtgraph
                # walks a list point by point on the GUI thread)
                brushes = (next(iter(by_mode.values())) if len(by_mode) == 1
                           else [by_mode[m] for m in rows["mode"].tolist()])
                modes_seen.update(int(m) for m in np.unique(rows["mode"]))
            sf.setData(x, yf, brush=brushes)
            st.setData(x, yt, brush=brushes)
        if lo_hi:
            self._decades(min(lo_hi), max(lo_hi))
        if x_hi >= 0:
            self._x_range(x_hi)
        self._whole_steps(max((r.shape[0] for r in self.runs.values()), default=0))
        self._update_mode_legend(modes_seen)
        self._room_for_legends()
        self._update_totals()

    def _room_for_legends(self) -> None:
        """No curve under a legend: headroom at the top of each plot (:func:`make_room`)."""
        # one search alone: the summary line under the chart names it in its colour, so its
        # legend would only cover the curve (compare runs and supersteps' solid / dashed
        # lines keep theirs)
        steps = any(is_superstep(r) for r in self.runs.values())
        self.legend.setVisible(bool(self.legend.items) and (len(self.runs) > 1 or steps))
        fit_legend(self.p_frontier, self.legend, hide=False)
        fit_legend(self.p_time, self.mode_legend, hide=True)
        if self._decades_shown:
            a, b, step, _y = self._decades_shown
            pad = 0.15 * (b - a)  # _decades' padding
            got = make_room(self.p_frontier, self.legend, a - pad, b + pad)
            if got is not None:
                self._decades_shown = (a, b, step, tuple(self.p_frontier.viewRange()[1]))
        if self.runs:
            make_room(self.p_time, self.mode_legend)

    def _whole_steps(self, n: int) -> None:
        """Phases and supersteps are whole numbers: a short run gets integer ticks (never
        "phase 1.5"); a long one pyqtgraph's own (round numbers already)."""
        if n == self._tick_n or (n > 20 and (self._tick_n or 0) > 20):
            return  # the same ticks (pyqtgraph's own past 20 steps)
        self._tick_n = n
        ticks = None
        if 0 < n <= 20:
            step = 1 if n <= 10 else 2
            ticks = [[(float(i), str(i)) for i in range(0, n, step)], []]
        for p in (self.p_frontier, self.p_time):
            p.getAxis("bottom").setTicks(ticks)

    def _x_range(self, x_hi: float) -> None:
        """Phases (steps) 0..x_hi on both plots (x linked), set only when it changes: the
        plots' own x auto-ranges moved each other by a hair at every redraw, and every
        move repainted both bottom axes (4 ms each) at every click (issue 27)."""
        hi = max(x_hi, 1.0)
        pad = max(0.02 * hi, 0.25)  # the end dots whole on a short run
        want = (-pad, hi + pad)
        if self._x_shown == (want, tuple(self.p_frontier.viewRange()[0])):
            return
        self.p_frontier.setXRange(*want, padding=0)
        self._x_shown = (want, tuple(self.p_frontier.viewRange()[0]))

    def _decades(self, lo: float, hi: float) -> None:
        """The log axis spans whole decades (at least one): a flat or short curve would
        get a sliver of a decade, labelled by crowded minor ticks."""
        a = int(np.floor(lo))
        b = max(int(np.ceil(hi)), a + 1)
        step = max(1, (b - a + 3) // 4)  # at most about four labels
        y_now = tuple(self.p_frontier.viewRange()[1])
        if self._decades_shown == (a, b, step, y_now):
            return  # the same axis: new ticks would repaint it (4 ms) at every click
        self.p_frontier.getAxis("left").setTicks(
            [[(float(d), decade_label(d)) for d in range(a, b + 1, step)], []])
        self.p_frontier.setYRange(a, b, padding=0.15)  # end labels inside a short axis
        self._decades_shown = (a, b, step, tuple(self.p_frontier.viewRange()[1]))

    def _update_mode_legend(self, modes: set[int]) -> None:
        if tuple(sorted(modes)) == self._legend_modes:
            return  # the same entries: rebuilding them costs a layout pass per redraw
        self._legend_modes = tuple(sorted(modes))
        self.mode_legend.clear()
        self.mode_legend.setColumnCount(max(1, min(len(modes), 4)))  # one row: a short chart keeps its data clear
        for m in sorted(modes):
            name = MODE_NAMES[m]
            dot = pg.ScatterPlotItem(size=8, brush=pg.mkBrush(MODE_COLOURS.get(name, "#fff")), pen=None)
            self.mode_legend.addItem(dot, name)

    def _update_totals(self) -> None:
        """Two lines at most under the plots (a short line per run, two runs a line when
        several are compared); the whole summary is the tooltip (and ``summary()``)."""
        if not self.runs:
            self.totals.setText("no search yet")
            self.totals.setToolTip("")
            return
        short, full = [], []
        for i, (name, rows) in enumerate(self.runs.items()):
            t = rows["time_us"].astype(np.float64)
            # The run's name in its line colour: the summary doubles as the legend.
            head = f'<b><span style="color:{RUN_COLOURS[i % len(RUN_COLOURS)]}">{name}</span></b>'
            t_ms = float(t.sum()) / 1000
            # One definition of times (docs/architecture.md "Numbers the app shows"): the
            # phases' own time is part of the search's wall time.
            search = self.search_ms.get(name)
            of = f" of {ms_text(search)} search" if search is not None else ""
            where = f" · {self.meta[name]}" if name in self.meta else ""
            spread = (f" · median {np.median(t):.1f} µs, max {t.max():.1f} µs per step"
                      if rows.size else "")
            drawn = (f" · drawn as min/max of {ENVELOPE_BUCKETS:,} buckets"
                     if rows.shape[0] > DECIMATE_AT else "")
            if is_superstep(rows):
                line = (f"{head}{where}: {rows.shape[0]:,} supersteps · {ms_text(t_ms)} in supersteps{of}")
                more = (f" · {int(rows['messages'].sum()):,} messages · peak active "
                        f"{int(rows['active'].max()) if rows.size else 0:,}")
            else:
                line = f"{head}{where}: {rows.shape[0]:,} phases · {ms_text(t_ms)} in phases{of}"
                more = (f" · {int(rows['edges'].sum()):,} arcs relaxed · peak frontier "
                        f"{int(rows['frontier'].max()) if rows.size else 0:,}")
            short.append(line + (more if len(self.runs) == 1 else ""))
            full.append(line + more + spread + drawn)
        per_line = 1 if len(short) <= 2 else 2
        self.totals.setText("<br>".join(" &nbsp;|&nbsp; ".join(short[k:k + per_line])
                                        for k in range(0, len(short), per_line)))
        self._summary = "<br>".join(full)
        self.totals.setToolTip(self._summary)

    def summary(self) -> str:
        """The whole summary of the runs shown (the totals line's tooltip)."""
        return getattr(self, "_summary", self.totals.text())

    # ---- replay -----------------------------------------------------------------------
    def replay(self) -> None:
        """Animate the last run from phase 0 (about two seconds whatever its length)."""
        if not self.runs:
            return
        self._replay_run = list(self.runs)[-1]
        self._replay_k = 0
        self._dirty = True

    def replaying(self) -> bool:
        return self._replay_k is not None

    def _replay_step(self) -> None:
        rows = self.runs.get(self._replay_run) if self._replay_run is not None else None
        if rows is None:
            self._replay_k = None
            return
        n = rows.shape[0]
        step = max(1, n // 120)
        self._replay_k += step
        if self._replay_k >= n:
            self._replay_k = None
        self._dirty = True


# ---- room for the legends ---------------------------------------------------------------
# (issue 42: phase-chart legends sat on the curves at 1024 × 700): the y range grows at the
# top by the share of the plot the legend covers, so no point is drawn under it. Here, not
# in a module of their own: the chart is their one user, and it fits its legends after
# every redraw (a click's, issue 38).

MAX_SHARE = 0.85  # a legend taller than this share of its plot gets no more room


def make_room(plot, legend, lo: float | None = None, hi: float | None = None) -> tuple | None:
    """Set ``plot``'s y range to [lo, hi] (default: its items' bounds) plus headroom for
    ``legend`` (top corner); returns the range set, or None when nothing was changed."""
    vb = plot.getViewBox()
    h = float(vb.height())
    if not legend.isVisible() or not legend.items or h <= 0:
        return None
    if lo is None or hi is None:
        bounds = vb.childrenBounds()
        if bounds is None or bounds[1] is None:
            return None
        lo, hi = min(0.0, float(bounds[1][0])), float(bounds[1][1])
    span = max(hi - lo, 1e-9)
    share = min((legend.boundingRect().height() + 10.0) / h, MAX_SHARE)
    top = hi + span * share / (1.0 - share)
    vb.setYRange(lo, top, padding=0)
    return lo, top


def fit_legend(plot, legend, *, hide: bool) -> None:
    """``legend`` in one column, or in two where one is taller than ``plot``. ``hide``:
    hidden (its names in the plot's tooltip) where it fits neither way and holds more than
    two entries, instead of running over the plot's edge (wide tick labels, "2e+07" µs
    when a first run's compilation makes a phase seconds long, leave two columns too
    little width)."""
    vb = plot.getViewBox()
    for cols in (1, 2):
        if legend.columnCount != cols:
            legend.setColumnCount(cols)
            legend.updateSize()
        if len(legend.items) <= 2 or legend.boundingRect().height() <= vb.height() - 8:
            break
    if not hide:
        return
    r = legend.boundingRect()
    fits = r.width() <= vb.width() - 8 and r.height() <= vb.height() - 8
    legend.setVisible(bool(legend.items) and (fits or len(legend.items) <= 2))
    plot.setToolTip("" if legend.isVisible() else
                    "phases: " + ", ".join(lbl.text for _s, lbl in legend.items))
