"""The window's numba kernels compiled in a child process (issue 41).

numba compiles holding the GIL: the window's after-load warm-up, compiling the search,
what-if repair and billboards kernels in a worker thread, stalled the window's own thread
for seconds on a fresh install. :func:`start` runs the same warm-up in a lower-priority
child process (``python -m app.jobs.compile_ahead``), which writes the compiled kernels
into numba's cache (``osutil.numba_cache``); no thread of the window compiles. Meanwhile
a click on a small map answers by the paths that need no compilation
(``app.jobs.common.small_work``: scipy while the kernel is not in the cache); once the
child is done, the next use loads the kernels from the cache.

``SIGNPOST_COMPILE_AHEAD=0`` keeps the warm-up in the caller's thread (as before; the
tests set it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .common import COMPILE_AHEAD_ENV as ENV  # noqa: F401 (the tests set it by this name)
from .common import compile_ahead_enabled as enabled  # noqa: F401 (the window asks it here)


def warm(strategies: list[str], backend: str) -> None:
    """Compile (or load from numba's cache) the kernels a window's first clicks and tools
    use, on tiny graphs: the SSSP ``strategies``, the what-if repair, the billboards, and
    the window's own (:func:`warm_host`)."""
    from gpu_core.errors import GpuCoreError
    from gpu_core.graph import CSRGraph
    from gpu_core.sssp import sssp

    tiny = CSRGraph.from_edges(3, [0, 1], [1, 2], [1, 1])
    for s in dict.fromkeys(strategies):
        try:
            sssp(tiny, 0, strategy=s, backend=backend)
        except GpuCoreError:
            pass  # the real search reports it
    try:  # what-if edits repair the search: their kernels too
        from .whatif import warm_up

        warm_up(backend)
    except GpuCoreError:
        pass
    warm_host()
    try:  # the billboards tool is the first a user tries: its kernels too
        from .billboards import BillboardsOptions
        from .billboards import warm_up as warm_billboards

        warm_billboards(BillboardsOptions(k=1, backend=backend))
    except GpuCoreError:
        pass


def warm_host() -> None:
    """The kernels the window's own threads would otherwise compile on a fresh install,
    each run until then by a twin that needs no compilation (issue 41): the map's
    preparation on the loader thread (snapping grid, parts, arc tails and pairs), an
    edit's apply and compaction on the window's thread, the big-map passes after every
    search and repair."""
    from gpu_core.dynamic import compile_kernels as compile_edits
    from gpu_core.host.distances import compile_kernel as compile_dist
    from gpu_core.repair import compile_host_passes
    from maps.generate import generate

    from .nogil import compile_kernels as compile_nogil
    from .snap_index import GridSnapper

    net = generate("grid", 64, seed=1)
    GridSnapper(net, kernels=True)
    compile_nogil(net.indptr, net.indices)
    compile_edits()
    compile_dist()
    compile_host_passes()


def start(strategies: list[str], backend: str) -> subprocess.Popen | None:
    """Start the child that runs :func:`warm`; None when it could not start (then the
    caller warms up in its own thread)."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "app.jobs.compile_ahead", backend, *strategies], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True)
    except OSError:
        return None


def main(argv: list[str]) -> int:
    warm(argv[1:] or ["auto"], argv[0] if argv else "auto")
    return 0


if __name__ == "__main__":
    if hasattr(os, "nice"):
        os.nice(10)  # behind the window's own work
    sys.exit(main(sys.argv[1:]))
