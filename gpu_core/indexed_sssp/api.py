"""One-to-all searches through the route index (issue 26): ``sssp()``'s exact answer
(keys, so dist and hops, and the predecessors on the original arcs) from an upward
search plus one PHAST sweep of a hierarchy built on the KEY weights
(``gpu_core.hierarchy.key_hierarchy``).

Why it is bit-identical to every ``sssp()`` strategy: on the key weights
w' = w << hop_bits | 1 the sweep's cost of v is the least key over all paths, i.e. the
lexicographic (cost, hops) minimum, exactly the key the strategies converge to; the
predecessor is then picked by the rule of ``gpu_core.keys`` over v's in-arcs in the
original graph (``pred[v]`` = the smallest u with key[u] + w'(u, v) == key[v]), one
parallel pass. Shortcuts never reach the result: only keys leave the sweep.

``sssp(graph, s, index=h)`` calls :func:`indexed_search` when the strategy is ``auto``
and the graph has no negative arcs; an explicitly chosen strategy ignores the index.
The index is checked once per graph: a hierarchy made for another graph (or on plain
weights) is refused with InvalidArgumentError. Per-(index, graph) state (the reverse
graph, the CPU work vectors, the device buffers) is kept on the graph's prepared handle
(``gpu_core.graph``), so it goes with the graph.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CancelledError, InvalidArgumentError
from ..graph import CSRGraph, prepared
from ..keys import KeySpace
from ..telemetry import MODE_CODE, PhaseLog

if TYPE_CHECKING:
    from .cpu import CpuOneToAll
    from .cuda import CudaOneToAll

_lock = threading.Lock()


class _Pair:
    """What one key hierarchy keeps for one graph: the graph's in-arcs (tail ids and
    plain weights, rows by head) and the lazily made CPU / CUDA engines."""

    def __init__(self, h, g: CSRGraph):
        from .cpu import in_arcs

        # each row lists its in-arcs by tail (a stable order), so the predecessor pass
        # stops at the first tight one (the smallest u); the graph's own, whatever index
        self.rptr, self.rsrc, self.rw = prepared(g).derived(
            "in_arcs", lambda: in_arcs(g.indptr, g.indices, g.weights))
        self.h = h
        self._cpu: CpuOneToAll | None = None
        self._cuda: CudaOneToAll | None = None
        self._level_cols: tuple[np.ndarray, np.ndarray] | None = None  # _level_columns

    def cpu(self) -> CpuOneToAll:
        if self._cpu is None:
            from .cpu import CpuOneToAll

            self._cpu = CpuOneToAll(self.h, self.rptr, self.rsrc, self.rw)
        return self._cpu

    def cuda(self) -> CudaOneToAll:
        from .cuda import CudaOneToAll, device_id

        if self._cuda is None or self._cuda.device != device_id():
            self._cuda = CudaOneToAll(self.h, self.cpu())
        return self._cuda


def check_index(h, g: CSRGraph, ks: KeySpace) -> _Pair:
    """The per-graph state of key hierarchy ``h`` for ``g``, checked once per graph:
    InvalidArgumentError when ``h`` was not built on this graph's key weights."""
    from ..hierarchy.api import Hierarchy

    if not isinstance(h, Hierarchy):
        raise InvalidArgumentError(f"index must be a gpu_core.hierarchy.Hierarchy, not "
                                   f"{type(h).__name__}")
    pg = prepared(g)
    with _lock:
        pairs: list[_Pair] = pg.derived("one_to_all", list)  # per index, newest last
        for p in pairs:
            if p.h is h:
                return p
        if h.n != g.num_nodes:
            raise InvalidArgumentError(f"the route index has {h.n:,} nodes, the graph "
                                       f"{g.num_nodes:,}: it was built for another graph")
        if not pg.indexable:
            raise InvalidArgumentError("the route index cannot serve a graph with negative arcs")
        from ..hierarchy.keyed import key_graph_fingerprint

        if h.graph_key != key_graph_fingerprint(g, ks):
            raise InvalidArgumentError(
                "the route index was not built on this graph's key weights (make it with "
                "gpu_core.hierarchy.key_hierarchy for this very graph)")
        del pairs[:-1]  # an index replaced (rebuilt, re-customized) is let go
        p = _Pair(h, g)
        pairs.append(p)
        return p


def prepare_index(h, graph, backend: str = "auto") -> None:
    """Do now what the first search through ``h`` on ``graph`` would (the index check,
    the reverse graph, the sweep's vertex order and work vectors, numba's cache loads;
    the device buffers and kernel when ``backend`` resolves to the GPU) by running one
    search: seconds on a country-sized map, so the app runs this in the background after
    the map opens and the first click does not pay it."""
    from ..backend import resolve_backend
    from ..keys import key_space_for

    # the same arrays (no copy) as sssp()'s prepare_graph: the state is kept per array
    g = CSRGraph.from_any(graph)
    ks = key_space_for(g.weights, g.num_nodes)
    which = resolve_backend(backend)
    indexed_search(h, g, ks, np.zeros(1, np.int32), "cpu")
    if which == "cupy":
        indexed_search(h, g, ks, np.zeros(1, np.int32), which)


def indexed_search(h, g: CSRGraph, ks: KeySpace, sources: np.ndarray, which: str, *,
                   on_phase: Callable[[PhaseLog], None] | None = None,
                   cancel: Callable[[], bool] | None = None,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, PhaseLog]:
    """(key int64, pred int32, dist int64, PhaseLog) of the search from ``sources``
    (distinct graph ids) on backend ``which``: ``sssp()``'s keys and predecessors.
    Telemetry: one ``phast_up`` row (the upward search), one ``phast`` row per sweep
    level (frontier = the level's vertices, edges = its downward arcs), one
    ``phast_pred`` row (keys and predecessors in the graph's ids)."""
    pair = check_index(h, g, ks)
    if cancel is not None and cancel():
        raise CancelledError("indexed search cancelled before it started")
    if which == "cupy":
        key, pred, dist, rows = pair.cuda().run(sources, ks.hop_bits, ks.unreachable)
    else:
        from ..host.result_buffers import take

        key, pred, dist = take(g.num_nodes)
        rows = _cpu_run(pair, h, sources, ks, key, pred, dist)
    log = _log(pair, g, *rows)
    if on_phase is not None:
        on_phase(log)
    return key, pred, dist, log


def _cpu_run(pair: _Pair, h, sources, ks: KeySpace, key, pred, dist):
    from ..host.clock import cycles_per_us

    eng = pair.cpu()
    t0 = time.perf_counter()
    (reached, arcs), t_up, t_pred = eng.run(sources, ks.hop_bits, ks.unreachable, key,
                                            pred, dist)
    cpu = cycles_per_us()
    if cpu > 0:
        return reached, arcs, t_up / cpu, eng.ticks[: h.levels] / cpu, t_pred / cpu
    # no cycle counter (not x86-64): the wall time shared by the work of each row
    work = np.concatenate([[arcs], np.diff(h.down_ptr[h.level_ptr]), [2 * pair.rsrc.size]])
    us = (time.perf_counter() - t0) * 1e6 * (work + 1) / (work + 1).sum()
    return reached, arcs, us[0], us[1:-1], us[-1]


def _level_columns(pair: _Pair) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, downward arcs) per sweep level: the same for every search of the pair,
    made once (a call on the GPU takes ~2 ms; these gathers were a tenth of it)."""
    cols = pair._level_cols
    if cols is None:
        h = pair.h
        lp = np.asarray(h.level_ptr)
        cols = (np.diff(lp), np.diff(np.asarray(h.down_ptr)[lp]))
        pair._level_cols = cols
    return cols


def _log(pair: _Pair, g: CSRGraph, reached: int, arcs: int, up_us: float, level_us,
         pred_us: float) -> PhaseLog:
    nlev = pair.h.levels
    frontier = np.empty(nlev + 2, np.int64)
    edges = np.empty(nlev + 2, np.int64)
    t = np.empty(nlev + 2, np.float64)
    mode = np.full(nlev + 2, MODE_CODE["phast"], np.uint8)
    frontier[0], edges[0], t[0], mode[0] = reached, arcs, up_us, MODE_CODE["phast_up"]
    frontier[1:-1], edges[1:-1] = _level_columns(pair)
    t[1:-1] = level_us
    frontier[-1], edges[-1], t[-1] = g.num_nodes, g.num_arcs, pred_us
    mode[-1] = MODE_CODE["phast_pred"]
    return PhaseLog.from_columns(frontier, edges, t, mode)
