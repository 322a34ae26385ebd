"""What every interactive tool of the main window is: a panel in a dock, items on the
map canvas, the clicks it takes, the exports it offers and the jobs it runs.

A tool runs a job through ``window.submit(fn, done=..., ...)``: ``fn`` is a job's
``run`` (``app.jobs``) bound by :func:`job` to its network and options; the handlers get
the result, the error or the cancel of that one job (a newer job supersedes it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QWidget

from ..workers import JobContext


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

    def __init__(self, window):
        super().__init__(window)
        self.win = window

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
