"""What every interactive tool of the main window is: a panel in a dock, items on the
map canvas, the clicks it takes, the exports it offers and the jobs it runs.

A tool runs a job through ``window.submit(fn, done=..., ...)``: ``fn`` is a job's
``run`` (``app.jobs``) bound by :func:`job` to its network and options; the handlers get
the result, the error or the cancel of that one job (a newer job supersedes it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QWidget

from gpu_core.errors import InvalidArgumentError

from ..workers import JobContext

if TYPE_CHECKING:  # annotations only, every one below the tools (tests/core/test_layout.py)
    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QDockWidget

    from app.session import Session
    from gpu_core.graph import CSRGraph
    from maps.model.network import RoadNetwork

    from ..geometry import MapGeometry
    from ..layers import Layers
    from ..map_canvas import MapCanvas
    from ..panels import AlgorithmPanel
    from ..phase_chart import PhaseChart
    from ..route_index import RouteIndex
    from ..settings import Settings
    from ..turn_layer import TurnLayer
    from ..workers import JobRunner

_T = TypeVar("_T", bound="Tool")


class ToolHost(Protocol):
    """What the tools use of their window (``MainWindow`` is one), napari-style: a tool
    knows this shape, not the window's module, so nothing under ``tools`` imports the
    window, not even for annotations (issue 38)."""

    settings: Settings
    session: Session
    canvas: MapCanvas
    chart: PhaseChart
    algo_panel: AlgorithmPanel
    compute: JobRunner
    loader: JobRunner
    layers: Layers
    geo: MapGeometry | None
    turn_layer: TurnLayer
    field_painter: Callable[[], None] | None
    route_index: RouteIndex
    map_path: str | None
    a_mode_src: QAction
    routeShown: SignalInstance
    routeFailed: SignalInstance
    fieldChanged: SignalInstance
    scenario: Any  # the Edit tool's Scenario, or None
    snapper: Any
    snap_max_m: float

    @property
    def net(self) -> RoadNetwork | None: ...
    @property
    def graph(self) -> CSRGraph | None: ...
    @property
    def _handlers(self) -> Mapping[int, object]: ...  # the jobs whose ends are awaited
    def tool(self, cls: type[_T]) -> _T: ...
    def dock(self, name: str) -> QDockWidget: ...
    def status(self, text: str, timeout_ms: int = 0) -> None: ...
    def show_error(self, title: str, text: str) -> None: ...
    def fallback_notice(self, why: str) -> None: ...
    def search_net(self) -> RoadNetwork | None: ...
    def search_graph(self) -> Any: ...
    def snap(self, x: float, y: float) -> Any: ...
    def resolve(self, text: str) -> Any: ...
    def lonlat_to_xy(self, lon: float, lat: float) -> tuple[float, float]: ...
    def submit(self, fn: Callable[[JobContext], object], done: Callable, *,
               failed: Callable | None = None, cancelled: Callable | None = None,
               progress: Callable | None = None, tag: str = "", busy: bool = False) -> int: ...


def job(run: Callable, net, opts, *, phases: bool = False) -> Callable[[JobContext], Any]:
    """``run(net, opts, progress=, cancel=)`` (an ``app.jobs`` function) as a worker job;
    ``phases``: also stream the search's phase telemetry to the chart."""

    def fn(ctx: JobContext):
        kw = {"on_phase": ctx.on_phase} if phases else {}
        return run(net, opts, progress=ctx.progress, cancel=ctx.cancelled, **kw)

    fn.__name__ = getattr(run, "__module__", "job").rsplit(".", 1)[-1]
    return fn


class Tool(QObject):
    """Base of the tools in ``app.gui.tools.TOOLS`` (see the module docstring)."""

    name = ""  # key in window.tools
    dock_name = ""  # dock object name "dock-NAME" (saved window layouts use it; default name)
    title = ""  # dock title
    area = Qt.DockWidgetArea.RightDockWidgetArea
    clicks: tuple[str, ...] = ()  # canvas click kinds it takes: "source", "destination", "od"
    exports: dict[str, tuple[str, str]] = {}  # key: (menu text, file filter)
    threaded_exports = True  # export() may run on the export worker (reads state only)

    def __init__(self, window: ToolHost):
        super().__init__(window if isinstance(window, QObject) else None)
        self.win = window

    def dialog_parent(self) -> QWidget | None:
        """The window as the parent of a tool's dialogs."""
        return self.win if isinstance(self.win, QWidget) else None

    def map_net(self) -> RoadNetwork:
        """The open map (a tool's clicks, job ends and exports come while one is open)."""
        net = self.win.net
        if net is None:
            raise InvalidArgumentError("no map is open")
        return net

    def search_map(self) -> RoadNetwork:
        """The map searches run on and routes are read from: the edited one while the map
        has edits."""
        net = self.win.search_net()
        if net is None:
            raise InvalidArgumentError("no map is open")
        return net

    def widget(self) -> QWidget:
        """The panel shown in the tool's dock."""
        raise NotImplementedError

    def map_changed(self, net) -> None:
        """A new map is shown: drop what belongs to the old one."""

    def clicked(self, which: str, point, seg: tuple) -> None:
        """A click of a kind in ``clicks``, snapped (``point``: a ResolvedPoint; ``seg``:
        click x, y and snapped x, y in metres)."""

    def edited_scenario(self):
        """The Edit tool's Scenario when the map has edits (for before/after comparisons);
        else None, and the status bar says so."""
        sc = self.win.scenario
        if sc is None or not sc.edits:
            self.win.status("Edit the map first (Edit tool): nothing to compare", 5000)
            return None
        return sc

    def can_close(self) -> bool:
        """The window is closing: False keeps it open (the tool asked and was told Cancel)."""
        return True

    def export(self, what: str, path: str) -> None:
        """Write export ``what`` (a key of ``exports``) to ``path``."""

    def result_layers(self) -> list:
        """The result layers this tool draws (``app.gui.layers.Layer``s, in menu order):
        View → Layers lists every tool's, in ``TOOLS`` order."""
        return []

    def stage(self, wait) -> None:
        """Put the window in this tool's representative state, as a user would (the
        screenshots and their layout test: ``app.gui.screens``); ``wait(predicate,
        timeout_s)`` runs the event loop until a job is done."""
