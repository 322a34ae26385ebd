"""Facts about the host that several layers need (here, at the bottom, so ``maps`` and
``gpu_core`` share one reading without importing each other)."""

from __future__ import annotations

import os


def is_out_of_memory(exc: BaseException) -> bool:
    """An exception that means memory ran out, whatever raised it: Python's MemoryError,
    a C++ ``std::bad_alloc`` passed on by a library (shapely/GEOS, contourpy, pyproj), or
    CuPy's OutOfMemoryError (matched by name: CuPy is not imported here)."""
    if isinstance(exc, MemoryError):
        return True
    if type(exc).__name__ in ("OutOfMemoryError", "OutOfMemory"):
        return True
    text = str(exc)
    return "bad_alloc" in text or ("out of memory" in text.lower() and len(text) < 300)


def available_memory() -> int:
    """Bytes of host memory available now (MemAvailable), or a conservative guess."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 2 << 30
