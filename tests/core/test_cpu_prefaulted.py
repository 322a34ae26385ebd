"""The CPU backend's per-search arrays are written at allocation (see gpu_core.sssp.cpu.search.zeros).

np.zeros maps fresh memory to the shared zero page; the Bellman-Ford kernels scan such a
mask every phase while writing scattered entries, which made the first search of a
process ~6x slower (``signpost route NE.gr.xz --strategy conventional``: 19 s, then 3 s
in the same process). Timings are not asserted (tests carry none): the allocation is.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.sssp import STRATEGIES, sssp
from gpu_core.sssp.cpu import search as sssp_cpu

N = 977  # a size no other array in a search has


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_no_zero_page_arrays_of_graph_size(monkeypatch, strategy):
    real = np.zeros
    seen: list[tuple] = []

    def spy(shape, *args, **kwargs):
        seen.append(shape if isinstance(shape, tuple) else (shape,))
        return real(shape, *args, **kwargs)

    monkeypatch.setattr(sssp_cpu.np, "zeros", spy)
    rng = np.random.default_rng(3)
    tails = rng.integers(0, N, 4 * N)
    heads = rng.integers(0, N, 4 * N)
    g = CSRGraph.from_edges(N, tails, heads, rng.integers(0, 50, 4 * N))
    res = sssp(g, 0, strategy=strategy, backend="cpu")
    monkeypatch.setattr(sssp_cpu.np, "zeros", real)
    assert (N,) not in seen
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    m = csr_matrix((g.weights.astype(float) + 1e-9, g.indices, g.indptr), shape=(N, N))
    ref = dijkstra(m, indices=0)
    reach = np.isfinite(ref)
    assert (res.dist[reach] == np.rint(ref[reach])).all() and (res.dist[~reach] == -1).all()


def test_zeros_helper():
    a = sssp_cpu.zeros(5, np.int32)
    assert a.dtype == np.int32 and a.shape == (5,) and not a.any()
