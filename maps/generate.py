"""Benchmark-map generators (numpy/scipy only, deterministic for a given seed).

``generate(kind, n=..., seed=...)`` returns a :class:`RoadNetwork`; ``signpost generate``
writes it as DIMACS (.gr + .co) or as the .spn cache format. Kinds:

- ``kanto``: a road-like stand-in for seed 001's Kanto map (1,427,876 nodes, 4,584,822
  arcs, mean degree 3.2, weights 10..1,000,000, mean 83,666, std 184,384). See
  :func:`kanto`.
- ``random``: seed 000 Table 1, |E| = 4|V| directed arcs between uniform random endpoints
  (no self-loops, duplicates kept), weights uniform 1..|V|.
- ``rmat``: R-MAT (Chakrabarti et al., seed 000 ref. 6) with a,b,c,d = 0.45,0.15,0.15,0.25
  (seed 000 states no parameters; these are GTgraph's defaults), |E| = 4|V|, weights 1..|V|.
  Seed 000 reports a maximum degree of 1241 at 4.6K nodes / 16K arcs, more skewed than
  these defaults give (~35 out-degree); Graph500's (0.57, 0.19, 0.19, 0.05) via
  ``abcd=`` comes closer (~580 out-degree at 4K nodes).
- ``ring``: seed 000 Table 2's ring, both directions, weight 1.
- ``complete``: seed 000 Table 2's complete graph, all n(n-1) arcs, weight 1.
- ``grid``: a rows x cols 4-neighbour grid with coordinates, both directions, weights
  uniform 1..1000 (the same both ways).
"""

from __future__ import annotations

import math

import numpy as np

from osutil.memory import available_memory

from .errors import MapError
from .geo.projection import EARTH_RADIUS_M
from .model.build import build_network, build_two_way
from .model.network import KIND_RAIL, KIND_ROAD, RoadNetwork

KINDS = ("kanto", "random", "rmat", "ring", "complete", "grid")

# Seed 001, Table 1: the Kanto road + rail map.
KANTO_NODES = 1_427_876
KANTO_ARCS = 4_584_822
KANTO_DEFAULT_NODES = 1195 * 1195  # 1,428,025: a 1195 x 1195 grid
KANTO_W_MIN, KANTO_W_MAX = 10, 1_000_000
# Lognormal exp(N(mu, sigma^2)) clipped to [10, 1e6] whose clipped mean and standard
# deviation are exactly seed 001's 83,666 and 184,384 (solved numerically; 2.0 % of the
# arcs sit at the 1,000,000 cap, the median is about 16,500).
KANTO_LOG_MU = 9.71340075
KANTO_LOG_SIGMA = 1.99933970
KANTO_ORIGIN = (139.0, 35.0)  # south-west corner, lon/lat degrees (Kanto plain)
KANTO_SPACING_M = 170.0  # grid step: 1195 steps ~ 200 km, about Kanto's size

DEFAULT_NODES = {
    "kanto": KANTO_DEFAULT_NODES,
    "random": 4096,
    "rmat": 4096,
    "ring": 4096,
    "complete": 512,
    "grid": 10_000,
}
COMPLETE_MAX_NODES = 8192  # 67M arcs: beyond that a complete graph is not a useful map


class GenerateError(MapError):
    """Bad generator parameters (unknown kind, too few nodes, ...)."""


def generate(kind: str, n: int | None = None, seed: int = 1, **options) -> RoadNetwork:
    """Generate a benchmark map of ``kind`` (see KINDS) with about ``n`` nodes."""
    if kind not in KINDS:
        raise GenerateError(f"unknown generator {kind!r}; choose one of {', '.join(KINDS)}")
    n = DEFAULT_NODES[kind] if n is None else int(n)
    if not 0 <= int(seed) < 2**64:
        raise GenerateError(f"seed {seed} must be an integer in 0..2^64-1")
    fn = {
        "kanto": kanto,
        "random": random_graph,
        "rmat": rmat,
        "ring": ring,
        "complete": complete,
        "grid": grid,
    }[kind]
    return fn(n, seed=seed, **options)


def _check_n(n: int, lo: int, kind: str, arcs: int | None = None, per_arc: int = 64) -> None:
    """GenerateError, before any work, for too few nodes, more nodes or arcs than int32
    indices hold, or a graph whose arrays (about ``per_arc`` bytes an arc while it is
    built, ``arcs`` default 4n) would not fit the available memory."""
    if n < lo:
        raise GenerateError(f"{kind} needs at least {lo} nodes, got {n}")
    if n >= 2**31 - 1:
        raise GenerateError(f"{kind}: {n} nodes exceed the int32 node range")
    arcs = 4 * n if arcs is None else arcs
    if arcs >= 2**31 - 1:
        raise GenerateError(f"{kind}: {n} nodes make {arcs} arcs, beyond the int32 arc range")
    need, have = arcs * per_arc + n * 64, available_memory()
    if need > have:
        raise GenerateError(f"{kind}: {n} nodes and {arcs} arcs need about {need / 2**30:.1f} "
                            f"GiB while building, more than the {have / 2**30:.1f} GiB available")


def _grid_edges(n: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Undirected 4-neighbour edges of the first ``n`` cells of a ``cols``-wide grid."""
    idx = np.arange(n, dtype=np.int64)
    right = idx[(idx % cols != cols - 1) & (idx + 1 < n)]
    down = idx[idx + cols < n]
    a = np.concatenate([right, down])
    b = np.concatenate([right + 1, down + cols])
    return a, b


def _grid_lonlat(
    n: int, cols: int, rng: np.random.Generator, spacing_m: float, jitter: float,
    origin: tuple[float, float],
) -> tuple[np.ndarray, np.ndarray]:
    idx = np.arange(n)
    r, c = idx // cols, idx % cols
    dlat = math.degrees(spacing_m / EARTH_RADIUS_M)
    dlon = dlat / math.cos(math.radians(origin[1] + dlat * (n // cols) / 2))
    jr = rng.uniform(-jitter, jitter, size=n)
    jc = rng.uniform(-jitter, jitter, size=n)
    return origin[0] + (c + jc) * dlon, origin[1] + (r + jr) * dlat


def kanto_weights(rng: np.random.Generator, size: int) -> np.ndarray:
    """Seed 001's weight spread: round(exp(N(9.7134, 1.9993^2))) clipped to 10..1,000,000."""
    w = np.exp(KANTO_LOG_MU + KANTO_LOG_SIGMA * rng.standard_normal(size))
    return np.clip(np.rint(w), KANTO_W_MIN, KANTO_W_MAX).astype(np.int64)


def kanto(
    n: int = KANTO_DEFAULT_NODES,
    seed: int = 1,
    *,
    mean_degree: float = KANTO_ARCS / KANTO_NODES,
    diagonal_share: float = 0.02,
    rail_lines: int = 0,
) -> RoadNetwork:
    """A Kanto-sized road-like map: perturbed grid, ~3.2 arcs per node, seed 001 weights.

    Construction (every step vectorised, deterministic for ``seed``):

    1. ``n`` nodes: the first n cells, row-major, of a grid ``ceil(sqrt(n))`` wide (the
       default 1,428,025 = 1195 x 1195), each jittered by up to +-0.35 of a 170 m step,
       placed on lon/lat from 139.0 E, 35.0 N (Tokyo lies inside).
    2. A random spanning tree of the grid (scipy's minimum spanning tree
       over random keys) so every node is reachable, plus randomly chosen other grid links
       until the undirected link count is ``n * mean_degree / 2`` less the shortcuts
       (default mean out-degree 4,584,822 / 1,427,876 = 3.21, seed 001's map).
    3. Shortcuts: ``diagonal_share`` of the links are diagonals between neighbouring cells
       (mostly planar; a few cross), and optionally ``rail_lines`` straight "railway"
       lines (edge_kind rail) with a station every 8 to 24 cells, long hops as on seed
       001's road + rail map. Default 0: rails with road-like weights are strong hop
       shortcuts (9 lines cut the shortest-path tree depth from ~2,000-2,200 to
       ~1,300-1,800 at the default size), and the benchmark wants the large diameter.
    4. Every link is two arcs (u->v, v->u) with the same weight, drawn i.i.d. from
       :func:`kanto_weights`: a lognormal clipped to 10..1,000,000 whose mean is 83,666 and
       standard deviation 184,384 (seed 001 Table 1 / Figure 3). Weights are independent
       of the drawn length, so hop count and cost are weakly correlated, as seed 001
       observes. At the default size the shortest-path tree from a random source is
       ~2,000-2,200 arcs deep (measured for 3 sources, seed 1), so a Bellman-Ford style
       SSSP needs about that many phases; the grid's hop diameter is ~2,400.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree

    _check_n(n, 4, "kanto")
    rng = np.random.default_rng(seed)
    cols = math.isqrt(n - 1) + 1
    rows = -(-n // cols)
    lon, lat = _grid_lonlat(n, cols, rng, KANTO_SPACING_M, 0.35, KANTO_ORIGIN)

    ga, gb = _grid_edges(n, cols)
    keys = rng.random(ga.size) + 1.0  # > 0: scipy drops explicit zeros
    tree = minimum_spanning_tree(coo_matrix((keys, (ga, gb)), shape=(n, n)).tocsr()).tocoo()
    ta, tb = tree.row.astype(np.int64), tree.col.astype(np.int64)
    in_tree = np.zeros(ga.size, dtype=bool)
    # Find the tree links among the grid links by their (min, max) key.
    gkey = np.minimum(ga, gb) * n + np.maximum(ga, gb)
    tkey = np.minimum(ta, tb) * n + np.maximum(ta, tb)
    order = np.argsort(gkey)
    in_tree[order[np.searchsorted(gkey[order], tkey)]] = True

    target = int(round(n * mean_degree / 2))
    n_diag = int(round(target * diagonal_share))

    # Diagonal links: a random cell and its down-right or down-left neighbour.
    cand = rng.integers(0, n, size=2 * n_diag + 16)
    r, c = cand // cols, cand % cols
    left = rng.random(cand.size) < 0.5
    dc = np.where(left, -1, 1)
    ok = (r + 1 < rows) & (c + dc >= 0) & (c + dc < cols)
    da = cand[ok]
    db = (r[ok] + 1) * cols + c[ok] + dc[ok]
    keep = db < n
    da, db = da[keep], db[keep]
    dkey = np.unique(np.minimum(da, db) * n + np.maximum(da, db))
    dkey = rng.permutation(dkey)[:n_diag]
    da, db = dkey // n, dkey % n

    # Railway lines: horizontal or vertical straight lines, stations 8..24 cells apart.
    ra_list, rb_list = [], []
    for _ in range(rail_lines if rows >= 2 else 0):
        horizontal = rng.random() < 0.5
        fixed = int(rng.integers(0, rows - 1 if horizontal else cols))
        length = cols if horizontal else rows - 1
        steps = rng.integers(8, 25, size=length // 8 + 1)
        stops = np.cumsum(np.concatenate([[int(rng.integers(0, 8))], steps]))
        stops = stops[stops < length]
        cells = fixed * cols + stops if horizontal else stops * cols + fixed
        cells = cells[cells < n]
        ra_list.append(cells[:-1])
        rb_list.append(cells[1:])
    ra = np.concatenate(ra_list) if ra_list else np.zeros(0, np.int64)
    rb = np.concatenate(rb_list) if rb_list else np.zeros(0, np.int64)

    extra = max(0, target - ta.size - da.size - ra.size)
    free = np.flatnonzero(~in_tree)
    pick = rng.permutation(free)[: min(extra, free.size)]
    pick.sort()
    a = np.concatenate([ta, ga[pick], da, ra])
    b = np.concatenate([tb, gb[pick], db, rb])
    kind = np.concatenate(
        [np.full(a.size - ra.size, KIND_ROAD, np.uint8), np.full(ra.size, KIND_RAIL, np.uint8)]
    )
    cls = kind.copy()  # class 0 "road", 1 "rail"
    w = kanto_weights(rng, a.size)
    return _two_way(
        "kanto", n, a, b, w, lon, lat, seed,
        edge_kind=np.concatenate([kind, kind]),
        edge_class=np.concatenate([cls, cls]),
        class_names=("road", "rail"),
        links=int(a.size),
    )  # fmt: skip


def _two_way(name: str, n: int, a, b, w, lon, lat, seed: int, *, links: int | None = None,
             **arc_attrs) -> RoadNetwork:
    """A network of undirected links a[i]-b[i] (both arcs carry weight w[i] and link id i)."""
    link = np.arange(a.size, dtype=np.int64)
    meta = {"generator": name, "seed": int(seed), "n": int(n)}
    if links is not None:
        meta["links"] = links
    return build_two_way(
        a, b, w, link, n=n, lon=lon, lat=lat, name=f"{name}-{n}", meta=meta, **arc_attrs
    )


def _uniform_weights(rng: np.random.Generator, size: int, hi: int) -> np.ndarray:
    return rng.integers(1, hi + 1, size=size, dtype=np.int64)


def _abstract(name: str, n: int, tails, heads, w, seed: int, **meta) -> RoadNetwork:
    return build_network(
        tails=tails,
        heads=heads,
        weights=w,
        node_ids=np.arange(1, n + 1, dtype=np.int64),
        unit="unit",
        profile="file",
        name=f"{name}-{n}",
        meta={"generator": name, "seed": int(seed), "n": int(n), **meta},
    )


def random_graph(n: int = 4096, seed: int = 1, *, arcs_per_node: int = 4,
                 arcs: int | None = None, max_weight: int | None = None) -> RoadNetwork:
    """Seed 000 Table 1: ``arcs_per_node * n`` arcs (or ``arcs``), endpoints uniform (no
    self-loops), weights uniform 1..n (or 1..``max_weight``: seed 003 uses 1..1000).
    Duplicate arcs are kept."""
    if arcs_per_node < 1:
        raise GenerateError(f"random: --arcs-per-node must be at least 1, got {arcs_per_node}")
    _check_n(n, 2, "random", arcs if arcs is not None else arcs_per_node * n)
    rng = np.random.default_rng(seed)
    m = arcs_per_node * n if arcs is None else int(arcs)
    t = rng.integers(0, n, size=m, dtype=np.int64)
    h = (t + rng.integers(1, n, size=m, dtype=np.int64)) % n  # never t itself
    return _abstract("random", n, t, h, _uniform_weights(rng, m, max_weight or n), seed)


RMAT_CHUNK = 1 << 21  # draws per block: bounds memory; the random stream is the same


def rmat(
    n: int = 4096,
    seed: int = 1,
    *,
    arcs_per_node: int = 4,
    arcs: int | None = None,
    abcd: tuple[float, float, float, float] = (0.45, 0.15, 0.15, 0.25),
    max_weight: int | None = None,
) -> RoadNetwork:
    """R-MAT arcs over ``n`` nodes: each arc picks a quadrant per bit of a 2^k x 2^k
    adjacency matrix (2^k >= n) with probabilities a,b,c,d; arcs that land outside 0..n-1
    or on the diagonal are redrawn. ``arcs_per_node * n`` arcs (or ``arcs``), weights
    uniform 1..n (or 1..``max_weight``)."""
    if arcs_per_node < 1:
        raise GenerateError(f"rmat: --arcs-per-node must be at least 1, got {arcs_per_node}")
    _check_n(n, 2, "rmat", arcs if arcs is not None else arcs_per_node * n,
             64 + 11 * 8 * max(1, math.ceil(math.log2(max(n, 2)))))
    a, b, c, d = abcd
    if min(abcd) < 0 or abs(a + b + c + d - 1.0) > 1e-9:
        raise GenerateError(f"R-MAT probabilities {abcd} must be >= 0 and sum to 1")
    rng = np.random.default_rng(seed)
    k = max(1, math.ceil(math.log2(n)))
    m = arcs_per_node * n if arcs is None else int(arcs)
    got_t: list[np.ndarray] = []
    got_h: list[np.ndarray] = []
    have = 0
    cum = np.cumsum([a, b, c])
    for _ in range(64):  # each round keeps >= n/2^k of the draws; 64 rounds is plenty
        want = int((m - have) * 1.3) + 16
        t = np.empty(want, np.int64)
        h = np.empty(want, np.int64)
        for s in range(0, want, RMAT_CHUNK):
            e = min(want, s + RMAT_CHUNK)
            r = rng.random((e - s, k))  # one draw per bit; quadrant c or d: tail bit 1,
            tb, hb = r >= cum[1], (r >= cum[2]) | ((r >= cum[0]) & (r < cum[1]))  # b or d
            ts, hs = np.zeros(e - s, np.int64), np.zeros(e - s, np.int64)
            for j in range(k):  # most significant bit first
                ts = (ts << 1) | tb[:, j]
                hs = (hs << 1) | hb[:, j]
            t[s:e], h[s:e] = ts, hs
        ok = (t < n) & (h < n) & (t != h)
        got_t.append(t[ok])
        got_h.append(h[ok])
        have += int(ok.sum())
        if have >= m:
            break
    t = np.concatenate(got_t)[:m]
    h = np.concatenate(got_h)[:m]
    return _abstract("rmat", n, t, h, _uniform_weights(rng, t.size, max_weight or n), seed,
                     abcd=list(abcd))


def ring(n: int = 4096, seed: int = 1) -> RoadNetwork:
    """Seed 000 Table 2's ring: i <-> i+1 (mod n), weight 1 both ways."""
    _check_n(n, 3, "ring")
    i = np.arange(n, dtype=np.int64)
    j = (i + 1) % n
    return _abstract("ring", n, np.concatenate([i, j]), np.concatenate([j, i]),
                     np.ones(2 * n, np.int64), seed)


def complete(n: int = 512, seed: int = 1) -> RoadNetwork:
    """Seed 000 Table 2's complete graph: every ordered pair u != v, weight 1."""
    _check_n(n, 2, "complete", n * (n - 1))
    if n > COMPLETE_MAX_NODES:
        raise GenerateError(f"complete graph of {n} nodes is too large (max {COMPLETE_MAX_NODES})")
    t = np.repeat(np.arange(n, dtype=np.int64), n - 1)
    off = np.tile(np.arange(1, n, dtype=np.int64), n)
    h = (t + off) % n
    return _abstract("complete", n, t, h, np.ones(t.size, np.int64), seed)


def grid(n: int = 10_000, seed: int = 1, *, max_weight: int = 1000) -> RoadNetwork:
    """A ``ceil(sqrt(n))``-wide 4-neighbour grid of ``n`` cells with lon/lat coordinates
    (100 m steps from 139.0 E, 35.0 N), both directions, weights uniform 1..max_weight."""
    _check_n(n, 2, "grid")
    rng = np.random.default_rng(seed)
    cols = math.isqrt(n - 1) + 1
    lon, lat = _grid_lonlat(n, cols, rng, 100.0, 0.0, KANTO_ORIGIN)
    a, b = _grid_edges(n, cols)
    w = _uniform_weights(rng, a.size, max_weight)
    return _two_way("grid", n, a, b, w, lon, lat, seed)
