"""The Signpost main window: map canvas, phase chart, and the tools (``tools/``) wired in.

Nothing here computes paths: each tool runs an ``app.jobs`` function on the compute
worker (:class:`~app.gui.workers.JobRunner`) through :meth:`MainWindow.submit`, maps load
on another worker (``loading.py``), and results come back through signals as numpy
arrays. This window routes clicks to the tool that takes them and each job's end to the
tool that started it; menus and the status bar are built in ``chrome.py``.

(Over 500 lines: every tool's clicks and jobs pass through this one router, their
progress, cancelling, errors and ends handled alike beside the docks they live in.)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QWidget,
)

import resources
from app.session import NoSnapping, Session
from gpu_core.errors import GpuCoreError, InvalidArgumentError
from gpu_core.graph import CSRGraph
from maps.errors import MapError, PointError
from maps.geo.projection import to_lonlat, to_xy
from maps.model.network import RoadNetwork

from . import chrome, export
from .chrome import attribution_for, sample_map_path, short_count
from .gc_guard import GuiThreadGC
from .geometry import MapGeometry
from .gil import responsive_switch
from .loading import MapLoading
from .map_canvas import MapCanvas
from .panels import AlgorithmPanel
from .phase_chart import PhaseChart
from .route_index import RouteIndex
from .settings import Settings
from .tools import TOOLS
from .tools.base import Tool
from .words import eta_words
from .workers import Job, JobContext, JobRunner

if TYPE_CHECKING:
    from .turn_layer import TurnLayer

_T = TypeVar("_T", bound=Tool)


@dataclass
class _Handlers:
    """What to call when one compute job ends (see :meth:`MainWindow.submit`)."""

    done: Callable
    failed: Callable | None = None
    cancelled: Callable | None = None
    progress: Callable | None = None


class MainWindow(MapLoading, QMainWindow):
    # Made by chrome.build_status_bar and the route tool's layers (tools/route_layers.py).
    lbl_cursor: QLabel
    lbl_size: QLabel
    lbl_backend: QLabel
    progress: QProgressBar
    btn_cancel: QPushButton
    a_mode_src: QAction  # chrome.build_menus: clicks set the source / the destination
    a_mode_dst: QAction
    turn_layer: TurnLayer

    mapLoaded = Signal(str)
    mapLoadFailed = Signal(str)
    searchFinished = Signal()  # any compute job (search, compare, billboards, matrix) ended
    searchCancelled = Signal()
    routeShown = Signal(object)  # app.jobs.route.Route
    routeFailed = Signal(str)
    fieldChanged = Signal()  # the search result on screen changed (a search or an edit's repair)
    message = Signal(str)  # every status-bar message, for tests and the CLI

    def __init__(self, settings: Settings | None = None, *, open_sample: bool = True):
        super().__init__()
        self.settings = settings or Settings()
        # The map, its edits (tools/edit_tool.py), the points and the result: app.session,
        # Qt-free; net, graph, snapper, scenario and snap_max_m below read and write it.
        self.session = Session(snap_max_m=float(self.settings.defaults.get("snap_max_m", 1000.0)))
        self.geo: MapGeometry | None = None
        # a painter drawn instead of the distance field (the Edit tool's change view)
        self.field_painter: Callable[[], None] | None = None
        self.last_error: str | None = None
        self._search_job = 0  # the compute job whose end is reported (newest wins)
        self._handlers: dict[int, _Handlers] = {}
        self._load_job = 0
        self._load_path: str | None = None
        self._loading = False
        self._after_job = 0
        self._job_t0 = time.perf_counter()  # when the job on the compute worker started
        self.map_path: str | None = None  # the path as the user gave it (route JSON "map")
        self._dialogs: list[QMessageBox] = []
        self.last_click: tuple[float, float, str] | None = None

        self.setWindowTitle("Signpost")
        try:
            self.setWindowIcon(QIcon(str(resources.icon_path("signpost"))))
        except FileNotFoundError:
            pass
        self.resize(1400, 900)
        self.setAcceptDrops(True)

        self.gc_guard = GuiThreadGC(self)  # no collection on the worker threads
        responsive_switch()  # the GIL back within 1 ms at each event the window handles
        self.compute = JobRunner("signpost-compute", self)
        self.loader = JobRunner("signpost-loader", self)
        self.compute.finished_job.connect(self._job_finished)
        self.compute.failed_job.connect(self._job_failed)
        self.compute.cancelled_job.connect(self._job_cancelled)
        self.compute.phases.connect(self._job_phases)
        self.compute.progress.connect(self._job_progress)
        self.loader.finished_job.connect(self._load_finished)
        self.loader.failed_job.connect(self._load_failed)
        self.loader.cancelled_job.connect(self._load_cancelled)
        self.loader.progress.connect(self._load_progress)

        self.canvas = MapCanvas(self, background=self.settings.defaults.get("background", "#1e2127"))
        self.setCentralWidget(self.canvas)
        self.canvas.mapClicked.connect(self.on_map_click)
        self.canvas.cursorMoved.connect(self._cursor_moved)
        self.algo_panel = AlgorithmPanel()  # strategy, backend, profile: every tool's settings
        self.algo_panel.set_values(self.settings.algorithm())
        self.algo_panel.changed.connect(self._settings_changed)
        self.algo_panel.displayChanged.connect(self._settings_changed)  # saved once a change
        self.algo_panel.profileChanged.connect(self._profile_changed)
        self.chart = PhaseChart()
        self.chart.exportRequested.connect(lambda: self.export_dialog("phases"))

        self.tools: dict[str, Tool] = {cls.name: cls(self) for cls in TOOLS}
        self._docks: dict[str, QDockWidget] = {}
        for tool in self.tools.values():
            self._docks[tool.name] = self._dock(tool.title, tool.dock_name or tool.name, tool.widget(), tool.area)
        first = self._docks[TOOLS[0].name]
        for dock in list(self._docks.values())[1:]:
            self.tabifyDockWidget(first, dock)
        first.raise_()
        self.side_dock = first
        self.chart_dock = self._dock("Search phases", "phases", self.chart, Qt.DockWidgetArea.BottomDockWidgetArea)
        # The tools' dock runs the window's full height, the phase chart beside it (as
        # QGIS's panels): at 1024 × 700 the billboards' five rows and SB-vs-k chart fit.
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)

        from .layers import build_layers

        self.layers = build_layers(self)  # show / hide / clear each tool's results
        chrome.build_status_bar(self)
        self.route_index = RouteIndex(self)  # built in the background (its own worker)
        from .exporting import Exports

        self.exports = Exports(self)  # File → Export on its own worker (issue 42)
        chrome.build_menus(self)
        geom, state = self.settings.geometry()
        if geom is not None:
            self.restoreGeometry(geom)
        if state is not None:
            self.restoreState(state)
        else:
            self.default_layout()
        self.unelide_tabs()
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown_workers)
        if open_sample:
            p = sample_map_path()
            if p:
                QTimer.singleShot(0, lambda: self.show_map(p))
            else:
                self.status("No sample map is bundled; open a map with File → Open")

    def tool(self, cls: type[_T]) -> _T:
        """The window's tool of class ``cls`` (``self.tools`` by its name, typed)."""
        t = self.tools[cls.name]
        assert isinstance(t, cls), t
        return t

    def dock(self, name: str) -> QDockWidget:
        """The dock of the tool called ``name``."""
        return self._docks[name]

    # ---- construction -------------------------------------------------------------------
    def default_layout(self) -> None:
        """First-start dock sizes: the map gets most of the window, the charts a strip."""
        self.resizeDocks([self.side_dock], [380], Qt.Orientation.Horizontal)
        self.unelide_tabs()
        self.resizeDocks([self.chart_dock], [max(280, self.height() // 3)], Qt.Orientation.Vertical)

    def unelide_tabs(self) -> None:
        """Dock tabs show whole titles ("Billboards", never "Billboa…"): scroll buttons
        appear when the tabs do not fit."""
        from PySide6.QtWidgets import QTabBar

        for bar in self.findChildren(QTabBar):
            bar.setElideMode(Qt.TextElideMode.ElideNone)
            bar.setUsesScrollButtons(True)

    def _dock(self, title: str, name: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{name}")  # restoreState needs stable names
        if area != Qt.DockWidgetArea.BottomDockWidgetArea and not isinstance(widget, QScrollArea):
            # A tall panel (tables, charts) scrolls instead of forcing the window's minimum
            # height past a small screen (1024×700 could not be had otherwise).
            scroll = QScrollArea()
            scroll.setWidget(widget)
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QScrollArea.Shape.NoFrame)
            widget = scroll
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def export_kinds(self) -> dict[str, tuple[str, str]]:
        """Every export: the tools' and the view (key: menu text, file filter)."""
        out = {k: v for t in self.tools.values() for k, v in t.exports.items()}
        out["view"] = ("View (PNG 1×/2×/4× / SVG)…",
                       "PNG image (*.png);;PNG image 2× (*.png);;PNG image 4× (*.png);;SVG drawing (*.svg)")
        return out

    # ---- messages -------------------------------------------------------------------
    def status(self, text: str, timeout_ms: int = 0) -> None:
        self.statusBar().showMessage(text, timeout_ms)
        self.message.emit(text)

    def show_error(self, title: str, text: str) -> None:
        """An error dialog that does not block (tests and the event loop keep running)."""
        self.last_error = text
        self.status(f"{title}: {text}")
        if os.environ.get("SIGNPOST_NO_DIALOGS"):
            return
        box = QMessageBox(QMessageBox.Icon.Critical, title, text, QMessageBox.StandardButton.Ok, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(lambda *_: self._dialogs.remove(box) if box in self._dialogs else None)
        self._dialogs.append(box)
        box.open()

    def set_network(self, net: RoadNetwork, geo: MapGeometry | None = None, snapper=None,
                    *, defer_snapper: bool = False, prepared: dict | None = None,
                    graph: CSRGraph | None = None) -> None:
        """Show ``net`` (drawn, snappable, searchable); any search on the old map is dropped.
        ``defer_snapper``: build the snapping index on the loader thread afterwards;
        ``prepared``: the drawing made there (``map_canvas.prepare_drawing``); ``graph``:
        ``CSRGraph.from_any(net)`` made there."""
        self.compute.cancel()
        self._search_job = -1
        self._handlers = {}  # the old map's job ends unheard: nothing waits for it now
        self._idle_progress()
        self.session.open(net, graph, snapper, defer_snapper=defer_snapper)
        self.map_path = net.source_path or None
        self.geo = self.canvas.set_network(net, geo, prepared)
        self._after_load(net, build_snapper=self._snapper_pending)
        for tool in self.tools.values():
            tool.map_changed(net)
        self.turn_layer.map_changed(net)
        self.route_index.map_changed(net)
        self.chart.clear()
        self.canvas.set_attribution(attribution_for(net))
        name = net.name or os.path.basename(net.source_path) or "map"
        self.setWindowTitle(f"Signpost — {name}" + (f" ({net.source_path})" if net.source_path else ""))
        self.lbl_size.setText(f"{short_count(net.num_nodes)} nodes · {short_count(net.num_arcs)} arcs")
        self.lbl_size.setToolTip(f"{net.num_nodes:,} nodes, {net.num_arcs:,} arcs; costs in {net.unit}")
        self.status(f"Opened {name}: {net.num_nodes:,} nodes, {net.num_arcs:,} arcs. "
                    "Left click sets the source, right click the destination.", 8000)

    # The session's state under the names the tools and tests use.
    @property
    def net(self) -> RoadNetwork | None:
        return self.session.net

    @property
    def graph(self) -> CSRGraph | None:
        return self.session.graph

    @property
    def snapper(self) -> Any:
        return self.session.snapper

    @snapper.setter
    def snapper(self, v: Any) -> None:
        self.session.snapper = v

    @property
    def _snapper_pending(self) -> bool:
        return self.session.snapper_pending

    @_snapper_pending.setter
    def _snapper_pending(self, v: bool) -> None:
        self.session.snapper_pending = v

    @property
    def scenario(self) -> Any:
        return self.session.scenario

    @scenario.setter
    def scenario(self, v: Any) -> None:
        self.session.scenario = v

    @property
    def snap_max_m(self) -> float:
        return self.session.snap_max_m

    @snap_max_m.setter
    def snap_max_m(self, v: float) -> None:
        self.session.snap_max_m = v

    def search_graph(self):
        """The graph searches run on: the edited one while the map has edits."""
        return self.session.search_graph()

    def search_net(self) -> RoadNetwork | None:
        """The network routes are read from: the edited one while the map has edits."""
        return self.session.search_net()

    def fit_map(self) -> None:
        if self.geo is not None:
            self.canvas.vb.autoRange(padding=0.02)

    # ---- clicks -----------------------------------------------------------------------
    def snap(self, x: float, y: float):
        """Map metres → a ResolvedPoint on the search map (``Session.snap``'s one rule);
        None, with a status message saying why, where there is none."""
        try:
            return self.session.snap(x, y)
        except NoSnapping as exc:
            self.status(exc.detail[:1].upper() + exc.detail[1:], 6000)
        except PointError as exc:
            self.status(f"No road here: {exc.detail}", 6000)
        return None

    def resolve(self, text: str):
        """A typed point (LON,LAT or node:ID) → ResolvedPoint, as `signpost route` reads
        it, by the same rule as a click (``Session.resolve``)."""
        return self.session.resolve(text)

    def on_map_click(self, x: float, y: float, which: str) -> None:
        """A click (or the public click API): snap, then hand it to the tool that takes it."""
        self.last_click = (float(x), float(y), which)
        p = self.snap(x, y)
        if p is None:
            return
        s = p.snap
        for tool in self.tools.values():
            if which in tool.clicks:
                tool.clicked(which, p, (x, y, float(s.x), float(s.y)))

    # ---- jobs -------------------------------------------------------------------------
    def submit(self, fn: Callable[[JobContext], object], done: Callable, *,
               failed: Callable | None = None, cancelled: Callable | None = None,
               progress: Callable | None = None, tag: str = "", busy: bool = False) -> int:
        """Run ``fn`` on the compute worker (superseding any job there); ``done(result)``,
        ``failed(exc)`` (default: an error dialog), ``cancelled()`` and ``progress(frac,
        msg)`` are called for it alone. ``busy``: no fraction, a busy indicator."""
        jid = self.compute.submit(Job(fn, kind=getattr(fn, "__name__", "job"), tag=tag))
        self._search_job = jid
        self._handlers = {jid: _Handlers(done, failed, cancelled, progress)}
        self._job_t0 = time.perf_counter()  # the ETA of its progress (words.eta_words)
        self.progress.setFormat("%p%")
        self.progress.setRange(0, 0 if busy else 1000)
        self.progress.setVisible(True)
        self.btn_cancel.setVisible(True)
        return jid

    def cancel_all(self) -> None:
        self.compute.cancel()
        self.loader.cancel()
        self.exports.cancel()

    def _job_phases(self, jid: int, tag: str, rows) -> None:
        if jid == self._search_job:
            self.chart.append(tag, rows)

    def _job_progress(self, jid: int, frac: float, msg: str) -> None:
        h = self._handlers.get(jid)
        if h is not None and jid == self._search_job:
            known = frac >= 0  # -1: a message without a fraction (JobContext.progress)
            if known:
                self.progress.setValue(int(frac * 1000))
                eta = eta_words(frac, time.perf_counter() - self._job_t0)
                if eta:  # every long job says how long it has left, in its panel and here
                    self.progress.setFormat(f"%p% · {eta}")
                    msg = f"{msg} · {eta}" if msg else eta
            if h.progress is not None:
                h.progress(frac if known else None, msg)

    def _job_ended(self, jid: int) -> _Handlers | None:
        if jid != self._search_job:
            return None
        h = self._handlers.pop(jid, None)
        self.progress.setRange(0, 1000)
        self._idle_progress()
        return h

    def _idle_progress(self) -> None:
        """Progress and Cancel show while a job the window waits for runs: its own record
        (a compute job's handlers, a map load), not the workers' state, which trails
        the signals that tell a job's end. (Here, beside :meth:`submit` that shows them:
        every search's end hides them.)"""
        busy = bool(self._handlers) or self._loading
        self.progress.setVisible(busy)
        self.btn_cancel.setVisible(busy)

    def _job_finished(self, jid: int, kind: str, result) -> None:
        h = self._job_ended(jid)
        if h is not None:
            h.done(result)
            self.searchFinished.emit()

    def _job_failed(self, jid: int, kind: str, exc) -> None:
        h = self._job_ended(jid)
        if h is not None:
            (h.failed or (lambda e: self.show_error("Search failed", str(e))))(exc)

    def _job_cancelled(self, jid: int, kind: str) -> None:
        h = self._job_ended(jid)
        if h is not None:
            if h.cancelled is not None:
                h.cancelled()
            self.status("Search cancelled", 5000)
            self.searchCancelled.emit()

    def fallback_notice(self, why: str) -> None:
        text = f"The GPU search failed ({why}); it ran on the CPU instead."
        self.lbl_backend.setText("CPU (GPU failed)")
        self.lbl_backend.setToolTip(text)
        self.show_error("GPU fallback", text)

    def _settings_changed(self) -> None:
        self.settings.set_algorithm(self.algo_panel.values())

    # ---- exports ----------------------------------------------------------------------
    def export(self, what: str, path: str, scale: int | None = None) -> None:
        """Write ``what`` (a tool's export, or the view) to ``path``; format by extension.
        The view's PNG: ``scale`` 1, 2 or 4 (default: from a ``name@2x.png`` name, or 1)."""
        try:
            if what == "view":
                export.view_image(self.canvas, path, scale or export.png_scale(path))
            else:
                tool = next((t for t in self.tools.values() if what in t.exports), None)
                if tool is None:
                    raise InvalidArgumentError(f"unknown export {what!r}")
                tool.export(what, path)
        except OSError as exc:  # the message names the user's file, never the temporary one
            raise OSError(exc.errno, f"could not write {path}: {exc.strerror or exc}") from None
        self.status(f"Wrote {path}", 5000)

    def export_dialog(self, what: str) -> None:
        path, chosen = QFileDialog.getSaveFileName(self, f"Export {what}", "", self.export_kinds()[what][1])
        if not path:
            return
        scale = export.png_scale(path, chosen) if what == "view" else None
        tool = next((t for t in self.tools.values() if what in t.exports), None)
        try:
            if tool is not None and not tool.threaded_exports:
                self.export(what, path, scale)  # small, and it changes the tool's state
            else:  # on the export worker: the window stays live, Cancel export stops it
                self.exports.start(what, path, scale)
        except (MapError, GpuCoreError, OSError) as exc:
            self.show_error("Export failed", str(exc))

    # ---- status -----------------------------------------------------------------------
    def _cursor_moved(self, x: float, y: float) -> None:
        if self.net is None:
            return
        lon, lat = to_lonlat(np.array([x]), np.array([y]), self.net.origin)
        if np.isfinite(lon[0]) and self.net.has_coordinates:
            self.lbl_cursor.setText(f"{lon[0]:.5f}, {lat[0]:.5f}")
        else:
            self.lbl_cursor.setText(f"x {x:.0f} m, y {y:.0f} m")

    def lonlat_to_xy(self, lon: float, lat: float) -> tuple[float, float]:
        if self.net is None:
            raise InvalidArgumentError("no map is open: a longitude/latitude has no map position")
        x, y = to_xy(np.array([lon]), np.array([lat]), self.net.origin)
        return float(x[0]), float(y[0])

    # ---- shutdown ---------------------------------------------------------------------
    def shutdown_workers(self) -> None:
        """Cancel and join every worker thread (no "QThread destroyed while running")."""
        # all of them, always
        stopped = (self.compute.shutdown() & self.loader.shutdown() & self.route_index.shutdown()
                   & self.canvas.raster.shutdown() & self.exports.shutdown())
        if stopped:  # the workers are joined: collecting anywhere is safe again
            self.gc_guard.release()

    def closeEvent(self, ev) -> None:
        if not all(t.can_close() for t in self.tools.values()):  # e.g. unsaved edits: Cancel
            ev.ignore()
            return
        self.settings.set_geometry(self.saveGeometry(), self.saveState())
        self.settings.set_algorithm(self.algo_panel.values())
        self.settings.sync()
        self.shutdown_workers()
        super().closeEvent(ev)
