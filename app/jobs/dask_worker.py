"""What a Dask worker holds and runs for the distributed jobs (:mod:`app.jobs.distributed`).

A worker loads the map once: from the cached ``.spn`` file by path when every worker sees
it (a shared file system), else from the arrays the client shipped once to every worker.
It keeps the graph, its route index and the billboards' path samplers (whose device
copies CuPy/``gpu_core.device`` cache beside them) between blocks, in a dict on the worker
object (``distributed.get_worker()``), keyed by the graph's fingerprint; one map at a time.

The block tasks are pure: the same arguments give the same bytes on any worker, so the
scheduler may re-run a block elsewhere when a worker dies, and retries are safe.
Imported on the workers; the client imports it only to name the task functions.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from gpu_core.betweenness.sampling import Cover
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import Hierarchy


@dataclass(frozen=True)
class MapRef:
    """Which map the tasks run on, and where a worker finds it."""

    key: str  # fingerprint of the CSR arrays (gpu_core.hierarchy.graph_key)
    spn: str | None  # the cached .spn file every worker reads, or None: the graph is shipped
    index: str | None  # the route index file every worker reads, or None (none or shipped)
    backend: str  # "auto", "cpu" or "cupy", as each worker resolves it
    host_workers: tuple = ()  # ((host, workers on it), ...): they share its cores


@dataclass
class WorkerMap:
    """One worker's copy of the map and what it keeps between blocks."""

    graph: CSRGraph
    hierarchy: Hierarchy | None
    how: str  # "file" or "shipped"
    load_s: float
    index_s: float
    samplers: dict = field(default_factory=dict)  # mode -> gpu_core.betweenness.PathSampler
    blocks: int = 0
    warm_s: float = 0.0
    gpu_free_gib: float | None = None  # the device memory free after the warm-up
    busy: dict = field(default_factory=dict)  # seconds per kind of work since take_busy()
    sweeps: dict = field(default_factory=dict)  # the searches' own counts since take_busy()

    def stats(self) -> dict:
        return {"pid": os.getpid(), "how": self.how, "load_s": round(self.load_s, 3),
                "index_s": round(self.index_s, 3), "warm_s": round(self.warm_s, 3),
                "blocks": self.blocks, "gpu_free_gib": self.gpu_free_gib}

    def add(self, kind: str, t0: float) -> None:
        """Count the seconds since ``t0`` as work of ``kind`` (see :func:`take_busy`)."""
        self.busy[kind] = self.busy.get(kind, 0.0) + time.perf_counter() - t0


_LOCAL: dict = {}  # outside a worker (tests call the tasks directly)


def _this_worker(worker=None):
    """The Dask worker running this code (``worker`` when ``client.run`` passed it), or
    None outside one (tests calling the tasks directly)."""
    if worker is not None:
        return worker
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):
        return None


def _held(name: str, worker=None) -> dict:
    """What this worker keeps under ``name`` between tasks (a dict on the worker object;
    outside a worker, in this module): "maps" (key -> WorkerMap), "runs" (run id ->
    {block: KeptBlock}), "writers" (path -> (NpyRows, blocks queued into it))."""
    worker = _this_worker(worker)
    store = _LOCAL if worker is None else worker.__dict__.setdefault("_signpost", {})
    return store.setdefault(name, {})


def _maps(worker=None) -> dict:
    return _held("maps", worker)


def worker_map(ref: MapRef, graph=None, hierarchy=None) -> WorkerMap:
    """This worker's map ``ref`` (loaded on first use; ``graph``/``hierarchy``: the shipped
    copies when ``ref`` names no file)."""
    share_cores(ref)
    held = _maps()
    wm = held.get(ref.key)
    if wm is not None:
        return wm
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import Hierarchy, graph_key

    t0 = time.perf_counter()
    if graph is None:
        from maps.cache import read_cache

        if ref.spn is None or not os.path.exists(ref.spn):
            raise FileNotFoundError(f"map file {ref.spn} is not on worker pid {os.getpid()}")
        g, how = CSRGraph.from_any(read_cache(ref.spn)), "file"
    else:
        g, how = CSRGraph.from_any(graph), "shipped"
    if graph_key(g) != ref.key:
        raise ValueError(f"map {ref.spn or '(shipped)'} on worker pid {os.getpid()} is not the "
                         "client's map (its fingerprint differs)")
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    if hierarchy is None and ref.index is not None:
        hierarchy = Hierarchy.load(ref.index, key=ref.key)
    held.clear()  # one map per worker: free the previous one's host and device memory
    wm = held[ref.key] = WorkerMap(g, hierarchy, how, load_s, time.perf_counter() - t0)
    return wm


def share_cores(ref: MapRef) -> int:
    """Give this task thread's numba pool this host's cores shared among the run's workers
    on it (each pool defaults to every core: W workers' parallel host steps, such as a GPU
    block's upward searches, would oversubscribe them W times); returns the threads.
    numba's count is per thread, and a Dask worker runs its tasks on the same threads."""
    import numba

    worker = _this_worker()
    if worker is None or not ref.host_workers:
        return numba.get_num_threads()
    from .dask_address import _cores

    count = max(1, dict(ref.host_workers).get(worker.ip, 1))
    # numba.config sets its options from the environment at import: unseen by its stubs
    most = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    threads = max(1, min(most, _cores() // count))
    numba.set_num_threads(threads)
    return threads


def preload(ref: MapRef, graph=None, hierarchy=None, warm: tuple | None = None) -> dict:
    """Load the map on this worker (before the timed work) and say how long it took;
    ``warm`` (("matrix", variant) or ("sample", mode)): also make the kernels and device
    copies the blocks will use, with one tiny block (``warm_s``)."""
    wm = worker_map(ref, graph, hierarchy)
    if warm is not None:
        t0 = time.perf_counter()
        one = np.zeros(1, dtype=np.int32)
        if warm[0] == "matrix":
            matrix_block(ref, graph, hierarchy, warm[1], one, one, False)
        else:
            sample_block(ref, graph, hierarchy, warm[1], one, one.reshape(1, 1), 1, 0)
        wm.blocks -= 1  # not one of the job's
        wm.busy = {}
        wm.warm_s = time.perf_counter() - t0
    if resolved_backend(ref.backend) == "cupy":  # what the blocks' chunks are sized by
        from gpu_core.device import memory

        wm.gpu_free_gib = round(memory.free_memory()[0] / 2**30, 1)
    return wm.stats()


def take_busy(dask_worker=None) -> dict:
    """Seconds this worker spent per kind of work since the last call (then zeroed), for
    the per-worker breakdown of a run (``client.run(take_busy)``): ``rows`` (matrix rows
    computed), ``write`` (rows written into the .npy), ``sync`` (flushed to disk),
    ``draw`` (sampled paths drawn and kept), ``rounds`` (greedy rounds' counts), and
    ``tasks`` (every block task, end to end: what is not in it is time the worker waited
    for work); under ``counts`` the matrix searches' numbers (``sweeps``, ``wide_sweeps``,
    ``K``, ``bits``, ``query``), not seconds."""
    out: dict = {}
    for wm in _maps(dask_worker).values():
        out = {k: round(v, 3) for k, v in wm.busy.items()}
        if wm.sweeps:
            out["counts"] = dict(wm.sweeps)
        wm.busy, wm.sweeps = {}, {}
    return out


def resolved_backend(backend: str) -> str:
    """The backend ``backend`` resolves to on this worker."""
    from gpu_core.backend import resolve_backend

    return resolve_backend(backend)


def block_budget(backend: str) -> int:
    """Bytes one block's result may take on this worker: an eighth of the host memory
    available, and on the GPU half the free device memory (where its rows are made)."""
    from osutil.memory import available_memory

    budget = available_memory() // 8
    if resolved_backend(backend) == "cupy":
        from gpu_core.device import memory

        budget = min(budget, memory.free_memory()[0] // 2)
    return max(budget, 1 << 20)


def sweep_width(ref: MapRef, ncols: int, dask_worker=None) -> int:
    """Sources per GPHAST sweep this worker's blocks would get on its loaded route index,
    ``ncols`` target columns beside the sweep (``hierarchy.cuda.resident_width``, from the
    device memory free now; the billboards' indexed sampler's own width once it is made);
    0 without an index on a GPU here. The client cuts blocks in whole sweeps of the
    smallest (a 1,024-row block on a 224-wide worker is 5 sweeps)."""
    wm = _maps(dask_worker).get(ref.key)
    if wm is None or wm.hierarchy is None or resolved_backend(ref.backend) != "cupy":
        return 0
    for ps in wm.samplers.values():  # an indexed path sampler holds its sweep block already
        if getattr(ps, "kernel", "") == "indexed":
            return int(ps.sampler.K)
    from gpu_core.errors import GpuOutOfMemoryError
    from gpu_core.hierarchy.cuda import resident_width

    try:
        return int(resident_width(wm.hierarchy, int(ncols), 1 << 30))
    except GpuOutOfMemoryError:  # the block will say so itself, with its sizes
        return 0


def matrix_block(ref: MapRef, graph, hierarchy, variant: str, sources: np.ndarray,
                 targets: np.ndarray, narrow: bool) -> np.ndarray:
    """Costs of one block of origins to every target ([k, T], -1 unreachable): int32 when
    ``narrow`` (every cost fits; half the bytes to send back), else int64."""
    from gpu_core.multi_source import iter_distance_rows

    t0 = time.perf_counter()
    wm = worker_map(ref, graph, hierarchy)
    out = np.empty((sources.shape[0], targets.shape[0]), dtype=np.int32 if narrow else np.int64)
    for r0, rows in iter_distance_rows(wm.graph, sources, targets=targets, backend=ref.backend,
                                       variant=variant, hierarchy=wm.hierarchy):
        out[r0 : r0 + rows.shape[0]] = rows
    wm.blocks += 1
    wm.add("rows", t0)
    wm.add("tasks", t0)
    return out


def _timed_rows(wm: WorkerMap, ref: MapRef, variant: str, sources: np.ndarray,
                targets: np.ndarray, narrow: bool):
    """The block's (first row, rows) chunk by chunk, each chunk's search counted as
    ``rows`` work of ``wm``."""
    from gpu_core.multi_source import iter_distance_rows

    st: dict = {}
    rows_it = iter_distance_rows(wm.graph, sources, targets=targets, backend=ref.backend,
                                 variant=variant, hierarchy=wm.hierarchy, narrow=narrow,
                                 stats=st)
    while True:
        t0 = time.perf_counter()
        got = next(rows_it, None)
        wm.add("rows", t0)
        if got is None:
            _count_sweeps(wm, st)
            return
        yield got


# ``iter_distance_rows``' search stats a worker reports: counts summed over its blocks
# (GPU sweeps, those re-run in 64 bits), then facts of its last block
SWEEP_TOTALS = ("sweeps", "wide_sweeps")
SWEEP_FACTS = ("variant", "query", "K", "bits")


def _count_sweeps(wm: WorkerMap, st: dict) -> None:
    """Add one block's search stats (``SWEEP_TOTALS``, ``SWEEP_FACTS``) to the worker's
    breakdown: why a worker's rows cost more than the one process's shows there."""
    for k in SWEEP_TOTALS:
        if k in st:
            wm.sweeps[k] = wm.sweeps.get(k, 0) + int(st[k])
    for k in SWEEP_FACTS:
        if k in st:
            wm.sweeps[k] = st[k]


def matrix_block_to_file(ref: MapRef, graph, hierarchy, variant: str, sources: np.ndarray,
                         targets: np.ndarray, narrow: bool, path: str, first: int) -> int:
    """The rows of :func:`matrix_block` written straight into rows ``first``.. of the
    ``.npy`` file ``path`` (the client made it; this worker sees it) as each sweep's chunk
    comes (``npy_rows.NpyRows``: written behind the next chunk's search), then flushed to
    disk, as the one-process writer does; returns the block's unreachable count (all that
    goes back). Run again, it writes the same bytes."""

    from .npy_rows import NpyRows

    t_task = time.perf_counter()
    wm = worker_map(ref, graph, hierarchy)
    with NpyRows(path, first) as out:
        for r0, rows in _timed_rows(wm, ref, variant, sources, targets, narrow):
            t0 = time.perf_counter()
            out.put(r0, rows)
            wm.add("wait_write", t0)  # the previous chunk's write not done yet
        t0 = time.perf_counter()
        unreachable = out.finish()
        wm.add("sync", t0)
        wm.busy["write"] = wm.busy.get("write", 0.0) + out.write_s
    wm.blocks += 1
    wm.add("tasks", t_task)
    return unreachable


def _writers(worker=None) -> dict:
    return _held("writers", worker)


def matrix_block_behind(ref: MapRef, graph, hierarchy, variant: str, sources: np.ndarray,
                        targets: np.ndarray, narrow: bool, path: str, first: int) -> str:
    """:func:`matrix_block_to_file` without waiting for the disk: the rows go into this
    worker's writer of ``path`` (one per file, kept across blocks, so the last chunk of a
    block is written while the next block's search runs) and the task returns once they
    are queued: this worker's address. The writer's thread counts each block's
    unreachable pairs; the client then has every worker finish its writer
    (:func:`finish_writes`: the blocks flushed and their counts) and re-runs, with
    :func:`matrix_block_to_file`, any block whose worker cannot say it was flushed."""

    from .npy_rows import NpyRows

    t_task = time.perf_counter()
    wm = worker_map(ref, graph, hierarchy)
    held = _writers()
    if path not in held:
        held[path] = (NpyRows(path), [])
    out, firsts = held[path]
    for r0, rows in _timed_rows(wm, ref, variant, sources, targets, narrow):
        t0 = time.perf_counter()
        out.put(first + r0, rows, tag=first)
        wm.add("wait_write", t0)  # DEPTH chunks queued already
    firsts.append(first)
    wm.blocks += 1
    wm.add("tasks", t_task)
    return _address()


def finish_writes(path: str, dask_worker=None) -> dict[int, int]:
    """Finish this worker's writer of ``path`` (its last writes, then ``fdatasync``) and
    say which blocks (their first rows) it holds flushed, with each one's unreachable
    pairs; {} when it has none (a worker started after the blocks ran). Through
    ``client.run``."""
    held = _writers(dask_worker).pop(path, None)
    if held is None:
        return {}
    out, firsts = held
    t0 = time.perf_counter()
    out.finish()
    for wm in _maps(dask_worker).values():
        wm.add("sync", t0)
        wm.busy["write"] = wm.busy.get("write", 0.0) + out.write_s
    return {first: int(out.by_tag.get(first, 0)) for first in firsts}


def drop_writes(path: str, dask_worker=None) -> None:
    """Close this worker's writer of ``path`` without flushing (a failed or cancelled run:
    the client removes the file)."""
    held = _writers(dask_worker).pop(path, None)
    if held is not None:
        held[0].close()


def _sampler(ref: MapRef, graph, hierarchy, mode: str):
    """(this worker's map, its path sampler for ``mode``), made on first use."""
    from gpu_core.betweenness import path_sampler

    wm = worker_map(ref, graph, hierarchy)
    sampler = wm.samplers.get(mode)
    if sampler is None:
        sampler = wm.samplers[mode] = path_sampler(wm.graph, mode, ref.backend, wm.hierarchy)
    return wm, sampler


def sample_block(ref: MapRef, graph, hierarchy, mode: str, srcs: np.ndarray,
                 tgts: np.ndarray, hash_seed: int, base: int):
    """One block of the sampled billboards' paths (samples base..base+len(srcs)):
    (sample numbers, vertices, reached flags per sample, sampler kernel)."""
    from gpu_core.betweenness import draw_block

    t0 = time.perf_counter()
    wm, sampler = _sampler(ref, graph, hierarchy, mode)
    es, ev, reached = draw_block(sampler, srcs, tgts, hash_seed, base)
    wm.blocks += 1
    wm.add("draw", t0)
    wm.add("tasks", t0)
    return es, ev, reached, sampler.kernel


# -- sampled billboards with the paths kept on the workers (dask_draws.KeptDraw) --------

@dataclass
class KeptBlock:
    """One block of sample numbers a worker drew and keeps: its greedy state
    (``gpu_core.betweenness.sampling.Cover``, on the sampler's device) and how many of the
    run's chosen sites it has marked."""

    cover: Cover
    figures: dict  # reached pairs, entries, samples covered by the fixed sites, kernel
    applied: int = 0


def _runs(worker=None) -> dict:
    return _held("runs", worker)


def _address() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "local"


def _kept_block(ref: MapRef, graph, hierarchy, mode: str, run: str, span: Sequence[int],
                plan, in_r: np.ndarray) -> tuple[KeptBlock, bool]:
    """Block ``span`` = (index, first sample, end) of ``run`` on this worker: the one it
    keeps, else drawn now (draws are keyed by sample number: a redraw is exact) with the
    fixed sites ``in_r`` marked. Returns (block, drawn now)."""
    from gpu_core.betweenness import draw_block
    from gpu_core.betweenness.sampling import Cover

    i, lo, hi = span
    kept = _runs().setdefault(run, {})
    if i in kept:
        return kept[i], False
    t0 = time.perf_counter()
    wm, sampler = _sampler(ref, graph, hierarchy, mode)
    es, ev, reached = draw_block(sampler, plan.srcs[lo:hi], plan.tgts[lo:hi], plan.hash_seed,
                                 lo, host=False)
    cover = Cover(sampler.xp, es, ev, hi - lo, first=lo)
    base = cover.mark_set(in_r)
    kept[i] = block = KeptBlock(cover, {"reached": int(reached.sum()), "entries": int(es.size),
                                        "base": base, "kernel": sampler.kernel})
    wm.blocks += 1
    wm.add("draw", t0)
    return block, True


def keep_block(ref: MapRef, graph, hierarchy, mode: str, run: str, span: tuple[int, int, int],
               plan, in_r: np.ndarray) -> dict:
    """Draw block ``span`` of ``run`` and keep its paths here: its reached pairs, entries,
    samples covered by the fixed sites, the sampler's kernel, and this worker's address
    (where the greedy rounds send their counts tasks)."""
    t0 = time.perf_counter()
    block, _ = _kept_block(ref, graph, hierarchy, mode, run, tuple(span), plan, in_r)
    worker_map(ref, graph, hierarchy).add("tasks", t0)
    return {**block.figures, "worker": _address()}


def block_counts(ref: MapRef, graph, hierarchy, mode: str, run: str, spans: list, plan,
                 in_r: np.ndarray, chosen: list[int]) -> tuple[str, np.ndarray, int]:
    """One greedy round over the blocks ``spans`` of ``run``: each marks the chosen sites
    it has not marked yet (a block this worker does not hold, its worker lost, is drawn
    again and replays them all), then gives its per-vertex counts of uncovered samples
    (``Cover.counts``, the one-process greedy's). Returns (this worker's address, the
    blocks' summed counts as int32 [n] on the host: every count is at most the sample
    count, below 2^31; blocks drawn again)."""
    t0 = time.perf_counter()
    wm = worker_map(ref, graph, hierarchy)
    n = wm.graph.num_nodes
    total = None
    redrawn = 0
    for span in spans:
        block, drawn = _kept_block(ref, graph, hierarchy, mode, run, tuple(span), plan, in_r)
        redrawn += int(drawn)
        for v in chosen[block.applied:]:
            block.cover.mark(int(v))
        block.applied = len(chosen)
        cnt = block.cover.counts(n)
        total = cnt if total is None else total + cnt
    if total is None:
        return _address(), np.zeros(n, dtype=np.int32), 0
    out = total.astype(np.int32)
    out = out if isinstance(out, np.ndarray) else out.get()
    wm.add("rounds", t0)
    wm.add("tasks", t0)
    return _address(), out, redrawn


def drop_run(run: str, dask_worker=None) -> int:
    """Free this worker's blocks of ``run`` (run through ``client.run`` at the end);
    returns how many it held."""
    return len(_runs(dask_worker).pop(run, {}))
