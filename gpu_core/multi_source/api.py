"""Many-source shortest paths and distance matrices (seed 000's task-parallel APSP): the
public functions, their validation, backend choice and result.

``multi_source_sssp(graph, sources)`` returns, for every source, its exact integer cost to
every vertex (or to ``targets``): row i equals a single-source search from ``sources[i]``
(``gpu_core.reference``), -1 where unreachable. ``distance_matrix`` and ``all_pairs``
build on it; large results stream to a ``.npy`` memmap on disk in chunks.

Backends: ``cpu`` (scipy's Dijkstra over chunks of sources) and ``cupy`` with the
variants of ``VARIANTS`` (see ``cuda``): ``one_at_a_time``, ``task_parallel`` (seed
000), ``task_parallel_noshared`` and ``batched`` (ours, the default on the GPU without an index).
``phast`` (both backends) sweeps a contraction hierarchy (``gpu_core.hierarchy``): pass one
as ``hierarchy=`` (built once per map and cached by the caller), or it is built first;
``auto`` takes it whenever a hierarchy is given.
Distances only: no predecessors (use ``gpu_core.sssp`` for a route).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..backend import describe_backend, resolve_backend
from ..errors import GpuCoreError, InvalidArgumentError
from ..graph import CSRGraph, GraphLike
from ..host.fold import Fold, fold_rows
from ..validate import check_vertices

VARIANTS = (
    "auto", "one_at_a_time", "task_parallel", "task_parallel_noshared", "batched", "phast",
)

ProgressCallback = Callable[[int, int], None]  # (rows done, rows in all)
CancelCheck = Callable[[], bool]


class MatrixTooLargeError(GpuCoreError):
    """A distance matrix would not fit in memory (the message says how large)."""

    def __init__(self, rows: int, cols: int, limit: int):
        self.nbytes = rows * cols * 8
        self.limit = limit
        super().__init__(
            f"a {rows} x {cols} int64 distance matrix needs {self.nbytes} bytes "
            f"({_human(self.nbytes)}), more than the {limit} bytes ({_human(limit)}) of memory "
            "allowed; write it to a .npy file to stream it to disk in chunks"
        )


@dataclass
class MultiSourceResult:
    """Costs from each source (rows) to each vertex or target (columns)."""

    dist: np.ndarray  # int64 [S, n] or [S, len(targets)]; -1 unreachable
    sources: np.ndarray  # int32, as given (duplicates kept: their rows repeat)
    targets: np.ndarray | None  # int32 or None (all vertices)
    backend: str  # "cpu" or "cupy"
    variant: str
    device: str
    elapsed_s: float = 0.0
    extra: dict = field(default_factory=dict)


def _human(nbytes: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if nbytes < 1024 or unit == "TiB":
            return f"{nbytes:.1f} {unit}" if unit != "B" else f"{nbytes} B"
        nbytes /= 1024
    return ""


def available_memory() -> int:
    """Bytes of host memory available now (tests monkeypatch this name)."""
    from osutil.memory import available_memory as host_available

    return host_available()


def default_max_bytes() -> int:
    """The largest in-memory result we build: half of the memory available now."""
    return available_memory() // 2


def _indices(values, n: int, what: str) -> np.ndarray:
    return check_vertices(values, n, what)


def _check_costs(g: CSRGraph, which: str) -> None:
    wmax = int(g.weights.max()) if g.num_arcs else 0
    bound = max(g.num_nodes - 1, 0) * wmax
    limit = 1 << (53 if which == "cpu" else 62)
    if bound >= limit:
        raise InvalidArgumentError(
            f"costs may reach {bound} ({g.num_nodes} vertices, largest weight {wmax}): beyond "
            f"2^{limit.bit_length() - 1}, the exact range of the {which} backend"
        )


def iter_distance_rows(
    graph: GraphLike,
    sources: Sequence[int] | np.ndarray,
    *,
    targets: Sequence[int] | np.ndarray | None = None,
    backend: str = "auto",
    variant: str = "auto",
    chunk: int | None = None,
    cancel: CancelCheck | None = None,
    stats: dict | None = None,
    hierarchy=None,
    query: str = "auto",
    narrow: bool = False,
    fold: Fold | None = None,
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (first row, int64 block [k, cols]) in source order, chunk by chunk; int32
    blocks with ``narrow`` (the caller knows every cost fits, e.g. the weights sum below
    2^31; on the GPU with the index they are narrowed there: half the bytes to the host).

    The whole matrix is never held: this is what the CLI and ``all_pairs`` stream from.
    ``stats`` (a dict) receives the backend, variant and, on the GPU, P/phases/launches;
    with the route index also ``query``: how the index was searched (``query`` "auto"
    picks by size, ``gpu_core.hierarchy.few.choose_query``; "phast", "rphast" or
    "buckets" force one; the answers are the same). ``fold`` (``host.fold``):
    the targets' extra columns folded into the asked-for ones (on the device with the
    route index on the GPU: only the asked-for columns come back).
    """
    g = CSRGraph.from_any(graph)
    n = g.num_nodes
    if variant not in VARIANTS:
        raise InvalidArgumentError(
            f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}"
        )
    src = _indices(sources, n, "sources")
    tgt = None if targets is None else _indices(targets, n, "targets")
    which = resolve_backend(backend)
    _check_costs(g, which)
    if chunk is not None and int(chunk) < 1:
        raise InvalidArgumentError(f"chunk must be >= 1, got {chunk}")
    if variant == "auto":
        v = "phast" if hierarchy is not None else "batched"
    else:
        v = variant
    if stats is not None:
        stats.update(backend=which, variant=v if which == "cupy" or v == "phast" else "scipy")
    if src.size == 0:
        return
    if v == "phast":
        from ..hierarchy import build_hierarchy
        from ..hierarchy.api import iter_rows as phast_rows

        if hierarchy is None:
            hierarchy = build_hierarchy(g, cancel=cancel)
            if stats is not None:
                stats.update(index_build_s=hierarchy.build_s)
        elif hierarchy.n != n:
            raise InvalidArgumentError(
                f"the hierarchy has {hierarchy.n} vertices, the graph {n}")
        yield from phast_rows(hierarchy, src, tgt, which, chunk=chunk, cancel=cancel,
                              stats=stats, query=query, narrow=narrow, fold=fold)
        return
    if which == "cupy":
        from ..device.memory import oom_as_typed
        from .cuda import iter_rows as cuda_rows

        with oom_as_typed(f"the {v} many-source search"):  # an allocation the estimate missed
            blocks = cuda_rows(g, src, tgt, v, chunk, cancel=cancel, stats=stats)
            yield from fold_rows(_narrowed(blocks, narrow), fold)
    else:
        from .cpu import iter_rows as cpu_rows

        yield from fold_rows(_narrowed(cpu_rows(g, src, tgt, chunk,
                                                one_at_a_time=v == "one_at_a_time",
                                                cancel=cancel), narrow), fold)


def _narrowed(blocks, narrow: bool):
    for r0, block in blocks:
        yield r0, block.astype(np.int32) if narrow else block


def multi_source_sssp(
    graph: GraphLike,
    sources: Sequence[int] | np.ndarray,
    *,
    backend: str = "auto",
    targets: Sequence[int] | np.ndarray | None = None,
    variant: str = "auto",
    chunk: int | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
    out: np.ndarray | None = None,
    max_bytes: int | None = None,
    hierarchy=None,
    query: str = "auto",
) -> MultiSourceResult:
    """Exact costs from every source to every vertex (or to ``targets``).

    ``chunk``: sources per chunk (the GPU keeps a chunk's rows on the device before one
    copy; default: what fits free memory). ``out``: an int64 [S, cols] array or memmap to
    fill instead of allocating (how big results reach disk). ``on_progress(done, total)``
    after each chunk; ``cancel()`` polled between batches, raises CancelledError.
    Raises InvalidArgumentError, BackendUnavailableError, GpuOutOfMemoryError,
    MatrixTooLargeError (result over ``max_bytes``, default half the available memory).
    """
    g = CSRGraph.from_any(graph)
    n = g.num_nodes
    src = _indices(sources, n, "sources")
    tgt = None if targets is None else _indices(targets, n, "targets")
    ncols = n if tgt is None else int(tgt.shape[0])
    S = int(src.shape[0])
    if out is None:
        limit = default_max_bytes() if max_bytes is None else int(max_bytes)
        if S * ncols * 8 > limit:
            raise MatrixTooLargeError(S, ncols, limit)
        out = np.empty((S, ncols), dtype=np.int64)
    elif out.shape != (S, ncols) or out.dtype != np.int64:
        raise InvalidArgumentError(
            f"out must be int64 of shape {(S, ncols)}, got {out.dtype} {out.shape}"
        )
    stats: dict = {}
    t0 = time.perf_counter()
    for r0, block in iter_distance_rows(g, src, targets=tgt, backend=backend, variant=variant,
                                        chunk=chunk, cancel=cancel, stats=stats,
                                        hierarchy=hierarchy, query=query):
        out[r0 : r0 + block.shape[0]] = block
        if on_progress is not None:
            on_progress(r0 + block.shape[0], S)
    elapsed = time.perf_counter() - t0
    which = stats.get("backend") or resolve_backend(backend)
    return MultiSourceResult(
        dist=out,
        sources=src,
        targets=tgt,
        backend=which,
        variant=str(stats.get("variant", variant)),
        device=describe_backend("cpu" if which == "cpu" else "auto"),
        elapsed_s=elapsed,
        extra=stats,
    )


def distance_matrix(
    graph: GraphLike,
    from_idx: Sequence[int] | np.ndarray,
    to_idx: Sequence[int] | np.ndarray,
    *,
    backend: str = "auto",
    variant: str = "auto",
    chunk: int | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
    out: np.ndarray | None = None,
    max_bytes: int | None = None,
    hierarchy=None,
    query: str = "auto",
) -> np.ndarray:
    """int64 [len(from_idx), len(to_idx)] costs, -1 where unreachable."""
    return multi_source_sssp(
        graph, from_idx, targets=to_idx, backend=backend, variant=variant, chunk=chunk,
        on_progress=on_progress, cancel=cancel, out=out, max_bytes=max_bytes,
        hierarchy=hierarchy, query=query,
    ).dist


def all_pairs(
    graph: GraphLike,
    *,
    backend: str = "auto",
    variant: str = "auto",
    out_path: str | os.PathLike | None = None,
    chunk: int | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
    max_bytes: int | None = None,
) -> np.ndarray:
    """int64 [n, n] costs between all vertices, -1 where unreachable.

    Without ``out_path`` the matrix must fit ``max_bytes`` (default half the available
    memory), else MatrixTooLargeError names its size. With ``out_path`` (.npy) it is
    streamed to a memmap in chunks (written to a temporary file and renamed at the end,
    so a cancelled run leaves no half-written file) and returned memory-mapped.
    """
    g = CSRGraph.from_any(graph)
    n = g.num_nodes
    if out_path is None:
        return multi_source_sssp(g, np.arange(n), backend=backend, variant=variant, chunk=chunk,
                                 on_progress=on_progress, cancel=cancel, max_bytes=max_bytes).dist
    from osutil.atomic import atomic_paths

    path = os.fspath(out_path)
    with atomic_paths([path]) as (tmp,):  # a cancelled run leaves the old file, no temp
        mm = open_npy_memmap(tmp, (n, n))
        multi_source_sssp(g, np.arange(n), backend=backend, variant=variant, chunk=chunk,
                          on_progress=on_progress, cancel=cancel, out=mm)
        mm.flush()
        del mm  # close the map before the rename
    return np.load(path, mmap_mode="r")


def open_npy_memmap(tmp: str, shape: tuple[int, int], dtype=np.int64) -> np.memmap:
    """A writable .npy memmap (int64, or int32 when the caller knows the costs fit) in
    ``tmp`` (a temporary of osutil.atomic)."""
    return np.lib.format.open_memmap(tmp, mode="w+", dtype=dtype, shape=shape)
