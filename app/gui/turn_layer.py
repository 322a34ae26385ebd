"""The "Turn restrictions" layer (issue 39): a marker at every junction where a turn
restriction of the map applies (a node split into copies, ``maps.model.turns``), drawn only
when zoomed in (the view narrower than ``ZOOM_M``), so a country map is not covered in dots.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from maps.model.turns import copies_of

ZOOM_M = 3000.0  # markers show when the view is narrower than this (metres)


class TurnLayer:
    def __init__(self, canvas) -> None:
        self.canvas = canvas
        self.item: pg.ScatterPlotItem | None = None
        self.enabled = True
        self.junctions = np.zeros(0, dtype=np.int64)
        canvas.vb.sigRangeChanged.connect(lambda *_: self._update())

    def map_changed(self, net, edited=()) -> None:
        """Markers for ``net``'s restricted junctions (none without restrictions) and the
        nodes ``edited`` (junctions where turn edits banned or lifted a turn)."""
        if self.item is not None:
            self.canvas.vb.removeItem(self.item)
            self.item = None
        copies = copies_of(net)
        extra = np.asarray(list(edited), dtype=np.int64)
        if (copies is None and not extra.size) or not net.has_coordinates:
            self.junctions = np.zeros(0, dtype=np.int64)
            return
        self.junctions = np.unique(np.r_[np.zeros(0, np.int64) if copies is None else copies,
                                         extra])
        tr = net.meta.get("turn_restrictions", {})
        self.item = pg.ScatterPlotItem(
            x=net.x[self.junctions], y=net.y[self.junctions], symbol="s", size=9,
            pen=pg.mkPen("#b00020", width=1.5), brush=pg.mkBrush(255, 255, 255, 200))
        self.item.setZValue(40)
        self.item.setToolTip(f"{self.junctions.size:,} junctions with turn restrictions "
                             f"({tr.get('applied', 0):,} applied)")
        self.canvas.vb.addItem(self.item)
        self._update()

    def zoomed_in(self) -> bool:
        (x0, x1), _ = self.canvas.vb.viewRange()
        return bool(abs(x1 - x0) < ZOOM_M)

    def _update(self) -> None:
        if self.item is not None:
            self.item.setVisible(self.enabled and self.zoomed_in())

    def items(self) -> list:
        return [self.item]

    def toggle(self, on: bool) -> None:
        self.enabled = on
        self._update()


def detour_note(net, source, target, route) -> str | None:
    """The route panel's note on a turn-restricted map: "detours around a turn ban (+cost)"
    when the route costs more than on the same map without bans (``app.jobs.route``; one
    CPU search to the destination, run once the destination rests), else None."""
    from app.jobs.route import turn_detour

    from .map_canvas import format_cost

    if copies_of(net) is None or source is None or target is None:
        return None
    tr = turn_detour(net, int(source), int(target), route.cost, "cpu")
    if not tr["detour"]:
        return None
    return f"detours around a turn ban (+{format_cost(tr['extra_cost'], route.unit)})"
