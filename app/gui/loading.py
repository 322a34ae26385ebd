"""Loading maps into the main window (a mixin of MainWindow): the loader worker, its
progress and errors, the after-load job (kernel warm-up, the snapping index of big maps),
the profile switch and dropped files. The current map stays until a new one has loaded."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog

from app.jobs import compile_ahead  # here, not at the first map's warm-up on the window's thread
from app.jobs.maps import FILE_WEIGHT_FORMATS, make_snapper, open_map, profile_for
from gpu_core.errors import CancelledError
from gpu_core.graph import CSRGraph
from maps.errors import LayerChoiceError, MapError
from maps.formats.registry import open_filter
from maps.model.network import RoadNetwork
from maps.postgis.conn import is_db_uri, redact

from . import chrome
from .geometry import build_geometry
from .map_canvas import prepare_drawing
from .tools.route_tool import RouteTool
from .workers import Job, JobContext

BIG_MAP_ARCS = 500_000  # above this the snapping index is built after the map is shown
# Qt-free modules the first click and the first edit import (lazily, to keep the window's
# start short): imported by the after-load job on the loader thread, as on the window's
# thread the first closure's imports froze it 40-70 ms (issue 41)
FIRST_USE_MODULES = ("app.jobs.isochrones", "app.jobs.edits")

if TYPE_CHECKING:
    from PySide6.QtCore import Signal
    from PySide6.QtWidgets import QMainWindow, QProgressBar, QPushButton

    from .db_dialog import DatabaseDialog
    from .geometry import MapGeometry
    from .panels import AlgorithmPanel
    from .route_index import RouteIndex
    from .settings import Settings
    from .tools.base import Tool
    from .workers import JobRunner

    _Window = QMainWindow  # MapLoading is only ever a base of MainWindow, a QMainWindow
    _T = TypeVar("_T", bound=Tool)
else:
    _Window = object

OPEN_FILTER = open_filter()  # every file suffix of maps.formats.registry.FORMATS


def preload_first_use() -> None:
    """Import :data:`FIRST_USE_MODULES` (on the calling thread: the loader's)."""
    import importlib

    for name in FIRST_USE_MODULES:
        importlib.import_module(name)


def _name(path: str) -> str:
    """How the status bar names a map: a file's name, a database URI without password."""
    return redact(path) if is_db_uri(path) else os.path.basename(path)


class MapLoading(_Window):
    """Map loading for MainWindow (needs its loader, compute, progress, status...)."""

    layer_dialog: QInputDialog | None = None  # the open "Choose a layer" dialog, if any
    db_dialog: DatabaseDialog | None = None  # the open "Open database" dialog, if any
    _load_gis: dict[str, Any] = {}  # the GIS options of the last load (layer, crs, weight, ...)
    open_times: dict[str, float] = {}  # seconds per step of the last load: read, geometry, ...

    if TYPE_CHECKING:  # what this mixin uses of MainWindow (made in its __init__)
        settings: Settings
        algo_panel: AlgorithmPanel
        loader: JobRunner
        route_index: RouteIndex
        progress: QProgressBar
        btn_cancel: QPushButton
        mapLoaded: Signal
        mapLoadFailed: Signal
        map_path: str | None
        snapper: Any
        _snapper_pending: bool
        tools: dict[str, Any]  # the edit tool's spare_maker / take_spare (_warm_up)
        _handlers: Mapping[int, object]
        _load_job: int
        _load_path: str | None
        _loading: bool
        _after_job: int

        @property
        def net(self) -> RoadNetwork | None: ...
        @property
        def scenario(self) -> Any: ...
        def tool(self, cls: type[_T]) -> _T: ...
        def status(self, text: str, timeout_ms: int = 0) -> None: ...
        def _idle_progress(self) -> None: ...
        def show_error(self, title: str, text: str) -> None: ...
        def set_network(self, net: RoadNetwork, geo: MapGeometry | None = None, snapper: Any = None,
                        *, defer_snapper: bool = False, prepared: dict | None = None,
                        graph: CSRGraph | None = None) -> None: ...

    # ---- loading ----------------------------------------------------------------------
    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open map", "", OPEN_FILTER)
        if path:
            self.show_map(path)

    def open_database_dialog(self, uri: str = ""):
        """File → Open database… (non-blocking; returns the dialog, tests drive it)."""
        from .db_dialog import DatabaseDialog

        dlg = DatabaseDialog(self, uri or self.settings.last_database())
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.db_dialog = dlg
        dlg.open()
        return dlg

    def show_map(self, path: str, profile: str | None = None, **gis) -> int:
        """Load ``path`` on the loader thread; the current map stays until it succeeds.
        ``gis``: ``maps.load.load_map``'s layer, crs, weight, ... (kept for reloads with
        another profile of the same file). What-if edits are not applied here: the Edit
        tool takes them after the load (``signpost gui --scenario``), so they stay listed,
        drawn and undoable."""
        if not path:
            self.show_error("Open map", "no map file given")
            return 0
        profile = profile or self.algo_panel.profile
        self._load_gis = gis

        def fn(ctx: JobContext):
            t = [time.perf_counter()]

            def lap() -> float:
                t.append(time.perf_counter())
                return t[-1] - t[-2]

            net = open_map(path, profile=profile_for(path, profile), progress=ctx.progress,
                           cancel=ctx.cancelled, **gis)
            # validated here: on the GUI thread its passes over the arcs froze the window
            # 20-40 ms while the loader and the rasteriser shared the cores (issue 27)
            graph = CSRGraph.from_any(net)
            times = {"read": lap()}
            if ctx.cancelled():
                raise CancelledError("load cancelled")
            ctx.progress(0.95, "preparing the drawing")
            geo = build_geometry(net)
            times["geometry"] = lap()
            prepared = prepare_drawing(net, geo)  # paths / raster segments: not in the GUI thread
            times["drawing"] = lap()
            # Big maps: show the map first, build the snapping index right after.
            snapper = make_snapper(net) if net.num_arcs <= BIG_MAP_ARCS else None
            times["snap index"] = lap()
            return net, geo, snapper, prepared, times, graph

        self._load_path = redact(path)  # shown, remembered: never a password
        self._load_job = 0  # a superseded load is told cancelled inside submit(): unheard
        self._load_job = self.loader.submit(Job(fn, kind="load"))
        self._loading = True
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.btn_cancel.setVisible(True)
        self.status(f"Loading {_name(path)}…")
        return self._load_job

    def _load_progress(self, jid: int, frac: float, msg: str) -> None:
        if jid == self._load_job:
            self.progress.setValue(int(frac * 1000))
            if msg:
                self.statusBar().showMessage(f"Loading {_name(self._load_path or '')}: {msg}")

    def _load_finished(self, jid: int, kind: str, result) -> None:
        if jid == self._after_job:
            if kind == "warm-up":
                self._fragments_ready(*result)
                return
            if result is not None and result[0] is self.net:
                self.snapper = result[1]
                self.open_times["snap index"] = result[2]
                self.route_index.clicks_ready()
                self._snapper_pending = False
                self.status("Ready: left click sets the source, right click the destination", 5000)
                self._warm_up(self.net)  # clicks first, then the kernels
            return
        if jid != self._load_job:
            return
        self._loading = False
        self._idle_progress()
        net, geo, snapper, prepared, times, graph = result
        self.open_times = times  # seconds per step of the load (``signpost bench gui``)
        path = self._load_path or ""
        if not net.source_path:
            net.source_path = path
        self.set_network(net, geo, snapper, defer_snapper=snapper is None, prepared=prepared,
                         graph=graph)
        self.map_path = path
        self.settings.add_recent(path)
        chrome.fill_recent(self)
        self.mapLoaded.emit(path)

    def _load_failed(self, jid: int, kind: str, exc) -> None:
        if jid == self._after_job and kind == "after-load":  # no snapping index: the
            self.route_index.clicks_ready()  # route index need not wait for it
        if jid == self._after_job and kind == "warm-up":  # parts found on use instead
            self.tool(RouteTool).parts_found(None)
        if jid != self._load_job:
            return
        self._loading = False
        self._idle_progress()
        if isinstance(exc, LayerChoiceError) and not os.environ.get("SIGNPOST_NO_DIALOGS"):
            self.ask_layer(self._load_path or "", exc.layers)
            return
        self.show_error("Could not open the map", str(exc))
        self.mapLoadFailed.emit(str(exc))

    def ask_layer(self, path: str, layers: list[str]) -> QInputDialog:
        """A file with several line layers: a (non-blocking) dialog to pick one, which then
        loads. Returns the dialog (tests choose through it)."""
        dlg = QInputDialog(self)
        dlg.setWindowTitle("Choose a layer")
        dlg.setLabelText(f"{os.path.basename(path)} has several line layers; open which one?")
        dlg.setComboBoxItems(layers)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        gis = {k: v for k, v in self._load_gis.items() if k != "layer"}
        dlg.textValueSelected.connect(lambda name: self.show_map(path, None, layer=name, **gis))
        dlg.rejected.connect(lambda: self.mapLoadFailed.emit("no layer chosen"))
        self.layer_dialog = dlg
        dlg.open()
        return dlg

    def _load_cancelled(self, jid: int, kind: str) -> None:
        if jid == self._load_job:
            self._loading = False
            self._idle_progress()
            self.status("Loading cancelled; the previous map stays open", 5000)
            self.mapLoadFailed.emit("cancelled")

    def _after_load(self, net: RoadNetwork, build_snapper: bool) -> None:
        """On the loader thread, after a map is shown: for big maps the snapping index
        first (clicks are accepted once it is there), then :meth:`_warm_up` (one job at a
        time: a second submit would supersede the first)."""
        if build_snapper:
            def fn(ctx: JobContext):
                t0 = time.perf_counter()
                return net, make_snapper(net), time.perf_counter() - t0

            self._after_job = self.loader.submit(Job(fn, kind="after-load"))
        else:
            self._warm_up(net)

    def _warm_up(self, net: RoadNetwork) -> None:
        """On the loader thread: compile the CPU kernels of the chosen strategy, of the
        what-if repair and of the billboards on tiny graphs, so the first click or tool
        run does not wait for numba. In a child process (``app.jobs.compile_ahead``):
        numba compiles holding the GIL, which stalled this window's thread (issue 41);
        meanwhile a click on a small map answers by scipy."""
        strategy, backend = self.algo_panel.strategy, self.algo_panel.backend
        strategies = [strategy, "auto"]
        child = compile_ahead.start(strategies, backend) if compile_ahead.enabled() else None
        self.compile_child = child
        edit = self.tools.get("edit")
        spare = edit.spare_maker(net) if edit is not None else None

        def fn(ctx: JobContext):
            if child is None:
                compile_ahead.warm(strategies, backend)
            from app.session import Fragments

            fragments = Fragments()  # the route panel's: 0.2 s on 1.43M nodes, not at a click
            fragments.compute(net)
            preload_first_use()
            # the first edit's O(m) parts (the unedited scenario, the closed roads' index)
            return net, fragments, None if spare is None else spare()

        self._after_job = self.loader.submit(Job(fn, kind="warm-up"))

    def _fragments_ready(self, net: RoadNetwork, fragments, spare=None) -> None:
        """The unedited map's fragments, found by the warm-up: the route panel's, unless
        the map changed, was edited or has them already; ``spare``: the edit tool's."""
        route = self.tool(RouteTool)
        if net is not self.net:
            return
        if spare is not None:
            self.tools["edit"].take_spare(net, spare)
        if (self.scenario is None or not self.scenario.edits) and route.fragments.labels is None:
            route.parts_found(fragments)
        else:
            route.parts_found(None)

    def _profile_changed(self, profile: str) -> None:
        if self.net is not None and self.net.source_path and os.path.exists(self.net.source_path):
            from maps.formats.registry import detect_format

            try:
                fmt = detect_format(self.net.source_path)
            except MapError:
                return
            if fmt in FILE_WEIGHT_FORMATS:
                self.status(f"profile {profile} does not apply to a {fmt} graph (weights come from the file)", 5000)
                return
            self.show_map(self.net.source_path, profile, **self._load_gis)
        self.settings.set_algorithm(self.algo_panel.values())

    # ---- drag and drop ----------------------------------------------------------------
    def dragEnterEvent(self, ev) -> None:
        if ev.mimeData().hasUrls():
            ev.acceptProposedAction()

    def dropEvent(self, ev) -> None:
        urls = [u.toLocalFile() for u in ev.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.show_map(urls[0])
            ev.acceptProposedAction()
