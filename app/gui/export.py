"""Exports: route (GeoJSON, GPX), distance field (CSV, GeoJSON), phase telemetry (CSV), view (PNG, SVG).

The data exports are plain functions of numpy arrays (no Qt); only the view export needs
the widget, and imports Qt inside the function.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from xml.sax.saxutils import escape

import numpy as np

from app.jobs.route import Route, route_lonlat
from gpu_core.errors import CancelledError
from gpu_core.keys import UNREACHABLE, UNREACHABLE_NEG
from gpu_core.telemetry import PhaseLog
from maps.model.network import RoadNetwork
from osutil.atomic import atomic_open, atomic_paths

_scope = threading.local()  # this thread's export: (cancelled, progress) or unset


@contextlib.contextmanager
def checkpoints(cancelled: Callable[[], bool], progress: Callable[[float | None, str], None]) -> Iterator[None]:
    """While the block runs, the writers here on this thread report progress and stop
    (CancelledError) at their :func:`checkpoint` (the window's export worker)."""
    _scope.hooks = (cancelled, progress)
    try:
        yield
    finally:
        _scope.hooks = None


def checkpoint(done: int, total: int, what: str = "rows") -> None:
    """Between blocks of a big write: progress, and a cancel raises CancelledError."""
    hooks = getattr(_scope, "hooks", None)
    if hooks is None:
        return
    cancelled, progress = hooks
    if cancelled():
        raise CancelledError("export cancelled")
    progress(done / total if total else None, f"{done:,} of {total:,} {what}")


def route_geojson(net: RoadNetwork, route: Route, path: str | os.PathLike) -> None:
    """The route as one GeoJSON LineString feature with cost/unit/length/nodes properties."""
    coords = route_lonlat(net, route)
    feature = {
        "type": "Feature",
        "geometry": {"type": "LineString", "coordinates": coords},
        "properties": {
            "from": int(net.node_ids[route.source]),
            "to": int(net.node_ids[route.target]),
            "cost": int(route.cost),
            "unit": route.unit,
            "length_m": round(route.length_m, 3),
            "nodes": route.num_nodes,
            "map": net.name or os.path.basename(net.source_path),
        },
    }
    with atomic_open(path, "w") as fh:
        json.dump({"type": "FeatureCollection", "features": [feature]}, fh)


def route_gpx(net: RoadNetwork, route: Route, path: str | os.PathLike) -> None:
    """The route as a GPX 1.1 track (one segment)."""
    coords = route_lonlat(net, route)
    name = escape(f"Signpost route {int(net.node_ids[route.source])} → {int(net.node_ids[route.target])}")
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    pts = "\n".join(f'      <trkpt lat="{lat:.7f}" lon="{lon:.7f}"/>' for lon, lat in coords)
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<gpx version="1.1" creator="Signpost" xmlns="http://www.topografix.com/GPX/1/1">\n'
        f"  <metadata><name>{name}</name><time>{now}</time></metadata>\n"
        f"  <trk><name>{name}</name>\n"
        f"    <desc>cost {route.cost} {route.unit}, {route.length_m:.1f} m</desc>\n"
        f"    <trkseg>\n{pts}\n    </trkseg>\n  </trk>\n</gpx>\n"
    )
    with atomic_open(path, "w") as fh:
        fh.write(text)


def read_gpx_points(path: str | os.PathLike) -> list[tuple[float, float]]:
    """(lon, lat) of every trkpt of a GPX file (used to read exports back)."""
    import xml.etree.ElementTree as ET

    ns = {"g": "http://www.topografix.com/GPX/1/1"}
    root = ET.parse(path).getroot()
    return [(float(p.attrib["lon"]), float(p.attrib["lat"])) for p in root.iterfind(".//g:trkpt", ns)]


def _reached(net: RoadNetwork, dist: np.ndarray) -> np.ndarray:
    """Indices of reached nodes (on a map with negative arcs -1 is a real cost)."""
    negative = getattr(net, "has_negative", False)
    return np.nonzero(dist != (UNREACHABLE_NEG if negative else UNREACHABLE))[0]


def field_csv(net: RoadNetwork, dist: np.ndarray, path: str | os.PathLike) -> int:
    """node_id,lon,lat,cost for every reached node; returns the rows written."""
    idx = _reached(net, dist)
    with atomic_open(path, "w") as fh:
        fh.write("node_id,lon,lat,cost\n")
        ids, lon, lat, d = net.node_ids[idx], net.lon[idx], net.lat[idx], dist[idx]
        # One formatted block per chunk: fast enough for millions of rows.
        total = int(idx.shape[0])
        for s in range(0, total, 200_000):
            checkpoint(s, total)
            e = s + 200_000
            fh.writelines(
                f"{a},{b:.7f},{c:.7f},{v}\n"
                for a, b, c, v in zip(ids[s:e].tolist(), lon[s:e].tolist(), lat[s:e].tolist(), d[s:e].tolist(), strict=False)
            )
    return int(idx.shape[0])


def field_geojson(net: RoadNetwork, dist: np.ndarray, path: str | os.PathLike) -> int:
    """Reached nodes as GeoJSON points with a ``cost`` property; returns the count.
    Written in blocks (memory stays that of one block; a cancel stops between blocks)."""
    idx = _reached(net, dist)
    total = int(idx.shape[0])
    block = 50_000
    with atomic_open(path, "w") as fh:
        fh.write('{"type": "FeatureCollection", "unit": ' + json.dumps(net.unit) + ', "features": [')
        for s in range(0, total, block):
            checkpoint(s, total, "points")
            part = idx[s:s + block]
            feats = (
                json.dumps({"type": "Feature", "geometry": {"type": "Point", "coordinates": [lo, la]},
                            "properties": {"node_id": i, "cost": c}})
                for i, lo, la, c in zip(net.node_ids[part].tolist(), net.lon[part].round(7).tolist(),
                                        net.lat[part].round(7).tolist(), dist[part].tolist(), strict=False)
            )
            fh.write((", " if s else "") + ", ".join(feats))
        fh.write("]}")
    return total


def phases_csv(log: PhaseLog, path: str | os.PathLike) -> None:
    log.to_csv(path)


VIEW_SCALES = (1, 2, 4)  # PNG exports: screen resolution, 2× and 4× (print, slides)


def png_scale(path: str, selected_filter: str = "") -> int:
    """The PNG scale asked for: a "2×"/"4×" file-dialog filter or a ``name@2x.png`` name."""
    low = os.path.basename(path).lower()
    for k in VIEW_SCALES[1:]:
        if f"{k}×" in selected_filter or low.endswith(f"@{k}x.png"):
            return k
    return 1


def view_image(widget, path: str | os.PathLike, scale: int = 1) -> None:
    """Save a widget (or the map canvas) as PNG at ``scale`` × its size (the scene is
    drawn again at that resolution, not magnified), or the map as SVG; atomically."""
    path = os.fspath(path)
    if scale not in VIEW_SCALES:
        raise ValueError(f"PNG scale {scale} is not one of {VIEW_SCALES}")
    with atomic_paths([path]) as (tmp,):
        _view_image(widget, path, tmp, scale)


def _view_image(widget, path: str, tmp: str, scale: int) -> None:
    from PySide6.QtCore import QRectF, QSize
    from PySide6.QtGui import QImage, QPainter

    size = widget.size()
    if path.lower().endswith(".svg"):
        from PySide6.QtSvg import QSvgGenerator

        gen = QSvgGenerator()
        gen.setFileName(tmp)
        gen.setSize(QSize(size.width(), size.height()))
        gen.setViewBox(QRectF(0, 0, size.width(), size.height()))
        gen.setTitle("Signpost map")
        p = QPainter(gen)
        try:
            widget.render(p)
        finally:
            p.end()
        return
    fmt = (os.path.splitext(path)[1][1:] or "png").upper()
    if scale == 1:
        if not widget.grab().save(tmp, fmt):
            raise OSError(f"could not write image {path}")
        return
    img = QImage(size.width() * scale, size.height() * scale,
                 QImage.Format.Format_ARGB32_Premultiplied)
    img.setDevicePixelRatio(scale)
    img.fill(0)
    p = QPainter(img)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        widget.render(p)
    finally:
        p.end()
    # PySide6's stub types QImage.save's format as bytes; it takes (only) str, as QPixmap's
    if not img.save(tmp, fmt):  # type: ignore[call-overload]
        raise OSError(f"could not write image {path}")
