"""Serial twins of numba's ``parallel=True`` kernels, for small work (issue 41).

numba compiles a ``parallel=True`` function through its parfor passes: on a 2-core machine
the route index's parallel kernels took 2-16 s each to compile (``metric._run`` 16 s,
``order._undirected`` 9 s, ``perfect._run`` 6 s: docs/perf/first_contact.md), for a
sample map whose whole build then runs in milliseconds. :func:`serial_twin` compiles the
same Python function without ``parallel`` (``prange`` runs as ``range``): the same
results (these kernels' ``prange`` iterations write disjoint slots and sum integers, so
their order does not matter), a fraction of the compile time. :func:`pick` takes the
twin on graphs of at most :data:`SMALL_NODES` vertices, where one thread is fast enough.

The twin is a copy of the function under its own name (``<name>_serial``), so numba's
cache keeps its compiled code apart from the parallel one's (numba's cache index is keyed
by the function's name and signature, not by ``parallel``).
"""

from __future__ import annotations

import types
from typing import Any

from numba import njit

# the same bound as app.jobs.common.SMALL_WORK_NODES (gpu_core imports nothing of app)
SMALL_NODES = 30_000


def serial_twin(dispatcher: Any) -> Any:
    """A ``cache=True`` numba function of ``dispatcher``'s Python function, without
    ``parallel``."""
    fn = dispatcher.py_func
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_serial",
                              fn.__defaults__, fn.__closure__)
    twin.__qualname__ = fn.__qualname__ + "_serial"
    twin.__module__ = fn.__module__
    twin.__doc__ = fn.__doc__
    opts = {k: v for k, v in dispatcher.targetoptions.items()
            if k not in ("parallel", "nopython", "boundscheck")}
    return njit(cache=True, **opts)(twin)


def pick(parallel: Any, serial: Any, n: int) -> Any:
    """``serial`` for a graph of at most :data:`SMALL_NODES` vertices, else ``parallel``."""
    return serial if int(n) <= SMALL_NODES else parallel
