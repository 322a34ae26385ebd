"""The graph as the compute core sees it: plain CSR arrays, on the host or the device.

``gpu_core`` takes any object with ``indptr`` (int32, n+1), ``indices`` (int32, m) and
``weights`` (int32 >= 0, m) -- a ``maps.RoadNetwork`` or a :class:`CSRGraph` -- and never
imports ``maps``. The device copy is made in one place, ``gpu_core.device.device_graph``,
so that map editing (disabling or adding an arc) can later change one object instead of
every capability.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


class GraphLike(Protocol):
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray


@dataclass
class CSRGraph:
    """A directed graph in CSR form (Va = indptr, Ea = indices, Wa = weights)."""

    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    # set by from_any once check_csr passed: a graph passed again is not re-checked
    _checked: bool = field(default=False, init=False, repr=False, compare=False)

    @property
    def num_nodes(self) -> int:
        return int(self.indptr.shape[0] - 1)

    @property
    def num_arcs(self) -> int:
        return int(self.indices.shape[0])

    @classmethod
    def from_any(cls, g: GraphLike, *, allow_negative: bool = False) -> CSRGraph:
        """Validate once (:func:`gpu_core.validate.check_csr`: dtypes, shapes, monotone
        indptr, indices in range, weights fit int32) and wrap (no copy when already int32).
        Negative weights are refused unless ``allow_negative`` (only the label-correcting
        SSSP strategies take them). A CSRGraph is checked the first time it is passed and
        marked valid (its weights' sign is left to the caller)."""
        from .validate import check_csr

        if isinstance(g, CSRGraph):
            if not getattr(g, "_checked", False):
                g.indptr, g.indices, g.weights = check_csr(g.indptr, g.indices, g.weights,
                                                           allow_negative=True)
                g._checked = True
            return g
        as_csr = getattr(g, "as_csr_graph", None)  # e.g. a MutableGraph: its compaction
        if callable(as_csr):
            return as_csr()
        out = cls(*check_csr(g.indptr, g.indices, g.weights, allow_negative=allow_negative))
        out._checked = True
        return out

    @classmethod
    def from_edges(cls, n: int, tails, heads, weights) -> CSRGraph:
        """CSR from arc lists (rows sorted by weight then head, like ``maps.model.build``)."""
        tails = np.asarray(tails, dtype=np.int64)
        heads = np.asarray(heads, dtype=np.int64)
        w = np.asarray(weights, dtype=np.int64)
        if w.size and (w.min() < 0 or w.max() >= 2**31):  # outside the packed key's range
            order = np.lexsort((heads, w, tails))
        else:  # the same order by two stable sorts, (w, head) packed, then tail: faster
            order = np.argsort((w << 31) | heads, kind="stable")
            order = order[np.argsort(tails[order], kind="stable")]
        indptr = np.zeros(n + 1, dtype=np.int64)
        indptr[1:] = np.bincount(tails, minlength=n)
        return cls(
            np.cumsum(indptr).astype(np.int32),
            heads[order].astype(np.int32),
            w[order].astype(np.int32),
        )

    def arc_sources(self) -> np.ndarray:
        return np.repeat(np.arange(self.num_nodes, dtype=np.int32), np.diff(self.indptr))

    def reverse(self) -> CSRGraph:
        """The transposed graph (arcs reversed), rows sorted like ``from_edges``."""
        return CSRGraph.from_edges(self.num_nodes, self.indices, self.arc_sources(), self.weights)

