"""The window's status bar: a message that never ends mid-word under the permanent widgets
(issue 27: at 1024 px the Kanto map's "Reached … search 1,000 m" was cut by the map size,
backend and route-index widgets). A message wider than the room they leave is elided with
"…" and its full text goes to the tooltip; ``currentMessage()`` answers the full text."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import QStatusBar, QWidget

MARGIN_PX = 6  # QStatusBar draws its message 6 px from the left edge
GAP_PX = 10  # room kept between the message and the first permanent widget


def elide(text: str, metrics, room: int) -> str:
    """``text`` when it fits ``room`` pixels; else its longest part ending at a "; "
    that fits, with " …" (whole phrases); else Qt's elision at any character."""
    if metrics.horizontalAdvance(text) <= room:
        return text
    cut = text.rfind("; ")
    while cut > 0:
        part = text[:cut] + " …"
        if metrics.horizontalAdvance(part) <= room:
            return part
        cut = text.rfind("; ", 0, cut)
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, room)


class StatusBar(QStatusBar):
    """QStatusBar with its temporary message elided to the free room (full text in the
    tooltip). Callers use ``showMessage`` / ``currentMessage`` / ``clearMessage`` as usual."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._full = ""  # the message as asked
        self._shown = ""  # what the bar paints (elided)
        self._permanent: list[QWidget] = []
        self._timer = QTimer(self)  # our own timeout: re-fitting must not restart it
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.clearMessage)

    def addPermanentWidget(self, widget: QWidget, stretch: int | None = 0) -> None:  # noqa: N802
        self._permanent.append(widget)
        super().addPermanentWidget(widget, stretch or 0)

    def showMessage(self, text: str, timeout: int | None = 0) -> None:  # noqa: N802
        """Show ``text`` (for ``timeout`` ms; 0 or None: until replaced), elided to fit."""
        self._full = text
        self._timer.stop()
        if timeout is not None and timeout > 0:
            self._timer.start(timeout)
        self._fit()

    def clearMessage(self) -> None:  # noqa: N802
        self._timer.stop()
        self._full = self._shown = ""
        self.setToolTip("")
        super().clearMessage()

    def currentMessage(self) -> str:  # noqa: N802
        """The full message (a status tip Qt shows itself, e.g. a menu's, as it is)."""
        cur = super().currentMessage()
        return self._full if cur and cur == self._shown else cur

    def room(self) -> int:
        """Pixels free for the message: up to the first visible permanent widget."""
        xs = [w.x() for w in self._permanent if w.isVisible() and w.parent() is self]
        right = min(xs) if xs else self.width()
        return max(right - MARGIN_PX - GAP_PX, 0)

    def _fit(self) -> None:
        text = self._full
        if not text:
            return
        shown = elide(text, self.fontMetrics(), self.room())
        self.setToolTip(text if shown != text else "")
        if shown != self._shown or super().currentMessage() != shown:
            self._shown = shown
            super().showMessage(shown, 0)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit()

    def event(self, e: QEvent) -> bool:
        done = super().event(e)
        if e.type() == QEvent.Type.LayoutRequest and self._full:
            self._fit()  # a permanent widget appeared, went or changed its text
        return done


def message_problems(bar: QStatusBar) -> list[str]:
    """The status bar's message clipped (wider than the room the permanent widgets leave)
    for the screenshot checks (``app.gui.screens``); none when it fits or is elided."""
    shown = QStatusBar.currentMessage(bar)
    if not shown:
        return []
    room = bar.room() if isinstance(bar, StatusBar) else bar.width() - 2 * MARGIN_PX
    if bar.fontMetrics().horizontalAdvance(shown) > room + GAP_PX:
        return [f"status bar message clipped: {shown!r}"]
    return []
