"""The main window's chrome: menus, toolbar, status bar, icons, the About box. The
tools add their exports to the File → Export menu and their docks to the View menu."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import QLabel, QMessageBox, QProgressBar, QPushButton, QToolBar

import resources
from maps.model.network import RoadNetwork

from .panels import plain_device


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


def icon(name: str) -> QIcon:
    try:
        return QIcon(str(resources.icon_path(name)))
    except FileNotFoundError:
        return QIcon()


def build_status_bar(win) -> None:
    from .status_bar import StatusBar

    sb = StatusBar(win)  # its message elided to fit, the full text in a tooltip
    win.setStatusBar(sb)
    win.lbl_cursor = QLabel("")
    win.lbl_size = QLabel("no map")
    from gpu_core.backend import describe_backend

    detail = describe_backend("auto")
    win.lbl_backend = QLabel(backend_phrase(detail))
    win.lbl_backend.setToolTip(f"Searches run on: {detail}")
    win.progress = QProgressBar()
    win.progress.setMaximumWidth(180)
    win.progress.setRange(0, 1000)
    win.progress.setVisible(False)
    win.btn_cancel = QPushButton("Cancel")
    win.btn_cancel.setVisible(False)
    win.btn_cancel.clicked.connect(win.cancel_all)
    for w in (win.lbl_cursor, win.lbl_size, win.lbl_backend, win.progress, win.btn_cancel):
        sb.addPermanentWidget(w)


def short_count(n: int) -> str:
    """A count for the status bar: 5,584, 812K, 1.43M (the exact one goes to a tooltip)."""
    if n < 100_000:
        return f"{n:,}"
    if n < 1_000_000:
        return f"{n / 1e3:.0f}K"
    return f"{n / 1e6:.3g}M"


def backend_phrase(text: str) -> str:
    """The status bar's backend phrase: "GPU: NVIDIA H100", "CPU, no GPU found" or "CPU"."""
    head = plain_device(text)
    return "CPU, no GPU found" if head == "CPU" and "(" in text and "chosen" not in text else head


def build_menus(win) -> None:
    route = win.tools["route"]
    mb = win.menuBar()
    m_file = mb.addMenu("&File")
    a_open = m_file.addAction(icon("open"), "&Open map…", win.open_dialog)
    a_open.setShortcut(QKeySequence.StandardKey.Open)
    win.a_open_db = m_file.addAction("Open &database…", win.open_database_dialog)
    win.m_recent = m_file.addMenu("Open &recent")
    fill_recent(win)
    a_sample = m_file.addAction("Open the &sample map", lambda: win.show_map(sample_map_path() or ""))
    a_sample.setEnabled(sample_map_path() is not None)
    m_exp = m_file.addMenu(icon("export"), "&Export")
    for key, (text, _) in win.export_kinds().items():
        m_exp.addAction(text, lambda k=key: win.export_dialog(k))
    m_file.addSeparator()
    a_quit = m_file.addAction("&Quit", win.close)
    a_quit.setShortcut(QKeySequence.StandardKey.Quit)

    stack = win.tools["edit"].stack if "edit" in win.tools else None
    if stack is not None:  # what-if edits: undo / redo with the usual keys
        m_edit = mb.addMenu("&Edit")
        win.a_undo = stack.createUndoAction(win, "&Undo edit")
        win.a_undo.setShortcut(QKeySequence.StandardKey.Undo)
        win.a_redo = stack.createRedoAction(win, "&Redo edit")
        win.a_redo.setShortcut(QKeySequence.StandardKey.Redo)
        m_edit.addAction(win.a_undo)
        m_edit.addAction(win.a_redo)

    m_search = mb.addMenu("&Search")
    win.a_cancel = m_search.addAction(icon("stop"), "&Cancel", win.cancel_all)
    win.a_cancel.setShortcut(QKeySequence(Qt.Key.Key_Escape))
    m_search.addAction(icon("compare"), "C&ompare strategies", route.compare_strategies)
    m_search.addAction(icon("swap"), "&Swap source and destination", route.swap)
    m_search.addAction(icon("clear"), "C&lear route", route.clear_route)
    m_search.addSeparator()  # the route index (app/gui/route_index.py)
    win.a_build_index = m_search.addAction("Build route &index",
                                           lambda: win.route_index.build())
    win.a_build_index.setToolTip("Build (or load) the route index of this map in the "
                                 "background: clicks and drags then search through it")
    win.a_auto_index = m_search.addAction("Build route index &automatically")
    win.a_auto_index.setCheckable(True)
    win.a_auto_index.setChecked(win.route_index.auto())
    win.a_auto_index.setToolTip("Build the route index when a road map of 50,000 nodes or more opens")
    win.a_auto_index.toggled.connect(win.route_index.set_auto)

    m_view = mb.addMenu("&View")
    m_view.addAction("&Fit map", win.fit_map).setShortcut(QKeySequence("Ctrl+0"))
    win.m_layers = m_view.addMenu("&Layers")
    win.m_layers.aboutToShow.connect(lambda: win.layers.fill_menu(win.m_layers))
    win.layers.fill_menu(win.m_layers)
    for dock in (win.side_dock, win.chart_dock, *list(win._docks.values())[1:]):
        m_view.addAction(dock.toggleViewAction())
    m_help = mb.addMenu("&Help")
    m_help.addAction("&About Signpost", lambda: about(win))

    tb = QToolBar("Main")
    tb.setObjectName("toolbar-main")
    tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    win.addToolBar(tb)
    tb.addAction(a_open)
    tb.addSeparator()
    grp = QActionGroup(win)
    win.a_mode_src = QAction(icon("source"), "Click sets source", win, checkable=True)
    win.a_mode_dst = QAction(icon("destination"), "Click sets destination", win, checkable=True)
    win.a_mode_src.setChecked(True)
    for a, mode in ((win.a_mode_src, "source"), (win.a_mode_dst, "destination")):
        grp.addAction(a)
        tb.addAction(a)
        a.triggered.connect(lambda _=False, m=mode: setattr(win.canvas, "click_mode", m))
    tb.addSeparator()
    tb.addAction(win.a_cancel)
    tb.addAction(icon("fit"), "Fit map", win.fit_map)
    from PySide6.QtWidgets import QToolButton

    win.btn_layers = QToolButton()
    win.btn_layers.setText("Layers")
    win.btn_layers.setToolTip("Show, hide or clear the results on the map")
    win.btn_layers.setMenu(win.m_layers)
    win.btn_layers.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    tb.addWidget(win.btn_layers)


def fill_recent(win) -> None:
    win.m_recent.clear()
    files = win.settings.recent_files()
    for p in files:
        win.m_recent.addAction(p, lambda p=p: win.show_map(p))
    win.m_recent.setEnabled(bool(files))


def about_text() -> str:
    from app.version import version

    return (f"Signpost {version()}: every shortest route at once, on the GPU or the CPU.\n"
            "Left click: source · right click (or Ctrl+click): destination · "
            "drag B to move the destination.")


def about(win) -> None:
    QMessageBox.about(win, "About Signpost", about_text())

