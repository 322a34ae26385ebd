"""Serial twins of numba's ``parallel=True`` kernels, for small work (issue 41).

numba compiles a ``parallel=True`` function through its parfor passes: on a 2-core machine
the route index's parallel kernels took 2-16 s each to compile (``metric._run`` 16 s,
``order._undirected`` 9 s, ``perfect._run`` 6 s: docs/perf/first_contact.md), for a
sample map whose whole build then runs in milliseconds. :func:`serial_twin` compiles the
same Python function without ``parallel`` (``prange`` runs as ``range``): the same
results (these kernels' ``prange`` iterations write disjoint slots and sum integers, so
their order does not matter), a fraction of the compile time. :func:`pick` takes the
twin on graphs of at most :data:`SMALL_NODES` vertices, where one thread is fast enough.

On a machine where numba runs at most :data:`BUILD_SERIAL_THREADS` threads, the route
index's build (order, chordal topology, customization: :func:`pick_build`,
:func:`serial_build`) takes the twins on maps of any size (issue 43): two threads gain at
most 2x on those passes (NE, 1.52M nodes, 2-core CPU: index built in 6.3-10.4 s with the
parallel kernels, 7.8-8.5 s with the twins), while compiling the parallel kernels and the
customization planner cost a fresh install ~27 s more (a fresh `billboards NE -k 10`:
48.9 s against 81 s whole process; docs/perf/billboards_progressive.md, stop 52). The
queries keep :func:`pick` (a matrix's rows gain the second core on every call).

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


# numba threads at or below which the index's build runs its serial twins on any map
BUILD_SERIAL_THREADS = 2


def build_threads() -> int:
    """The threads numba's parallel kernels would run here (``NUMBA_NUM_THREADS``: the
    CPUs, unless set)."""
    from numba import config

    return int(config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set at numba's import


def serial_build(n: int) -> bool:
    """Whether the route index's build of a graph of ``n`` vertices runs serially: a small
    map, or a machine of at most :data:`BUILD_SERIAL_THREADS` threads."""
    return int(n) <= SMALL_NODES or build_threads() <= BUILD_SERIAL_THREADS


def pick_build(parallel: Any, serial: Any, n: int) -> Any:
    """:func:`pick` for the route index's build kernels (order, topology, customization):
    ``serial`` also on a machine of few threads (:func:`serial_build`)."""
    return serial if serial_build(n) else parallel
