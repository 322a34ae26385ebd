"""Road paths for the map canvas, made wherever they are needed: :func:`make_path` (one
QPainterPath per class or colour band) and :func:`prepare_drawing` (what the canvas draws
for a new map, made on the loader thread so opening a map does not freeze the window;
QPainterPath is reentrant, so any thread may build one)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QPainterPath

from maps.model.network import RoadNetwork

from . import raster
from .geometry import MapGeometry, class_groups


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
