"""The Edit tool (what-if editing): close / reopen roads and add links by clicking the
map, with undo / redo (one ``QUndoCommand`` per edit), scenario files, and the route,
the distance field and its isochrones following every edit at once.
(Over 500 lines: the undo stack, the edit modes and the change view share one scenario.)

The edited map is an ``app.jobs.edits.Scenario`` (shared as ``window.scenario``: searches
run on it while it has edits). An edit changes its graph here, in the GUI thread, with
the compute worker idle (a running job is cancelled and waited for: it may be reading
the graph); the search on screen is then brought up to date on the worker by
``app.jobs.whatif`` (``gpu_core.repair`` from the result on screen and the summaries of
the edits since, or a fresh search) and only the field, the route and the edit layers
are redrawn. Undo / redo put back the result each command saw before / after it, when
the source is the same: the exact earlier result, without a search.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QRectF, QTimer
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.jobs import whatif
from gpu_core.backend import resolve_backend
from resources import colormap_lut

from ..change_view import CHANGE_COLORMAP, Change, arc_classes, change_of, change_text, palette
from ..edit_panel import EditLayers, EditPanel
from ..overlays import field_title
from ..words import plural
from .base import Tool
from .edit_commands import EditCommand, file_id
from .route_tool import RouteTool
from .turn_clicks import TURN_HINT, TurnPicker

if TYPE_CHECKING:
    from app.jobs.edits import Scenario

SCENARIO_FILTER = "Scenario (*.geojson *.json);;All files (*)"
CACHED_COMMANDS = 8  # commands (newest) that keep their before / after results for undo
WAIT_IDLE_S = 60.0
BIG_MAP_ARCS = 500_000  # above this, O(m) counts run in the worker, not on each edit here


class EditTool(Tool):
    name = "edit"
    title = "Edit"
    clicks = ("close", "link", "turn")
    exports = {"scenario": ("What-if scenario (GeoJSON)…", SCENARIO_FILTER)}
    threaded_exports = False  # saving marks the undo stack clean (GUI thread)

    # The result's edit state lives in the window's app.session.Session (set there when a
    # result is shown: Session.shown): the summaries applied since the result on screen
    # (None: unknown) and (source, SSSPResult on the unedited map), the change view's
    # reference.
    _since = property(lambda self: self.win.session.applied_since,
                      lambda self, v: setattr(self.win.session, "applied_since", v))
    _base = property(lambda self: self.win.session.base,
                     lambda self, v: setattr(self.win.session, "base", v))

    def __init__(self, window):
        super().__init__(window)
        self.scenario: Scenario | None = None  # made on the first edit
        self._spare: tuple | None = None  # (unedited scenario, made for): after-load job's
        self.stack = QUndoStack(self)
        self.layers = EditLayers(window.canvas)
        self.panel = EditPanel(self.stack)
        self.panel.modeChanged.connect(self._mode_changed)
        self.panel.saveRequested.connect(self.save_dialog)
        self.panel.openRequested.connect(self.open_dialog)
        self.panel.clearRequested.connect(lambda: self.stack.setIndex(0))
        self.panel.changeToggled.connect(self.set_change_view)
        self.panel.lostClicked.connect(self.zoom_to)
        self.path: str | None = None  # the scenario file last saved / opened
        self.turns = TurnPicker(self)  # the "Ban a turn" mode's two clicks (issue 39)
        self._mod = 0  # counts changes: a job's end for an older state is dropped
        self._base_pending: int | None = None
        self._link_start = None  # (lon, lat, x, y) of a link's first point
        self.change: Change | None = None  # the change view on screen
        self._changed_arcs: tuple[int, int] = (-1, 0)  # (graph version, arcs changed)
        self._label = "edit"  # what the next search is for, as the chart names it: edit | undo | redo
        window.canvas.linkDragStarted.connect(lambda x, y: self.layers.show_pending((x, y)))
        window.canvas.linkDragged.connect(self._link_dragged)
        self.stack.cleanChanged.connect(self.panel.set_clean)

    def widget(self) -> QWidget:
        return self.panel

    # ---- map ----------------------------------------------------------------------------
    def result_layers(self) -> list:
        from ..layers import Layer

        lay = self.layers
        return [Layer("Edits (closed roads, new links)",
                      lambda: [lay.closed_item, lay.link_item, lay.pending])]

    def stage(self, wait) -> None:
        from ..staging import idle

        self.win.tool(RouteTool).stage(wait)
        route = self.win.tool(RouteTool).route
        if route is not None and len(route.arcs) > 2:
            self.toggle_road(int(route.arcs[len(route.arcs) // 2]))
            wait(lambda: idle(self.win), 60)
        self.set_change_view(True)
        wait(lambda: idle(self.win), 60)

    def map_changed(self, net) -> None:
        old = self.scenario
        # The same map again (another profile, reopened): its edits are applied again.
        keep = (list(old.edits) if old is not None and old.edits and net is not None
                and old.base.source_path and old.base.source_path == net.source_path else None)
        was_clean, path = self.stack.isClean(), self.path
        self.stack.clear()
        self.stack.setClean()
        self.scenario = self._spare = None
        self.win.scenario = None
        self.path = None
        self._since = []
        self._mod += 1
        self._base = None
        self._base_pending = None
        self._link_start = None
        self.change = None
        self._changed_arcs = (-1, 0)
        self.layers.map_changed()
        self.panel.show_lost(None, None)
        if net is not None:
            self.panel.chk_change.setText(
                f"Change view: {field_title(net.unit, plain=True)} against the unedited map")
            roads = [c for c in net.class_names if c not in ("rail", "transfer")] or list(net.class_names)
            self.panel.set_classes(roads, "residential" if "residential" in roads else None)
        if keep:
            QTimer.singleShot(0, lambda: self._reapply(net, keep, path, was_clean))

    def _reapply(self, net, edits: list, path: str | None, clean: bool) -> None:
        if self.win.net is not net or self.scenario is not None:
            return  # another map, or edited already
        if self.load_edits(edits, path) and not clean:
            self.stack.resetClean()  # still unsaved: closing asks

    def _ensure_scenario(self) -> Scenario:
        if self.scenario is None:
            from app.jobs.edits import Scenario

            win, spare, self._spare = self.win, self._spare, None
            net, backend, snap_m, snapper = spare[1] if spare is not None else (None,) * 4
            if (spare is not None and net is win.net and snapper is win.snapper
                    and (backend, snap_m) == (self._backend(), win.snap_max_m)):
                self.scenario = spare[0]  # made by the after-load job (spare_maker)
            else:
                self.scenario = Scenario(self.map_net(), backend=self._backend(),
                                         max_snap_m=win.snap_max_m, snapper=win.snapper)
            win.scenario = self.scenario
        return self.scenario

    def spare_maker(self, net):
        """On the window's thread, after ``net``'s load: a Qt-free function for the loader
        thread that makes what the first edit would make here in O(m) (issue 41: ~6 ms of
        the first closure's stall on a 60K-node map): the unedited scenario (the mutable
        graph's host arcs; CPU backend only) and the closed roads' key index. None above
        BIG_MAP_ARCS: ~30 bytes an arc kept from the load on (NE: ~110 MB) for a first edit
        that may never come."""
        if net.num_arcs > BIG_MAP_ARCS:
            return None
        win, geo = self.win, self.win.geo
        made_for = (net, self._backend(), win.snap_max_m, win.snapper)

        def make():
            from app.jobs.edits import Scenario

            sc = None
            try:
                if resolve_backend(made_for[1]) == "cpu" and not net.has_negative:
                    sc = Scenario(net, backend=made_for[1], max_snap_m=made_for[2],
                                  snapper=made_for[3])
            except Exception:  # the first edit makes it then (and says why it cannot)
                sc = None
            keys = EditLayers.key_index(net, geo) if geo is not None else None
            return (sc, made_for), keys, net.arc_sources()
        return make

    def take_spare(self, net, spare) -> None:
        """Keep what :meth:`spare_maker`'s function made, unless the map changed since."""
        sc, keys, src = spare
        if net is not self.win.net:
            return
        if self.scenario is None and sc[0] is not None:
            self._spare = sc
        if keys is not None:
            self.layers.take_index(net, self.win.geo, keys, src)

    def _backend(self) -> str:
        return self.win.algo_panel.backend

    # ---- clicks -------------------------------------------------------------------------
    def _mode_changed(self, mode: str) -> None:
        win = self.win
        win.canvas.click_mode = mode or "source"
        if mode and win.net is not None:
            self._warm_ids(win.net)
        if mode:
            win.status("Edit: " + {"close": "click a road to close it, a closed road to reopen it",
                                   "turn": TURN_HINT}.get(mode, "drag (or click) from one end of "
                                                                "the new link to the other"), 8000)
        else:
            win.a_mode_src.setChecked(True)
        self._link_start = None
        self.turns.reset()
        self.layers.show_pending(None)

    def _warm_ids(self, net) -> None:
        """Edits name nodes by their file ids: the map's id lookup (seconds on a 1.4M-node
        map) is built on the loader thread once an edit mode is picked, not on the first
        click; skipped while the loader is busy (the first edit then builds it)."""
        if net.num_nodes < 100_000 or getattr(net, "_id_index", None) is not None or self.win.loader.busy():
            return
        from ..workers import Job

        first = int(net.node_ids[0])
        self.win.loader.submit(Job(lambda ctx: net.index_of(first), kind="node-ids"))

    def clicked(self, which: str, point, seg: tuple) -> None:
        if point.snap is None or self.win.net is None:
            return
        if which == "close":
            arc = self.arc_under_pointer(seg[0], seg[1])
            if arc is None:
                self.win.status("No road under the pointer here: click on a road (zoom in "
                                "where roads overlap)", 6000)
                return
            self.toggle_road(arc)
        elif which == "turn":
            self.turns.click(seg[0], seg[1])
        elif which == "link":
            s = point.snap
            if self._link_start is None:
                self._link_start = (float(s.lon), float(s.lat), float(s.x), float(s.y))
                self.layers.show_pending((float(s.x), float(s.y)))
                self.win.status("Link: now click its other end", 8000)
                return
            lon0, lat0, _, _ = self._link_start
            self._link_start = None
            self.layers.show_pending(None)
            self.add_link((lon0, lat0), (float(s.lon), float(s.lat)))

    def _link_dragged(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """A drag in "link" mode: a new link between the roads nearest its two ends."""
        self._link_start = None
        self.layers.show_pending(None)
        a, b = self.win.snap(x0, y0), self.win.snap(x1, y1)
        if a is not None and b is not None:
            self.add_link((float(a.lon), float(a.lat)), (float(b.lon), float(b.lat)))

    def arc_under_pointer(self, x: float, y: float) -> int | None:
        """The network arc drawn under the pointer at (x, y) metres at the current zoom
        (the routed road first where roads overlap; ``app.gui.picking``)."""
        from ..picking import metres_per_pixel, pick_arc

        win = self.win
        if win.snapper is None:
            return None
        route = win.tool(RouteTool).route
        on = win.layers.visible("Route and its points") if hasattr(win, "layers") else True
        got = pick_arc(win.snapper, win.net, x, y, metres_per_pixel(win.canvas.vb),
                       route.arcs if route is not None and on else None)
        return None if got is None else got[0]

    def closed_pairs(self) -> set[tuple[int, int]]:
        """Node pairs (low, high index) of the roads closed now."""
        if self.scenario is None:
            return set()
        arcs = np.asarray(self.scenario.closed_arcs(), dtype=np.int64)
        net = self.map_net()
        t, h = self.layers.arc_sources(net)[arcs], net.indices[arcs]
        return set(zip(np.minimum(t, h).tolist(), np.maximum(t, h).tolist(), strict=True))

    def toggle_road(self, arc: int) -> bool:
        """Close the road of network arc ``arc`` (both directions), or reopen it when it
        is closed. False (and a message) when the edit is refused."""
        from app.jobs.edits import Edit

        net = self.map_net()
        t, h = int(self.layers.arc_sources(net)[arc]), int(net.indices[arc])
        closed = (min(t, h), max(t, h)) in self.closed_pairs()
        a, b = file_id(net, t), file_id(net, h)
        action = "open" if closed else "close"
        return self.apply(Edit(action, nodes=(a, b), label=f"{action} nodes:{a},{b}"))

    def add_link(self, a: tuple[float, float], b: tuple[float, float], road_class: str | None = None) -> bool:
        """A new two-way link between the roads nearest to (lon, lat) points a and b."""
        from app.jobs.edits import Edit

        cls = road_class or self.panel.cb_class.currentText() or None
        label = f"add {cls or 'link'} {a[0]:.5f},{a[1]:.5f} → {b[0]:.5f},{b[1]:.5f}"
        return self.apply(Edit("add", line=((a[0], a[1]), (b[0], b[1])), road_class=cls, label=label))

    # ---- applying, undo, redo -----------------------------------------------------------
    def _quiesce(self) -> None:
        """Cancel the compute job and wait until the worker is idle: the graph may change."""
        compute = self.win.compute
        compute.cancel()
        if not compute.wait_idle(WAIT_IDLE_S):
            self.win.status("The compute worker did not stop in time", 8000)

    def _current(self):
        """(source, result) on screen when it is the edited graph's current result."""
        route = self.win.tool(RouteTool)
        if route.result is None or self._since != []:
            return None
        return (route.source, route.result)

    def apply(self, edit) -> bool:
        """Apply ``edit`` (an app.jobs.edits.Edit) as a new undoable command; an edit the
        map refuses is shown and changes nothing."""
        from app.jobs.edits import EditError

        win = self.win
        if win.net is None:
            win.status("Open a map first", 5000)
            return False
        self._quiesce()
        before = self._current()
        try:
            applied = self._ensure_scenario().apply(edit)
        except (EditError, ValueError) as exc:
            win.show_error("Edit refused", str(exc))
            return False
        self.stack.push(EditCommand(self, edit, applied.summary, before))
        self._trim_caches()
        return True

    def _trim_caches(self) -> None:
        for i in range(max(self.stack.count() - CACHED_COMMANDS, 0)):
            cmd = self.stack.command(i)
            if isinstance(cmd, EditCommand):
                cmd.forget_results()

    def undo_command(self, cmd: EditCommand) -> None:
        self._quiesce()
        cmd.after = self._current()
        assert self.scenario is not None  # commands exist once an edit made it
        done = self.scenario.undo()
        # Scenario.undo's record carries the undo batch's own summary (what repair needs)
        self._label = "undo"
        self.changed(done.summary if done is not None and done.undone else None, cmd.before)
        self._trim_caches()

    def redo_command(self, cmd: EditCommand) -> None:
        self._quiesce()
        cmd.before = self._current() or cmd.before
        assert self.scenario is not None  # commands exist once an edit made it
        done = self.scenario.redo()
        self._label = "redo"
        self.changed(getattr(done, "summary", None), cmd.after)
        self._trim_caches()

    def changed(self, summary, restore) -> None:
        """The edited graph changed by ``summary`` (None: unknown); bring the view up to
        date: ``restore`` (source, result) when it is the result of the new state."""
        from app.session import Fragments

        win = self.win
        self._mod += 1
        self.redraw_edits()
        route = win.tool(RouteTool)
        route.fragments = Fragments()  # the parts of the edited map: found again on use
        if (restore is not None and restore[0] == route.source and route.source is not None
                and self.scenario is not None  # (a restore comes from an undo or redo: set)
                and restore[1].dist.shape[0] == self.scenario.graph.num_nodes):
            win.compute.cancel()
            self._since = []
            route.show_result(restore[1], self._label)
            self._label = "edit"
            win.status("The result of this state of the edits is back (no search)", 5000)
            return
        if route.source is None:
            self._since = []
            return
        if summary is None or self._since is None:
            self._since = None
        else:
            self._since.append(summary)
        self.update_search()

    def update_search(self) -> int:
        """Repair (or redo) the search on screen for the edited graph, on the worker."""
        win = self.win
        route = win.tool(RouteTool)
        sc = self._ensure_scenario()
        previous = route.result if self._since is not None else None
        summaries = list(self._since or [])
        source = int(route.source)  # a node of the map routes are read from: searched as the graph's
        opts = whatif.WhatIfOptions(win.session.search_vertex(source), win.algo_panel.strategy,
                                    self._backend())
        base_graph = win.graph if self._needs_base(source) else None
        graph, mod = sc.graph, self._mod
        paint = route._worker_field()

        def fn(ctx):
            out = whatif.run(graph, previous, summaries, opts, base_graph=base_graph,
                             progress=ctx.progress, cancel=ctx.cancelled, on_phase=ctx.on_phase)
            if paint is not None:  # the field drawn as far as a worker may (RouteTool's)
                out.result.extra["_field_image"] = paint(out.result.dist)
            if sc.edits:
                sc.network()  # routes are read from it: made here, not in the GUI thread
                sc.network_order()
            out.changed_arcs = sc.changed_arcs  # O(m): here too
            return out

        fn.__name__ = "whatif"
        label, self._label = self._label, "edit"
        # the chart keeps its items and axes (renamed), as a click's search does, not
        # emptied and filled again: 80 ms of axis repaints on a first closure (issue 41)
        win.chart.restart(label)
        win.status(f"Updating the search for {plural(len(sc.edits), 'edit')}…")
        return win.submit(fn, lambda out: self._update_done(out, mod, source, label),
                          tag=label, busy=True)

    def _update_done(self, out: whatif.WhatIfResult, mod: int, source: int,
                     label: str = "edit") -> None:
        if mod != self._mod:
            return
        if out.base is not None:
            self._base = (source, out.base)
        assert self.scenario is not None  # update_search made it; a new map bumps _mod
        self._changed_arcs = (self.scenario.graph.version, out.changed_arcs)
        self.redraw_edits()
        res = out.result
        route = self.win.tool(RouteTool)
        previous = route.result
        route._field_image = res.extra.pop("_field_image", None)
        route.show_result(res, label)
        why = f" ({out.reason})" if out.reason else ""
        same = (previous is not None and previous.dist.shape == res.dist.shape
                and bool(np.array_equal(previous.dist, res.dist)))
        note = ("; this edit changes no cost from A (the road is on no shortest route "
                "from A)" if same else "")
        self.win.status(f"{label.capitalize()}: {out.method}{why} in {res.elapsed_s * 1000:.1f} ms; "
                        f"{int(res.reached.sum()):,} nodes reached{note}", 8000)

    # ---- drawing ------------------------------------------------------------------------
    def redraw_edits(self) -> None:
        """Closed roads, added links, the list's text: what the edits are, on the map."""
        win, sc = self.win, self.scenario
        if sc is None or win.net is None:
            self.layers.show_closed(None, None, np.zeros(0, np.int64))
            self.layers.show_links([])
            return
        n_closed = self.layers.show_closed(win.net, win.geo, np.asarray(sc.closed_arcs(), np.int64))
        segs = []
        for e in sc.edits:
            if e.action == "add" and e.line and len(e.line) >= 2:
                x0, y0 = win.lonlat_to_xy(*e.line[0])
                x1, y1 = win.lonlat_to_xy(*e.line[-1])
                segs.append((x0, y0, x1, y1))
        self.layers.show_links(segs)
        turns = sum(e.turn is not None for e in sc.edits)  # ban_turn / lift_turn (issue 39)
        turned = f", {plural(turns, 'turn')} banned or lifted" if turns else ""
        if sc.turn_copies:  # their junctions marked with the map's restricted ones
            win.turn_layer.map_changed(win.net, set(sc.turn_copies.values()))
        self.panel.set_summary(f"{plural(len(sc.edits), 'edit')}: {plural(n_closed, 'road')} closed, "
                               f"{plural(len(segs), 'link')} added{turned}; "
                               f"{self._changed_text(sc)} arcs differ from the map", self.stack.isClean())

    def _changed_text(self, sc) -> str:
        """Arcs the edits changed: counted here on small maps (O(m)); on big ones the
        worker counts them with the repair (``?`` until it has)."""
        v, n = self._changed_arcs
        if v == sc.graph.version:
            return f"{n:,}"
        if self.map_net().num_arcs <= BIG_MAP_ARCS:
            self._changed_arcs = (sc.graph.version, int(sc.changed_arcs))
            return f"{self._changed_arcs[1]:,}"
        return "?"

    # ---- change view ---------------------------------------------------------------------
    def _needs_base(self, source) -> bool:
        return self.panel.chk_change.isChecked() and (self._base is None or self._base[0] != source)

    def set_change_view(self, on: bool) -> None:
        """Colour roads by how much travel time changed against the unedited map."""
        win = self.win
        if self.panel.chk_change.isChecked() != on:
            self.panel.chk_change.setChecked(on)  # emits changeToggled: back here
            return
        win.field_painter = self.paint_change if on else None
        if not on:
            self.change = None
            self.panel.show_lost(None, None)
        win.tool(RouteTool).redraw_field(isochrones=False)

    def paint_change(self) -> None:
        """The change view's painter (the window calls it instead of the field)."""
        win = self.win
        route = win.tool(RouteTool)
        res, b = route.result, self._base
        if res is None:
            return
        if b is None or b[0] != route.source:
            v = win.algo_panel.values()
            win.canvas.show_field(res.dist, v["colormap"], self.map_net().unit, v["isochrone_bands"])
            self._request_base(route.source)
            return
        base = b[1]
        self.change = change_of(win.net, self.scenario, base, res)
        geo = win.geo
        assert geo is not None  # drawn with the map
        win.canvas.show_arc_classes(arc_classes(self.change, geo.tails, geo.heads), palette())
        net, ch = self.map_net(), self.change
        win.canvas.field_legend.show_diverging(colormap_lut(CHANGE_COLORMAP, 256), net.unit, ch.span, nothing=ch.none)
        self.panel.show_lost(net, ch.lost_nodes)
        win.status("Change: " + change_text(ch, net.unit), 8000)

    def _request_base(self, source: int) -> None:
        """Search the unedited map from ``source`` (the change view's reference)."""
        win = self.win
        if self._base_pending == source or win.compute.busy():
            return
        from app.jobs import sssp

        self._base_pending = source
        opts = sssp.SsspJobOptions(int(source), win.algo_panel.strategy, self._backend(), cpu_fallback=True)
        graph = win.graph

        def fn(ctx):
            return sssp.run(graph, opts, cancel=ctx.cancelled)

        fn.__name__ = "sssp"

        def done(res) -> None:
            self._base_pending = None
            self._base = (source, res)
            win.tool(RouteTool).redraw_field(isochrones=False)

        win.submit(fn, done, cancelled=lambda: setattr(self, "_base_pending", None), busy=True)

    def zoom_to(self, node: int) -> None:
        net = self.map_net()
        x, y = float(net.x[node]), float(net.y[node])
        if np.isfinite(x) and np.isfinite(y):
            self.win.canvas.vb.setRange(QRectF(x - 400, y - 400, 800, 800), padding=0)
        self.win.status(f"Node {net.node_ids[node]} became unreachable", 6000)

    # ---- scenario files -----------------------------------------------------------------
    def save(self, path: str) -> None:
        """Write the applied edits as a scenario file (GeoJSON); the stack is then clean."""
        from app.jobs.edits import write_scenario

        edits = list(self.scenario.edits) if self.scenario is not None else []
        write_scenario(path, edits)
        self.path = path
        self.stack.setClean()
        self.redraw_edits()
        self.win.status(f"Saved {plural(len(edits), 'edit')} to {path}", 5000)

    def save_dialog(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(self.dialog_parent(), "Save scenario", self.path or "", SCENARIO_FILTER)
        if not path:
            return False
        try:
            self.save(path)
        except (OSError, ValueError) as exc:
            self.win.show_error("Could not save the scenario", str(exc))
            return False
        return True

    def open_dialog(self) -> None:
        if not self.can_close():
            return
        path, _ = QFileDialog.getOpenFileName(self.dialog_parent(), "Open scenario", "", SCENARIO_FILTER)
        if path:
            self.open_scenario(path)

    def open_scenario(self, path: str) -> bool:
        """Replace the edits by a scenario file's, applied in order on the unedited map;
        on an error (shown, naming the feature) the current edits stay as they are."""
        from app.jobs.edits import EditError, read_scenario

        try:
            edits = read_scenario(path)
        except (EditError, OSError, ValueError) as exc:
            self.win.show_error("Could not open the scenario", str(exc))
            return False
        return self.load_edits(edits, path)

    def load_edits(self, edits: list, path: str | None = None) -> bool:
        """Replace the edits by ``edits`` (app.jobs.edits.Edit; ``path``: the file they
        came from), applied in order on the unedited map, all or nothing: on an error
        (shown, naming the edit) the current edits stay as they are. The stack is clean
        afterwards (``signpost gui --scenario`` / ``--close`` come here too)."""
        from app.jobs.edits import EditError, Scenario

        win = self.win
        if win.net is None:
            win.status("Open a map first", 5000)
            return False
        try:
            trial = Scenario(win.net, backend=self._backend(), max_snap_m=win.snap_max_m,
                             snapper=win.snapper)
            applied = trial.apply_all(edits)
        except (EditError, ValueError) as exc:
            win.show_error("Could not apply the scenario", str(exc))
            return False
        self._quiesce()
        self.stack.clear()
        self.scenario = trial
        win.scenario = trial
        self._changed_arcs = (-1, 0)
        for e, a in zip(edits, applied, strict=True):
            self.stack.push(EditCommand(self, e, a.summary, None, silent=True))
        self.stack.setClean()
        self.path = path
        self._since = None  # the result on screen is of another graph: search again
        self.changed(None, None)
        win.status(f"Opened {os.path.basename(path or 'the edits')}: {plural(len(edits), 'edit')}", 6000)
        return True

    def export(self, what: str, path: str) -> None:
        self.save(path)

    # ---- closing ------------------------------------------------------------------------
    def can_close(self) -> bool:
        """Unsaved edits: ask Save / Discard / Cancel, as editors do."""
        if self.scenario is None or self.stack.isClean() or os.environ.get("SIGNPOST_NO_DIALOGS"):
            return True
        buttons = (QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                   | QMessageBox.StandardButton.Cancel)
        answer = QMessageBox.question(
            self.dialog_parent(), "Unsaved edits",
            f"The map has {plural(len(self.scenario.edits), 'edit')} not saved. Save them?",
            buttons, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save_dialog()
        return answer == QMessageBox.StandardButton.Discard

