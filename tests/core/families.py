"""Small graph families for core tests (shared by every engineer's tests).

Each factory takes a seed and returns a small :class:`gpu_core.graph.CSRGraph` (rows
sorted by tail, weight, head, as ``maps.model.build`` does). Vertex 0 is always a meaningful
source: for ``isolated_source`` it has no out-arcs, for ``disconnected`` it reaches only
its own component. Use ``FAMILIES`` to parametrize::

    @pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
    def test_x(name, make):
        g = make(seed=1)

``make_graph(name, seed)`` looks a family up by name. Sizes are kept small (tens to a
few hundred vertices) so that a test over every family stays fast.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpu_core.graph import CSRGraph

Factory = Callable[..., CSRGraph]


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _csr(n: int, tails, heads, weights) -> CSRGraph:
    return CSRGraph.from_edges(n, tails, heads, weights)


def random_sparse(seed: int = 0, n: int = 120, avg_deg: int = 4, wmax: int = 100) -> CSRGraph:
    """Erdos-Renyi-like simple directed graph, about avg_deg·|V| arcs (seed 000's random
    graphs), without duplicate arcs or self loops (those have their own families), so it
    converts to a networkx DiGraph without loss."""
    r = _rng(seed)
    m = n * avg_deg
    t = r.integers(0, n, m)
    h = r.integers(0, n, m)
    pair = np.unique((t * n + h)[t != h])
    return _csr(n, pair // n, pair % n, r.integers(1, wmax + 1, pair.size))


def rmat(seed: int = 0, scale: int = 7, edge_factor: int = 6, wmax: int = 50) -> CSRGraph:
    """R-MAT (a=.57, b=.19, c=.19, d=.05): skewed degrees, small diameter."""
    r = _rng(seed)
    n = 1 << scale
    m = n * edge_factor
    t = np.zeros(m, dtype=np.int64)
    h = np.zeros(m, dtype=np.int64)
    for bit in range(scale):
        p = r.random(m)
        # quadrant: a -> (0,0), b -> (0,1), c -> (1,0), d -> (1,1)
        down = p >= 0.57 + 0.19  # c or d
        right = ((p >= 0.57) & (p < 0.76)) | (p >= 0.95)  # b or d
        t |= down.astype(np.int64) << bit
        h |= right.astype(np.int64) << bit
    return _csr(n, t, h, r.integers(1, wmax + 1, m))


def ring(seed: int = 0, n: int = 64, wmax: int = 20) -> CSRGraph:
    """Directed ring 0→1→…→n-1→0: n-1 phases for Bellman-Ford, the worst case."""
    r = _rng(seed)
    t = np.arange(n)
    return _csr(n, t, (t + 1) % n, r.integers(1, wmax + 1, n))


def bidirectional_ring(seed: int = 0, n: int = 50, wmax: int = 20) -> CSRGraph:
    """Ring with arcs both ways: two competing routes to every vertex (many equal-cost ties)."""
    r = _rng(seed)
    t = np.arange(n)
    w = r.integers(1, wmax + 1, n)
    return _csr(n, np.r_[t, (t + 1) % n], np.r_[(t + 1) % n, t], np.r_[w, w])


def complete(seed: int = 0, n: int = 24, wmax: int = 30) -> CSRGraph:
    """Complete directed graph without self loops."""
    r = _rng(seed)
    t, h = np.nonzero(~np.eye(n, dtype=bool))
    return _csr(n, t, h, r.integers(1, wmax + 1, t.size))


def grid_road(seed: int = 0, rows: int = 12, cols: int = 15, wmax: int = 1000) -> CSRGraph:
    """Road-like grid: two-way streets, a few one-way and removed ones, wide weight spread."""
    return road_grid(rows, cols, seed=seed, wmin=10, wmax=wmax)


def equal_weight_grid(seed: int = 0, rows: int = 9, cols: int = 9) -> CSRGraph:
    """Unit-weight grid: huge numbers of equal-cost routes (tests the tie rule hard)."""
    del seed
    return road_grid(rows, cols, seed=0, wmin=1, wmax=1, drop=0.0, oneway=0.0)


def disconnected(seed: int = 0) -> CSRGraph:
    """Three components (random, ring, isolated vertices); vertex 0 reaches only the first."""
    a = random_sparse(seed, n=40, avg_deg=3)
    b = bidirectional_ring(seed + 1, n=20)
    n = 40 + 20 + 5
    ta = a.arc_sources()
    tb = b.arc_sources() + 40
    return _csr(n, np.r_[ta, tb], np.r_[a.indices, b.indices + 40], np.r_[a.weights, b.weights])


def zero_weights(seed: int = 0, n: int = 80) -> CSRGraph:
    """Many zero-weight arcs, including zero-weight cycles (keys must break them)."""
    r = _rng(seed)
    m = n * 4
    t = r.integers(0, n, m)
    h = r.integers(0, n, m)
    w = np.where(r.random(m) < 0.4, 0, r.integers(1, 10, m))
    # a zero-weight cycle 0 -> 1 -> 2 -> 0
    return _csr(n, np.r_[t, 0, 1, 2], np.r_[h, 1, 2, 0], np.r_[w, 0, 0, 0])


def single_node(seed: int = 0) -> CSRGraph:
    """One vertex, no arcs."""
    del seed
    return _csr(1, [], [], [])


def single_node_loop(seed: int = 0) -> CSRGraph:
    """One vertex with a self loop."""
    del seed
    return _csr(1, [0], [0], [5])


def isolated_source(seed: int = 0) -> CSRGraph:
    """Vertex 0 has no out-arcs (others point at it): only the source is reached."""
    g = random_sparse(seed, n=30, avg_deg=3)
    t = g.arc_sources()
    keep = t != 0
    n = g.num_nodes
    return _csr(n, np.r_[t[keep], 5, 7], np.r_[g.indices[keep], 0, 0], np.r_[g.weights[keep], 3, 4])


def duplicate_arcs(seed: int = 0, n: int = 40) -> CSRGraph:
    """Parallel arcs with equal and different weights between the same pair."""
    r = _rng(seed)
    m = n * 3
    t = r.integers(0, n, m)
    h = r.integers(0, n, m)
    w = r.integers(1, 8, m)
    # duplicate every arc; half the copies get the same weight, half a heavier one
    w2 = np.where(r.random(m) < 0.5, w, w + r.integers(1, 5, m))
    return _csr(n, np.r_[t, t], np.r_[h, h], np.r_[w, w2])


def self_loops(seed: int = 0, n: int = 40) -> CSRGraph:
    """Random graph plus a self loop on every vertex (zero and positive weights)."""
    g = random_sparse(seed, n=n, avg_deg=3, wmax=20)
    t = g.arc_sources()
    v = np.arange(n)
    wl = np.where(v % 2 == 0, 0, 3)
    return _csr(n, np.r_[t, v], np.r_[g.indices, v], np.r_[g.weights, wl])


def heavy_weights(seed: int = 0, n: int = 100) -> CSRGraph:
    """Seed 001's weight spread (10..1,000,000) on a sparse random graph."""
    r = _rng(seed)
    g = random_sparse(seed, n=n, avg_deg=3)
    w = np.exp(r.uniform(np.log(10), np.log(1_000_000), g.num_arcs)).astype(np.int64)
    return _csr(n, g.arc_sources(), g.indices, w)


def road_grid(
    rows: int,
    cols: int,
    *,
    seed: int = 0,
    wmin: int = 10,
    wmax: int = 1000,
    drop: float = 0.05,
    oneway: float = 0.05,
) -> CSRGraph:
    """A rows×cols road-like grid (also usable at large sizes for benchmarks).

    Neighbours are joined both ways unless the street is dropped (``drop``) or one-way
    (``oneway``); weights are log-uniform in wmin..wmax, the same both ways.
    """
    r = _rng(seed)
    n = rows * cols
    idx = np.arange(n).reshape(rows, cols)
    a = np.r_[idx[:, :-1].ravel(), idx[:-1, :].ravel()]
    b = np.r_[idx[:, 1:].ravel(), idx[1:, :].ravel()]
    k = a.size
    u = r.random(k)
    keep = u >= drop
    one = (u >= drop) & (u < drop + oneway)
    if wmin == wmax:
        w = np.full(k, wmin, dtype=np.int64)
    else:
        w = np.exp(r.uniform(np.log(wmin), np.log(wmax), k)).astype(np.int64)
    fwd = keep
    bwd = keep & ~one
    return _csr(n, np.r_[a[fwd], b[bwd]], np.r_[b[fwd], a[bwd]], np.r_[w[fwd], w[bwd]])


FAMILIES: list[tuple[str, Factory]] = [
    ("random_sparse", random_sparse),
    ("rmat", rmat),
    ("ring", ring),
    ("bidirectional_ring", bidirectional_ring),
    ("complete", complete),
    ("grid_road", grid_road),
    ("equal_weight_grid", equal_weight_grid),
    ("disconnected", disconnected),
    ("zero_weights", zero_weights),
    ("single_node", single_node),
    ("single_node_loop", single_node_loop),
    ("isolated_source", isolated_source),
    ("duplicate_arcs", duplicate_arcs),
    ("self_loops", self_loops),
    ("heavy_weights", heavy_weights),
]
FAMILY_NAMES = [name for name, _ in FAMILIES]
FAMILY_DICT: dict[str, Factory] = dict(FAMILIES)


def make_graph(name: str, seed: int = 0) -> CSRGraph:
    """The graph of family ``name`` for ``seed``."""
    return FAMILY_DICT[name](seed=seed)
