"""Exact search keys that make predecessors unique and acyclic.

Every search in the core orders vertices by the composite integer key

    key = cost << hop_bits | hops

i.e. it runs on arc weights ``w' = w << hop_bits | 1`` where ``cost`` is the exact sum
of arc weights and ``hops`` the number of arcs. Since ``w' >= 1``, the tight arcs
(``key[u] + w'(u,v) == key[v]``) form a DAG even when the map has zero-weight arcs, and
the predecessor rule below always gives a valid shortest-path tree:

    pred[v] = the smallest u with key[u] + w'(u, v) == key[v]

In words: among the least-cost routes, one with the fewest arcs; among those, the
smallest predecessor index. ``cost = key >> hop_bits`` is the plain shortest distance,
identical to scipy's Dijkstra.

``hop_bits`` is chosen per graph: enough bits for n-1 hops, provided the cost bound
(n-1)·max(w) still fits below 2^62 after the shift. On a huge graph where it does not,
``hop_bits`` is 0 and the rule becomes "smallest tight predecessor", still a valid tree
when every weight is positive; a huge graph with zero-weight arcs is refused.

Negative integer weights (the label-correcting strategies only) keep the same keys:
``w' = w << hop_bits | 1 = w·2^hop_bits + 1`` is still exact, a cycle's key weight is
negative exactly when its cost is (its arc count < 2^hop_bits), so the tight arcs stay a
DAG when no negative cycle exists. Such graphs always get hop bits (``KeySpace.negative``),
and their unreachable vertices get ``UNREACHABLE_NEG`` (int64 min) in ``dist``: -1 is a real
cost there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import InvalidArgumentError

KEY_INF = np.int64(np.iinfo(np.int64).max)
UNREACHABLE = -1  # dist value for a vertex no source reaches (or not settled)
UNREACHABLE_NEG = int(np.iinfo(np.int64).min)  # the same on graphs with negative arcs
NO_PRED = -1


@dataclass(frozen=True)
class KeySpace:
    hop_bits: int
    negative: bool = False  # the graph has negative arc weights
    # the ``dist`` value of an unreached vertex: -1, or int64 min with negative arcs; set
    # with the key space (once per graph), as every search and every result reads it
    unreachable: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "unreachable", UNREACHABLE_NEG if self.negative else UNREACHABLE)

    def key_weights(self, weights: np.ndarray) -> np.ndarray:
        """Arc weights in key space (int64)."""
        w = weights.astype(np.int64)
        return (w << self.hop_bits) | 1 if self.hop_bits else w

    def split(self, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(dist int64 with UNREACHABLE, hops int32; -1 when unknown) from keys with KEY_INF."""
        reached = key != KEY_INF
        dist = np.where(reached, key >> self.hop_bits, self.unreachable).astype(np.int64)
        if self.hop_bits:
            hops = np.where(reached, key & ((1 << self.hop_bits) - 1), -1).astype(np.int32)
        else:
            hops = np.full(key.shape, -1, dtype=np.int32)
        return dist, hops


def key_space_for(weights: np.ndarray, num_nodes: int) -> KeySpace:
    """The widest hop field that keeps every possible cost exact (see module doc)."""
    hb = max(1, int(num_nodes).bit_length())
    if weights.size and int(weights.min()) < 0:
        return _negative_key_space(weights, num_nodes, hb)
    wmax = int(weights.max()) if weights.size else 0
    bound = max(num_nodes - 1, 0) * wmax
    if bound < (1 << (62 - hb)):
        return KeySpace(hb)
    if weights.size and int(weights.min()) == 0:
        raise InvalidArgumentError(
            f"costs may reach {bound} on this {num_nodes}-node graph with zero-weight arcs: "
            "too large for exact keys; use a coarser weight unit"
        )
    if bound >= (1 << 62):
        raise InvalidArgumentError(f"costs may reach {bound}, beyond 2^62")
    return KeySpace(0)


def _negative_key_space(weights: np.ndarray, num_nodes: int, hb: int) -> KeySpace:
    """Hop bits for a graph with negative arcs. A label-correcting search there meets
    walks of up to n arcs (phase n is the one that detects a negative cycle), so every
    key stays within ±n·max|w|·2^hb; the bound keeps it below 2^61, which leaves room for
    the CUDA backend's 2^62 bias (its keys are unsigned)."""
    wabs = max(abs(int(weights.min())), abs(int(weights.max())))
    bound = (int(num_nodes) + 1) * wabs
    if bound >= (1 << (61 - hb)):
        raise InvalidArgumentError(
            f"costs may reach ±{bound} on this {num_nodes}-node graph with negative arcs: "
            "too large for exact keys; use a coarser weight unit"
        )
    return KeySpace(hb, negative=True)
