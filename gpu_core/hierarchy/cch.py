"""A customizable contraction hierarchy (CCH; Dibbelt, Strasser, Wagner 2016): a
metric-independent :class:`Topology` (order by nested dissection, ``order.py``; chordal
supergraph, ``chordal.py``) built once per road layout, and :func:`customize`, which turns
it plus a graph's weights into the :class:`~.api.Hierarchy` every consumer reads.

A closure, reopening or new weight keeps the topology and only re-customizes (well under a
second on a country); a graph with an arc on no edge of the topology (an added road, a new
vertex) does not fit it (:func:`fits` says why) and needs a new topology.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CancelledError, InvalidArgumentError
from ..graph import CSRGraph, prepared
from .model import load_npz, save_npz

if TYPE_CHECKING:
    from .partial import Metric

# bump when the saved layout changes (2: checksums by pieces, ``model.content_hash``)
TOPOLOGY_FORMAT = 2
Progress = Callable[[float, str], None]


@dataclass
class Topology:
    n: int
    rank: np.ndarray  # int32 [n]: graph vertex -> elimination position
    order: np.ndarray  # int32 [n]: position -> graph vertex
    up_ptr: np.ndarray  # int64 [n+1]: edges {x<y} by lower end x (ranks), y ascending
    up_nb: np.ndarray  # int32
    dn_ptr: np.ndarray  # int64 [n+1]: lower neighbours per vertex (ranks)
    dn_src: np.ndarray  # int32
    dn_edge: np.ndarray  # int64: the edge id of each lower neighbour's edge
    lvl_ptr: np.ndarray  # int64: elimination-tree heights (customization's parallel steps)
    lvl_vert: np.ndarray  # int32
    key: str  # topology_key of the graph it was built from
    core: int = 0  # vertices METIS ordered (the rest went in degree <= 2 rounds)
    fill: int = 0  # edges that are no road of the graph (the CH's "shortcuts")
    order_s: float = 0.0
    topology_s: float = 0.0

    @property
    def edges(self) -> int:
        return int(self.up_nb.shape[0])

    def tails(self) -> np.ndarray:
        """int32 [edges]: the lower end of every edge (made once, kept)."""
        got = self.__dict__.get("_tails")
        if got is None:
            got = self._tails = np.repeat(np.arange(self.n, dtype=np.int32),
                                          np.diff(self.up_ptr))
        return got

    def summary(self) -> dict:
        return {"nodes": self.n, "cch_edges": self.edges, "fill": self.fill, "core": self.core,
                "heights": int(self.lvl_ptr.shape[0] - 1), "order_s": round(self.order_s, 3),
                "topology_s": round(self.topology_s, 3)}

    def save(self, path: str | os.PathLike) -> None:
        """Write to ``path`` (.npz, with a checksum of every array) through a temporary
        file renamed into place."""
        save_npz(path, self, TOPOLOGY_FORMAT)

    @classmethod
    def load(cls, path: str | os.PathLike, *, key: str | None = None) -> Topology:
        """Read a saved topology; any damage (truncation, flipped bytes, a wrong checksum
        or shape) raises ValueError, and so does another ``key``."""
        t = load_npz(cls, path, TOPOLOGY_FORMAT)
        t.n, t.key, t.core, t.fill = int(t.n), str(t.key), int(t.core), int(t.fill)
        _check_topology(t, path)
        if key is not None and t.key != key:
            raise InvalidArgumentError(f"{path}: route index topology of another graph")
        return t


def topology_key(g: CSRGraph) -> str:
    """A fingerprint of the graph's arcs without their weights (a new weight keeps it),
    hashed once per graph (kept on its prepared handle)."""
    def digest() -> str:
        h = hashlib.blake2b(digest_size=16, person=b"cch-topology")
        for a in (g.indptr, g.indices):
            h.update(np.ascontiguousarray(a).view(np.uint8).data)
        return h.hexdigest()

    return prepared(g).derived("topology_key", digest) if type(g) is CSRGraph else digest()


def _stop(cancel: Callable[[], bool] | None) -> None:
    if cancel is not None and cancel():
        raise CancelledError("building the route index was cancelled")


def build_topology(graph, *, progress: Progress | None = None,
                   cancel: Callable[[], bool] | None = None, seed: int = 1) -> Topology:
    """Order and chordal supergraph of ``graph``'s topology (weights unused)."""
    from .chordal import downward, heights
    from .order import nested_dissection_order, undirected

    g = CSRGraph.from_any(graph)
    n = g.num_nodes
    t0 = time.perf_counter()
    if progress is not None:
        progress(0.0, "ordering (nested dissection)")
    st: dict = {}
    ptr, adj = undirected(n, g.indptr, g.indices)
    rank = nested_dissection_order(n, ptr, adj, seed=seed, stats=st, cancel=cancel)
    t1 = time.perf_counter()
    _stop(cancel)
    if progress is not None:
        progress(0.5, "building the chordal supergraph")
    up_ptr, up_nb = _eliminate(n, ptr, adj, rank, progress, cancel)
    dn_ptr, dn_src, dn_edge = downward(n, up_ptr, up_nb)
    lvl_ptr, lvl_vert = heights(n, up_ptr, up_nb)
    order = np.empty(n, np.int32)
    order[rank] = np.arange(n, dtype=np.int32)
    t2 = time.perf_counter()
    return Topology(n, rank, order, up_ptr, up_nb, dn_ptr, dn_src, dn_edge, lvl_ptr, lvl_vert,
                    topology_key(g), core=st.get("core", 0),
                    fill=int(up_nb.shape[0] - adj.shape[0] // 2), order_s=t1 - t0,
                    topology_s=t2 - t1)


def _eliminate(n, ptr, adj, rank, progress, cancel):
    """``chordal.eliminate`` in a thread, polled for progress and cancel meanwhile."""
    from .chordal import eliminate
    from .model import density_limit, polled

    counter = np.zeros(2, np.int64)
    box: dict = {}
    limit, per_arc = density_limit(int(adj.shape[0]), n)

    def work() -> None:
        try:
            box["v"] = eliminate(n, ptr, adj, rank, limit, counter)
        except BaseException as exc:  # surfaced in the caller's thread
            box["e"] = exc

    polled(work, box, counter, lambda f: progress and progress(
        0.5 + 0.5 * f / max(n, 1), "building the chordal supergraph"), cancel,
        f"the customizable index of this graph needs more than {per_arc} edges "
        "per arc", "building the route index was cancelled")
    return box["v"]


def slots_for(t: Topology, graph) -> np.ndarray | str:
    """Each arc's CCH edge and direction (``chordal.arc_slots``), or why ``graph`` does
    not fit ``t`` (one line)."""
    from ..host.serial import pick_build
    from .chordal import arc_slots, arc_slots_serial

    g = CSRGraph.from_any(graph)
    if g.num_nodes != t.n:
        return f"the graph has {g.num_nodes} vertices, the index topology {t.n} (a new road)"
    s = pick_build(arc_slots, arc_slots_serial, t.n)(t.n, g.indptr, g.indices, t.rank,
                                                     t.up_ptr, t.up_nb)
    bad = np.flatnonzero(s == -2)
    if bad.size:
        degree: np.ndarray = np.diff(g.indptr.astype(np.int64))
        tails = np.repeat(np.arange(t.n), degree)
        a = int(bad[0])
        return (f"{bad.size} arc(s) lie on no edge of the index topology (a new road), "
                f"e.g. {int(tails[a])}->{int(g.indices[a])}")
    return s


def fits(t: Topology, graph) -> str:
    """"" when ``graph`` can be customized over ``t``, else why not."""
    s = slots_for(t, graph)
    return s if isinstance(s, str) else ""


def customize_metric(t: Topology, graph, *, backend: str = "cpu",
                     slots: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) int64 [edges]: the customized weights of ``graph`` over ``t``."""
    if backend == "auto":
        from ..backend import resolve_backend

        backend = resolve_backend("auto")
    if backend == "cupy":
        from .metric_cuda import customize_device

        up, down = customize_device(t, CSRGraph.from_any(graph))
        return up, down
    from .metric import initial, triangles

    g = CSRGraph.from_any(graph)
    if slots is None:
        found = slots_for(t, g)
        if isinstance(found, str):
            raise InvalidArgumentError(found)
        slots = found
    up, down = initial(t.edges, slots, g.weights, g.indptr)
    triangles(t, up, down)
    return up, down


# Full customizations prune by default (perfect customization + arc removal, ``perfect``):
# NE lost 25% of its arcs and 40% of its sweep levels, the Kanto-sized map 62% and 24%,
# for 1-2.5x the basic customization's time on 2 cores (docs/perf/index_build.md).
# Partial updates after closures stay unpruned (pruning costs more than their budget).
PRUNE = True


def customize(t: Topology, graph, *, backend: str = "cpu", progress: Progress | None = None,
              cancel: Callable[[], bool] | None = None, prune: bool = PRUNE,
              reuse: bool = True, key: str | None = None):
    """The :class:`~.api.Hierarchy` of ``graph``'s weights over topology ``t`` (the graph's
    arcs must all lie on edges of ``t``: InvalidArgumentError naming one otherwise).
    ``prune``: a full customization is made perfect and the arcs an upper or
    intermediate triangle matches are removed, with sweep levels of their own
    (``perfect``); off: every finite arc of the basic customization, the topology's levels.

    The basic metric is kept on ``t`` (``partial.Metric``) and, with ``reuse``, the next
    customization of ``t`` that changes few input weights (closures, reopenings, new
    weights) updates only the edges they reach (``partial``; on the CPU, whatever
    ``backend``: a few edges cost less than a device pass), with the same distances; that
    Hierarchy is unpruned (``customized = "partial (N edges changed)"``), unless no
    customized weight changed (then ``prune`` serves that metric's pruned one).
    ``cupy``: a full customization of a large topology runs on the device
    (``DEVICE_MIN_EDGES``; on the host's cores when the device has no room), and the
    partial updates' GPHAST device lists follow each patch (``patch_cuda``).
    ``key``: the graph's ``graph_key`` when the caller has it; else it is hashed when
    first read (from the kept copy of the graph's arrays: nothing the caller writes
    later changes it)."""
    g = CSRGraph.from_any(graph)
    t0 = time.perf_counter()
    if backend == "auto":
        from ..backend import resolve_backend

        backend = resolve_backend("auto")
    _stop(cancel)
    if progress is not None:
        progress(0.0, "customizing the route index")
    h = _customize_kept(t, g, backend, reuse, cancel, prune, progress)
    if key:
        h.graph_key = key
    h.customize_s = time.perf_counter() - t0
    h.order_s, h.topology_s = t.order_s, t.topology_s
    h.build_s = h.order_s + h.topology_s + h.customize_s
    return h


def _customize_kept(t: Topology, g: CSRGraph, backend: str, reuse: bool, cancel,
                    prune: bool, progress: Progress | None = None):
    """Customization through the metric kept on ``t``: partial when it allows (the
    changed inputs found by comparing ``g`` with the graph of the kept metric), else in
    full (then kept for the next one). Returns a Hierarchy of its own (the kept one's
    arrays shared: no Hierarchy array is written once built).

    One metric is kept per weight family (``g.metric_family``: the map's weights, or the
    search index's keys, ``keyed.KeyGraph``), so an app that re-customizes both after an
    edit updates each partially instead of replacing one by the other in full;
    ``t._metric`` is the last one used."""
    from .partial import lock_for

    family = getattr(g, "metric_family", "weights")
    with lock_for(t):
        kept = t.__dict__.setdefault("_metrics", {})
        t.__dict__["_metric"] = kept.get(family)  # not a field: never saved with t
        try:
            return _customize_locked(t, g, backend, reuse, cancel, prune, progress)
        finally:
            kept[family] = getattr(t, "_metric", None)


def _kept_metric(t: Topology) -> Metric:
    """The metric kept on ``t`` by the customization that just ran (``partial.keep``)."""
    return t.__dict__["_metric"]


def _customize_locked(t: Topology, g: CSRGraph, backend: str, reuse: bool, cancel,
                      prune: bool, progress: Progress | None = None):
    from .inputs import KeptInputs
    from .metric import initial
    from .partial import partial_from_graph, try_partial
    from .patch import spares_of

    device = backend == "cupy"
    done = partial_from_graph(t, g, prune, device) if reuse else None
    if done is None:
        slots = slots_for(t, g)
        if isinstance(slots, str):
            raise InvalidArgumentError(slots)
        base_up, base_down = initial(t.edges, slots, g.weights, g.indptr)
        # the kept metric's graph unknown, or many rows changed: every input compared
        done = try_partial(t, base_up, base_down, prune, device=device) if reuse else None
        if done is not None:
            _kept_metric(t).inputs = KeptInputs.of(g, spares_of(t))
    if done is not None:
        done[0].customized = f"partial ({done[1].shape[0]} edges changed)"
        done[0].graph_key = _lazy_key(_kept_metric(t).inputs)
        return done[0]
    if device and t.edges >= DEVICE_MIN_EDGES:
        h = _full_on_device(t, g, base_up, base_down, prune, cancel, progress)
        if h is not None:
            return h
    from .metric import triangles

    up, down = base_up.copy(), base_down.copy()
    triangles(t, up, down)
    _stop(cancel)
    pruned = None
    if prune:
        from .perfect import pruned_hierarchy

        pruned = pruned_hierarchy(t, up, down)
    return _full(t, g, base_up, base_down, up, down, pruned)


def _full(t: Topology, g: CSRGraph, base_up, base_down, up, down, pruned):
    """The Hierarchy of a full customization (basic metric up/down; ``pruned``: the
    pruned Hierarchy made from it, or None for the unpruned one), its metric kept on
    ``t`` for the next partial one."""
    import copy

    from .partial import keep

    if pruned is not None:
        h = pruned
        keep(t, base_up, base_down, up, down, None, pruned=h, g=g)
    else:
        h = to_hierarchy(t, up, down)
        keep(t, base_up, base_down, up, down, h, g=g)
    out = copy.copy(h)
    out.customized = "full"
    out.graph_key = _lazy_key(_kept_metric(t).inputs)
    return out


# Full customizations of topologies with at least this many edges run on the device when
# the backend is cupy (``metric_cuda.customize_full_device``: a warp per tile of a
# vertex's pairs of upward edges); smaller ones on the host's cores, where the transfers
# would cost more than the passes.
DEVICE_MIN_EDGES = 1 << 21


def _full_on_device(t: Topology, g: CSRGraph, base_up, base_down, prune: bool, cancel,
                    progress: Progress | None = None):
    """The full customization on the device, kept as the host's is; None when the device
    has no room for it (the caller runs it on the host)."""
    from ..errors import GpuOutOfMemoryError
    from .metric_cuda import customize_full_device

    try:
        got = customize_full_device(t, g, prune=prune, cancel=cancel, progress=progress)
    except GpuOutOfMemoryError:
        return None
    pruned = None
    if prune:
        from .model import of_topology
        from .perfect import pruned_arrays, removable

        pu, pd, ku, kd, zero = got[2:]
        if zero:  # an edge weighs 0: the one-sided test may differ there, the full one
            ku, kd = removable(t, pu, pd)
        pruned = of_topology(t, *pruned_arrays(t, pu, pd, ku, kd))
    return _full(t, g, base_up, base_down, got[0], got[1], pruned)


def _lazy_key(inputs):
    """``graph_key`` of the kept copy ``inputs`` (``partial.Metric.inputs``: the graph
    just customized), made when first read."""
    from .model import graph_key

    return lambda: graph_key(inputs)


def to_hierarchy(t: Topology, up: np.ndarray, down: np.ndarray, *, prune: bool = False):
    """The consumers' Hierarchy of a basic customization (up, down): every finite arc in
    sweep ids by the topology's levels, or with ``prune`` the arcs the perfect
    customization keeps (``perfect``), in sweep levels of their own."""
    from .metric import hierarchy_arrays
    from .model import of_topology

    if prune:
        from .perfect import pruned_hierarchy

        return pruned_hierarchy(t, up, down)
    return of_topology(t, *hierarchy_arrays(t, up, down))


def _check_topology(t: Topology, path) -> None:
    n = t.n
    ok = (t.rank.shape == (n,) and t.order.shape == (n,) and t.up_ptr.shape == (n + 1,)
          and t.dn_ptr.shape == (n + 1,) and int(t.up_ptr[-1]) == t.up_nb.shape[0]
          and t.dn_src.shape == t.up_nb.shape and t.dn_edge.shape == t.up_nb.shape
          and int(t.lvl_ptr[-1]) == n and t.lvl_vert.shape == (n,))
    if not ok:
        raise ValueError(f"{path}: inconsistent route index topology")
