"""The graph on the device: CuPy copies of the CSR arrays, made after a memory check.

:func:`device_graph` is the one place these are built (and cached per host arrays and
device), so that map editing can later change one object instead of every capability.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ..graph import CSRGraph, GraphLike
from ..keys import KeySpace
from .memory import _cupy, current_device_id, ensure_free, oom_as_typed


def graph_bytes(n: int, m: int) -> int:
    """Device bytes of a DeviceGraph: indptr, indices, weights, one key-weight copy."""
    return 4 * (n + 1) + 4 * m + 4 * m + 8 * m


class DeviceGraph:
    """CuPy copies of Va (indptr), Ea (indices), Wa (weights), plus key weights per hop_bits.

    Created on the device current at construction; ``device_id`` records which one.
    ``key_weights(ks)`` (int64 ``w << hop_bits | 1``) is built on first use and cached;
    ``sorted_rows(ks)`` gives arcs re-ordered by (tail, weight, head) for the seed-004
    evaluation Dijkstra when the host rows are not already sorted that way.
    """

    def __init__(self, g: CSRGraph):
        cp = _cupy()
        # weak: the cache below is keyed on the host arrays and must not keep them alive
        self._host_ref: tuple[weakref.ref[np.ndarray], ...] | None = weakref.ref(g.indptr), weakref.ref(g.indices), weakref.ref(g.weights)
        m = g.num_arcs
        need = graph_bytes(g.num_nodes, m)
        ensure_free(need, f"the device graph ({g.num_nodes} nodes, {m} arcs)")
        with oom_as_typed("the device graph", need):
            arrays = (cp.asarray(g.indptr, dtype=cp.int32), cp.asarray(g.indices, dtype=cp.int32),
                      cp.asarray(g.weights, dtype=cp.int32))
        self._setup(arrays, float(g.weights.mean(dtype=np.float64)) if m else 1.0,
                    float(g.weights.std(dtype=np.float64)) if m else 0.0,
                    _rows_weight_sorted(g.indptr, g.weights))

    @classmethod
    def from_device(cls, indptr, indices, weights, *, rows_weight_sorted: bool) -> DeviceGraph:
        """A DeviceGraph over CuPy int32 arrays already on the current device (kept, not
        copied): no host array is read or made."""
        self = cls.__new__(cls)
        self._host_ref = None
        w = weights.astype(np.float64) if weights.shape[0] else None
        self._setup((indptr, indices, weights), float(w.mean()) if w is not None else 1.0,
                    float(w.std()) if w is not None else 0.0, rows_weight_sorted)
        return self

    def _setup(self, arrays, mean: float, sd: float, rows_sorted: bool) -> None:
        self.indptr, self.indices, self.weights = arrays
        self.n = int(self.indptr.shape[0]) - 1
        self.m = int(self.indices.shape[0])
        self.mean_weight = mean
        # spread of the arc weights (std / mean): picks auto's schedule
        self.weight_cv = sd / mean if mean > 0 else 0.0
        self.device_id = current_device_id()
        self._kw: dict[int, object] = {}
        self._sorted: dict[int, tuple] = {}
        self._derived: dict[str, object] = {}
        self._lock = threading.Lock()
        self.rows_weight_sorted = rows_sorted

    @property
    def nbytes(self) -> int:
        extra = sum(8 * self.m for _ in self._kw)
        return graph_bytes(self.n, self.m) - 8 * self.m + extra

    def key_weights(self, ks: KeySpace):
        """int64 device array of arc weights in key space (cached per hop_bits)."""
        hb = int(ks.hop_bits)
        with self._lock:
            kw = self._kw.get(hb)
            if kw is None:
                cp = _cupy()
                ensure_free(8 * self.m, "key weights")
                with oom_as_typed("key weights", 8 * self.m):
                    w = self.weights.astype(cp.int64)
                    kw = (w << hb) | 1 if hb else w
                self._kw[hb] = kw
            return kw

    def derived(self, key: str, build):
        """``build()``'s result, made once per graph and device and kept here: the
        per-graph structures a capability derives (transposes, edge lists) so that
        repeated calls on one map do no host work and no upload."""
        with self._lock:
            got = self._derived.get(key)
        if got is None:
            got = build()
            with self._lock:
                got = self._derived.setdefault(key, got)
        return got

    def sorted_rows(self, ks: KeySpace, g: CSRGraph):
        """(indices, key weights) with every row sorted by (weight, head): seed 004's layout.

        ``g`` is the host graph this copy was made from (used once to sort)."""
        if self.rows_weight_sorted:
            return self.indices, self.key_weights(ks)
        hb = int(ks.hop_bits)
        with self._lock:
            got = self._sorted.get(hb)
            if got is None:
                cp = _cupy()
                order = np.lexsort((g.indices, g.weights, g.arc_sources()))
                ensure_free(12 * self.m, "weight-sorted rows")
                with oom_as_typed("weight-sorted rows", 12 * self.m):
                    idx = cp.asarray(g.indices[order], dtype=cp.int32)
                    w = cp.asarray(g.weights[order], dtype=cp.int64)
                    kw = (w << hb) | 1 if hb else w
                got = (idx, kw)
                self._sorted[hb] = got
            return got


class DeviceCSRGraph(CSRGraph):
    """A CSRGraph whose arrays live on the device (``MutableGraph.compact()`` on CUDA):
    :func:`device_graph` gives its DeviceGraph, made over those arrays, so a capability
    run on the GPU touches no host copy; a host array (``indptr``, ``indices``,
    ``weights``) is fetched only when something reads it, then kept."""

    # made from a validated graph's compaction: CSRGraph.from_any must not re-check (that
    # would fetch every array and assign to these read-only properties)
    _checked = True

    def __init__(self, indptr, indices, weights, *, rows_weight_sorted: bool = False):
        self.device = DeviceGraph.from_device(indptr, indices, weights,
                                              rows_weight_sorted=rows_weight_sorted)
        self._host: list[np.ndarray | None] = [None, None, None]

    def _fetch(self, i: int) -> np.ndarray:
        got = self._host[i]
        if got is None:
            dg = self.device
            got = self._host[i] = (dg.indptr, dg.indices, dg.weights)[i].get()
        return got

    indptr = property(lambda self: self._fetch(0))
    indices = property(lambda self: self._fetch(1))
    weights = property(lambda self: self._fetch(2))

    @property
    def num_nodes(self) -> int:
        return self.device.n

    @property
    def num_arcs(self) -> int:
        return self.device.m

    @property
    def host_copies(self) -> int:
        """How many of the three arrays were fetched to the host so far (tests)."""
        return sum(a is not None for a in self._host)


def _rows_weight_sorted(indptr: np.ndarray, weights: np.ndarray) -> bool:
    """True when every CSR row lists its arcs by non-decreasing weight."""
    if weights.size < 2:
        return True
    d = np.diff(weights.astype(np.int64)) < 0
    if not d.any():
        return True
    # a decrease is allowed only across a row boundary
    starts = np.zeros(weights.size, dtype=bool)
    starts[indptr[1:-1][indptr[1:-1] < weights.size]] = True
    return not bool((d & ~starts[1:]).any())


# Device copies per (host arrays, device). Keyed on the identity of the host CSR arrays,
# which CSRGraph.from_any keeps (so a RoadNetwork passed again hits the cache even though
# a new CSRGraph wraps it each call); an entry is dropped when its indptr array dies.
_graph_cache: dict[int, tuple] = {}
_graph_lock = threading.Lock()


def device_graph(graph: GraphLike) -> DeviceGraph:
    """The DeviceGraph of ``graph`` on the current device, built once and reused.

    Cached per host arrays and device (a CSRGraph is unhashable, so a weak-key dictionary
    keyed on it could never hit)."""
    g = CSRGraph.from_any(graph)
    if isinstance(g, DeviceCSRGraph) and g.device.device_id == current_device_id():
        return g.device
    key = id(g.indptr)
    dev = current_device_id()
    with _graph_lock:
        ent = _graph_cache.get(key)
        if ent is not None:
            refs, per_dev = ent
            if not (refs[0]() is g.indptr and refs[1]() is g.indices and refs[2]() is g.weights):
                ent = None  # id reused by another array
        if ent is None:
            refs = (weakref.ref(g.indptr), weakref.ref(g.indices), weakref.ref(g.weights))
            per_dev = {}
            _graph_cache[key] = (refs, per_dev)
            weakref.finalize(g.indptr, _graph_cache.pop, key, None)
        dg = per_dev.get(dev)
    if dg is None:
        dg = DeviceGraph(g)
        with _graph_lock:
            per_dev[dev] = dg
    return dg
