"""Matrices and sampled billboards on several GPUs or hosts through Dask (``dask.distributed``;
``dask_cuda.LocalCUDACluster`` for one worker per GPU). The client side: the cluster
(:func:`connect`), the map shipped to the workers once (:func:`ship_map`), and the work
split into blocks whose results come back in a fixed order (:func:`ordered_results`). What
a worker holds and runs is :mod:`app.jobs.dask_worker`.
(Over 500 lines: the client side of every --dask job, which shares the cluster and the
shipped map.)

Same output as one process: every block is a pure function of its arguments (a worker that
dies has its blocks re-run elsewhere), matrix rows are written in source order, and the
sampled billboards' draws are keyed by sample number, so any split gives the same paths.
The sampled billboards keep their paths on the workers (``dask_draws.KeptDraw``: the greedy runs
as K rounds of per-vertex counts summed here) or ship them here (``dask_draws.SampledDraw``).
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .dask_address import AddressError, _capped, _cores, parse_spec, probe_scheduler, shown
from .dask_worker import MapRef
from .npy_rows import cost_dtype, max_cost

if TYPE_CHECKING:
    from distributed import Client
    from distributed.deploy.cluster import Cluster as DaskCluster

__all__ = ["parse_spec", "shown"]  # the address checks, with the cluster for callers

INSTALL_HINT = "pip install 'signpost[dask]'"
CUDA_HINT = "pip install dask-cuda (or 'signpost[cuda13]')"
CONNECT_TIMEOUT_S = 10.0  # an unreachable or silent scheduler is named within this, in all
RETRIES = 2  # a block that raised (not one whose worker died: Dask re-runs those itself)
BLOCKS_PER_WORKER = 4  # the client's window of matrix blocks, per worker
MOST_BLOCKS_PER_WORKER = 8  # the finest split :func:`split_rows` considers
# Origins per GPU block at least: one GPHAST sweep is 1024 sources wide
# (gpu_core.hierarchy.cuda.K_MAX); without the index the batched variant runs 128 per
# launch on road maps, so a few launches per block.
GPU_MIN_BLOCK_INDEX = 1024
GPU_MIN_BLOCK = 256


class DistributedError(Exception):
    """A cluster that cannot be had or used (the message is one line for the user)."""


def require_dask():
    """The ``distributed`` module, or DistributedError saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise DistributedError(f"--dask needs Dask: {INSTALL_HINT}") from None
    return distributed


@dataclass
class Cluster:
    """A connected client, the local cluster it owns (if any) and the backend its workers
    run; a context manager that closes what it started."""

    client: Client
    owned: DaskCluster | None  # the LocalCluster / LocalCUDACluster started here
    backend: str  # "cpu" or "cupy"
    kind: str  # "LocalCluster", "LocalCUDACluster" or the scheduler's address
    start_s: float
    notes: list[str] = field(default_factory=list)  # e.g. a worker count capped

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def close(self) -> None:
        self.client.close()
        if self.owned is not None:
            self.owned.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _gpu_count() -> int:
    from gpu_core.backend import cupy_status

    if not cupy_status()[0]:
        return 0
    import cupy as cp

    return int(cp.cuda.runtime.getDeviceCount())


def connect(spec: str, backend: str = "auto", *, timeout: float | None = None) -> Cluster:
    """The cluster ``--dask spec`` names (:func:`parse_spec`). ``local`` starts one worker
    per GPU (LocalCUDACluster) when this machine has GPUs and ``backend`` is not cpu, else
    a LocalCluster of N single-threaded processes (default: one per core) on the CPU;
    ``local:N`` asks for more than that: capped, with a note. A scheduler address is
    probed first (:func:`probe_scheduler`); DistributedError within ``timeout`` seconds in
    all for anything that is not a Dask scheduler with a worker."""
    distributed = require_dask()
    try:
        where, n = parse_spec(spec)
    except AddressError as exc:
        raise DistributedError(str(exc)) from None
    timeout = CONNECT_TIMEOUT_S if timeout is None else timeout
    t0 = time.perf_counter()
    if where != "local":
        return _connect_scheduler(distributed, where, backend, timeout, t0)
    gpus = _gpu_count() if backend != "cpu" else 0
    notes: list[str] = []
    if gpus:
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            raise DistributedError(f"--dask local on GPUs needs dask-cuda: {CUDA_HINT}; or "
                                   "--backend cpu") from None
        n = _capped(n, gpus, "GPU", notes)
        with local_cluster_config():
            owned = LocalCUDACluster(n_workers=n, threads_per_worker=1,
                                     dashboard_address=None)
        kind, be = "LocalCUDACluster", "cupy"
    else:
        n = _capped(n, _cores(), "core", notes)
        with local_cluster_config():
            owned = distributed.LocalCluster(n_workers=n, threads_per_worker=1,
                                             processes=True, dashboard_address=None)
        kind, be = "LocalCluster", "cpu"
    client = distributed.Client(owned)
    client.wait_for_workers(n)
    return Cluster(client, owned, be, kind, time.perf_counter() - t0, notes)


def _connect_scheduler(distributed, where: str, backend: str, timeout: float,
                       t0: float) -> Cluster:
    """A client of the scheduler at ``where``, its first worker waited for; the whole
    within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    try:
        probe_scheduler(where, timeout)
    except AddressError as exc:
        raise DistributedError(str(exc)) from None
    try:
        client = distributed.Client(where, timeout=max(1.0, deadline - time.monotonic()))
    except (OSError, TimeoutError) as exc:
        raise DistributedError(f"cannot reach the Dask scheduler at {where} within "
                               f"{timeout:g} s ({type(exc).__name__})") from None
    try:
        client.wait_for_workers(1, timeout=max(0.5, deadline - time.monotonic()))
    except (OSError, TimeoutError):
        client.close()
        raise DistributedError(f"the Dask scheduler at {where} has no workers (none joined "
                               f"within {timeout:g} s)") from None
    return Cluster(client, None, worker_backend(client, backend), where,
                   time.perf_counter() - t0)


@contextlib.contextmanager
def local_cluster_config() -> Iterator[None]:
    """Dask config for the clusters started here (``connect("local...")``), a context
    manager around their start:

    * no active memory manager: its default policy drops the extra copies of broadcast
      data (the shipped map, the targets, the billboards' sample plan) that no task is
      waiting for, and the worker left holding the only copy may be the one that dies;
      then nothing can be re-run. A scheduler started elsewhere (``dask scheduler``) keeps
      its own setting: start it with
      ``DASK_DISTRIBUTED__SCHEDULER__ACTIVE_MEMORY_MANAGER__START=False`` for the same.
    * no statistical profiler on the workers: it samples the task thread's stack every
      10 ms under the GIL, a tax on the many short kernel launches of a GPU block, for a
      dashboard these clusters do not open (``dashboard_address=None``).
    * the workers' environment without ``MALLOC_TRIM_THRESHOLD_``: setting it turns off
      glibc's adaptive mmap threshold, so every array over 128 kB is mapped and faulted in
      afresh; a worker then runs numpy-heavy blocks slower than one process does. The
      single-thread BLAS/OpenMP settings stay (one worker per core on the CPU).
    (Each worker's numba threads are its host's cores shared among the workers there:
    ``dask_worker.share_cores``, at every task.) The nannies set these variables in this
    process too, and the next cluster would take them from here: they are put back."""
    import dask

    environ = {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1}
    before = {k: os.environ.get(k) for k in environ}
    try:
        with dask.config.set({"distributed.scheduler.active-memory-manager.start": False,
                              "distributed.worker.profile.enabled": False,
                              "distributed.nanny.pre-spawn-environ": environ}):
            yield
    finally:  # the nannies set these in this process too (and would prefer them next time)
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def worker_backend(client, backend: str) -> str:
    """What ``backend`` resolves to on the workers: cupy when every one has a GPU."""
    from .dask_worker import resolved_backend

    if backend == "cpu":
        return "cpu"
    got = set(client.run(resolved_backend, backend).values())
    return "cupy" if got == {"cupy"} else "cpu"


@dataclass
class Shipment:
    """The map as the block tasks receive it: a reference plus the shipped copies (Dask
    futures, None when the workers read the files)."""

    ref: MapRef
    graph: object | None
    hierarchy: object | None
    workers: dict = field(default_factory=dict)  # worker -> dask_worker.WorkerMap.stats()
    ship_s: float = 0.0

    def args(self) -> tuple:
        return self.ref, self.graph, self.hierarchy

    def summary(self) -> str:
        """'map read from the file / shipped, loaded in 0.31, 0.29 s (index 0.05, 0.05 s)'."""
        st = list(self.workers.values())
        how = "read from its file" if self.ref.spn else "shipped once"
        text = (f"map {how} on each worker, loaded in "
                + ", ".join(f"{s['load_s']:.2f}" for s in st) + " s")
        if self.ref.index or self.hierarchy is not None:
            text += " (route index " + ", ".join(f"{s['index_s']:.2f}" for s in st) + " s)"
        if any(s["warm_s"] for s in st):
            text += "; kernels made in " + ", ".join(f"{s['warm_s']:.2f}" for s in st) + " s"
        if any(s.get("gpu_free_gib") for s in st):
            text += ("; GPU memory free " + ", ".join(f"{s['gpu_free_gib']}" for s in st)
                     + " GiB")
        return text


def busy_by_worker(client) -> dict:
    """Each worker's seconds per kind of work since the last call (``dask_worker.take_busy``:
    rows, write, sync, draw, rounds, tasks), keyed by worker address; {} when a worker
    cannot be asked (closed or lost)."""
    from .dask_worker import take_busy

    try:
        return dict(client.run(take_busy))
    except (OSError, RuntimeError, TimeoutError):
        return {}


def _on_every_worker(client, path: str | None) -> bool:
    if not path:
        return False
    seen = client.run(os.path.exists, path)
    return bool(seen) and all(seen.values())


def ship_map(client, net, backend: str, hierarchy=None, index_path: str = "",
             warm: tuple | None = None) -> Shipment:
    """Give every worker the map ``net`` (a RoadNetwork or CSRGraph) and its route index:
    the cached files by path where every worker sees them, else the arrays, sent once to
    each (``scatter(broadcast=True)``); then load them there (and with ``warm``, make the
    kernels: ``dask_worker.preload``), apart from the timed work."""
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import graph_key

    from .dask_worker import preload
    from .index import release_device_copies

    t0 = time.perf_counter()
    # what this process keeps on its GPU would narrow the sweeps of the worker beside it
    release_device_copies(hierarchy)
    g = CSRGraph.from_any(net)
    spn = (getattr(net, "meta", None) or {}).get("cache_file")
    spn = spn if _on_every_worker(client, spn) else None
    gfut = None if spn else client.scatter(CSRGraph(g.indptr, g.indices, g.weights),
                                           broadcast=True, hash=False)
    idx = index_path if hierarchy is not None and _on_every_worker(client, index_path) else None
    hfut = (client.scatter(hierarchy, broadcast=True, hash=False)
            if hierarchy is not None and idx is None else None)
    info = client.scheduler_info()["workers"]
    hosts = Counter(w.get("host", "") for w in info.values())
    ship = Shipment(MapRef(graph_key(g), spn, idx, backend, tuple(sorted(hosts.items()))),
                    gfut, hfut)
    names = list(info)
    futs = [client.submit(preload, *ship.args(), warm, workers=[w], pure=False)
            for w in names]
    ship.workers = dict(zip(names, client.gather(futs), strict=True))
    ship.ship_s = time.perf_counter() - t0
    return ship


def ordered_results(client, submit: Callable[[int, str], object], count: int, *,
                    window: int, on_done: Callable[[int, int], None] | None = None,
                    ) -> Iterator[tuple[int, Any]]:
    """(i, result of block i) for i = 0..count-1 in that order, as blocks finish: block i
    is given out once every block before it was; later ones wait in a buffer. At most
    ``window`` blocks are submitted and not yet given out (bounded memory). ``submit(i,
    key)`` submits block i under ``key``. On any exception (Ctrl-C included) the
    outstanding futures are cancelled. A result is what block i's task returned (Any: a
    Dask future's result is untyped)."""
    distributed = require_dask()
    run = uuid.uuid4().hex[:12]
    pending: dict = {}  # future -> block
    ready: dict[int, object] = {}
    flow = distributed.as_completed()
    state = {"submitted": 0}

    def more() -> None:
        i = state["submitted"]
        if i < count:
            fut = submit(i, f"signpost-{run}-{i}")
            pending[fut] = i
            flow.add(fut)
            state["submitted"] = i + 1

    done = nxt = 0
    try:
        for _ in range(min(window, count)):
            more()
        for fut in flow:
            i = pending.pop(fut)
            try:
                ready[i] = fut.result()
            except distributed.client.FutureCancelledError:
                raise DistributedError(f"block {i} was cancelled by the cluster") from None
            except distributed.scheduler.KilledWorker as exc:
                raise DistributedError(f"block {i} killed the workers that ran it: "
                                       f"{exc}") from None
            fut.release()
            done += 1
            if on_done is not None:
                on_done(done, count)
            while nxt in ready:
                yield nxt, ready.pop(nxt)
                nxt += 1
                more()
    except BaseException:
        try:
            client.cancel(list(pending), force=True)
        except (RuntimeError, OSError):  # the client is closed already: so are its futures
            pass
        raise
    finally:
        pending.clear()


@dataclass
class _MatrixPlan:
    """A matrix split into blocks of origins, the map and the targets on the workers."""

    ship: Shipment
    rows: int
    count: int
    narrow: bool
    src: np.ndarray
    targets: object  # the targets, scattered to every worker
    window: int


def _matrix_plan(client, net, sources, targets, *, backend, variant, hierarchy, index_path,
                 block, stats, output: str) -> _MatrixPlan:
    ship = ship_map(client, net, backend, hierarchy, index_path, warm=("matrix", variant))
    F, T = int(sources.shape[0]), int(targets.shape[0])
    workers = max(1, len(ship.workers))
    # a GPU block is whole GPHAST sweeps (or a few batched launches) wide
    least = (1 if backend != "cupy" else sweep_unit(client, ship, T) if hierarchy
             else GPU_MIN_BLOCK)
    rows = block or block_rows(client, backend, F, T, workers, least)
    # every cost fits int32 when the arc weights sum below 2^31: half the bytes come back
    narrow = cost_dtype(max_cost(net.weights)) == np.int32
    tfut = client.scatter(np.ascontiguousarray(targets, dtype=np.int32), broadcast=True)
    count = -(-F // rows)
    if stats is not None:
        stats.update(dask_workers=workers, dask_blocks=count, dask_block_rows=rows,
                     dask_map=ship.summary(), dask_ship_s=round(ship.ship_s, 3),
                     dask_worker_stats=ship.workers, backend=backend, dask_output=output)
    return _MatrixPlan(ship, rows, count, narrow, np.ascontiguousarray(sources, np.int32),
                       tfut, max(2, BLOCKS_PER_WORKER * workers))


def matrix_rows(client, net, sources: np.ndarray, targets: np.ndarray, *, backend: str,
                variant: str = "auto", hierarchy=None, index_path: str = "",
                block: int | None = None, stats: dict | None = None,
                on_block: Callable[[int, int], None] | None = None,
                ) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, int64 block) in source order, computed by the workers of ``client``.
    ``block``: origins per task (default: :func:`block_rows`); ``stats`` receives the
    workers, how the map reached them, each one's load time and ``dask_submit_t`` (the
    ``time.perf_counter()`` of the first block submitted)."""
    from .dask_worker import matrix_block

    mp = _matrix_plan(client, net, sources, targets, backend=backend, variant=variant,
                      hierarchy=hierarchy, index_path=index_path, block=block, stats=stats,
                      output=ROWS_SHIPPED)
    rows = mp.rows

    def submit(i: int, key: str):
        return client.submit(matrix_block, *mp.ship.args(), variant,
                             mp.src[i * rows:(i + 1) * rows], mp.targets, mp.narrow, key=key,
                             retries=RETRIES)

    if stats is not None:  # the timed work starts here (the map is on the workers)
        stats["dask_submit_t"] = time.perf_counter()
    for i, part in ordered_results(client, submit, mp.count, window=mp.window,
                                   on_done=on_block):
        yield i * rows, part.astype(np.int64, copy=False)
    if stats is not None:
        stats["dask_busy"] = busy_by_worker(client)


ROWS_SHIPPED = "rows shipped to the client"
ROWS_WRITTEN = "rows written by workers"


def workers_see(client, path: str) -> bool:
    """Whether every worker sees ``path`` (one host, or a shared file system): the check
    that lets them read the map's file, and write a matrix's ``.npy`` in place."""
    return _on_every_worker(client, path)


def matrix_to_npy(client, net, sources: np.ndarray, targets: np.ndarray, path: str, *,
                  backend: str, variant: str = "auto", hierarchy=None, index_path: str = "",
                  block: int | None = None, stats: dict | None = None,
                  on_block: Callable[[int, int], None] | None = None) -> int:
    """The workers write their blocks of rows straight into ``path``, a ``.npy`` of shape
    [F, T] the caller made (``npy_rows.create_npy``) where every worker sees it
    (:func:`workers_see`); nothing but each block's unreachable count comes back. Returns
    the unreachable pairs.

    Each worker streams its blocks into one writer of its own (``dask_worker
    .matrix_block_behind``: a block's last rows are written while its next block is
    searched), and at the end flushes it and names the blocks it holds
    (``finish_writes``); a block whose worker was lost meanwhile (its rows perhaps never
    written) is run again, flushed, on a worker still there: the same bytes again.
    ``stats``/``on_block`` as :func:`matrix_rows`."""
    from .dask_worker import drop_writes, finish_writes, matrix_block_behind, matrix_block_to_file

    mp = _matrix_plan(client, net, sources, targets, backend=backend, variant=variant,
                      hierarchy=hierarchy, index_path=index_path, block=block, stats=stats,
                      output=ROWS_WRITTEN)
    rows = mp.rows

    def args(i: int) -> tuple:
        return (*mp.ship.args(), variant, mp.src[i * rows:(i + 1) * rows], mp.targets,
                mp.narrow, path, i * rows)

    def submit(i: int, key: str):
        return client.submit(matrix_block_behind, *args(i), key=key, retries=RETRIES)

    if stats is not None:
        stats["dask_submit_t"] = time.perf_counter()
    done = False
    try:
        for _ in ordered_results(client, submit, mp.count, window=mp.count, on_done=on_block):
            pass
        flushed = client.run(finish_writes, path, on_error="return")
        held = {first: count for got in flushed.values() if isinstance(got, dict)
                for first, count in got.items()}  # counted by the writers' threads
        lost = [i for i in range(mp.count) if i * rows not in held]
        unreachable = sum(held.get(i * rows, 0) for i in range(mp.count))
        if lost:  # their worker died after the task: write them again, flushed
            futs = [client.submit(matrix_block_to_file, *args(i), pure=False,
                                  retries=RETRIES) for i in lost]
            unreachable += sum(int(u) for u in client.gather(futs))
        done = True
    finally:
        if not done:
            try:
                client.run(drop_writes, path, on_error="return")
            except (OSError, RuntimeError, TimeoutError):  # the client is closed already
                pass
    if stats is not None:
        stats["dask_busy"] = busy_by_worker(client)
        stats["dask_rewritten"] = len(lost)
    return unreachable


def sweep_unit(client, ship: Shipment, ncols: int) -> int:
    """The rows of one GPHAST sweep on the narrowest worker (``dask_worker.sweep_width``):
    the unit blocks are cut in. GPU_MIN_BLOCK_INDEX (a sweep's most) where a worker cannot
    say; on a 24M-node map a sweep is ~224-256 wide, and 1,024-row blocks cost 5 sweeps
    of 205 on a 224-wide worker where 4.5 would do."""
    from .dask_worker import sweep_width

    try:
        widths = [int(w) for w in client.run(sweep_width, ship.ref, int(ncols)).values()]
    except (OSError, RuntimeError, TimeoutError):  # a worker lost: the blocks still run
        widths = []
    return min((w for w in widths if w > 0), default=GPU_MIN_BLOCK_INDEX)


def block_rows(client, backend: str, F: int, T: int, workers: int, least: int = 1) -> int:
    """Origins per block: :func:`split_rows` in whole multiples of ``least`` (a GPU's
    efficient width), no more than a block's rows fit the smallest worker budget
    (``dask_worker.block_budget``: host memory, and the GPU's free memory) and the client's
    buffer of a window of blocks."""
    from osutil.memory import available_memory

    from .dask_worker import block_budget

    per_row = 8 * max(T, 1)
    budget = min(client.run(block_budget, backend).values())
    window = BLOCKS_PER_WORKER * workers
    fit = min(budget // per_row, available_memory() // 4 // (window * per_row))
    rows = split_rows(F, least, workers)
    if fit < rows:  # memory bounds the block: whole GPU batches still, where they fit
        rows = fit // least * least if fit >= least else fit
    return int(max(1, rows))


def split_rows(total: int, width: int, workers: int) -> int:
    """Rows per block for ``total`` rows on ``workers`` equal workers, in whole batches of
    ``width`` (a GPU sweep's sources; 1 on the CPU): the split whose busiest worker has
    the fewest batches (a block ending in a part-filled batch costs nearly a whole one),
    and among those within 1% of it the finest, up to MOST_BLOCKS_PER_WORKER blocks per
    worker (progress, and less to redo when a worker dies). E.g. 225 sweeps on 4 GPUs:
    12 blocks of 19 (57 sweeps the busiest) rather than 16 of 15 (60)."""
    units = -(-max(total, 1) // max(width, 1))
    best: list[tuple[int, int]] = []  # (busiest worker's batches, batches per block)
    for m in range(1, MOST_BLOCKS_PER_WORKER + 1):
        per = -(-units // (workers * m))
        count = -(-units // per)
        best.append((-(-count // workers) * per, per))
    least_load = min(load for load, _ in best)
    per = min(p for load, p in best if load <= least_load * 1.01)
    return per * max(width, 1)
