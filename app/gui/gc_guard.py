"""Cyclic garbage collection in the GUI thread only, while a window lives.

CPython runs a cyclic collection in whichever thread happens to allocate when its
counters pass their thresholds. A worker thread (a map load building the snapping index,
a vertex program) could so collect a cycle that holds Qt wrappers (closed windows, removed
pyqtgraph items) and destroy Qt objects off the GUI thread: PySide then takes Qt's locks
while holding the GIL, the GUI thread holds one of those locks while waiting for the GIL,
and both wait forever (the rare hang of the GUI tests). So while any window is open,
automatic collection is off and a timer in the GUI thread collects each generation
when its counter passes the threshold, as CPython would have (the pattern of pyqtgraph's
``GarbageCollector``). Workers still free acyclic objects (plain data) by reference count.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

COLLECT_EVERY_MS = 250

_holders = 0  # guards alive; automatic collection is off while > 0
_was_enabled = True


class GuiThreadGC(QObject):
    """Turns automatic collection off until :meth:`release`; collects from a GUI timer.
    Create it in the GUI thread (its timer lives there)."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = COLLECT_EVERY_MS):
        global _holders, _was_enabled
        super().__init__(parent)
        if _holders == 0:
            _was_enabled = gc.isenabled()
        _holders += 1
        gc.disable()
        self._active = True
        self.threshold = gc.get_threshold()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(interval_ms)

    def check(self) -> None:
        """Collect the generations whose allocation counters passed their thresholds."""
        c0, c1, c2 = gc.get_count()
        t0, t1, t2 = self.threshold
        if c0 > t0:
            gen = 2 if (c1 > t1 and c2 > t2) else (1 if c1 > t1 else 0)
            gc.collect(gen)

    def release(self) -> None:
        """Collect once more here and give automatic collection back (when no other guard
        holds it). Call it after the workers have been joined."""
        global _holders
        if not self._active:
            return
        self._active = False
        self.timer.stop()
        gc.collect()
        _holders -= 1
        if _holders == 0 and _was_enabled:
            gc.enable()


def automatic_collection_off() -> bool:
    """True while a guard holds automatic collection off (tests check it)."""
    return _holders > 0 and not gc.isenabled()
