"""numpy's huge-page advice switched off for a stretch of code (standard library and numpy).

numpy advises the kernel to back arrays of 4 MB and more with transparent huge pages. Where
the kernel honours that advice with direct compaction (Linux's ``defrag`` setting
``madvise``, the default of many distributions), a process's first writes to fresh arrays
can stall on it: a CLI closure's edited map on NE paid 0.3-0.8 s of system time for it on
the 2-core development machine, against 0.1 s in small pages (issue 41). Arrays made
inside :func:`small_pages` are not advised; the switch is numpy's own and process-wide,
so it wraps short single-threaded set-up only."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def _switch() -> Callable[[bool], bool] | None:
    """numpy's (private) huge-page switch: set it, get the earlier value; None if absent."""
    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):  # numpy 2, then 1
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        switch = getattr(mod, "_set_madvise_hugepage", None)
        if switch is not None:
            return switch
    return None


@contextmanager
def small_pages() -> Iterator[None]:
    """Inside, numpy allocates without huge-page advice; the earlier setting after."""
    switch = _switch()
    if switch is None:  # a numpy without the switch: as it is
        yield
        return
    before = switch(False)
    try:
        yield
    finally:
        switch(before)
