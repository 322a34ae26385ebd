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

A collection of the oldest generation walks every tracked object (160K with a map open
after the 1.43M-node one: 150 ms of frozen window, issue 27). So after such a full pass
the survivors are frozen (``gc.freeze``): the next oldest-generation collections walk only
what was made since, and a full pass (unfreeze, collect, freeze) comes at most every
``FULL_EVERY_S``; cyclic garbage among the frozen waits for it.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer

COLLECT_EVERY_MS = 250
FULL_EVERY_S = 30.0  # a collection of every object (frozen ones too) at most this often

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
        gc.unfreeze()
        gc.collect()  # a full pass now, as a window opens, not at the user's first clicks
        gc.freeze()
        self._full_t = time.monotonic()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(interval_ms)

    def check(self) -> None:
        """Collect the generations whose allocation counters passed their thresholds."""
        c0, c1, c2 = gc.get_count()
        t0, t1, t2 = self.threshold
        if c0 > t0:
            gen = 2 if (c1 > t1 and c2 > t2) else (1 if c1 > t1 else 0)
            if gen == 2 and time.monotonic() - self._full_t >= FULL_EVERY_S:
                gc.unfreeze()
                gc.collect(2)
                gc.freeze()  # the survivors: skipped by collections until the next full pass
                self._full_t = time.monotonic()
            else:
                gc.collect(gen)

    def release(self) -> None:
        """Collect once more here and give automatic collection back (when no other guard
        holds it). Call it after the workers have been joined."""
        global _holders
        if not self._active:
            return
        self._active = False
        self.timer.stop()
        gc.unfreeze()  # (closed windows may be frozen cycles: collectable again)
        gc.collect()
        _holders -= 1
        if _holders == 0 and _was_enabled:
            gc.enable()


def automatic_collection_off() -> bool:
    """True while a guard holds automatic collection off (tests check it)."""
    return _holders > 0 and not gc.isenabled()
