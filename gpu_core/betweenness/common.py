"""Definitions shared by the CPU and GPU billboard searches: options, events, results.

Definitions (all backends compute exactly these):

* Paths. ``mode="hops"``: every arc costs 1 (BFS, as in seed 002). ``mode="weighted"``:
  the graph's integer weights. When the graph has zero-weight arcs, path lengths are
  compared by the core's exact composite key ``(cost, hops)`` (see ``gpu_core.keys``):
  among the least-cost routes only those with the fewest arcs count as shortest. Without
  zero-weight arcs this is plain least cost (every equal-cost route counts, as networkx).
  This keeps the tight-arc graph acyclic and every path count finite.
* Parallel arcs count as distinct paths (two roads are two routes); self-loops never lie
  on a shortest path.
* Group betweenness (eq. 2, ``endpoints=False``):
  ``SB(R) = sum over ordered pairs (s, t), s != t, s not in R, t not in R, t reachable
  from s, of a_s * b_t * sigma_st(R) / sigma_st`` where ``sigma_st(R)`` counts shortest
  s-t paths through at least one member of R (so a path through several is counted once)
  and ``a``/``b`` are source/target demand weights (1 by default). On a strongly
  connected DiGraph this equals networkx ``group_betweenness_centrality(G, R,
  normalized=False, endpoints=False)``; an undirected networkx Graph counts unordered
  pairs, i.e. half our value on its symmetric digraph. On digraphs that are not strongly
  connected networkx subtracts an approximate endpoint count (2 per node reachable from a
  member); ours is the exact sum above.
* Gain of v: ``SB(R + v) - SB(R)``, exact under this convention: the paths through v
  avoiding R (eqs. 3-4) minus the pairs with v as an endpoint that R already covered
  (they leave the sum when v joins R). On strongly connected graphs the second term is
  the same for every v of a round, so the choice equals networkx's prominent_group.
* Coverage: ``SB(R) / P(R)`` with ``P(R)`` the weighted number of ordered reachable pairs
  (s, t), s != t, both outside R: the share of trips between non-site vertices that pass
  a site (each trip split evenly over its shortest paths).
* Path counts sigma are float64 (as networkx): exact integers up to 2^53, relative
  rounding beyond. Greedy ties (gains within a relative 1e-9 of the best) go to the
  smallest vertex index; networkx's prominent_group takes the largest label of exact ties.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidArgumentError
from ..graph import CSRGraph
from ..keys import key_space_for

MODES = ("hops", "weighted")
KERNELS = ("auto", "edge", "vertex", "work_efficient")
METHODS = ("auto", "exact", "sampled")
TIE_RTOL = 1e-9  # gains this close to the best are ties (float sums differ by order)

# Arc visits per CPU chunk of sources (about a second at ~2e7/s): cancel is polled and
# progress reported between chunks, so a chunk must stay short even on a big map (a
# twentieth of Andorra's 127K sources was minutes of work: cancel and closing the window
# waited for it).
CPU_CHUNK_WORK = 2e7


@dataclass
class BillboardProgress:
    """A progress event: greedy round ``round`` of ``rounds`` (1-based), sources done."""

    round: int
    rounds: int
    sources_done: int
    sources_total: int
    phase: str = "search"  # "search" | "sample" | "select"
    message: str = ""
    # progressive sampling: the best sites so far after a sampling round (a BillboardResult
    # whose epsilon_at_stop is the bound certified so far), else None
    partial: object = None

    @property
    def fraction(self) -> float:
        per = self.sources_done / max(self.sources_total, 1)
        return min(1.0, (self.round - 1 + per) / max(self.rounds, 1))


@dataclass
class BillboardResult:
    sites: np.ndarray  # int32 vertex indices, in the order chosen
    gains: np.ndarray  # float64 SB(R_k) - SB(R_{k-1})
    group_betweenness: np.ndarray  # float64 cumulative SB(R_k), k = 1..K
    coverage: np.ndarray  # float64 SB(R_k) / P(R_k)
    pairs: np.ndarray  # float64 P(R_k), the coverage denominator
    base_group_betweenness: float  # SB(fixed sites) before the first pick
    method: str  # "exact" | "sampled"
    mode: str
    backend: str
    kernel: str
    fixed: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    # sampled mode: number of sampled pairs and the uniform error bound (absolute, in SB
    # units) that holds for every K-set with probability >= 1 - delta.
    samples: int = 0
    error_bound: float = 0.0
    epsilon: float = 0.0
    delta: float = 0.0
    rounds_time_s: list = field(default_factory=list)
    notes: str = ""
    # sampled mode: seconds drawing the paths ("sample") and choosing the sites ("select")
    phase_s: dict = field(default_factory=dict)
    # sampled mode: "fixed" (the worst-case bound's samples) or "progressive" (growing
    # rounds until a data-dependent bound reaches epsilon, gpu_core.betweenness.progressive);
    # sample_bound: the fixed bound's size; epsilon_at_stop: the error certified when it
    # stopped; stopped_by: "bound", "cap" (reached the fixed bound), "fixed" or "cancelled"
    sampling: str = ""
    sample_bound: int = 0
    epsilon_at_stop: float = 0.0
    stopped_by: str = ""
    guarantee: str = ""


def search_weights(g: CSRGraph, mode: str) -> np.ndarray:
    """int64 arc lengths of the path notion (all >= 1, so the tight-arc graph is a DAG)."""
    if mode not in MODES:
        raise InvalidArgumentError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if mode == "hops":
        return np.ones(g.num_arcs, dtype=np.int64)
    w = g.weights.astype(np.int64)
    if w.size and int(w.min()) == 0:
        ks = key_space_for(g.weights, g.num_nodes)
        if ks.hop_bits == 0:
            raise InvalidArgumentError("zero-weight arcs on a graph too large for exact keys")
        return ks.key_weights(g.weights)
    return w


def vertex_weights(n: int, spec, name: str) -> np.ndarray:
    """float64 per-vertex demand from None (all 1), a vertex list/mask, or weights."""
    if spec is None:
        return np.ones(n, dtype=np.float64)
    arr = np.asarray(spec)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise InvalidArgumentError(f"{name} mask has shape {arr.shape}, expected ({n},)")
        return arr.astype(np.float64)
    if arr.ndim == 1 and arr.shape[0] == n and arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or arr.min() < 0:
            raise InvalidArgumentError(f"{name} weights must be finite and >= 0")
        return arr.astype(np.float64)
    if arr.dtype.kind == "f":
        raise InvalidArgumentError(f"{name}: float weights must be one per vertex ({n}); "
                                   "vertex lists are integers")
    idx = arr.ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise InvalidArgumentError(f"{name}: vertex {bad} is out of range 0..{n - 1}")
    if idx.size and not np.issubdtype(idx.dtype, np.integer):
        raise InvalidArgumentError(f"{name}: vertices must be integers, got dtype {idx.dtype}")
    out = np.zeros(n, dtype=np.float64)
    out[idx] = 1.0
    return out


def vertex_mask(n: int, spec, name: str, default: bool) -> np.ndarray:
    """bool mask from None (all ``default``), a bool mask or a vertex list."""
    if spec is None:
        return np.full(n, default, dtype=bool)
    arr = np.asarray(spec)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise InvalidArgumentError(f"{name} mask has shape {arr.shape}, expected ({n},)")
        return arr.copy()
    idx = arr.astype(np.int64).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise InvalidArgumentError(f"{name}: vertex {bad} is out of range 0..{n - 1}")
    out = np.zeros(n, dtype=bool)
    out[idx] = True
    return out


def pick_best(net: np.ndarray, eligible: np.ndarray) -> tuple[int, float]:
    """The eligible vertex of largest gain; near-ties (TIE_RTOL) to the smallest index."""
    idx = np.flatnonzero(eligible)
    if idx.size == 0:
        raise InvalidArgumentError("no candidate vertex left to place a site on")
    vals = net[idx]
    best = float(vals.max())
    tol = TIE_RTOL * max(1.0, abs(best))
    j = int(idx[np.flatnonzero(vals >= best - tol)[0]])
    return j, float(net[j])
