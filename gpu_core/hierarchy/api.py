"""A contraction hierarchy (CH) of a graph, for fast one-to-all and many-to-many costs.

``build_hierarchy(graph)`` contracts the graph once (minutes on a country, seconds on a
city; the caller caches the result with ``Hierarchy.save``/``load``); afterwards a search
from a source is an upward Dijkstra over a few hundred vertices plus one linear sweep over
all vertices in a fixed order (PHAST, Delling-Goldberg-Nowatzyk-Werneck 2011). The sweep
runs level by level on the GPU with many sources side by side (GPHAST), or with numba on
the CPU. Costs are the graph's exact integer shortest-path costs.

Vertex ids inside the hierarchy are "sweep ids": vertices sorted by level (a vertex's
level is one more than the largest level of the higher-ranked vertices it pulls from),
so every downward arc goes from a smaller sweep id to a larger one and each level is one
contiguous range. ``rank_of[v]`` maps a graph vertex to its sweep id.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..errors import CancelledError, InvalidArgumentError
from ..graph import CSRGraph, GraphLike
from .model import (  # noqa: F401  (re-exported: consumers import them from here)
    FORMAT,
    MAX_SHORTCUTS_PER_ARC,
    Hierarchy,
    HierarchyTooDenseError,
    ProgressCallback,
    graph_key,
    polled,
)

# Witness searches stop after this many settled vertices (while ordering / contracting):
# more finds more witnesses (fewer shortcuts) and takes longer; exactness never depends on it.
LIMIT_SIMULATE = 60
LIMIT_CONTRACT = 400


def road_shaped(graph: GraphLike) -> bool:
    """Whether a hierarchy pays off: a large hop diameter (road maps: hundreds to
    thousands of hops; random or social graphs: a few dozen) and a small mean degree."""
    from ..graph import prepared
    from ..shape import graph_shape

    g = CSRGraph.from_any(graph)

    def shaped() -> bool:
        sh = graph_shape(g)
        return (sh.diameter_estimate >= 4 * max(1, sh.nodes).bit_length() + 16
                and sh.mean_degree <= 8)

    if type(g) is CSRGraph:  # once per plain graph (BFS sweeps: ~1 s on NE; issue 43)
        return prepared(g).derived("road_shaped", shaped)
    return shaped()


METHODS = ("auto", "cch", "ch")


def build_hierarchy(graph: GraphLike, *, method: str = "auto",
                    progress: ProgressCallback | None = None,
                    cancel: Callable[[], bool] | None = None, topology=None,
                    backend: str = "cpu") -> Hierarchy:
    """The route index of ``graph`` (non-negative integer weights). ``method``: ``cch``
    (customizable: nested dissection order, chordal topology, customization; ``topology``
    a :class:`~.cch.Topology` of this graph's arcs to reuse; ``backend`` where the
    customization runs), ``ch`` (greedy order, witness searches), ``auto``: cch when
    pymetis is installed, else ch."""
    if method not in METHODS:
        raise InvalidArgumentError(f"index method {method!r}: choose one of {', '.join(METHODS)}")
    if method == "auto":
        from .order import metis_available

        method = "cch" if metis_available() else "ch"
    if method == "cch":
        return _build_cch(graph, progress, cancel, topology, backend)
    return _build_ch(graph, progress, cancel)


def recustomize(topology, graph: GraphLike, *, backend: str = "cpu",
                progress: ProgressCallback | None = None,
                cancel: Callable[[], bool] | None = None, reuse: bool = True) -> Hierarchy:
    """The hierarchy of ``graph`` (an edited map: closures, reopenings, new weights) over a
    kept :class:`~.cch.Topology` (``backend``: cpu, cupy or auto); InvalidArgumentError
    when an arc lies on no edge of it (an added road: build a new topology). With
    ``reuse``, a few changed weights against the topology's last customization update
    only the edges they reach (``partial``)."""
    from .cch import customize

    return customize(topology, graph, backend=backend, progress=progress, cancel=cancel,
                     reuse=reuse)


def _build_cch(graph, progress, cancel, topology, backend) -> Hierarchy:
    from .cch import build_topology, customize

    g = CSRGraph.from_any(graph)
    t = topology
    if t is None:
        t = build_topology(g, cancel=cancel, progress=None if progress is None else (
            lambda f, m: progress(0.8 * f, m)))
    h = customize(t, g, backend=backend, cancel=cancel, progress=None if progress is None else (
        lambda f, m: progress(0.8 + 0.2 * f, m)))
    if topology is None:  # ``t`` goes with this call: its tree stays with the index
        from .etree import elimination_tree

        h.tree_parent, h.tree_depth = elimination_tree(h)
    if progress is not None:
        progress(1.0, "route index ready")
    return h


def _build_ch(graph, progress, cancel) -> Hierarchy:
    from .contract import contract

    g = CSRGraph.from_any(graph)
    n = g.num_nodes
    t0 = time.perf_counter()
    r = g.reverse()
    counter = np.zeros(2, np.int64)  # [contracted so far, stop request]
    result: dict = {}

    def work() -> None:
        try:
            result["v"] = contract(
                n, g.indptr.astype(np.int64), g.indices, g.weights.astype(np.int64),
                r.indptr.astype(np.int64), r.indices, r.weights.astype(np.int64),
                LIMIT_SIMULATE, LIMIT_CONTRACT, MAX_SHORTCUTS_PER_ARC * max(g.num_arcs, n),
                max(1, n // 200), counter)
        except BaseException as exc:  # surfaced in the caller's thread
            result["e"] = exc

    polled(work, result, counter, lambda f: progress and progress(f / max(n, 1), "contracting"),
           cancel,
           f"contracting this graph needs more than {MAX_SHORTCUTS_PER_ARC} shortcuts per "
           "arc", "building the contraction hierarchy was cancelled")
    rank, ost, oln, onb, owt, ist, iln, inb, iwt, added = result["v"]
    h = _layout(n, rank, ost, oln, onb, owt, ist, iln, inb, iwt)
    h.graph_key = graph_key(g)
    h.shortcuts = int(added)
    h.build_s = time.perf_counter() - t0
    return h


def _gather(n, start, ln, nb, wt):
    """CSR (indptr, targets, weights) of per-vertex pool lists."""
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(ln, out=ptr[1:])
    idx = np.repeat(start - ptr[:-1], ln) + np.arange(int(ptr[-1]))
    return ptr, nb[idx], wt[idx]


def _layout(n, rank, ost, oln, onb, owt, ist, iln, inb, iwt) -> Hierarchy:
    """Levels, sweep ids and the two CSR graphs in sweep ids."""
    up_ptr, up_dst, up_w = _gather(n, ost, oln, onb, owt)
    dn_ptr, dn_src, dn_w = _gather(n, ist, iln, inb, iwt)
    level = _levels(n, rank, dn_ptr, dn_src)
    order = np.lexsort((-rank.astype(np.int64), level))  # sweep id -> vertex
    rank_of = np.empty(n, np.int32)
    rank_of[order] = np.arange(n, dtype=np.int32)
    nlev = int(level.max()) + 1 if n else 0
    level_ptr = np.zeros(nlev + 1, np.int64)
    np.cumsum(np.bincount(level, minlength=nlev), out=level_ptr[1:])

    def renumber(ptr, nbr, w) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cnt = np.diff(ptr)[order]
        p = np.zeros(n + 1, np.int64)
        np.cumsum(cnt, out=p[1:])
        idx = np.repeat(ptr[order] - p[:-1], cnt) + np.arange(int(p[-1]))
        return p, rank_of[nbr[idx]], w[idx].astype(np.int64)

    up = renumber(up_ptr, up_dst, up_w)
    dn = renumber(dn_ptr, dn_src, dn_w)
    return Hierarchy(n, rank_of, *up, *dn, level_ptr, "")


def _levels(n, rank, dn_ptr, dn_src) -> np.ndarray:
    from .levels import levels

    return levels(n, rank, dn_ptr, dn_src)


def iter_rows(h: Hierarchy, sources: np.ndarray, targets: np.ndarray | None, which: str, *,
              chunk: int | None = None, cancel: Callable[[], bool] | None = None,
              stats: dict | None = None, query: str = "auto", narrow: bool = False,
              fold=None):
    """(first row, int64 block [k, cols]) for consecutive batches of ``sources`` (graph
    ids; ``which`` a resolved backend), -1 where unreachable. ``query``: "phast" (sweep
    every vertex), "rphast" (sweep the targets' part), "buckets" (CPU only) or "auto"
    (``few.choose_query`` by size); ``stats["query"]`` says which ran. ``narrow``: int32
    blocks (the caller knows every cost fits; made on the device by the GPU sweep).
    ``fold``: ``host.fold``'s (extra target columns folded; on the device on
    the GPU)."""
    from .few import choose_query
    from .queries import check_query

    check_query(query, which, targets is not None)
    if query == "auto":
        query = choose_query(h.n, int(sources.shape[0]),
                             None if targets is None else int(targets.shape[0]), which)
    if stats is not None:
        stats.update(query=query)
    out = np.int32 if narrow else np.int64
    if targets is not None and targets.shape[0] == 0:  # no columns: nothing to sweep
        yield 0, np.empty((int(sources.shape[0]), 0), out)
        return
    if which == "cupy":
        from .cuda import iter_rows as cuda_rows

        yield from cuda_rows(h, sources, targets, cancel=cancel, stats=stats,
                             restricted=query == "rphast", narrow=narrow, fold=fold)
        return
    if fold is not None:
        from ..host.fold import fold_rows

        yield from fold_rows(iter_rows(h, sources, targets, which, chunk=chunk,
                                       cancel=cancel, stats=stats, query=query,
                                       narrow=narrow), fold)
        return
    if query != "phast":
        from .few import cpu_rows

        assert targets is not None  # check_query: rphast and buckets need targets
        for r0, block in cpu_rows(h, sources, targets, query, chunk, cancel, CPU_SWEEP_BYTES):
            yield r0, block.astype(out, copy=False)
        return
    from .cpu import sweep_block

    ncols = h.n if targets is None else int(targets.shape[0])
    step = int(chunk) if chunk else max(8, min(256, CPU_SWEEP_BYTES // (8 * (h.n + ncols))))
    for r0 in range(0, int(sources.shape[0]), step):
        if cancel is not None and cancel():
            raise CancelledError("many-source search cancelled")
        yield r0, sweep_block(h, sources[r0 : r0 + step], targets).astype(out, copy=False)


def release_device(*held) -> None:
    """Free the device memory that GPU work on ``held`` (Hierarchies, CCH Topologies)
    keeps (``device_copies.release``); the next GPU search uploads what it needs again."""
    from .device_copies import release

    release(*held)


CPU_SWEEP_BYTES = 512 << 20  # the CPU sweep's [n, k] cost block stays near this size
