"""scipy's many-source Dijkstra in forked worker processes (issue 41).

scipy's ``dijkstra`` holds the GIL, so threads do not share its searches between cores;
processes do. The workers are forked (Linux only): they inherit the scipy matrix and the
target columns without a copy or a pickle, take chunks of sources and send back only the
[k, targets] int64 blocks. Elsewhere, on one core, or for small work the caller searches
in its own process (:func:`workers_for`).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterator

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from ..errors import CancelledError

# Below this many vertex visits (unique sources x vertices) the fork and the pool cost more
# than the second core gives (a pool starts in ~0.1 s; NE searches ~1M vertices in ~0.15 s).
MIN_VISITS = 4_000_000
ENV = "SIGNPOST_SCIPY_WORKERS"  # an int: the most worker processes (1: none)

# what the forked workers inherit: set just before the pool starts, cleared after
_SHARED: dict = {}


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def workers_for(num_sources: int, num_nodes: int) -> int:
    """Worker processes for ``num_sources`` searches of ``num_nodes`` vertices: 0 (search
    here) off Linux, in a daemonic process, on one core or below :data:`MIN_VISITS`."""
    if not sys.platform.startswith("linux") or multiprocessing.current_process().daemon:
        return 0  # a daemonic process (a Dask worker, a pool's) may not start children
    limit = cores()
    env = os.environ.get(ENV, "")
    if env.strip().isdigit():
        limit = min(limit, int(env))
    if limit < 2 or num_sources < 2 or num_sources * num_nodes < MIN_VISITS:
        return 0
    return min(limit, num_sources)


def block(mat: csr_matrix, src: np.ndarray, tgt: np.ndarray | None) -> np.ndarray:
    """int64 costs [len(src), cols] from scipy's float64 rows (-1 where unreachable)."""
    d = np.atleast_2d(dijkstra(mat, directed=True, indices=src))
    if tgt is not None:
        d = d[:, tgt]
    out = np.full(d.shape, -1, dtype=np.int64)
    ok = np.isfinite(d)
    out[ok] = np.rint(d[ok]).astype(np.int64)
    return out


def _worker_init() -> None:
    # The pool ends its workers by SIGTERM and Ctrl-C reaches the whole process group: the
    # parent's handlers (the CLI turns SIGTERM into KeyboardInterrupt) would print a
    # worker's traceback; the parent alone cleans up and ends the pool.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(src: np.ndarray) -> np.ndarray:
    return block(_SHARED["mat"], src, _SHARED["tgt"])


def forked_blocks(mat: csr_matrix, chunks: list[np.ndarray], tgt: np.ndarray | None,
                  workers: int, cancel: Callable[[], bool] | None = None,
                  ) -> Iterator[np.ndarray]:
    """:func:`block` of each chunk of sources, in order, computed by ``workers`` forked
    processes; ``cancel`` is polled as blocks arrive (the pool is ended on cancel)."""
    ctx = multiprocessing.get_context("fork")
    _SHARED.update(mat=mat, tgt=tgt)
    try:
        # forked here: the workers see _SHARED
        with ctx.Pool(workers, initializer=_worker_init) as pool:
            _SHARED.clear()
            for out in pool.imap(_work, chunks):
                if cancel is not None and cancel():
                    raise CancelledError("many-source search cancelled")
                yield out
    finally:
        _SHARED.clear()
