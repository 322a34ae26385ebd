"""The GIL's switch interval of the window's process: 1 ms instead of CPython's 5 ms.

The window's thread gives the GIL up whenever it waits in Qt's event loop, and takes it
back for every Python slot, event handler and paint the loop dispatches. While a worker
thread runs Python (the map's reader, the search's set-up, the index thread), each of those
take-backs waits until the worker is asked to drop the GIL: one switch interval. One
relayout and repaint of the window dispatches ~50 of them: 220-270 ms at 5 ms beside a
busy worker thread against 40 ms at 1 ms (18-40 ms with the worker idle; 2-core CPU,
issue 41). The workers' own Python is interrupted more often only while the window's
thread asks for the GIL.
"""

from __future__ import annotations

import sys

GUI_SWITCH_S = 0.001


def responsive_switch() -> None:
    """Shorten the process's GIL switch interval to :data:`GUI_SWITCH_S` (never lengthen
    one set shorter)."""
    if sys.getswitchinterval() > GUI_SWITCH_S:
        sys.setswitchinterval(GUI_SWITCH_S)
