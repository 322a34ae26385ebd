"""CPU backend of many-source shortest paths: scipy's Dijkstra over chunks of sources.

scipy works in float64, so costs are exact while they stay below 2^53 (checked by the
caller); zero-weight arcs are kept by the same epsilon shift as ``gpu_core.reference``.
With targets, the searches run on the graph without the dead ends and chains that no
source or target needs (``reduce``: the same costs, ~half the vertices on road maps), in
forked worker processes when several cores are free and the work pays (``forked``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from scipy.sparse import csr_matrix

from ..errors import CancelledError
from ..graph import CSRGraph
from .forked import block, forked_blocks, workers_for
from .reduce import reduce_graph

# Rows per scipy call: its float64 [rows, n] result stays near this many bytes.
CHUNK_BYTES = 64 << 20
# The reduction costs about this many one-to-all searches (NE: ~1.5 s against 0.26 s per
# search; it shrinks each search to ~half): fewer unique sources search the whole graph.
REDUCE_MIN_SOURCES = 12
# Its peak memory per arc of the map (NE: 494 MiB for 3.87M arcs, 134 B): it runs only
# where that fits half the memory available.
REDUCE_BYTES_PER_ARC = 160
# Chunks per worker when the searches are shared among processes: progress and cancel
# come between chunks, and the last chunk's wait stays short.
CHUNKS_PER_WORKER = 6


def _scipy_csr(n: int, indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray,
               ) -> csr_matrix:
    w = weights.astype(np.float64)
    if w.size and w.min() == 0:
        w = np.where(w == 0, 1e-9, w)  # scipy drops explicit zeros; rounding restores integers
    return csr_matrix((w, indices, indptr), shape=(n, n))


def scipy_matrix(g: CSRGraph) -> csr_matrix:
    return _scipy_csr(g.num_nodes, g.indptr, g.indices, g.weights)


def default_chunk(n: int, ncols: int) -> int:
    return max(1, CHUNK_BYTES // (8 * max(n, ncols, 1)))


def iter_rows(
    g: CSRGraph,
    sources: np.ndarray,
    targets: np.ndarray | None,
    chunk: int | None,
    one_at_a_time: bool = False,
    cancel: Callable[[], bool] | None = None,
    reduce: bool | None = None,
    workers: int | None = None,
) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, int64 block [k, cols]) for consecutive chunks of ``sources``.

    ``reduce`` (None: when there are targets, at least :data:`REDUCE_MIN_SOURCES` unique
    sources and the memory for it) searches the reduced graph; ``workers`` (None: ``forked.workers_for``;
    0: this process) shares the chunks among forked processes. Same rows either way."""
    S = int(sources.shape[0])
    if reduce is None:
        from osutil.memory import available_memory

        reduce = (targets is not None and not one_at_a_time
                  and np.unique(sources).size >= REDUCE_MIN_SOURCES
                  and g.num_arcs * REDUCE_BYTES_PER_ARC < available_memory() // 2)
    if reduce and targets is not None:
        red = reduce_graph(g, np.concatenate([sources, targets]))
        n = red.num_nodes
        mat = _scipy_csr(n, red.indptr, red.indices, red.weights)
        src_ids, tgt = red.new_id[sources], red.new_id[targets]
    else:
        n = g.num_nodes
        mat = scipy_matrix(g)
        src_ids, tgt = sources, targets
    ncols = n if targets is None else int(targets.shape[0])
    if workers is None:
        workers = 0 if one_at_a_time else workers_for(np.unique(sources).size, n)
    if one_at_a_time:
        step = 1
    elif chunk:
        step = int(chunk)
    else:
        step = default_chunk(n, ncols)
        if workers > 1:
            step = max(1, min(step, -(-S // (workers * CHUNKS_PER_WORKER))))
    starts = range(0, S, step)
    # Duplicated sources are searched once per chunk and their rows repeated.
    parts = [np.unique(src_ids[r0 : r0 + step], return_inverse=True) for r0 in starts]
    if workers > 1 and len(parts) > 1:
        blocks = forked_blocks(mat, [p[0] for p in parts], tgt, workers, cancel)
        for r0, (_, inv), out in zip(starts, parts, blocks, strict=False):
            yield r0, out[inv]
        return
    for r0, (src, inv) in zip(starts, parts, strict=True):
        if cancel is not None and cancel():
            raise CancelledError("many-source search cancelled")
        yield r0, block(mat, src, tgt)[inv]
