"""The route index on KEY weights (``gpu_core.keys``: w' = w << hop_bits | 1), so that one
PHAST sweep gives every vertex's composite key, the lexicographic (cost, hops) minimum:
what ``gpu_core.indexed_sssp`` needs to reproduce ``sssp()``'s dist, pred and hops.

:func:`key_hierarchy` is the ONE place that makes such a hierarchy. Today it contracts the
key-weighted graph with the classic CH contraction (``contract.py``); once the Customizable
CH lands it becomes that index's cheap re-customization with the key weights. Callers rely
only on the :class:`~gpu_core.hierarchy.api.Hierarchy` dataclass and on
``h.graph_key == key_graph_fingerprint(graph)``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from ..errors import CancelledError, InvalidArgumentError, NegativeWeightsError
from ..graph import CSRGraph, GraphLike
from ..keys import KeySpace, key_space_for
from .api import (
    LIMIT_CONTRACT,
    LIMIT_SIMULATE,
    MAX_SHORTCUTS_PER_ARC,
    Hierarchy,
    HierarchyTooDenseError,
    ProgressCallback,
    _layout,
)

# keys (and so every sweep value) must stay below the hierarchy's INF = 2^62
KEY_LIMIT = 1 << 62


def key_weights(g: CSRGraph, ks: KeySpace) -> np.ndarray:
    """int64 arc weights in key space (the graph's CSR order)."""
    return ks.key_weights(g.weights)


def key_graph_fingerprint(g: CSRGraph, ks: KeySpace | None = None) -> str:
    """Fingerprint of the key-weighted graph (``api.graph_key`` over indptr, indices and
    the int64 key weights): names its cache entry and ties a hierarchy to it."""
    import hashlib

    ks = ks or key_space_for(g.weights, g.num_nodes)
    h = hashlib.blake2b(digest_size=16)
    for a in (g.indptr, g.indices, key_weights(g, ks)):
        h.update(np.ascontiguousarray(a).view(np.uint8))
    return h.hexdigest()


def key_hierarchy(graph: GraphLike, *, progress: ProgressCallback | None = None,
                  cancel: Callable[[], bool] | None = None) -> Hierarchy:
    """A hierarchy of ``graph`` on its key weights (non-negative weights only).

    Raises InvalidArgumentError for negative weights or keys that could reach 2^62,
    HierarchyTooDenseError for graphs that are not road-shaped, CancelledError."""
    from .contract import contract

    g = CSRGraph.from_any(graph)
    n = g.num_nodes
    if g.num_arcs and int(g.weights.min()) < 0:  # a checked CSRGraph keeps its sign
        raise NegativeWeightsError(f"a route index needs non-negative weights (this graph "
                                   f"has an arc of weight {int(g.weights.min())})")
    ks = key_space_for(g.weights, n)
    kw = key_weights(g, ks)
    if kw.size and (max(n - 1, 1)) * int(kw.max()) >= KEY_LIMIT:
        raise InvalidArgumentError("key costs of this graph may reach 2^62: no key index")
    t0 = time.perf_counter()
    # the reverse graph with the same int64 key weights (CSRGraph.reverse keeps int32)
    tails = g.arc_sources()
    order = np.argsort(g.indices, kind="stable")
    rptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(g.indices, minlength=n), out=rptr[1:])
    counter = np.zeros(2, np.int64)  # [contracted so far, stop request]
    result: dict = {}

    def work() -> None:
        try:
            result["v"] = contract(
                n, g.indptr.astype(np.int64), g.indices, kw, rptr, tails[order], kw[order],
                LIMIT_SIMULATE, LIMIT_CONTRACT, MAX_SHORTCUTS_PER_ARC * max(g.num_arcs, n),
                max(1, n // 200), counter)
        except BaseException as exc:  # surfaced in the caller's thread
            result["e"] = exc

    th = threading.Thread(target=work, daemon=True)  # lets the caller poll meanwhile
    th.start()
    while th.is_alive():
        th.join(0.25)
        if progress is not None:
            progress(float(counter[0]) / max(n, 1), "contracting (key weights)")
        if cancel is not None and counter[1] == 0 and cancel():
            counter[1] = 1
    if "e" in result:
        raise result["e"]
    if counter[1] == 2:
        raise HierarchyTooDenseError(
            f"contracting this graph needs more than {MAX_SHORTCUTS_PER_ARC} shortcuts per arc "
            "(it is not road-shaped); searches run without an index")
    if counter[1]:
        raise CancelledError("building the key route index was cancelled")
    rank, ost, oln, onb, owt, ist, iln, inb, iwt, added = result["v"]
    h = _layout(n, rank, ost, oln, onb, owt, ist, iln, inb, iwt)
    h.graph_key = key_graph_fingerprint(g, ks)
    h.shortcuts = int(added)
    h.build_s = time.perf_counter() - t0
    return h
