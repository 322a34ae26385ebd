"""Exports from the window on their own worker thread, with progress and a cancel button.

A big export (the distance field of a country as GeoJSON, the view as SVG) took 15–45 s
on the GUI thread (issue 42, item 12). Here every export runs on the ``signpost-export``
worker, apart from the compute worker, so a search keeps running while a file is
written. The file is written to a temporary beside the user's file and renamed onto it
only when complete (``osutil.atomic``): a cancel or a failure removes the temporary and
leaves any earlier file as it was; messages name the user's file, never the temporary.

The view (PNG/SVG) is drawn from the scene, which only the GUI thread may touch: there
the canvas is recorded into a ``QPicture`` (a list of paint commands, fast), and the
worker plays it into the SVG generator or the image, which is the slow part.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QImage, QPainter, QPicture
from PySide6.QtWidgets import QProgressBar, QPushButton

from gpu_core.errors import CancelledError, InvalidArgumentError
from osutil.atomic import atomic_paths

from . import export
from .workers import Job, JobContext, JobRunner


def record_view(widget) -> tuple[QPicture, QSize]:
    """The widget's drawing as paint commands (GUI thread), and its size."""
    pic = QPicture()
    p = QPainter(pic)
    try:
        widget.render(p)
    finally:
        p.end()
    size = widget.size()
    return pic, QSize(size.width(), size.height())


def play_view(pic: QPicture, size: QSize, path: str, tmp: str, scale: int) -> None:
    """Draw a recorded view into ``tmp`` as SVG (by ``path``'s ending) or an image at
    ``scale`` × its size; any thread."""
    w, h = size.width(), size.height()
    if path.lower().endswith(".svg"):
        from PySide6.QtSvg import QSvgGenerator

        gen = QSvgGenerator()
        gen.setFileName(tmp)
        gen.setSize(QSize(w, h))
        gen.setViewBox(QRectF(0, 0, w, h))
        gen.setTitle("Signpost map")
        p = QPainter(gen)
        try:
            p.drawPicture(0, 0, pic)
        finally:
            p.end()
        return
    img = QImage(w * scale, h * scale, QImage.Format.Format_ARGB32_Premultiplied)
    img.setDevicePixelRatio(scale)
    img.fill(0)
    p = QPainter(img)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.drawPicture(0, 0, pic)
    finally:
        p.end()
    fmt = (os.path.splitext(path)[1][1:] or "png").upper()
    # PySide6's stub types QImage.save's format as bytes; it takes (only) str, as QPixmap's
    if not img.save(tmp, fmt):  # type: ignore[call-overload]
        raise OSError(f"could not write image {path}")


def _written(path: str, write: Callable[[str], None], ctx: JobContext) -> str:
    """``write(tmp)`` under a cancel/progress scope; renamed onto ``path`` when whole."""
    with atomic_paths([path]) as (tmp,), export.checkpoints(ctx.cancelled, ctx.progress):
        write(tmp)
        if ctx.cancelled():
            raise CancelledError("export cancelled")
    return path


def users_file(exc: BaseException, path: str) -> BaseException:
    """An OSError about a temporary, told as one about the user's file."""
    if isinstance(exc, OSError):
        return OSError(exc.errno, f"could not write {path}: {exc.strerror or exc}")
    return exc


class Exports:
    """The window's export worker, its progress bar and its Cancel button."""

    def __init__(self, win) -> None:
        self.win = win
        self.runner = JobRunner("signpost-export", win)
        self.job = 0  # the export whose end is told (0: none)
        self.path = ""
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(140)
        self.bar.setRange(0, 0)
        self.bar.setVisible(False)
        self.btn_cancel = QPushButton("Cancel export")
        self.btn_cancel.setObjectName("btn_cancel_export")
        self.btn_cancel.setVisible(False)
        self.btn_cancel.clicked.connect(self.cancel)
        for w in (self.bar, self.btn_cancel):
            win.statusBar().addPermanentWidget(w)
        self.runner.finished_job.connect(self._finished)
        self.runner.failed_job.connect(self._failed)
        self.runner.cancelled_job.connect(self._cancelled)
        self.runner.progress.connect(self._progress)

    def start(self, what: str, path: str, scale: int | None = None) -> int:
        """Write export ``what`` to ``path`` on the worker; the job id."""
        win = self.win
        if what == "view":
            pic, size = record_view(win.canvas)
            k = scale or export.png_scale(path)
            if k not in export.VIEW_SCALES:
                raise InvalidArgumentError(f"PNG scale {k} is not one of {export.VIEW_SCALES}")

            def write(tmp: str) -> None:
                play_view(pic, size, path, tmp, k)
        else:
            tool = next((t for t in win.tools.values() if what in t.exports), None)
            if tool is None:
                raise InvalidArgumentError(f"unknown export {what!r}")

            def write(tmp: str) -> None:
                tool.export(what, tmp)

        def fn(ctx: JobContext) -> str:
            return _written(path, write, ctx)

        fn.__name__ = f"export-{what}"
        self.path = path
        self.job = self.runner.submit(Job(fn, kind="export"))
        self.bar.setRange(0, 0)
        self.bar.setVisible(True)
        self.btn_cancel.setVisible(True)
        win.status(f"Writing {path}…")
        return self.job

    def busy(self) -> bool:
        return self.runner.busy()

    def cancel(self) -> None:
        """Stop the export now: told at once; the worker removes the temporary when the
        writer next looks (or when it ends)."""
        if self.job:
            self.runner.cancel()
            self._end()
            self.win.status(f"Export cancelled: {self.path} not written", 5000)

    def shutdown(self) -> bool:
        return self.runner.shutdown()

    def _end(self) -> None:
        self.job = 0
        self.bar.setVisible(False)
        self.btn_cancel.setVisible(False)

    def _progress(self, jid: int, frac: float, msg: str) -> None:
        if jid == self.job:
            if frac >= 0:
                self.bar.setRange(0, 1000)
                self.bar.setValue(int(frac * 1000))
            self.win.statusBar().showMessage(f"Writing {self.path}" + (f": {msg}" if msg else "…"))

    def _finished(self, jid: int, kind: str, path) -> None:
        if jid == self.job:
            self._end()
            self.win.status(f"Wrote {path}", 5000)

    def _failed(self, jid: int, kind: str, exc) -> None:
        if jid == self.job:
            self._end()
            self.win.show_error("Export failed", str(users_file(exc, self.path)))

    def _cancelled(self, jid: int, kind: str) -> None:
        if jid == self.job:
            self._end()
            self.win.status(f"Export cancelled: {self.path} not written", 5000)
