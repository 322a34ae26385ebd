"""The route tool: left click sets the source (a new search, its distance field and live
phase chart), right click the destination (the route read from the search on screen:
moving the destination never searches again).

Over 600 lines: clicks, drags, searches, compare, field and isochrone drawing
share the tool's state (source, result, snap segments). The field and isochrone drawing is
the part to split off next; it is not split yet because it runs on every click, so its own
module would add a file to the click path (tests/gui/test_click_path.py, issue 38) without
taking one away."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QRectF, QTimer
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from app.jobs import sssp
from app.jobs.route import Route, read_route, route_json
from app.session import Fragments
from maps.errors import MapError, PointError, UnreachableError
from maps.model.turns import best_copy

from .. import isochrone_layer as iso  # here, not at the first click's drawing
from ..map_canvas import format_cost
from ..overlays import ensure_visible
from ..panels import RoutePanel, plain_device, snap_text, swapped_hint
from ..phase_chart import ms_text
from ..turn_layer import detour_note
from ..words import plural, route_words
from .base import Tool
from .route_layers import route_layers, route_stage

# While the source is dragged the phase chart is redrawn at most this often (its redraw
# is GUI-thread work that would otherwise come with every field; the drop redraws it).
CHART_DRAG_S = 0.5
# At most this many fields a second while dragging: on small maps the search takes well
# under a millisecond and back-to-back fields would keep the GUI thread drawing.
DRAG_MAX_FPS = 12


PARTS_LATER_NODES = 100_000  # from this size the map's parts are not found on the GUI thread


class RouteTool(Tool):
    name = "route"
    dock_name = "side"  # the layout saved before tools had their own files
    title = "Route"  # short: four tabs share a narrow dock at 1024×700
    clicks = ("source", "destination")
    exports = {
        "route": ("Route (GeoJSON / GPX)…", "GeoJSON (*.geojson);;GPX (*.gpx)"),
        "field": ("Distance field (CSV / GeoJSON)…", "CSV (*.csv);;GeoJSON (*.geojson)"),
        "phases": ("Phase telemetry (CSV)…", "CSV (*.csv)"),
        "isochrones": ("Isochrone polygons (GeoJSON / GeoPackage)…",
                       "GeoJSON (*.geojson);;GeoPackage (*.gpkg)"),
    }

    # The route's ends and the search on screen live in the window's app.session.Session
    # (node indices of the search map; result: the gpu_core SSSPResult shown).
    source = property(lambda self: self.win.session.source,
                      lambda self, v: setattr(self.win.session, "source", v))
    target = property(lambda self: self.win.session.target,
                      lambda self, v: setattr(self.win.session, "target", v))
    result = property(lambda self: self.win.session.result,
                      lambda self, v: setattr(self.win.session, "result", v))
    # the search map's parts (app.session.Fragments): which part each point is on
    fragments = property(lambda self: self.win.session.parts,
                         lambda self, v: setattr(self.win.session, "parts", v))

    @property
    def _net(self):
        """The open map, read from the session (the search paths run while one is open;
        ``Tool.map_net`` asks the window, which asks the session)."""
        return self.win.session.net

    def __init__(self, window):
        super().__init__(window)
        self.src_point = None  # maps.points.resolve.ResolvedPoint (for the route JSON)
        self.dst_point = None
        self.route: Route | None = None
        self._snap_segs: dict[str, tuple] = {}
        self._search_t0 = 0.0
        self._chart_t = 0.0  # when the chart last showed a search (drags throttle it)
        self._field_image = None  # the worker's colouring of the result being drawn
        self._in_drag = False
        self._drag_held = False  # a dragged position waits for DRAG_MAX_FPS
        self._drag_t = 0.0  # when the last drag search started
        self.isochrones = None  # (IsochroneResult, labels) on screen
        self.iso_opts = None  # their IsochroneOptions (an export of a big map traces again)
        self._iso_layer = None  # IsochroneLayer, made on first use
        self.parts_pending = False  # the warm-up is finding the map's parts (show_parts)
        self.panel = RoutePanel()
        self.panel.swapRequested.connect(self.swap)
        self.panel.clearRequested.connect(self.clear_route)
        self.panel.pointsEdited.connect(self.route_between)
        canvas = window.canvas
        self._drag_next = None  # the latest dragged source waiting for the search in flight
        self._drag_job = -1  # the search of a dragged source (in flight while the window
        # holds its handlers: until drawn, failed, cancelled or superseded)
        canvas.destinationDragged.connect(self._dest_dragged)
        canvas.sourceDragged.connect(self._src_dragged)
        canvas.destinationDropped.connect(lambda x, y: window.on_map_click(x, y, "destination"))
        canvas.sourceDropped.connect(lambda x, y: window.on_map_click(x, y, "source"))
        window.algo_panel.displayChanged.connect(self.redraw_field)
        window.chart.compareRequested.connect(self.compare_strategies)

    def widget(self) -> QWidget:
        side = QWidget()
        lay = QVBoxLayout(side)
        lay.addWidget(self.panel)
        lay.addWidget(self.win.algo_panel)
        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        return scroll

    def result_layers(self) -> list:
        return route_layers(self)

    def stage(self, wait) -> None:
        route_stage(self, wait)

    def map_changed(self, net) -> None:
        self._drag_next, self._drag_held = None, False
        self.source = self.target = None
        self.src_point = self.dst_point = None
        self._snap_segs = {}
        self.result = None
        self.route = None
        self.fragments = Fragments()  # (the session's: found anew for a new map, or after Clear)
        # big maps: the loader's warm-up finds the new map's parts (small: found at once)
        self.parts_pending = net is not None and net.num_nodes >= PARTS_LATER_NODES
        self.panel.clear()
        self._show_isochrones(None)

    def show_parts(self) -> None:
        """The snapping line and the network part of each point. The unedited map's parts
        come from the loader's warm-up: until then they are not found here (0.1-0.5 s on
        the GUI thread on the 1.43M map, at a first click right after opening)."""
        win = self.win
        net = win.search_net()
        waiting = self.parts_pending and net is win.net and self.fragments.labels is None
        self.panel.show_snapping(snap_text(self.src_point, self.dst_point),
                                 "finding…" if waiting else
                                 self.fragments.describe(net, self.source, self.target))

    def parts_found(self, fragments) -> None:
        """The warm-up's parts of the unedited map (None: it found none): shown now."""
        self.parts_pending = False
        if fragments is not None:
            self.fragments = fragments
        if self.src_point is not None or self.dst_point is not None:
            self.show_parts()

    # ---- points -------------------------------------------------------------------------
    def clicked(self, which: str, point, seg: tuple) -> None:
        self.set_point(which, point, seg)
        self.warn_far(which, point)

    def warn_far(self, which: str, point) -> None:
        """A click far from any road (> FAR_SNAP_M) is said over the map, not only in the
        panel: the point was moved to the nearest road (issue 42)."""
        from app.jobs.route import FAR_SNAP_M

        canvas = self.win.canvas
        d = float(point.snap.distance_m) if point.snap is not None else 0.0
        if d <= FAR_SNAP_M:
            if canvas.notice.text().startswith("The "):
                canvas.notice.hide()
            return
        name = "source (A)" if which == "source" else "destination (B)"
        text = (f"The {name} was set {d:,.0f} m from where you clicked: no road is nearer. "
                "Click closer to a road to move it.")
        canvas.notice.show(text)
        self.win.status(text, 10000)
        def fade() -> None:
            try:
                if canvas.notice.text() == text:
                    canvas.notice.hide()
            except RuntimeError:  # the window closed meanwhile
                pass

        QTimer.singleShot(6000, canvas, fade)  # dropped with the canvas

    def set_point(self, which: str, point, snap_seg: tuple | None = None) -> None:
        """Make ``point`` (a ResolvedPoint) the source (new search) or destination (route)."""
        node, canvas = int(point.node), self.win.canvas
        if point.snap is not None:
            sx, sy = float(point.snap.x), float(point.snap.y)
            if snap_seg is None:
                snap_seg = (sx, sy, sx, sy)
        else:
            net = self.search_map()
            sx, sy = float(net.x[node]), float(net.y[node])
        canvas.set_marker(which, sx, sy)
        self.win.layers.shown("Route and its points")
        if which == "source":  # a click or drop: no dragged position waits any more
            self._drag_next, self._drag_job, self._drag_held = None, -1, False
        if snap_seg:
            self._snap_segs[which] = snap_seg
        else:
            self._snap_segs.pop(which, None)
        canvas.show_snap(list(self._snap_segs.values()))
        if which == "source":
            self.source, self.src_point = node, point
            self.panel.set_points(point.text, None)
        else:
            self.target, self.dst_point = node, point
            self.panel.set_points(None, point.text)
        self.show_parts()
        if which == "source":
            self.run_search()
        else:
            self.update_route()

    def _dest_dragged(self, x: float, y: float) -> None:
        """Live route while the destination marker is dragged: no search, only pred."""
        if self.result is None:
            return
        try:
            point = self.win.session.snap(x, y)
        except PointError:  # NoSnapping too: no index yet, nothing to drag to
            return
        if int(point.node) != self.target:
            self.target, self.dst_point = int(point.node), point
            self.update_route()

    def _src_dragged(self, x: float, y: float) -> None:
        """The field follows the dragged source: one search at a time in the worker; while
        one runs only the latest position waits (older ones are dropped), and it starts
        when that search is drawn. The marker stays under the pointer (not moved to the
        snapped point until the drop, which sets the source as a click does)."""
        win = self.win
        try:
            point = win.session.snap(x, y)
        except PointError:  # NoSnapping too: no map or no index yet
            return
        if self._drag_job in win._handlers or self._drag_held:
            self._drag_next = point
        elif int(point.node) != self.source:
            self._drag_next = point
            self._drag_after_gap()

    def _drag_after_gap(self) -> None:
        """Search ``_drag_next`` now, or once 1 / DRAG_MAX_FPS s passed since the last
        drag search started (the GUI thread gets a breath between fields)."""
        wait = self._drag_t + 1.0 / DRAG_MAX_FPS - time.perf_counter()
        if wait > 0:
            self._drag_held = True
            QTimer.singleShot(int(wait * 1000) + 1, self._drag_release)
        else:
            self._drag_release()

    def _drag_search(self, point) -> None:
        self._drag_next = None
        self._drag_t = time.perf_counter()
        self.source, self.src_point = int(point.node), point
        self._in_drag = True  # run_search's default: a dragged source
        try:
            self._drag_job = self.run_search()
        finally:
            self._in_drag = False

    def route_between(self, from_text: str, to_text: str) -> bool:
        """Route between typed points (LON,LAT or node:ID), as clicks would; False (and
        routeFailed) when a point cannot be resolved."""
        win = self.win
        if win.net is None:
            win.status("Open a map first")
            return False
        try:
            src = win.resolve(from_text)
            dst = win.resolve(to_text) if to_text.strip() else None
        except MapError as exc:
            text = str(exc) + swapped_hint(win, from_text, to_text)
            win.status(text)
            self.panel.lbl["snap"].setText(text)
            win.routeFailed.emit(text)
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
        self.win.compute.cancel()
        self.map_changed(None)
        canvas = self.win.canvas
        canvas.show_snap([])
        canvas.set_marker("source", None)
        canvas.set_marker("destination", None)
        canvas.show_route(None)
        canvas.show_field(None)

    def clear_field(self) -> None:
        """Layers → Clear → Distance field: the field goes, the route and its points stay
        (a new search, or ticking the field again, draws it anew)."""
        self.win.canvas.show_field(None)

    # ---- searching ----------------------------------------------------------------------
    def routes_result(self) -> Any:
        """The search on screen in the numbering of :meth:`search_map` (routes, costs by
        node, exports; the field and the change view keep the searched graph's)."""
        return self.win.session.route_result(self.result)

    def _options(self, strategy: str) -> sssp.SsspJobOptions:
        ap = self.win.algo_panel
        # the session's policy: "off" while the window gets the map's route index ready
        # (its own worker: app/gui/route_index.py), else "auto"; the source is a node of
        # the map routes are read from, searched as the graph's
        return sssp.SsspJobOptions(self.win.session.search_vertex(int(self.source)), strategy,
                                   ap.backend, ap.options(), cpu_fallback=True,
                                   index=self.win.session.index_policy)

    def run_search(self, drag: bool | None = None) -> int:
        """Start the search from ``self.source`` (superseding any running one). ``drag``
        (default: whether the source is being dragged): no live phase rows, the chart
        redrawn only now and then."""
        win = self.win
        drag = self._in_drag if drag is None else drag
        opts = self._options(win.algo_panel.strategy)
        self.result = None
        self.route = None
        win.canvas.show_route(None)
        live = not drag or self._chart_due()
        if live:
            win.chart.restart(opts.strategy)
        self._search_t0 = time.perf_counter()
        sess = win.session
        graph, sc = sess.search_graph(), sess.scenario
        edited = graph is not sess.graph and sc is not None
        paint = self._worker_field()

        def run(ctx):
            # the plan made once per map and options: the click goes straight to the search
            plan = sess.sssp_plan(graph, opts, progress=ctx.progress, cancel=ctx.cancelled)
            res = plan.run(opts.source, progress=ctx.progress, cancel=ctx.cancelled,
                           on_phase=None if drag else ctx.on_phase)
            if edited:  # the edited map: its network (for routes) made here too
                sc.network()
                sc.network_order()
            if paint is not None:  # the field's pixels or paths made here, not in the GUI thread
                res.extra["_field_image"] = paint(res.dist)
            return res

        run.__name__ = "sssp"
        jid = win.submit(run, self._search_done, tag=opts.strategy, busy=True)
        # (the source's id on the map points come from: a new node's too; a map is open
        # while a click searches)
        net = sess.search_net()
        assert net is not None
        win.status(f"Searching from node {int(net.node_ids[int(self.source)])} "
                   f"({opts.strategy}, {opts.backend})…")
        return jid

    def _worker_field(self):
        """A function drawing the field of a distance array as far as a worker may (run in
        the worker): on raster maps the pixels of the view now on screen coloured, on
        vector maps the paths of its colour bands (``map_canvas.field_paths``); None
        in the change view or without a field."""
        from .. import raster
        from ..geometry import field_lut
        from ..map_canvas import field_paths

        win, canvas = self.win, self.win.canvas
        v = win.algo_panel.values()
        ids, ids_rect, geo, seg = canvas._ids, canvas._ids_rect, canvas.geo, canvas.seg
        if win.field_painter is not None or not v["show_field"] or geo is None:
            return None
        if not canvas.raster_mode:
            colormap, bands = v["colormap"], v["isochrone_bands"]
            return lambda dist: field_paths(geo, dist, colormap, bands)
        if ids is None or ids_rect is None or seg is None:
            return None  # (the ids on screen come with their rectangle, map and segments)
        rect = QRectF(ids_rect)
        lut, bands = raster.lut_argb(field_lut(v["colormap"], 256)), v["isochrone_bands"]

        def paint(dist):
            return (ids, rect, *raster.field_image(ids, geo, seg, dist, lut, bands))

        return paint

    def _chart_due(self) -> bool:
        return time.perf_counter() - self._chart_t >= CHART_DRAG_S

    def _search_done(self, res) -> None:
        wall = time.perf_counter() - self._search_t0
        drag = self._drag_job != -1
        self._field_image = res.extra.pop("_field_image", None)
        self._drag_job = -1
        if drag and self._drag_next is not None:
            # the latest dragged position searches (in the worker) while this field is
            # drawn here: drags on a big map drew a field per search + drawing, not per search
            self._drag_after_gap()
        reached = self.show_result(res, res.strategy, chart=not drag or self._chart_due())
        # One definition (docs/architecture.md): search time = the search call's wall
        # time (as `signpost route`'s search_ms); the rest until now is the app's drawing.
        draw_ms = max(wall - res.elapsed_s, 0.0) * 1000
        # the times first: at 1024 px the status bar elides the end of the message
        self.win.status(f"Field: search {ms_text(res.elapsed_s * 1000)}, drawn in {draw_ms:.0f} ms; "
                        f"{len(res.phases):,} phases; reached {reached:,} of "
                        f"{self._net.num_nodes:,} nodes", 8000)
        if self._drag_next is not None and self._drag_job == -1 and not self._drag_held:
            self._drag_after_gap()

    def _drag_release(self) -> None:
        """Search the latest dragged position (the ones before it were dropped)."""
        self._drag_held = False
        nxt = self._drag_next
        if nxt is not None and int(nxt.node) != self.source:
            self._drag_search(nxt)
        else:
            self._drag_next = None

    def show_result(self, res, run: str, isochrones: bool = True, chart: bool = True) -> int:
        """Make ``res`` the search on screen (chart run ``run`` unless not ``chart``,
        field, route); returns the nodes reached. A what-if edit's repaired result comes
        here too."""
        win = self.win
        self.result = res
        strategy = getattr(res, "strategy", run)
        if chart:
            win.chart.set_run(run, res.phases, res.backend, search_s=res.elapsed_s)
            self._chart_t = time.perf_counter()
        reached = int(res.reached.sum())
        how = res.extra.get("whatif", "") if isinstance(getattr(res, "extra", None), dict) else ""
        self.panel.show_search(
            reached, self._net.num_nodes,
            f"{how + ' ' if how else ''}{strategy} on {plain_device(res.device)}: "
            f"{ms_text(res.elapsed_s * 1000)} search ({ms_text(res.phases.total_time_us / 1000)} "
            f"in {len(res.phases):,} phases), whole map",
        )
        self.panel.lbl["search"].setToolTip(
            f"Device: {res.device}. The app searches the whole map (the distance field); "
            "`signpost route` stops once the destination is settled, so it runs fewer phases. "
            "Search time is the search call's wall time; the phases' own time is part of it.")
        if isinstance(getattr(res, "extra", None), dict) and res.extra.get("fallback"):
            win.fallback_notice(res.extra["fallback"])
        self.redraw_field(isochrones=isochrones)
        if self.target is not None:
            self.update_route()
        win.session.shown(res)  # the Edit tool reads its edit state there
        win.fieldChanged.emit()
        return reached

    def compare_strategies(self) -> int:
        """Run conventional / selection / adaptive / auto from the current source, overlaid."""
        win = self.win
        if win.graph is None or self.source is None:
            win.status("Set a source first (left click on the map)", 5000)
            return 0
        graph, opts = win.search_graph(), self._options("auto")

        def fn(ctx):
            def start(s: str) -> None:
                ctx.flush_phases()
                ctx.tag = s

            return sssp.compare(graph, opts, cancel=ctx.cancelled, on_phase=ctx.on_phase,
                                on_start=start)

        win.chart.clear()
        for s in sssp.COMPARE_STRATEGIES:
            win.chart.begin_run(s)
        jid = win.submit(fn, self._compare_done, tag=sssp.COMPARE_STRATEGIES[0], busy=True)
        win.status("Comparing " + ", ".join(sssp.COMPARE_STRATEGIES) + "…")
        return jid

    def _compare_done(self, result: dict) -> None:
        for s, res in result.items():
            self.win.chart.set_run(s, res.phases, f"{res.backend}", search_s=res.elapsed_s)
        self.win.status("Compared (time in the phases; the chart's bars add the search's "
                        "own time): " + ", ".join(
            f"{s}: {res.phases.total_time_us / 1000:.2f} ms" for s, res in result.items()), 10000)
        res = result.get("auto") or next(iter(result.values()))
        if res.extra.get("fallback"):
            self.win.fallback_notice(res.extra["fallback"])

    # ---- drawing ------------------------------------------------------------------------
    def redraw_field(self, isochrones: bool = True) -> None:
        """Colour the network by the distances of the search on screen (or remove it);
        the change view of what-if editing paints instead when it is on."""
        win = self.win
        v = win.algo_panel.values()
        if self.result is None or win.geo is None or not v["show_field"]:
            win.canvas.show_field(None)
        elif win.field_painter is not None:
            win.field_painter()
        else:
            win.canvas.show_field(self.result.dist, v["colormap"], self._net.unit,
                                  v["isochrone_bands"], image=self._field_image)
        self._field_image = None  # made for this result's first drawing only
        if isochrones:
            self.redraw_isochrones(v)

    # ---- isochrone polygons -------------------------------------------------------------
    def redraw_isochrones(self, v: dict) -> int | None:
        """Polygons at the band edges of the field on screen (app.jobs.isochrones, in the
        worker; the search's costs are reused), or none when bands or polygons are off.
        Returns the job id when one was submitted."""
        from app.jobs import isochrones

        from ..geometry import field_scale

        win = self.win
        res, net = self.result, win.search_net()
        if (res is None or win.geo is None or net is None or not v.get("isochrone_polygons")
                or v["isochrone_bands"] <= 0 or not net.has_coordinates):
            self._show_isochrones(None)
            return None
        if win.compute.busy():  # a search is running: its end redraws
            return None
        if net.num_arcs > isochrones.POLYGON_MAX_ARCS:
            self._show_isochrones(None)
            win.status(isochrones.polygon_refusal(net.num_arcs), 15000)
            return None
        edges, colours_, _ = field_scale(res.dist[: self._net.num_nodes],
                                         colormap=v["colormap"], bands=v["isochrone_bands"])
        cuts = tuple(int(c) for c in edges[1:])
        colours = [tuple(int(x) for x in c) for c in colours_]
        # the field legend's words for the same bands ("0 m – 500 m", issue 42)
        starts = (0, *cuts[:-1])
        labels = [f"{format_cost(a, net.unit)} – {format_cost(b, net.unit)}"
                  for a, b in zip(starts, cuts, strict=True)]
        big = net.num_arcs >= iso.IMAGE_MIN_ARCS  # bands drawn from the grid, traced on export
        opts = isochrones.IsochroneOptions(int(self.source), cuts, lonlat=False, trace=not big,
                                           buffer_m=iso.display_buffer(net, isochrones.DEFAULT_BUFFER_M))
        dist = self.routes_result().dist  # by the nodes of ``net``

        def fn(ctx):
            r = isochrones.run(net, opts, progress=ctx.progress, cancel=ctx.cancelled, dist=dist)
            # drawn here, not on the GUI thread: a big map's bands as one image of the grid
            image = iso.grid_image(r.band_grid, colours) if big and r.band_grid is not None else None
            paths = [] if big else iso.band_paths(r.polygons_xy, 2 * r.timings.get("cell_m", 0.0))
            return r, paths, image

        fn.__name__ = "isochrones"
        return win.submit(fn, lambda out: self._show_isochrones((out[0], labels), colours,
                                                                 out[1], out[2], opts))

    def _show_isochrones(self, shown, colours=(), paths: list | None = None, image=None,
                         opts=None) -> None:
        self.isochrones = shown
        self.iso_opts = opts if shown is not None else None  # what an export traces again
        if self._iso_layer is None:
            if shown is None:
                return  # (a new map: the layer's module is not imported on the GUI thread)
            from ..isochrone_layer import IsochroneLayer

            self._iso_layer = IsochroneLayer(self.win.canvas)
        if shown is None:
            self._iso_layer.show([], [], [])
        else:
            self._iso_layer.show(paths or [], list(colours), shown[1], image)

    def update_route(self) -> None:
        """Read source→target from the predecessor array and draw it (no new search)."""
        win = self.win
        if self.result is None or self.target is None or win.net is None:
            return
        try:
            # in the numbering of the map routes are read from; a turn copy may reach the
            # target first
            net, res = self.search_map(), self.routes_result()
            end = best_copy(net, res.dist, int(self.target), res.unreachable)
            self.route = read_route(net, res, int(self.source), end)
        except UnreachableError as exc:
            self.route = None
            win.canvas.show_route(None)
            why = self.fragments.unreachable_reason(self.search_map(), self.source, self.target)
            self.panel.show_route(None, message="unreachable" + (f": {why}" if why else ""))
            win.status(f"Unreachable: {exc}" + (f" ({why})" if why else ""), 8000)
            win.routeFailed.emit(str(exc))
            return
        r = self.route
        win.canvas.show_route(r.xs, r.ys)
        if win.net.has_coordinates:
            ensure_visible(win.canvas.vb, r.xs, r.ys)  # a route computed off screen is shown
        self.panel.show_route(r.cost, r.unit, r.length_m if win.net.has_coordinates else None,
                              r.num_nodes)
        if not self._in_drag and (note := detour_note(win.search_net(), self.source, self.target, r)):
            self.panel.lbl["nodes"].setText(f"{r.num_nodes:,} · {note}")  # (issue 39)
        if "weight_seed" in win.net.meta:  # PACE files have no weights: Signpost made them
            self.panel.lbl["time"].setText(
                f"— (no weights in the file: generated 1..1000, seed {win.net.meta['weight_seed']})")
        length = r.length_m if win.net.has_coordinates else None
        win.status(f"Route: {route_words(format_cost(r.cost, r.unit), r.unit, length)}, "
                   f"{plural(r.num_nodes, 'node')}", 8000)
        win.routeShown.emit(r)

    def route_json(self) -> dict:
        """The route on screen as ``signpost route --json`` prints it."""
        if self.route is None or self.win.net is None:
            raise UnreachableError("no route is shown")
        return route_json(self.search_map(), self.route, self.src_point, self.dst_point,
                          map_path=self.win.map_path)

    def export(self, what: str, path: str) -> None:
        from .route_exports import export_route_tool

        export_route_tool(self, what, path)
