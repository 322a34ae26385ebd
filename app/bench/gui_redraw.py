"""The pan/zoom steps of ``signpost bench gui`` (app/bench/gui.py): each until the new view
is on screen (raster maps: made on the raster worker, app/gui/raster_view.py)."""

from __future__ import annotations

import statistics
import time


def rendered(canvas, timeout_s: float = 60.0) -> None:
    """Wait for the raster worker's render of the view (raster maps; vector: at once)."""
    from PySide6.QtCore import QCoreApplication

    if not canvas.raster_mode:
        return
    rv = canvas.raster
    end = time.perf_counter() + timeout_s
    while (rv.runner.busy() or rv.timer.isActive() or rv.ids is None) and time.perf_counter() < end:
        QCoreApplication.processEvents()
        time.sleep(0.0005)
    QCoreApplication.processEvents()  # the render's result, queued to this thread


def measure_redraw(canvas, paint, repeat: int) -> dict:
    """Pan/zoom steps, each until the view is on screen again: rasterised (raster maps: on
    the raster worker), coloured, set and the frame painted. Cycles of: zoom in to a new
    level (*full redraw*: the view made whole: rasterised, or resampled from the map's
    overview when that far out), pan a tenth of the view (*pan redraw*:
    the previous image shifted, the uncovered strips rasterised, or in a far view resampled
    from the overview), pan back, zoom back out
    (*zoom back*: a level seen before, its kept image shifted). *redraw: GUI thread* is what
    the GUI thread itself spends on a step: the view change and a frame of the previous
    image moved and scaled (the rasteriser runs meanwhile)."""
    from PySide6.QtCore import QRectF

    vb = canvas.vb
    out: dict[str, list] = {"redraw_ms": [], "pan_ms": [], "zoom_back_ms": [], "redraw_gui_ms": []}

    def zoom(f: float) -> None:
        r = vb.viewRect()
        vb.setRange(QRectF(r.center().x() - r.width() * f / 2, r.center().y() - r.height() * f / 2,
                           r.width() * f, r.height() * f), padding=0)

    def pan(f: float) -> None:
        vb.translateBy(x=vb.viewRect().width() * f)

    for k in range(max(repeat, 2)):
        f = 0.8 - 0.01 * k  # a new zoom level every cycle
        for key, step in (("redraw_ms", lambda f=f: zoom(f)), ("pan_ms", lambda: pan(0.1)),
                          ("pan_ms", lambda: pan(-0.1)), ("zoom_back_ms", lambda f=f: zoom(1 / f))):
            t0 = time.perf_counter()
            step()
            paint()  # the frame the user sees at once: the previous image moved/scaled
            out["redraw_gui_ms"].append((time.perf_counter() - t0) * 1e3)
            canvas.render_raster()  # now, not after the 30 ms pause the window waits for
            rendered(canvas)
            paint()
            out[key].append((time.perf_counter() - t0) * 1e3)
    return {k: statistics.median(v) for k, v in out.items()}
