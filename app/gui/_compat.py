"""Work-arounds for bugs of the Qt binding, applied before any window is made.

PySide6 6.12.0 on Python < 3.12 drops one reference to ``None`` on every call of a
method that returns nothing (``QLabel().setText("x")`` 1000 times lowers
``sys.getrefcount(None)`` by 1000; measured here with CPython 3.11.7). From Python 3.12
``None`` is immortal and nothing happens; before it, a long session (or a test run)
brings the count to zero and CPython aborts with "none_dealloc: deallocating None".
:func:`pin_none` gives ``None`` (and ``True``/``False``, small ints and the empty
singletons, which 3.12 also makes immortal and which leak the same way) the huge
reference count that 3.12 gives them, which makes the lost references harmless. It does nothing on 3.12+.
"""

from __future__ import annotations

import ctypes
import sys

_PINNED = False
PIN = 1 << 40  # more lost references than any session can make


def pin_none() -> bool:
    """Make ``None`` effectively immortal on CPython < 3.12; True when it was applied."""
    global _PINNED
    if _PINNED or sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    # The objects CPython 3.12 makes immortal and the binding may return without a new
    # reference: None, the booleans, small ints and the empty singletons. ob_refcnt is
    # the first field (a Py_ssize_t) of every object in release builds.
    objs = [None, True, False, Ellipsis, NotImplemented, (), "", b"", *range(-5, 257)]
    for obj in objs:
        ctypes.c_ssize_t.from_address(id(obj)).value += PIN
    _PINNED = True
    return True
