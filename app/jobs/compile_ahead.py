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

The CLI's sampled billboards on a big map (issue 43) start :func:`start_index_kernels`
before they read the map: a child (``python -m app.jobs.compile_ahead --index-sampler``)
compiles, on a tiny grid with a big map's kernel choices, what the command will run after
ordering the map (the chordal topology's kernels, the customization's, the sampler's
paths through the index) while the command reads the map and orders it (single-threaded,
compiling the order's own kernels); the command waits for the child (:func:`finish`)
before its first draw, then loads every kernel from numba's cache. Nothing starts when
numba's cache holds them already (:func:`index_kernels_ready`), or when no CPU beside the
command's is idle (:func:`free_cpus`: the child would slow the command it serves). The child is the
command's: not ``nice``d, in its session, and it exits when the command does (a thread
watches its parent: a SIGTERM'd or killed command leaves no child behind).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from osutil.children import stop_child as stop  # noqa: F401 (the CLI stops it by this name)
from osutil.children import wait_child as finish  # noqa: F401 (the tests wait by this name)

from .common import COMPILE_AHEAD_ENV as ENV
from .common import compile_ahead_enabled as enabled

# the manifest (``index_later``) of the kernels :func:`warm_index_sampler` compiles
INDEX_SAMPLER_STAGE = "index-sampler-cpu"
_INDEX_FLAG = "--index-sampler"
POLL_S = 0.1


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
    search and repair, the isochrones' stamping."""
    from gpu_core.dynamic import compile_kernels as compile_edits
    from gpu_core.host.distances import compile_kernel as compile_dist
    from gpu_core.repair import compile_host_passes
    from maps.generate import generate

    from .iso_raster import compile_kernel as compile_raster
    from .nogil import compile_kernels as compile_nogil
    from .snap_index import GridSnapper

    net = generate("grid", 64, seed=1)
    GridSnapper(net, kernels=True)
    compile_nogil(net.indptr, net.indices)
    compile_edits()
    compile_dist()
    compile_host_passes()
    compile_raster()  # the isochrones tool's stamping


def start(strategies: list[str], backend: str) -> subprocess.Popen | None:
    """Start the child that runs :func:`warm`; None when it could not start (then the
    caller warms up in its own thread)."""
    return _spawn([backend, *strategies], detached=True)


def _spawn(args: list[str], *, detached: bool) -> subprocess.Popen | None:
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "app.jobs.compile_ahead", *args], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=detached, close_fds=True)
    except OSError:
        return None


# --- the isochrones' raster kernel -----------------------------------------------------------
_RASTER_FLAG = "--raster"
_raster_started = False


def start_raster_kernel() -> subprocess.Popen | None:
    """Once per process, a detached child that compiles the isochrones' stamping kernel
    (``iso_raster.compile_kernel``) into numba's cache, behind the user: a small map's
    isochrones stamp in numpy while it is not compiled (no compilation wait) and, before
    this, stayed on numpy in every later run too."""
    global _raster_started
    if _raster_started or not enabled():
        return None
    _raster_started = True
    return _spawn([_RASTER_FLAG], detached=True)


# --- a big map's sampled billboards on the CPU (issue 43) -----------------------------------


def index_kernels_ready() -> bool:
    """Whether numba's cache holds what :func:`warm_index_sampler` compiles (its manifest)."""
    from .index_later import stage_ready

    return stage_ready(INDEX_SAMPLER_STAGE)


# The child pays where a core sits idle beside the command; where none does it takes its
# CPU from the command (the same session; ~6 s more CPU in all): NE's first run on the
# shared 2-core CPU took 36-52 s with it, 46-51 s without it, and 63-87 s with it while
# another worker's index build kept the other core busy (docs/perf/billboards_progressive.md,
# stop 52). It starts when
# at least this many CPUs were idle over :data:`PROBE_S` (``SIGNPOST_COMPILE_AHEAD=always``
# starts it regardless).
FREE_CPUS = 1.5
PROBE_S = 0.15


def _cpu_times() -> tuple[int, int]:
    """(idle, total) ticks of all CPUs so far (Linux's /proc/stat)."""
    with open("/proc/stat") as fh:
        v = [int(x) for x in fh.readline().split()[1:9]]
    return v[3] + v[4], sum(v)


def free_cpus(window_s: float = PROBE_S) -> float:
    """About how many CPUs sat idle over the next ``window_s`` seconds (this process
    sleeps meanwhile: its own CPU counts as free); the CPU count where /proc/stat cannot be
    read (other systems)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
    try:
        i0, t0 = _cpu_times()
        time.sleep(window_s)
        i1, t1 = _cpu_times()
    except (OSError, ValueError, IndexError):
        return float(cpus)
    host = os.cpu_count() or cpus  # /proc/stat counts every CPU of the machine
    return min(float(cpus), (i1 - i0) / max(t1 - t0, 1) * host)


def start_index_kernels() -> subprocess.Popen | None:
    """Start the child that runs :func:`warm_index_sampler` (None: turned off by
    ``SIGNPOST_COMPILE_AHEAD=0``, nothing to compile, no idle CPU beside this process
    (:data:`FREE_CPUS`), or no child could start)."""
    if not enabled() or index_kernels_ready():
        return None
    if os.environ.get(ENV) != "always" and free_cpus() < FREE_CPUS:
        return None  # the child would only take its CPU from the command
    return _spawn([_INDEX_FLAG, str(os.getpid())], detached=False)


def _undirected_scipy(n: int, indptr, indices, *, blocks: int | None = None):
    """``order.undirected``'s arrays by scipy (the child leaves the order's kernels to the
    command, which compiles them while it orders the map)."""
    import scipy.sparse as sp

    a = sp.csr_matrix((np.ones(len(indices), np.int8), indices, indptr), shape=(n, n))
    s = ((a + a.T) != 0).tocsr()
    s.setdiag(False)
    s.eliminate_zeros()
    s.sort_indices()
    return s.indptr.astype(np.int64), s.indices.astype(np.int32)


def _id_order(n: int, ptr, adj, **_: object) -> np.ndarray:
    """The rank of :func:`_ladder`: vertex ids in turn, along the ladder (a fill of a few
    edges per vertex; the order's own kernels are the command's)."""
    return np.arange(n, dtype=np.int32)


def _ladder(width: int = 3, length: int = 134, seed: int = 1):
    """A ``width`` x ``length`` grid, ids along its length, weights 1-4 (ties among the
    shortest paths, as on a road map), both directions: a road map's kernels on ~400
    vertices."""
    from gpu_core.graph import CSRGraph

    ids = np.arange(width * length).reshape(length, width)
    a = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    b = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    w = np.random.default_rng(seed).integers(1, 5, a.shape[0])
    return CSRGraph.from_edges(width * length, np.concatenate([a, b]),
                               np.concatenate([b, a]), np.concatenate([w, w]))


def warm_index_sampler() -> None:
    """The child's work: on a 402-node ladder (:func:`_ladder`), with a big map's kernel choices (the serial
    twins of small maps off), what a big map's sampled billboards on the CPU compile after
    the order: the chordal topology, the customization (``build_hierarchy``, as
    ``app.jobs.index.hierarchy_for``), the sampler's paths through the index, the rounds'
    greedy; the manifest of the functions asked for."""
    from gpu_core.betweenness import place_billboards, round_entries
    from gpu_core.hierarchy import build_hierarchy, order
    from gpu_core.hierarchy.cch import build_topology
    from gpu_core.hierarchy.chordal import eliminate
    from gpu_core.host import serial

    from .index_later import _Recorder, _write_manifest

    serial.SMALL_NODES = -1  # this process only: every pick as on a big map
    order.undirected = _undirected_scipy  # the command compiles the order's own kernels
    order.nested_dissection_order = _id_order
    g = _ladder()
    with _Recorder() as asked:
        t = build_topology(g)
        # a big map eliminates in bins of subtrees side by side (65,536 vertices or more)
        ptr, adj = _undirected_scipy(g.num_nodes, g.indptr, g.indices)
        eliminate(g.num_nodes, ptr, adj, t.rank, 1 << 40, np.zeros(2, np.int64), bins=4)
        h = build_hierarchy(g, method="cch", topology=t, backend="cpu")
        place_billboards(g, 2, mode="weighted", backend="cpu", method="sampled", epsilon=0.5,
                         hierarchy=h)
        round_entries.warm()  # the progressive rounds' greedy (a big map's first round)
    _write_manifest(INDEX_SAMPLER_STAGE, asked.names)


def _watch_parent(pid: int) -> None:
    """Exit this child as soon as the process ``pid`` that started it is gone."""
    def watch() -> None:
        while os.getppid() == pid:
            time.sleep(POLL_S)
        os._exit(3)

    threading.Thread(target=watch, name="signpost-parent-watch", daemon=True).start()


def main(argv: list[str]) -> int:
    if argv and argv[0] == _INDEX_FLAG:
        _watch_parent(int(argv[1]))
        warm_index_sampler()
        return 0
    from .index_later import behind_the_user

    if argv and argv[0] == _RASTER_FLAG:
        from .iso_raster import compile_kernel

        behind_the_user()
        compile_kernel()
        return 0
    # behind the window's own work: the child has a session of its own (start), so with
    # Linux's autogroup its nice alone ranked it only within that session and it took a
    # core from the window's thread as any other program (the first map's open, issue 41)
    behind_the_user()
    warm(argv[1:] or ["auto"], argv[0] if argv else "auto")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
