"""CPU backend of many-source shortest paths: scipy's Dijkstra over chunks of sources.

scipy works in float64, so costs are exact while they stay below 2^53 (checked by the
caller); zero-weight arcs are kept by the same epsilon shift as ``gpu_core.reference``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from ..errors import CancelledError
from ..graph import CSRGraph

# Rows per scipy call: its float64 [rows, n] result stays near this many bytes.
CHUNK_BYTES = 64 << 20


def scipy_matrix(g: CSRGraph) -> csr_matrix:
    n = g.num_nodes
    w = g.weights.astype(np.float64)
    if w.size and w.min() == 0:
        w = np.where(w == 0, 1e-9, w)  # scipy drops explicit zeros; rounding restores integers
    return csr_matrix((w, g.indices, g.indptr), shape=(n, n))


def default_chunk(n: int, ncols: int) -> int:
    return max(1, CHUNK_BYTES // (8 * max(n, ncols, 1)))


def iter_rows(
    g: CSRGraph,
    sources: np.ndarray,
    targets: np.ndarray | None,
    chunk: int | None,
    one_at_a_time: bool = False,
    cancel: Callable[[], bool] | None = None,
) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, int64 block [k, cols]) for consecutive chunks of ``sources``."""
    mat = scipy_matrix(g)
    n = g.num_nodes
    ncols = n if targets is None else int(targets.shape[0])
    step = 1 if one_at_a_time else int(chunk or default_chunk(n, ncols))
    for r0 in range(0, sources.shape[0], step):
        if cancel is not None and cancel():
            raise CancelledError("many-source search cancelled")
        # Duplicated sources are searched once per chunk and their rows repeated.
        src, inv = np.unique(sources[r0 : r0 + step], return_inverse=True)
        d = np.atleast_2d(dijkstra(mat, directed=True, indices=src))
        if targets is not None:
            d = d[:, targets]
        out = np.full(d.shape, -1, dtype=np.int64)
        ok = np.isfinite(d)
        out[ok] = np.rint(d[ok]).astype(np.int64)
        yield r0, out[inv]
