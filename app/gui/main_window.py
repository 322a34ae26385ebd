"""The Signpost main window: map canvas, route/algorithm panels, phase charts, menus.

Nothing here computes paths: searches run in ``gpu_core`` on a worker thread
(:class:`~app.gui.workers.JobRunner`), maps load on another, and results come back
through signals as numpy arrays. A route to a new destination is read from the
predecessor array of the search on screen; only a new source starts a new search.
"""

from __future__ import annotations

import os
import time

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
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
    QToolBar,
    QVBoxLayout,
    QWidget,
)

import resources
from gpu_core.errors import CancelledError, GpuCoreError, InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.keys import UNREACHABLE
from gpu_core.sssp import SSSPResult, sssp
from maps.errors import MapError, PointError, UnreachableError
from maps.network import RoadNetwork
from maps.projection import to_lonlat, to_xy

from . import export
from .billboards import BillboardPanel, export_sites
from .geometry import MapGeometry, build_geometry
from .map_canvas import MapCanvas, format_cost
from .od import ODPanel, write_matrix_csv
from .panels import AlgorithmPanel, RoutePanel
from .phase_chart import COMPARE_STRATEGIES, PhaseChart
from .routing import (
    RouteInfo,
    click_point,
    make_snapper,
    read_route,
    resolve_point,
    route_json,
)
from .settings import Settings
from .tools import ToolsMixin
from .workers import Job, JobContext, JobRunner

BIG_MAP_ARCS = 500_000  # above this the snapping index is built after the map is shown

OPEN_FILTER = (
    "Maps (*.osm.pbf *.pbf *.osm *.osm.bz2 *.osm.gz *.gr *.gr.gz *.gr.xz *.graphml *.graphml.gz "
    "*.geojson *.json *.gpkg *.spn);;All files (*)"
)


def sample_map_path() -> str | None:
    """The bundled sample map (maps.samples.SAMPLE_MAP) when it exists."""
    try:
        from maps.samples import SAMPLE_MAP
    except ImportError:
        return None
    p = os.fspath(SAMPLE_MAP)
    return p if os.path.exists(p) else None


def attribution_for(net: RoadNetwork) -> str:
    """Credit line the map's licence asks for (OSM data: ODbL)."""
    if isinstance(net.meta, dict) and net.meta.get("attribution"):
        return str(net.meta["attribution"])
    low = (net.source_path or "").lower()
    if low.endswith((".pbf", ".osm", ".osm.bz2", ".osm.gz")) or "osm" in str(net.meta.get("format", "")):
        return "© OpenStreetMap contributors (ODbL)"
    return ""


class MainWindow(ToolsMixin, QMainWindow):
    mapLoaded = Signal(str)
    mapLoadFailed = Signal(str)
    searchFinished = Signal()
    searchCancelled = Signal()
    routeShown = Signal(object)  # RouteInfo
    routeFailed = Signal(str)
    message = Signal(str)  # every status-bar message, for tests and the CLI

    def __init__(self, settings: Settings | None = None, *, open_sample: bool = True):
        super().__init__()
        self.settings = settings or Settings()
        self.net: RoadNetwork | None = None
        self.geo: MapGeometry | None = None
        self.graph: CSRGraph | None = None
        self.snapper = None
        self.source: int | None = None  # node indices of the current points
        self.target: int | None = None
        self.src_point = None  # maps.points.ResolvedPoint (for the route JSON)
        self.dst_point = None
        self.result: SSSPResult | None = None
        self.route: RouteInfo | None = None
        self.last_error: str | None = None
        self._search_job = 0
        self._load_job = 0
        self._load_path: str | None = None
        self._loading = False
        self._after_job = 0
        self._snapper_pending = False
        self.map_path: str | None = None  # the path as the user gave it (route JSON "map")
        self._search_t0 = 0.0
        self._dialogs: list[QMessageBox] = []
        self._snap_segs: dict[str, tuple] = {}
        self.last_click: tuple[float, float, str] | None = None
        self.snap_max_m = float(self.settings.defaults.get("snap_max_m", 1000.0))

        self.setWindowTitle("Signpost")
        try:
            self.setWindowIcon(QIcon(str(resources.icon_path("signpost"))))
        except FileNotFoundError:
            pass
        self.resize(1400, 900)
        self.setAcceptDrops(True)

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
        self.canvas.destinationDragged.connect(self._dest_dragged)
        self.canvas.destinationDropped.connect(lambda x, y: self.on_map_click(x, y, "destination"))
        self.canvas.sourceDropped.connect(lambda x, y: self.on_map_click(x, y, "source"))
        self.canvas.cursorMoved.connect(self._cursor_moved)

        self.route_panel = RoutePanel()
        self.algo_panel = AlgorithmPanel()
        self.algo_panel.set_values(self.settings.algorithm())
        self.algo_panel.displayChanged.connect(self.redraw_field)
        self.algo_panel.changed.connect(self._settings_changed)
        self.algo_panel.profileChanged.connect(self._profile_changed)
        self.route_panel.swapRequested.connect(self.swap)
        self.route_panel.clearRequested.connect(self.clear_route)
        self.route_panel.pointsEdited.connect(self.route_between)
        side = QWidget()
        sl = QVBoxLayout(side)
        sl.addWidget(self.route_panel)
        sl.addWidget(self.algo_panel)
        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        self.side_dock = self._dock("Route and algorithm", "side", scroll, Qt.DockWidgetArea.RightDockWidgetArea)
        self.bb_panel = BillboardPanel()
        self.bb_panel.runRequested.connect(self.run_billboards)
        self.bb_panel.cancelRequested.connect(self.compute.cancel)
        self.bb_panel.exportRequested.connect(lambda: self._export_dialog("billboards"))
        self.bb_dock = self._dock("Billboards", "billboards", self.bb_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.side_dock, self.bb_dock)
        self.side_dock.raise_()
        self.od_panel = ODPanel()
        self.od_panel.computeRequested.connect(self.run_od_matrix)
        self.od_panel.loadRequested.connect(self._load_od_csv)
        self.od_panel.exportRequested.connect(lambda: self._export_dialog("od"))
        self.od_panel.cleared.connect(lambda: self.canvas.show_od([], []))
        self.od_dock = self._dock("Origin–destination", "od", self.od_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.side_dock, self.od_dock)
        self.side_dock.raise_()
        self._od_job = 0
        self.billboards = None  # gpu_core BillboardResult on screen
        self._bb_job = 0
        self.chart = PhaseChart()
        self.chart.compareRequested.connect(self.compare_strategies)
        self.chart.exportRequested.connect(lambda: self._export_dialog("phases"))
        self.chart_dock = self._dock("Search phases", "phases", self.chart, Qt.DockWidgetArea.BottomDockWidgetArea)

        self._build_status_bar()
        self._build_menus()
        geom, state = self.settings.geometry()
        if geom is not None:
            self.restoreGeometry(geom)
        if state is not None:
            self.restoreState(state)
        else:
            self.default_layout()
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown_workers)
        if open_sample:
            p = sample_map_path()
            if p:
                QTimer.singleShot(0, lambda: self.open_map(p))
            else:
                self.status("No sample map is bundled; open a map with File → Open")

    # ---- construction -------------------------------------------------------------------
    def default_layout(self) -> None:
        """First-start dock sizes: the map gets most of the window, the charts a strip."""
        self.resizeDocks([self.side_dock], [380], Qt.Orientation.Horizontal)
        self.resizeDocks([self.chart_dock], [max(240, self.height() // 3)], Qt.Orientation.Vertical)

    def _dock(self, title: str, name: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{name}")  # restoreState needs stable names
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.lbl_cursor = QLabel("")
        self.lbl_size = QLabel("no map")
        from gpu_core.backend import describe_backend

        self.lbl_backend = QLabel(describe_backend("auto"))
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.btn_cancel = QPushButton("Cancel")
        self.btn_cancel.setVisible(False)
        self.btn_cancel.clicked.connect(self.cancel_all)
        for w in (self.lbl_cursor, self.lbl_size, self.lbl_backend, self.progress, self.btn_cancel):
            sb.addPermanentWidget(w)

    def _icon(self, name: str) -> QIcon:
        try:
            return QIcon(str(resources.icon_path(name)))
        except FileNotFoundError:
            return QIcon()

    def _build_menus(self) -> None:
        mb = self.menuBar()
        m_file = mb.addMenu("&File")
        a_open = m_file.addAction(self._icon("open"), "&Open map…", self.open_dialog)
        a_open.setShortcut(QKeySequence.StandardKey.Open)
        self.m_recent = m_file.addMenu("Open &recent")
        self._fill_recent()
        a_sample = m_file.addAction("Open the &sample map", lambda: self.open_map(sample_map_path() or ""))
        a_sample.setEnabled(sample_map_path() is not None)
        m_exp = m_file.addMenu(self._icon("export"), "&Export")
        for key, text in (
            ("route", "Route (GeoJSON / GPX)…"),
            ("field", "Distance field (CSV / GeoJSON)…"),
            ("phases", "Phase telemetry (CSV)…"),
            ("view", "View (PNG / SVG)…"),
            ("billboards", "Billboard sites (GeoJSON / CSV)…"),
            ("od", "Origin–destination matrix (CSV)…"),
        ):
            m_exp.addAction(text, lambda k=key: self._export_dialog(k))
        m_file.addSeparator()
        a_quit = m_file.addAction("&Quit", self.close)
        a_quit.setShortcut(QKeySequence.StandardKey.Quit)

        m_search = mb.addMenu("&Search")
        self.a_cancel = m_search.addAction(self._icon("stop"), "&Cancel", self.cancel_all)
        self.a_cancel.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        m_search.addAction(self._icon("compare"), "C&ompare strategies", self.compare_strategies)
        m_search.addAction(self._icon("swap"), "&Swap source and destination", self.swap)
        m_search.addAction(self._icon("clear"), "C&lear route", self.clear_route)

        m_view = mb.addMenu("&View")
        m_view.addAction("&Fit map", self.fit_map).setShortcut(QKeySequence("Ctrl+0"))
        m_view.addAction(self.side_dock.toggleViewAction())
        m_view.addAction(self.chart_dock.toggleViewAction())
        m_view.addAction(self.bb_dock.toggleViewAction())
        m_view.addAction(self.od_dock.toggleViewAction())
        m_help = mb.addMenu("&Help")
        m_help.addAction("&About Signpost", self._about)

        tb = QToolBar("Main")
        tb.setObjectName("toolbar-main")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addToolBar(tb)
        tb.addAction(a_open)
        tb.addSeparator()
        grp = QActionGroup(self)
        self.a_mode_src = QAction(self._icon("source"), "Click sets source", self, checkable=True)
        self.a_mode_dst = QAction(self._icon("destination"), "Click sets destination", self, checkable=True)
        self.a_mode_src.setChecked(True)
        for a, mode in ((self.a_mode_src, "source"), (self.a_mode_dst, "destination")):
            grp.addAction(a)
            tb.addAction(a)
            a.triggered.connect(lambda _=False, m=mode: setattr(self.canvas, "click_mode", m))
        tb.addSeparator()
        tb.addAction(self.a_cancel)
        tb.addAction(self._icon("fit"), "Fit map", self.fit_map)

    def _fill_recent(self) -> None:
        self.m_recent.clear()
        files = self.settings.recent_files()
        for p in files:
            self.m_recent.addAction(p, lambda p=p: self.open_map(p))
        self.m_recent.setEnabled(bool(files))

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

    def _about(self) -> None:
        QMessageBox.about(self, "About Signpost",
                          "Signpost: every shortest route at once, on the GPU or the CPU.\n"
                          "Left click: source · right click (or Ctrl+click): destination · "
                          "drag B to move the destination.")

    # ---- loading ----------------------------------------------------------------------
    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open map", "", OPEN_FILTER)
        if path:
            self.open_map(path)

    def open_map(self, path: str, profile: str | None = None) -> int:
        """Load ``path`` on the loader thread; the current map stays until it succeeds."""
        if not path:
            self.show_error("Open map", "no map file given")
            return 0
        profile = profile or self.algo_panel.profile

        def fn(ctx: JobContext):
            from maps.load import detect_format, load_map

            fmt = detect_format(path)
            prof = None if fmt in ("dimacs", "pace", "cache") else profile
            net = load_map(path, profile=prof, progress=ctx.progress, cancel=ctx.cancelled)
            if ctx.cancelled():
                raise CancelledError("load cancelled")
            ctx.progress(0.95, "preparing the drawing")
            geo = build_geometry(net)
            # Big maps: show the map first, build the snapping index right after.
            snapper = make_snapper(net) if net.num_arcs <= BIG_MAP_ARCS else None
            return net, geo, snapper

        self._load_path = path
        self._loading = True
        self._load_job = self.loader.submit(Job(fn, kind="load"))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.btn_cancel.setVisible(True)
        self.status(f"Loading {os.path.basename(path)}…")
        return self._load_job

    def _load_progress(self, jid: int, frac: float, msg: str) -> None:
        if jid == self._load_job:
            self.progress.setValue(int(frac * 1000))
            if msg:
                self.statusBar().showMessage(f"Loading {os.path.basename(self._load_path or '')}: {msg}")

    def _load_finished(self, jid: int, kind: str, result) -> None:
        if kind == "after-load":
            if jid == self._after_job and result is not None and result[0] is self.net:
                self.snapper = result[1]
                self._snapper_pending = False
                self.status("Ready: left click sets the source, right click the destination", 5000)
            return
        if jid != self._load_job:
            return
        self._loading = False
        self._idle_progress()
        net, geo, snapper = result
        path = self._load_path or ""
        if not net.source_path:
            net.source_path = path
        self.set_network(net, geo, snapper, defer_snapper=snapper is None)
        self.map_path = path
        self.settings.add_recent(path)
        self._fill_recent()
        self.mapLoaded.emit(path)

    def _load_failed(self, jid: int, kind: str, exc) -> None:
        if jid != self._load_job:
            return
        self._loading = False
        self._idle_progress()
        self.show_error("Could not open the map", str(exc))
        self.mapLoadFailed.emit(str(exc))

    def _load_cancelled(self, jid: int, kind: str) -> None:
        if jid == self._load_job:
            self._loading = False
            self._idle_progress()
            self.status("Loading cancelled; the previous map stays open", 5000)
            self.mapLoadFailed.emit("cancelled")

    def _idle_progress(self) -> None:
        busy = self.compute.busy() or (self._loading and self.loader.busy())
        self.progress.setVisible(busy)
        self.btn_cancel.setVisible(busy)

    def set_network(self, net: RoadNetwork, geo: MapGeometry | None = None, snapper=None,
                    *, defer_snapper: bool = False) -> None:
        """Show ``net`` (drawn, snappable, searchable); any search on the old map is dropped.
        ``defer_snapper``: build the snapping index on the loader thread afterwards."""
        self.compute.cancel()
        self._search_job = -1
        self.net = net
        self.map_path = net.source_path or None
        self.graph = CSRGraph.from_any(net)
        self.geo = self.canvas.set_network(net, geo)
        self._snapper_pending = defer_snapper and snapper is None
        self.snapper = snapper if (snapper is not None or defer_snapper) else make_snapper(net)
        self._after_load(net, build_snapper=self._snapper_pending)
        self.source = self.target = None
        self.src_point = self.dst_point = None
        self._snap_segs = {}
        self.result = None
        self.route = None
        self.billboards = None
        self.od_panel.clear()
        self.chart.clear()
        self.route_panel.clear()
        self.canvas.set_attribution(attribution_for(net))
        name = net.name or os.path.basename(net.source_path) or "map"
        self.setWindowTitle(f"Signpost — {name}" + (f" ({net.source_path})" if net.source_path else ""))
        self.lbl_size.setText(f"{net.num_nodes:,} nodes · {net.num_arcs:,} arcs · {net.unit}")
        self.status(f"Opened {name}: {net.num_nodes:,} nodes, {net.num_arcs:,} arcs. "
                    "Left click sets the source, right click the destination.", 8000)

    def _after_load(self, net: RoadNetwork, build_snapper: bool) -> None:
        """On the loader thread: compile the CPU kernels of the chosen strategy on a tiny
        graph (so the first click does not wait for numba) and, for big maps, build the
        snapping index (one job: a second one would supersede the first)."""
        strategy, backend = self.algo_panel.strategy, self.algo_panel.backend

        def fn(ctx: JobContext):
            tiny = CSRGraph.from_edges(3, [0, 1], [1, 2], [1, 1])
            for s in {strategy, "auto"}:
                try:
                    sssp(tiny, 0, strategy=s, backend=backend)
                except GpuCoreError:
                    pass  # the real search reports it
            return (net, make_snapper(net)) if build_snapper else None

        self._after_job = self.loader.submit(Job(fn, kind="after-load"))

    def fit_map(self) -> None:
        if self.geo is not None:
            self.canvas.vb.autoRange(padding=0.02)

    def _profile_changed(self, profile: str) -> None:
        if self.net is not None and self.net.source_path and os.path.exists(self.net.source_path):
            from maps.load import detect_format

            try:
                fmt = detect_format(self.net.source_path)
            except MapError:
                return
            if fmt in ("dimacs", "pace", "cache"):
                self.status(f"profile {profile} does not apply to a {fmt} graph (weights come from the file)", 5000)
                return
            self.open_map(self.net.source_path, profile)
        self.settings.set_algorithm(self.algo_panel.values())

    # ---- drag and drop ----------------------------------------------------------------
    def dragEnterEvent(self, ev) -> None:
        if ev.mimeData().hasUrls():
            ev.acceptProposedAction()

    def dropEvent(self, ev) -> None:
        urls = [u.toLocalFile() for u in ev.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.open_map(urls[0])
            ev.acceptProposedAction()

    # ---- clicks -----------------------------------------------------------------------
    def snap(self, x: float, y: float):
        """Snap map metres to the network; None (with a status message) when too far."""
        if self.net is None:
            self.status("Open a map first")
            return None
        if self.snapper is None:
            if self._snapper_pending:
                self.status("Preparing the snapping index of this big map; click again in a moment", 5000)
            else:
                self.status("This map has no coordinates or roads to click on: type node:ID points", 6000)
            return None
        try:
            return self.snapper.snap(float(x), float(y), max_distance_m=self.snap_max_m)
        except PointError as exc:
            self.status(f"No road here: {exc.detail}", 6000)
            return None

    def on_map_click(self, x: float, y: float, which: str) -> None:
        """A click (or the public click API): snap, then search (source) or read a route."""
        self.last_click = (float(x), float(y), which)
        s = self.snap(x, y)
        if s is None:
            return
        if which == "od":
            self.add_od_point(click_point(self.net, s))
            return
        self.set_point(which, click_point(self.net, s), (x, y, float(s.x), float(s.y)))

    def set_point(self, which: str, point, snap_seg: tuple | None = None) -> None:
        """Make ``point`` (a ResolvedPoint) the source (new search) or destination (route)."""
        assert self.net is not None
        net, node = self.net, int(point.node)
        if point.snap is not None:
            sx, sy = float(point.snap.x), float(point.snap.y)
            if snap_seg is None:
                snap_seg = (sx, sy, sx, sy)
        else:
            sx, sy = float(net.x[node]), float(net.y[node])
        self.canvas.set_marker(which, sx, sy)
        if snap_seg:
            self._snap_segs[which] = snap_seg
        else:
            self._snap_segs.pop(which, None)
        self.canvas.show_snap(list(self._snap_segs.values()))
        if which == "source":
            self.source, self.src_point = node, point
            self.route_panel.set_points(point.text, None)
            self.run_search()
        else:
            self.target, self.dst_point = node, point
            self.route_panel.set_points(None, point.text)
            self.update_route()

    def _dest_dragged(self, x: float, y: float) -> None:
        """Live route while the destination marker is dragged: no search, only pred."""
        if self.result is None or self.snapper is None:
            return
        try:
            s = self.snapper.snap(float(x), float(y), max_distance_m=self.snap_max_m)
        except PointError:
            return
        if int(s.node) != self.target:
            self.target, self.dst_point = int(s.node), click_point(self.net, s)
            self.update_route()

    def route_between(self, from_text: str, to_text: str) -> bool:
        """Route between typed points (LON,LAT or node:ID), as clicks would; False (and
        routeFailed) when a point cannot be resolved."""
        if self.net is None:
            self.status("Open a map first")
            return False
        try:
            src = resolve_point(self.net, self.snapper, from_text, self.snap_max_m)
            dst = resolve_point(self.net, self.snapper, to_text, self.snap_max_m) if to_text.strip() else None
        except MapError as exc:
            self.status(str(exc))
            self.routeFailed.emit(str(exc))
            return False
        if dst is not None:
            self.set_point("destination", dst)
        self.set_point("source", src)
        return True

    def swap(self) -> None:
        if self.src_point is None or self.dst_point is None:
            return
        s, t = self.src_point, self.dst_point
        segs = self._snap_segs
        self._snap_segs = {"source": segs["destination"]} if "destination" in segs else {}
        if "source" in segs:
            self._snap_segs["destination"] = segs["source"]
        self.set_point("destination", s, self._snap_segs.get("destination"))
        self.set_point("source", t, self._snap_segs.get("source"))

    def clear_route(self) -> None:
        self.compute.cancel()
        self.source = self.target = None
        self.src_point = self.dst_point = None
        self.result = self.route = None
        self._snap_segs = {}
        self.canvas.show_snap([])
        self.canvas.set_marker("source", None)
        self.canvas.set_marker("destination", None)
        self.canvas.show_route(None)
        self.canvas.show_field(None)
        self.route_panel.clear()

    # ---- searching ----------------------------------------------------------------------
    def run_search(self) -> int:
        """Start the search from ``self.source`` (superseding any running one)."""
        assert self.graph is not None and self.source is not None
        graph, src = self.graph, int(self.source)
        strategy, backend, opts = self.algo_panel.strategy, self.algo_panel.backend, self.algo_panel.options()

        def fn(ctx: JobContext) -> SSSPResult:
            return search_with_fallback(graph, src, strategy, backend, opts, ctx)

        self.result = None
        self.route = None
        self.canvas.show_route(None)
        self.chart.clear()
        self.chart.begin_run(strategy)
        self._search_t0 = time.perf_counter()
        self._search_job = self.compute.submit(Job(fn, kind="search", tag=strategy))
        self.progress.setRange(0, 0)  # busy indicator: phases are charted live
        self.progress.setVisible(True)
        self.btn_cancel.setVisible(True)
        self.status(f"Searching from node {int(self.net.node_ids[src])} ({strategy}, {backend})…")
        return self._search_job

    def compare_strategies(self) -> int:
        """Run conventional / selection / adaptive / auto from the current source, overlaid."""
        if self.graph is None or self.source is None:
            self.status("Set a source first (left click on the map)", 5000)
            return 0
        graph, src = self.graph, int(self.source)
        backend, opts = self.algo_panel.backend, self.algo_panel.options()

        def fn(ctx: JobContext) -> dict:
            out = {}
            for s in COMPARE_STRATEGIES:
                ctx.flush_phases()
                ctx.tag = s
                out[s] = search_with_fallback(graph, src, s, backend, opts, ctx)
            return out

        self.chart.clear()
        for s in COMPARE_STRATEGIES:
            self.chart.begin_run(s)
        self._search_job = self.compute.submit(Job(fn, kind="compare", tag=COMPARE_STRATEGIES[0]))
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self.btn_cancel.setVisible(True)
        self.status("Comparing " + ", ".join(COMPARE_STRATEGIES) + "…")
        return self._search_job

    def cancel_all(self) -> None:
        self.compute.cancel()
        self.loader.cancel()

    def _job_phases(self, jid: int, tag: str, rows) -> None:
        if jid == self._search_job:
            self.chart.append(tag, rows)

    def _job_finished(self, jid: int, kind: str, result) -> None:
        if jid != self._search_job:
            return
        self.progress.setRange(0, 1000)
        self._idle_progress()
        if kind in ("od", "billboards"):
            self._tool_finished(kind, result)
            self.searchFinished.emit()
            return
        if kind == "compare":
            for s, res in result.items():
                self.chart.set_run(s, res.phases, f"{res.backend}")
            self.status("Compared " + ", ".join(
                f"{s}: {res.phases.total_time_us / 1000:.2f} ms" for s, res in result.items()), 10000)
            res = result.get("auto") or next(iter(result.values()))
            if res.extra.get("fallback"):
                self._fallback_notice(res.extra["fallback"])
            self.searchFinished.emit()
            return
        res: SSSPResult = result
        wall = time.perf_counter() - self._search_t0
        self.result = res
        self.chart.set_run(res.strategy, res.phases, res.backend)
        reached = int((res.dist != UNREACHABLE).sum())
        self.route_panel.show_search(
            reached, self.net.num_nodes,
            f"{res.strategy} on {res.device}: {res.elapsed_s * 1000:.1f} ms, {len(res.phases)} phases",
        )
        if res.extra.get("fallback"):
            self._fallback_notice(res.extra["fallback"])
        self.redraw_field()
        if self.target is not None:
            self.update_route()
        self.status(f"Reached {reached:,} of {self.net.num_nodes:,} nodes in "
                    f"{res.elapsed_s * 1000:.1f} ms ({wall * 1000:.0f} ms with drawing)", 8000)
        self.searchFinished.emit()

    def _fallback_notice(self, why: str) -> None:
        text = f"The GPU search failed ({why}); it ran on the CPU instead."
        self.lbl_backend.setText("CPU (GPU failed)")
        self.show_error("GPU fallback", text)

    def _job_failed(self, jid: int, kind: str, exc) -> None:
        if jid != self._search_job:
            return
        self.progress.setRange(0, 1000)
        self._idle_progress()
        if kind == "billboards":  # the panel would keep saying "starting…"
            self.bb_panel.set_progress(0.0, f"Failed: {exc}")
            self.show_error("Billboard placement failed", str(exc))
            return
        self.show_error("Search failed", str(exc))

    def _job_cancelled(self, jid: int, kind: str) -> None:
        if jid != self._search_job:
            return
        self.progress.setRange(0, 1000)
        self._idle_progress()
        if kind == "billboards":
            self.bb_panel.set_progress(0.0, "Cancelled")
        self.status("Search cancelled", 5000)
        self.searchCancelled.emit()

    def _settings_changed(self) -> None:
        self.settings.set_algorithm(self.algo_panel.values())

    # ---- drawing results --------------------------------------------------------------
    def redraw_field(self) -> None:
        """Colour the network by the distances of the search on screen (or remove it)."""
        v = self.algo_panel.values()
        if self.result is None or self.geo is None or not v["show_field"]:
            self.canvas.show_field(None)
        else:
            self.canvas.show_field(self.result.dist, v["colormap"], self.net.unit, v["isochrone_bands"])
        self.settings.set_algorithm(v)

    def update_route(self) -> None:
        """Read source→target from the predecessor array and draw it (no new search)."""
        if self.result is None or self.target is None or self.net is None:
            return
        try:
            self.route = read_route(self.net, self.result.dist, self.result.pred, int(self.source), int(self.target))
        except UnreachableError as exc:
            self.route = None
            self.canvas.show_route(None)
            self.route_panel.show_route(None, message="unreachable")
            self.status(f"Unreachable: {exc}", 8000)
            self.routeFailed.emit(str(exc))
            return
        r = self.route
        self.canvas.show_route(r.xs, r.ys)
        self.route_panel.show_route(r.cost, r.unit, r.length_m, r.num_nodes)
        self.status(f"Route: {format_cost(r.cost, r.unit)}, {r.length_m:,.0f} m, {r.num_nodes} nodes", 8000)
        self.routeShown.emit(r)

    def route_json(self) -> dict:
        if self.route is None or self.net is None:
            raise UnreachableError("no route is shown")
        return route_json(self.net, self.route, self.src_point, self.dst_point, self.result,
                          map_path=self.map_path)

    # ---- exports ----------------------------------------------------------------------
    def export(self, what: str, path: str) -> None:
        """Write ``what`` (route, field, phases, view) to ``path``; format by extension."""
        low = path.lower()
        if what == "route":
            if self.route is None:
                raise UnreachableError("no route to export: set a source and a destination first")
            (export.route_gpx if low.endswith(".gpx") else export.route_geojson)(self.net, self.route, path)
        elif what == "field":
            if self.result is None:
                raise InvalidArgumentError("no distance field to export: click a source first")
            (export.field_csv if low.endswith(".csv") else export.field_geojson)(self.net, self.result.dist, path)
        elif what == "phases":
            log = self.result.phases if self.result is not None else None
            if log is None:
                raise InvalidArgumentError("no search telemetry to export yet")
            export.phases_csv(log, path)
        elif what == "view":
            export.view_image(self.canvas, path)
        elif what == "od":
            if self.od_panel.matrix is None:
                raise InvalidArgumentError("no origin–destination matrix to export: compute it first")
            ids = self.od_panel.node_ids()
            write_matrix_csv(path, ids, ids, self.od_panel.matrix)
        elif what == "billboards":
            if self.billboards is None:
                raise InvalidArgumentError("no billboard sites to export: place them first")
            export_sites(self.net, self.billboards, path)
        else:
            raise InvalidArgumentError(f"unknown export {what!r}")
        self.status(f"Wrote {path}", 5000)

    def _export_dialog(self, what: str) -> None:
        filters = {
            "route": "GeoJSON (*.geojson);;GPX (*.gpx)",
            "field": "CSV (*.csv);;GeoJSON (*.geojson)",
            "phases": "CSV (*.csv)",
            "view": "PNG image (*.png);;SVG drawing (*.svg)",
            "billboards": "GeoJSON (*.geojson);;CSV (*.csv)",
            "od": "CSV (*.csv)",
        }[what]
        path, _ = QFileDialog.getSaveFileName(self, f"Export {what}", "", filters)
        if not path:
            return
        try:
            self.export(what, path)
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
        x, y = to_xy(np.array([lon]), np.array([lat]), self.net.origin)
        return float(x[0]), float(y[0])

    # ---- shutdown ---------------------------------------------------------------------
    def shutdown_workers(self) -> None:
        """Cancel and join every worker thread (no "QThread destroyed while running")."""
        self.compute.shutdown()
        self.loader.shutdown()

    def closeEvent(self, ev) -> None:
        self.settings.set_geometry(self.saveGeometry(), self.saveState())
        self.settings.set_algorithm(self.algo_panel.values())
        self.settings.sync()
        self.shutdown_workers()
        super().closeEvent(ev)


def search_with_fallback(graph, src: int, strategy: str, backend: str, opts, ctx: JobContext) -> SSSPResult:
    """sssp on the chosen backend; a GPU failure (not a cancel) reruns it on the CPU."""
    from gpu_core.backend import resolve_backend

    which = resolve_backend(backend)
    try:
        # "auto" stays "auto" on the CPU so the result names why (no CuPy, no device).
        return sssp(graph, src, strategy=strategy, backend="cupy" if which == "cupy" else backend,
                    options=opts, on_phase=ctx.on_phase, cancel=ctx.cancelled)
    except (CancelledError, InvalidArgumentError):
        raise
    except Exception as exc:
        if which != "cupy":
            raise
        why = f"{type(exc).__name__}: {exc}"
        res = sssp(graph, src, strategy=strategy, backend="cpu", options=opts,
                   on_phase=ctx.on_phase, cancel=ctx.cancelled)
        res.extra["fallback"] = why
        return res

