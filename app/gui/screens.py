"""One representative screen per tool, set up on whatever map the window shows, as a user
would (each tool's ``stage``: a route with its field, a few edits in the change view,
billboard sites, an OD matrix, the network analysis). ``scripts/screenshots.py`` saves them at two sizes; the
screenshot tests (``tests/gui/test_screens.py``) check each for clipped widgets.

``wait(predicate, timeout_s)`` is the caller's way of running the event loop until a
job is done (qtbot.waitUntil in tests, a local loop in the script).
"""

from __future__ import annotations

from collections.abc import Callable

SIZES = ((1024, 700), (1600, 1000))


def _tool_order() -> tuple[str, ...]:
    from .tools import TOOLS

    return tuple(t.name for t in TOOLS)


TOOL_ORDER = _tool_order()  # every tool has a screen: the order of app.gui.tools.TOOLS

Wait = Callable[[Callable[[], bool], float], None]


def stage(win, tool: str, wait: Wait) -> None:
    """Put the window in ``tool``'s representative state (``Tool.stage``), its dock raised."""
    win.dock(tool).raise_()
    win.tools[tool].stage(wait)
    win.dock(tool).raise_()


def readable_parts(win, tool: str) -> list:
    """The widgets a user reads on ``tool``'s screen: its dock, the phase dock, the status
    bar, the toolbar and the dock tabs (the other tools' docks are hidden behind tabs)."""
    from PySide6.QtWidgets import QTabBar, QToolBar

    parts = [win.dock(tool), win.chart_dock, win.statusBar()]
    parts += [t for t in win.findChildren(QToolBar) if t.isVisible()]
    parts += [t for t in win.findChildren(QTabBar) if t.isVisible() and t.count() > 1]
    return parts


def tool_problems(win, tool: str) -> list[str]:
    """Every clipped or overlapping widget of ``tool``'s screen (app.gui.layout_check)."""
    from .layout_check import problems

    out: list[str] = []
    for part in readable_parts(win, tool):
        out += problems(part)
    out += canvas_problems(win)
    from .status_bar import message_problems

    out += message_problems(win.statusBar())
    return sorted(set(out))


def canvas_problems(win) -> list[str]:
    """Map overlays (legends, colour bars, scale bar, attribution) that overlap each
    other or leave the map."""
    canvas = win.canvas
    box = canvas.vb.sceneBoundingRect()
    named = canvas.overlay_rects()
    out = []
    for name, r in named.items():
        if not box.adjusted(-2, -2, 2, 2).contains(r):
            out.append(f"map overlay {name} leaves the map")
    keys = list(named)
    for i, k in enumerate(keys):
        for j in keys[i + 1:]:
            inter = named[k].intersected(named[j])
            if inter.width() > 2 and inter.height() > 2:
                out.append(f"map overlay {k} overlaps {j}")
    return out
