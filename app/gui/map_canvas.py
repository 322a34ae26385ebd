"""The map view: roads by class, distance field, route, markers, scale bar and legends.
(Over 600 lines: the one view every tool draws on; its items share the view box and pens,
and its paths are made here too: every drawn field makes one per colour band, issue 38,
laid out in the worker since stop 53, ``field_paths``; a module of their own would add a
file to the click path, tests/gui/test_click_path.py.)

Every road class is ONE path item (``arrayToQPath`` with a per-point connect array), drawn
with a cosmetic pen (width in pixels), so a 1.4M-node map is a dozen items, not millions.
The distance field is drawn the same way, one item per colour band. Path items answer hit
tests with their bounding box: asking Qt for the exact shape of a million-segment path on
every click would take seconds.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from maps.model.network import RoadNetwork

from . import raster
from .geometry import (
    FieldBins,
    LayerStyle,
    MapGeometry,
    build_geometry,
    class_groups,
    field_bins,
    field_lut,
)
from .overlays import OVERLAY_Z, CanvasNotice, FieldLegend, OverlayStack, class_legend_entries
from .raster_view import RasterView

NO_COORDINATES = (
    "This map has no coordinates (a DIMACS .gr without its .co file, or a PACE graph),\n"
    "so there is nothing to draw. Everything else works: type points as node:ID in the\n"
    "route panel; billboards, the origin–destination matrix and network analysis run too."
)

# Thin lines (roads, the distance field's bands) get square caps and bevel joins: the map
# is drawn without antialiasing, where round ones differ in ~0.1 % of the pixels at 1.6 px
# but took Qt's slow stroker: the sample map's field painted in 11-15 ms with round ends,
# 2.2 ms without (issue 27: the longest stall per click and while dragging).
ROUND_MIN_PX = 3.0

_DASH = {"solid": Qt.PenStyle.SolidLine, "dash": Qt.PenStyle.DashLine, "dot": Qt.PenStyle.DotLine}

OD_RING = "#d81b9a"  # magenta: the OD points' ring and label background
OD_PREFIX = "P"  # OD points are P1, P2, ... on the map and in the table (billboards: 1, 2, ...)


# ---- road paths ---------------------------------------------------------------------------
# One QPainterPath per class or colour band (:func:`make_path`), and what the canvas draws
# for a new map (:func:`prepare_drawing`, made on the loader thread so that opening a map
# does not freeze the window; QPainterPath is reentrant, so any thread may build one).


def make_path(x: np.ndarray, y: np.ndarray, connect: np.ndarray) -> QPainterPath:
    """Polylines laid out flat (``connect`` 0 ends one) as one path."""
    if x.size == 0:
        return QPainterPath()
    return pg.arrayToQPath(x, y, connect=connect, finiteCheck=False)


def prepare_drawing(net: RoadNetwork, geo: MapGeometry) -> dict:
    """What ``MapCanvas.set_network`` draws: big maps, the raster's segments
    (``{"seg": SegmentSet, "paths": [(LayerStyle, None)]}``: the styles feed the legend);
    others, one path per road class (``{"paths": [(LayerStyle, QPainterPath)]}``)."""
    n_seg = int((geo.pt_count - 1).sum())
    if n_seg >= raster.RASTER_MIN_SEGMENTS:
        styles = [(style, None) for style, _ in class_groups(net, geo)]
        return {"seg": raster.build_segments(net, geo), "paths": styles}
    return {"paths": [(style, make_path(*geo.gather(sel))) for style, sel in class_groups(net, geo)]}


class FieldPaths:
    """A vector map's distance field ready to draw: its colour bands and one path per band
    (:func:`field_paths`; made in the worker with the search, as binning and laying out a
    60K-node map's arcs held the window's thread 20-30 ms at every click and edit)."""

    def __init__(self, geo: MapGeometry, dist: np.ndarray, colormap: str, bands: int,
                 bins: FieldBins, layers: list[tuple[QPainterPath, QColor, float]]):
        self.geo, self.dist, self.colormap, self.bands = geo, dist, colormap, bands
        self.bins, self.layers = bins, layers

    def fits(self, geo: MapGeometry | None, dist: np.ndarray, colormap: str, bands: int) -> bool:
        """Made for this drawing (the same map, distances and colours)?"""
        return (self.geo is geo and self.dist is dist and self.colormap == colormap
                and self.bands == bands)


def field_paths(geo: MapGeometry, dist: np.ndarray, colormap: str = "turbo",
                bands: int = 0) -> FieldPaths:
    """The unreached arcs and each colour band of the field ``dist`` as one path each (any
    thread: numpy and QPainterPath, which is reentrant)."""
    bins = field_bins(geo, dist, colormap=colormap, bands=bands)
    # Lines wider than one pixel take Qt's slow stroking path: only on small maps.
    width = 1.6 if geo.num_drawn < 50_000 else 1.0
    layers = [(bins.unreached, QColor(90, 96, 106), 1.0)]
    layers += [(sel, QColor(*[int(v) for v in rgb]), width)
               for sel, rgb in zip(bins.bins, bins.colours, strict=True)]
    paths = [(make_path(*geo.gather(sel)), colour, w) for sel, colour, w in layers if sel.size]
    return FieldPaths(geo, dist, colormap, bands, bins, paths)


class LegendLine:
    """What the legend draws for a road class: a line in its pen. pyqtgraph's ItemSample
    reads only ``opts`` and ``isVisible`` of the item it shows; a PlotDataItem per class
    (a curve and a scatter item each) was a third of opening a map on the GUI thread."""

    def __init__(self, pen: QPen):
        self.opts = {"pen": pen}

    def isVisible(self) -> bool:  # noqa: N802 - pyqtgraph's name
        return True


class PathItem(QGraphicsPathItem):
    """A path with a cosmetic pen and a cheap hit-test shape (its bounding box)."""

    def __init__(self, path: QPainterPath, colour, width: float, style: str = "solid", z: float = 0):
        super().__init__(path)
        pen = QPen(QColor(colour))
        pen.setCosmetic(True)
        pen.setWidthF(width)
        pen.setStyle(_DASH.get(style, Qt.PenStyle.SolidLine))
        if width > ROUND_MIN_PX:  # the route, closed roads: thick enough to show the ends
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        else:  # Qt strokes round ends of every segment slowly (issue 27, see ROUND_MIN_PX)
            pen.setCapStyle(Qt.PenCapStyle.SquareCap)
            pen.setJoinStyle(Qt.PenJoinStyle.BevelJoin)
        self.setPen(pen)
        self.setZValue(z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self._rect = path.controlPointRect()
        self.lod_hidden = False  # left out at this scale: not painted, still in the bounds

    def paint(self, p, *args) -> None:
        if not self.lod_hidden:  # (hiding the item would move the view's auto-range)
            super().paint(p, *args)

    def boundingRect(self) -> QRectF:  # the pen is cosmetic: no margin in data units
        return self._rect

    def shape(self) -> QPainterPath:
        p = QPainterPath()
        p.addRect(self._rect)
        return p

    def dataBounds(self, ax, frac=1.0, orthoRange=None):  # pyqtgraph auto-range protocol
        r = self._rect
        return (r.left(), r.right()) if ax == 0 else (r.top(), r.bottom())


class MapCanvas(pg.GraphicsLayoutWidget):
    """Pan/zoom map (aspect locked). Emits clicks in map metres; draws layers on request."""

    mapClicked = Signal(float, float, str)  # x, y metres, "source" | "destination" | "od"
    destinationDragged = Signal(float, float)  # live while the destination marker moves
    destinationDropped = Signal(float, float)
    sourceDropped = Signal(float, float)
    sourceDragged = Signal(float, float)  # live while the source marker moves
    cursorMoved = Signal(float, float)  # x, y metres
    linkDragStarted = Signal(float, float)  # click mode "link": a left drag began here
    linkDragged = Signal(float, float, float, float)  # ... and ended: x0, y0, x1, y1 metres

    def __init__(self, parent=None, background: str = "#1e2127"):
        super().__init__(parent)
        self.setBackground(background)
        self.setAcceptDrops(False)  # the main window takes dropped files
        self.vb: pg.ViewBox = self.addViewBox(lockAspect=True, enableMenu=False)
        self.vb.setDefaultPadding(0.02)
        self._vb_drag = self.vb.mouseDragEvent
        self.vb.mouseDragEvent = self._drag  # a left drag draws a link in "link" mode
        self.click_mode = "source"  # what a left click sets; right click always the destination
        self.net: RoadNetwork | None = None
        self.geo: MapGeometry | None = None
        self.road_items: dict[str, PathItem] = {}
        self.road_styles: dict[str, LayerStyle] = {}
        self.field_items: list[PathItem] = []
        # Raster level of detail (big maps): rendered on a worker (raster_view.py).
        self.raster_mode = False
        self.raster = RasterView(self, self.vb)
        self.route_items: list[PathItem] = []
        self.snap_item: PathItem | None = None
        self.station_item = pg.ScatterPlotItem(
            size=7, symbol="s", pen=pg.mkPen("#ffffff", width=1), brush=pg.mkBrush("#5f6ad6")
        )
        self.station_item.setZValue(30)
        self.vb.addItem(self.station_item)
        self.site_item = pg.ScatterPlotItem(size=16, symbol="star", pen=pg.mkPen("#111111", width=1),
                                            brush=pg.mkBrush("#ffd166"))
        self.site_item.setZValue(48)
        self.vb.addItem(self.site_item)
        self.site_labels: list[pg.TextItem] = []
        # OD points: white squares ringed in magenta, lettered P1, P2, ... (issue 42: light-blue
        # diamonds were lost on a blue field and their 1-4 mixed with the billboards' 1-5);
        # neither white nor magenta is in a field's colour map
        self.od_item = pg.ScatterPlotItem(size=12, symbol="s", pen=pg.mkPen(OD_RING, width=2.5),
                                          brush=pg.mkBrush("#ffffff"))
        self.od_item.setZValue(47)
        self.vb.addItem(self.od_item)
        self.od_labels: list[pg.TextItem] = []
        self.source_marker = self._marker("#2ecc71", "A")
        self.dest_marker = self._marker("#e74c3c", "B")
        self.dest_marker.sigPositionChanged.connect(self._dest_moving)
        self.dest_marker.sigPositionChangeFinished.connect(
            lambda m: self.destinationDropped.emit(m.pos().x(), m.pos().y())
        )
        self.source_marker.sigPositionChanged.connect(self._source_moving)
        self.source_marker.sigPositionChangeFinished.connect(
            lambda m: self.sourceDropped.emit(m.pos().x(), m.pos().y())
        )
        self._moving_programmatically = False

        self.scale_bar = pg.ScaleBar(size=1000, suffix="m", brush=pg.mkBrush("#e0e0e0"))
        self.scale_bar.setParentItem(self.vb)
        self.scale_bar.anchor((1, 1), (1, 1), offset=(-20, -20))
        self.scale_bar.setZValue(OVERLAY_Z)
        # Legends, colour bars and the attribution: over every layer, stacked in corners.
        self.overlays = OverlayStack(self.vb)
        self.legend = pg.LegendItem(offset=None, labelTextColor="#e0e0e0",
                                    brush=pg.mkBrush(30, 33, 39, 200), labelTextSize="8pt")
        self.overlays.add("road classes", self.legend, "top-left")
        self.field_legend = FieldLegend(self.vb, format_cost, self.overlays)
        self.notice = CanvasNotice(self.vb)
        self.attribution = pg.TextItem("", color="#9aa0a6", anchor=(0, 0),
                                       fill=pg.mkBrush(30, 33, 39, 120))
        self.overlays.add("attribution", self.attribution, "bottom-left")
        self.vb.sigRangeChanged.connect(self._update_scale_bar)
        self.vb.sigRangeChanged.connect(self._schedule_raster)
        self.vb.sigRangeChanged.connect(self._apply_lod)
        self.vb.sigResized.connect(self._schedule_raster)
        self.scene().sigMouseClicked.connect(self._clicked)
        self.scene().sigMouseMoved.connect(self._moved)

    # ---- markers --------------------------------------------------------------------
    def _marker(self, colour: str, label: str) -> pg.TargetItem:
        m = pg.TargetItem(
            pos=(0, 0), size=16, symbol="o", pen=pg.mkPen("#ffffff", width=2),
            brush=pg.mkBrush(colour), hoverBrush=pg.mkBrush(colour), movable=True,
            label=label, labelOpts={"color": "#ffffff", "offset": (10, -10)},
        )
        m.setZValue(50)
        m.setVisible(False)
        self.vb.addItem(m)
        return m

    def _dest_moving(self, m) -> None:
        if not self._moving_programmatically:
            self.destinationDragged.emit(m.pos().x(), m.pos().y())

    def _source_moving(self, m) -> None:
        if not self._moving_programmatically:
            self.sourceDragged.emit(m.pos().x(), m.pos().y())

    def set_marker(self, which: str, x: float | None, y: float | None = None) -> None:
        """Place (or hide, with x None) the "source" or "destination" marker."""
        m = self.source_marker if which == "source" else self.dest_marker
        drawable = self.net is None or self.net.has_coordinates  # else x, y are placeholders
        if x is None or y is None or not drawable or not (np.isfinite(x) and np.isfinite(y)):
            m.setVisible(False)
            return
        self._moving_programmatically = True
        try:
            m.setPos(QPointF(x, y))
        finally:
            self._moving_programmatically = False
        m.setVisible(True)

    def show_snap(self, segments: list[tuple[float, float, float, float]]) -> None:
        """Dashed lines from clicked points to where they snapped."""
        if self.snap_item is not None:
            self.vb.removeItem(self.snap_item)
            self.snap_item = None
        if not segments:
            return
        arr = np.array(segments, dtype=np.float64)
        x = arr[:, [0, 2]].ravel()
        y = arr[:, [1, 3]].ravel()
        path = pg.arrayToQPath(x, y, connect="pairs")
        self.snap_item = PathItem(path, "#ffffff", 1.2, "dot", z=45)
        self.vb.addItem(self.snap_item)

    def show_sites(self, xs, ys) -> None:
        """Numbered billboard markers (1 = first chosen); empty lists remove them."""
        self._numbered(self.site_item, self.site_labels, xs, ys, "#ffd166")

    def show_od(self, xs, ys) -> None:
        """Numbered origin–destination points; empty lists remove them."""
        self._numbered(self.od_item, self.od_labels, xs, ys, "#ffffff", prefix=OD_PREFIX,
                       fill=OD_RING)

    def _numbered(self, item, labels: list, xs, ys, colour: str, prefix: str = "",
                  fill: str | None = None) -> None:
        for t in labels:
            self.vb.removeItem(t)
        labels.clear()
        item.setData(list(xs), list(ys))
        for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
            t = pg.TextItem(f"{prefix}{i + 1}", color=colour, anchor=(-0.3, 1.1),
                            fill=pg.mkBrush(fill) if fill else None)
            t.setZValue(49)
            t.setPos(float(x), float(y))
            self.vb.addItem(t)
            labels.append(t)

    # ---- mouse ------------------------------------------------------------------------
    def view_to_scene(self, x: float, y: float) -> QPointF:
        return self.vb.mapViewToScene(QPointF(x, y))

    def view_to_widget(self, x: float, y: float):
        """Widget pixel of map point (x, y) (for tests that click with real mouse events)."""
        return self.mapFromScene(self.view_to_scene(x, y))

    def click_at(self, x: float, y: float, button: str = "left") -> None:
        """The public click API: what a mouse click at map metres (x, y) does."""
        if button == "right":
            which = "destination"
        elif button == "shift":
            which = "od"
        else:
            which = self.click_mode
        self.mapClicked.emit(float(x), float(y), which)

    def _clicked(self, ev) -> None:
        # A quick second click arrives as a "double" click: it is still a click here.
        if self._swallowed(ev):
            return
        if not self.vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        p = self.vb.mapSceneToView(ev.scenePos())
        if ev.button() == Qt.MouseButton.LeftButton:
            mods = ev.modifiers()
            if mods & Qt.KeyboardModifier.ShiftModifier:
                self.click_at(p.x(), p.y(), "shift")
            elif mods & Qt.KeyboardModifier.ControlModifier:
                self.click_at(p.x(), p.y(), "right")
            else:
                self.click_at(p.x(), p.y(), "left")
        elif ev.button() == Qt.MouseButton.RightButton:
            self.click_at(p.x(), p.y(), "right")

    def _swallowed(self, ev) -> bool:
        """Whether an item took the click for itself: only the draggable A/B markers do.
        A star, an OD diamond or a station under the pointer (a scatter item accepts
        clicks on its points) must not eat a click meant for the map (issue 27)."""
        return bool(ev.isAccepted() and ev.acceptedItem in (self.source_marker, self.dest_marker))

    def _drag(self, ev, axis=None) -> None:
        """Left drags pan the map, except in click mode "link" (the Edit tool's): there
        they draw a new link from where the drag began to where it ends."""
        if self.click_mode != "link" or ev.button() != Qt.MouseButton.LeftButton:
            self._vb_drag(ev, axis=axis)
            return
        ev.accept()
        a = self.vb.mapSceneToView(ev.buttonDownScenePos())
        if ev.isStart():
            self.linkDragStarted.emit(a.x(), a.y())
        elif ev.isFinish():
            b = self.vb.mapSceneToView(ev.scenePos())
            self.linkDragged.emit(a.x(), a.y(), b.x(), b.y())

    def _moved(self, scene_pos) -> None:
        if self.vb.sceneBoundingRect().contains(scene_pos):
            p = self.vb.mapSceneToView(scene_pos)
            self.cursorMoved.emit(p.x(), p.y())

    # ---- layers -----------------------------------------------------------------------
    def clear_map(self) -> None:
        for it in list(self.road_items.values()) + self.field_items + self.route_items:
            self.vb.removeItem(it)
        self.road_items.clear()
        self.road_styles.clear()
        self.field_items.clear()
        if self.raster_item is not None:
            self.vb.removeItem(self.raster_item)
        self.raster_mode = False
        self.raster.clear()
        self.route_items.clear()
        self.show_snap([])
        self.station_item.setData([], [])
        self.show_sites([], [])
        self.show_od([], [])
        self.legend.clear()
        self.field_legend.hide()
        # a new map is not under the old map's field: its roads and class legend show
        self._roads_dimmed = False
        self.legend.setVisible(True)
        self.notice.hide()
        self.set_marker("source", None)
        self.set_marker("destination", None)

    def set_network(self, net: RoadNetwork, geo: MapGeometry | None = None,
                    prepared: dict | None = None) -> MapGeometry:
        """Draw a new map (one path per road class) and fit the view to it. ``prepared``:
        :func:`prepare_drawing` of the same map and geometry, made off the GUI thread."""
        self.clear_map()
        self.net = net
        self.geo = geo if geo is not None else build_geometry(net)
        if prepared is None:
            prepared = prepare_drawing(net, self.geo)
        self.raster_mode = "seg" in prepared
        if self.raster_mode:
            self.vb.addItem(self.raster.set_segments(prepared["seg"], self.geo))
        self.draw_roads(prepared.get("paths"))
        st = self.geo.stations
        if st.size:
            self.station_item.setData(net.x[st], net.y[st])
        if not net.has_coordinates:
            self.notice.show(NO_COORDINATES)
        x0, y0, x1, y1 = self.geo.bounds
        if not all(np.isfinite(v) for v in (x0, y0, x1, y1)):
            x0, y0, x1, y1 = -1000.0, -1000.0, 1000.0, 1000.0
        self.vb.setRange(QRectF(x0, y0, max(x1 - x0, 1.0), max(y1 - y0, 1.0)), padding=0.02)
        if self.raster_mode:
            self.raster.request()  # drawn when the worker has rendered it
        return self.geo

    def draw_roads(self, paths: list | None = None) -> None:
        """(Re)build the road layer: one item per (kind, class); ``paths``: the
        (style, QPainterPath) pairs of :func:`prepare_drawing`, else made here."""
        assert self.net is not None and self.geo is not None
        for it in self.road_items.values():
            self.vb.removeItem(it)
        self.road_items.clear()
        self.legend.clear()
        if paths is None:
            paths = [(style, None if self.raster_mode else make_path(*self.geo.gather(sel)))
                     for style, sel in class_groups(self.net, self.geo)]
        for style, path in paths:
            key = style.name
            if key in self.road_styles:  # same class name in two kinds: keep both
                key = f"{key} ({len(self.road_styles)})"
            self.road_styles[key] = style
            if self.raster_mode:
                continue  # drawn by the raster; the styles still feed the legend
            item = PathItem(path, style.colour, style.width, style.dash, z=style.z)
            self.road_items[key] = item
            self.vb.addItem(item)
        # Legend: every class drawn, grouped by look, most important first (issue 27).
        entries = class_legend_entries(self.road_styles)
        self.legend.setColumnCount(2 if len(entries) > 8 else 1)
        for st, label in entries:
            self.legend.addItem(LegendLine(pg.mkPen(st.colour, width=max(st.width, 1.5), style=_DASH[st.dash])),
                                label)
        if self.geo.stations.size:
            self.legend.addItem(self.station_item, "station")
        # A click on a legend sample would toggle the sample (not the layer) and be lost to
        # the map: let clicks fall through to the map instead.
        for sample, _label in self.legend.items:
            sample.mouseClickEvent = lambda ev: None
        self.overlays.place()

    def set_roads_dimmed(self, dimmed: bool) -> None:
        """Hide the class layer under a distance field (the field draws every arc; item
        opacity on a huge path would force a slow off-screen composition)."""
        self._roads_dimmed = dimmed
        self.legend.setVisible(not dimmed)  # the classes are not what the map shows then
        self.overlays.place()
        self._apply_lod()

    def _apply_lod(self, *_) -> None:
        """Vector maps: the class paths shown at this scale (``raster.lod_min_z``: minor
        classes only when zoomed in); the raster applies the same rule when it renders."""
        if self.raster_mode or not self.road_items:
            return
        if getattr(self, "_roads_dimmed", False):  # under a distance field: hidden at any
            for it in self.road_items.values():  # scale (undimming applies the scale's rule)
                it.setVisible(False)
            return
        try:
            m_px = self.vb.viewRect().width() / max(self.vb.width(), 1.0)
        except RuntimeError:  # the view is being destroyed
            return
        road_z = [st.z for st in self.road_styles.values() if st.z < raster.RAIL_Z]
        min_z = raster.lod_min_z(m_px, max(road_z, default=0))
        for key, it in self.road_items.items():
            it.setVisible(True)
            hide = self.road_styles[key].z < min_z
            if hide != it.lod_hidden:
                it.lod_hidden = hide
                it.update()

    def show_field(self, dist: np.ndarray | None, colormap_name: str = "turbo", unit: str = "",
                   bands: int = 0, image: tuple | None = None) -> int:
        """Colour the network by distance ``dist`` (None removes the field); returns the
        largest reached cost. Vector maps: one path per colour band (``image``: the
        :class:`FieldPaths` of ``dist`` made in the worker, used while they fit); raster
        maps: a recolouring of the pixel→arc image (``image``: (ids, rect, ARGB, top)
        coloured in the worker, used while the view still shows those ids)."""
        for it in self.field_items:
            self.vb.removeItem(it)
        self.field_items.clear()
        if dist is None or self.geo is None:
            self.field_legend.hide()
            self.set_roads_dimmed(False)
            if self.raster_mode and self.seg is not None:
                self.raster.show_colours(self.seg.road_colour)
            return 0
        if self.raster_mode:
            # Colour only the pixels on screen (each later render colours its own).
            lut = raster.lut_argb(field_lut(colormap_name, 256))
            top = self.raster.show_field(dist, lut, bands, image)
            edges, band_rgb = raster.band_legend(dist, bands, field_lut(colormap_name, 256))
            self.set_roads_dimmed(True)  # no class items here: hides the class legend
        else:
            made = image if isinstance(image, FieldPaths) else None
            if made is None or not made.fits(self.geo, dist, colormap_name, bands):
                made = field_paths(self.geo, dist, colormap_name, bands)
            bins = made.bins
            top = bins.max_cost
            edges, band_rgb = bins.edges, bins.colours
            for path, colour, w in made.layers:
                item = PathItem(path, colour, w, z=20)
                self.field_items.append(item)
                self.vb.addItem(item)
            self.set_roads_dimmed(True)
        if bands > 0:  # isochrones: one swatch per band, not a continuous bar
            self.field_legend.show_bands(edges, band_rgb, unit, asked=bands)
        else:
            self.field_legend.show_gradient(field_lut(colormap_name, 256), unit, top)
        return top

    def show_arc_classes(self, cls: np.ndarray, rgb: np.ndarray) -> None:
        """Colour the network by a class per drawn arc (``rgb[cls[i]]``), in place of the
        distance field (what-if's change view; ``show_field(None)`` removes it). Drawn like
        the field: one path per class, or one colour per arc on raster maps."""
        for it in self.field_items:
            self.vb.removeItem(it)
        self.field_items.clear()
        if self.geo is None:
            return
        if self.raster_mode:
            self.raster.show_colours(raster.lut_argb(rgb)[cls])
            self.set_roads_dimmed(True)
            return
        width = 1.6 if self.geo.num_drawn < 50_000 else 1.0
        order = np.argsort(cls, kind="stable")
        bounds = np.searchsorted(cls[order], np.arange(rgb.shape[0] + 1))
        for k in range(rgb.shape[0]):
            sel = order[bounds[k]:bounds[k + 1]]
            if sel.size == 0:
                continue
            x, y, c = self.geo.gather(sel)
            item = PathItem(make_path(x, y, c), QColor(*[int(v) for v in rgb[k]]), width, z=20)
            self.field_items.append(item)
            self.vb.addItem(item)
        self.set_roads_dimmed(True)

    # ---- raster level of detail (raster_view.py) -----------------------------------------
    @property
    def seg(self) -> raster.SegmentSet | None:
        return self.raster.seg

    @property
    def raster_item(self):
        return self.raster.item

    @property
    def _ids(self) -> np.ndarray | None:  # the pixel→arc image on screen
        return self.raster.ids

    @property
    def _ids_rect(self) -> QRectF | None:
        return self.raster.rect

    def _schedule_raster(self, *_) -> None:
        if self.raster_mode:
            self.raster.schedule()

    def closeEvent(self, ev) -> None:
        self.raster.shutdown()
        super().closeEvent(ev)

    def render_raster(self) -> None:
        """Rasterise the view again (on the raster worker; ``raster.rendered`` tells)."""
        if self.raster_mode:
            self.raster.request()

    def show_route(self, xs: np.ndarray | None, ys: np.ndarray | None = None) -> None:
        """Draw the route (a casing and a line) or remove it (xs None)."""
        for it in self.route_items:
            self.vb.removeItem(it)
        self.route_items.clear()
        if xs is None or len(xs) < 2:
            return
        path = pg.arrayToQPath(np.asarray(xs, float), np.asarray(ys, float), connect="all")
        for colour, width, z in (("#111111", 8.0, 39), ("#ff2d95", 4.5, 40)):
            it = PathItem(path, colour, width, z=z)
            self.route_items.append(it)
            self.vb.addItem(it)

    def set_attribution(self, text: str) -> None:
        self.attribution.setText(text)
        self.attribution.setVisible(bool(text))
        self.overlays.place()

    def overlay_rects(self) -> dict[str, QRectF]:
        """Scene rectangles of what is drawn over the map (legends, bars, attribution)."""
        out = self.overlays.rects()
        out["scale bar"] = self.scale_bar.mapRectToScene(self.scale_bar.childrenBoundingRect())
        return out

    # ---- scale bar --------------------------------------------------------------------
    def _update_scale_bar(self, *_) -> None:
        (x0, x1), _ = self.vb.viewRange()
        span = max(x1 - x0, 1e-9)
        target = span / 5
        mag = 10 ** np.floor(np.log10(target))
        size = max(m * mag for m in (1, 2, 5) if m * mag <= target) if target >= mag else mag
        self.scale_bar.size = float(size)
        self.scale_bar.text.setText(pg.siFormat(size, suffix="m"))
        self.scale_bar.updateBar()


def format_cost(value: float, unit: str) -> str:
    """Cost with its unit, human scale: lengths (dm, a --weight column's cm, ...) → m/km,
    times (ds, cs, ...) → s/min/h."""
    from maps.model.weights import unit_scale

    dim, k = unit_scale(unit) or (None, 0)
    if dim == "length":
        m = value / 10**k
        return f"{m / 1000:.1f} km" if m >= 1000 else f"{m:.0f} m"
    if dim == "time":
        s = value / 10**k
        if s >= 3600:
            return f"{s / 3600:.1f} h"
        if s >= 600:
            return f"{s / 60:.0f} min"
        if s >= 60:  # "8 min 20 s", not "8.3 min" (a tenth of a minute reads as seconds)
            mins, sec = divmod(int(round(s)), 60)
            return f"{mins} min" if sec == 0 else f"{mins} min {sec} s"
        return f"{s:.0f} s"
    return f"{value:,.0f}"
