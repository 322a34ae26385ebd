"""The Edit tool's panel and map layers (``tools/edit_tool.py`` runs them).

The panel: the click mode (close / reopen roads, add a link and its road class), the
list of edits (a ``QUndoView`` of the tool's undo stack: click an entry to go back to
it), undo / redo, save / open scenario files, the change view's switch and the list of
nodes the edits cut off (click one to zoom to it). The layers: closed roads as a dashed
red line over the road, added links as dashed green lines, the first point of a link
being drawn.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QUndoView,
    QWidget,
)

from .map_canvas import PathItem
from .panels import button_row, form_panel

CLOSED_COLOUR = "#ff3b30"
LINK_COLOUR = "#00e676"
LOST_LISTED = 500  # unreachable nodes listed at most (the count says how many in all)


class EditLayers:
    """Closed roads, added links and a pending link start on a MapCanvas."""

    def __init__(self, canvas):
        self.canvas = canvas
        self.closed_item: PathItem | None = None
        self.link_item: PathItem | None = None
        self.pending = pg.ScatterPlotItem(size=12, symbol="x", pen=pg.mkPen(LINK_COLOUR, width=2),
                                          brush=pg.mkBrush(LINK_COLOUR))
        self.pending.setZValue(46)
        canvas.vb.addItem(self.pending)
        self._keys: np.ndarray | None = None  # sorted undirected keys of the drawn arcs
        self._order: np.ndarray | None = None
        self._src: tuple | None = None  # (network, its arc_sources()): O(m) to make

    def map_changed(self) -> None:
        self._keys = self._order = None
        self._src = None
        self.show_closed(None, None, np.zeros(0, np.int64))
        self.show_links([])
        self.show_pending(None)

    def arc_sources(self, net) -> np.ndarray:
        """``net.arc_sources()``, made once per network (4.6M arcs: tens of ms)."""
        if self._src is None or self._src[0] is not net:
            self._src = (net, net.arc_sources())
        return self._src[1]

    @staticmethod
    def key_index(net, geo) -> tuple[np.ndarray, np.ndarray]:
        """(sorted undirected keys of ``geo``'s drawn arcs, their order): Qt-free, made on
        the loader thread after a map's load (:meth:`take_index`), else at the first edit."""
        n = max(net.num_nodes, 1)
        k = np.minimum(geo.tails, geo.heads).astype(np.int64) * n + np.maximum(geo.tails, geo.heads)
        order = np.argsort(k, kind="stable")
        return k[order], order

    def take_index(self, net, geo, keys: tuple[np.ndarray, np.ndarray], src: np.ndarray) -> None:
        """Keep :meth:`key_index` and ``net.arc_sources()`` made off the window's thread
        (an argsort and an O(m) pass that the first closure made there, issue 41)."""
        if self._keys is None and getattr(self.canvas, "geo", geo) is geo:
            self._keys, self._order = keys
        if self._src is None:
            self._src = (net, src)

    def drawn_of(self, net, geo, arcs: np.ndarray) -> np.ndarray:
        """Indices into ``geo.arcs`` of the polylines that draw network arcs ``arcs``."""
        n = max(net.num_nodes, 1)
        if self._keys is None or self._order is None:
            self._keys, self._order = self.key_index(net, geo)
        keys, order = self._keys, self._order
        t = self.arc_sources(net)[arcs].astype(np.int64)
        h = net.indices[arcs].astype(np.int64)
        k = np.minimum(t, h) * n + np.maximum(t, h)
        pos = np.clip(np.searchsorted(keys, k), 0, max(keys.size - 1, 0))
        hit = keys.size > 0
        ok = (keys[pos] == k) if hit else np.zeros(k.shape, bool)
        return np.unique(order[pos[ok]]) if hit else np.zeros(0, np.int64)

    def show_closed(self, net, geo, arcs: np.ndarray) -> int:
        """Draw network arcs ``arcs`` as closed; returns the polylines drawn."""
        vb = self.canvas.vb
        if self.closed_item is not None:
            vb.removeItem(self.closed_item)
            self.closed_item = None
        if net is None or geo is None or len(arcs) == 0 or not net.has_coordinates:
            return 0
        sel = self.drawn_of(net, geo, np.asarray(arcs, dtype=np.int64))
        if sel.size == 0:
            return 0
        x, y, c = geo.gather(sel)
        path = pg.arrayToQPath(x, y, connect=c, finiteCheck=False)
        # A dark casing under the red dashes: a closed road stands out over any field
        # colour (the change view's "slower" is red too).
        self.closed_item = PathItem(path, "#111111", 5.0, z=41.9)
        dashes = PathItem(path, CLOSED_COLOUR, 3.0, "dash", z=42)
        dashes.setParentItem(self.closed_item)
        vb.addItem(self.closed_item)
        return int(sel.size)

    def show_links(self, segments: list[tuple[float, float, float, float]]) -> None:
        """Added links as straight dashed lines (x0, y0, x1, y1 in metres)."""
        vb = self.canvas.vb
        if self.link_item is not None:
            vb.removeItem(self.link_item)
            self.link_item = None
        if not segments:
            return
        arr = np.asarray(segments, dtype=np.float64)
        path = pg.arrayToQPath(arr[:, [0, 2]].ravel(), arr[:, [1, 3]].ravel(), connect="pairs")
        self.link_item = PathItem(path, LINK_COLOUR, 3.0, "dash", z=42)
        vb.addItem(self.link_item)

    def show_pending(self, xy: tuple[float, float] | None) -> None:
        self.pending.setData([] if xy is None else [xy[0]], [] if xy is None else [xy[1]])


class EditPanel(QWidget):
    """Mode, link class, the list of edits with undo / redo, save / open, change view,
    and the nodes that became unreachable."""

    modeChanged = Signal(str)  # "" (clicks route again), "close", "link" or "turn"
    saveRequested = Signal()
    openRequested = Signal()
    clearRequested = Signal()
    changeToggled = Signal(bool)
    lostClicked = Signal(int)  # node index
    # made by button_row in __init__
    btn_undo: QPushButton
    btn_redo: QPushButton
    btn_clear: QPushButton
    btn_open: QPushButton
    btn_save: QPushButton

    def __init__(self, stack: QUndoStack, parent=None):
        super().__init__(parent)
        self.stack = stack
        self.btn_close = QPushButton("Close / reopen roads")
        self.btn_close.setToolTip("Click a road to close it (both directions); click a closed "
                                  "road to reopen it")
        self.btn_link = QPushButton("Add a link")
        self.btn_link.setToolTip("Drag from one point to another (or click both): a new "
                                 "two-way link between the roads they snap to, priced as the "
                                 "chosen class")
        self.btn_turn = QPushButton("Ban a turn")
        self.btn_turn.setToolTip("Click the road you come from, then the road you turn onto "
                                 "at a junction they share: the turn is banned (a banned one "
                                 "is lifted)")
        for b, mode in ((self.btn_close, "close"), (self.btn_link, "link"),
                        (self.btn_turn, "turn")):
            b.setCheckable(True)
            b.toggled.connect(lambda on, m=mode: self._mode_toggled(m, on))
        self.cb_class = QComboBox()
        self.view = QUndoView(stack)
        self.view.setEmptyLabel("unedited map")
        self.view.setMinimumHeight(90)
        undo_row = button_row(self, ("btn_undo", "Undo", stack.undo), ("btn_redo", "Redo", stack.redo),
                              ("btn_clear", "Clear edits", self.clearRequested))
        self.btn_undo.setEnabled(False)
        self.btn_redo.setEnabled(False)
        stack.canUndoChanged.connect(self.btn_undo.setEnabled)
        stack.canRedoChanged.connect(self.btn_redo.setEnabled)
        file_row = button_row(self, ("btn_open", "Open scenario…", self.openRequested),
                              ("btn_save", "Save scenario…", self.saveRequested))
        self.chk_change = QCheckBox("Change view: cost against the unedited map")
        self.chk_change.toggled.connect(self.changeToggled)
        self.lbl = QLabel("Pick a mode, then click the map. The route and the distance field "
                          "follow every edit.")
        self.lbl.setWordWrap(True)
        self.lbl_lost = QLabel("Became unreachable: —")
        self.list_lost = QListWidget()
        self.list_lost.setMinimumHeight(80)
        self.list_lost.itemClicked.connect(self._lost_clicked)
        row = button_row(self)
        row.addWidget(self.btn_close)
        row.addWidget(self.btn_link)
        turn_row = button_row(self)  # its own row: three modes in one widened the dock
        turn_row.addWidget(self.btn_turn)
        # Undo / Redo / Clear and the scenario files right under the modes: on a 1024 × 700
        # screen they stay in view above the list of edits (they were scrolled off below it,
        # the scenario buttons cut in half: issue 42).
        lay = form_panel(self, "Edit the network", [
            row, turn_row, ("New link class", self.cb_class), undo_row, file_row, self.view,
            self.chk_change, self.lbl])
        lay.addWidget(self.lbl_lost)
        lay.addWidget(self.list_lost, 1)

    def set_summary(self, text: str, clean: bool) -> None:
        self._summary = text
        self.set_clean(clean)

    def set_clean(self, clean: bool) -> None:
        """The stack's clean state (its cleanChanged): "(unsaved)" after the summary."""
        text = getattr(self, "_summary", "")
        if text:
            self.lbl.setText(text + ("" if clean else " (unsaved)"))

    def _buttons(self) -> dict:
        return {"close": self.btn_close, "link": self.btn_link, "turn": self.btn_turn}

    @property
    def mode(self) -> str:
        return next((m for m, b in self._buttons().items() if b.isChecked()), "")

    def set_mode(self, mode: str) -> None:
        """"close", "link", "turn" or "" (off)."""
        for m, b in self._buttons().items():
            b.setChecked(mode == m)

    def _mode_toggled(self, mode: str, on: bool) -> None:
        for m, other in self._buttons().items():
            if on and m != mode and other.isChecked():
                other.blockSignals(True)
                other.setChecked(False)
                other.blockSignals(False)
        self.modeChanged.emit(self.mode)

    def set_classes(self, names: list[str], default: str | None = None) -> None:
        self.cb_class.clear()
        self.cb_class.addItems(names)
        if default in names:
            self.cb_class.setCurrentText(default)

    def show_lost(self, net, nodes: np.ndarray | None) -> None:
        """List the nodes that became unreachable (None: no change view)."""
        self.list_lost.clear()
        self.list_lost.setVisible(nodes is not None and nodes.size > 0)
        if nodes is None:
            self.lbl_lost.setText("Became unreachable: — (turn the change view on)")
            return
        self.lbl_lost.setText(f"Became unreachable: {nodes.size:,} nodes"
                              + (f" (first {LOST_LISTED} listed)" if nodes.size > LOST_LISTED else ""))
        for v in nodes[:LOST_LISTED].tolist():
            it = QListWidgetItem(f"node {net.node_ids[v]}")
            it.setData(Qt.ItemDataRole.UserRole, int(v))
            self.list_lost.addItem(it)

    def _lost_clicked(self, item: QListWidgetItem) -> None:
        self.lostClicked.emit(int(item.data(Qt.ItemDataRole.UserRole)))
