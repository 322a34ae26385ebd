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

import hashlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np

from ..errors import CancelledError, GpuCoreError, InvalidArgumentError
from ..graph import CSRGraph, GraphLike

FORMAT = 1  # bump when the saved layout changes
ProgressCallback = Callable[[float, str], None]


@dataclass
class Hierarchy:
    n: int
    rank_of: np.ndarray  # int32 [n]: graph vertex -> sweep id
    up_ptr: np.ndarray  # int64 [n+1], upward arcs by sweep id (to higher-ranked vertices)
    up_dst: np.ndarray  # int32
    up_w: np.ndarray  # int64
    down_ptr: np.ndarray  # int64 [n+1], downward in-arcs by sweep id (from smaller ids)
    down_src: np.ndarray  # int32
    down_w: np.ndarray  # int64
    level_ptr: np.ndarray  # int64 [levels+1]: level l is sweep ids level_ptr[l]..[l+1)
    graph_key: str  # fingerprint of the graph it was built from
    shortcuts: int = 0
    build_s: float = 0.0

    @property
    def levels(self) -> int:
        return int(self.level_ptr.shape[0] - 1)

    def summary(self) -> dict:
        return {"nodes": self.n, "levels": self.levels, "shortcuts": self.shortcuts,
                "up_arcs": int(self.up_dst.shape[0]), "down_arcs": int(self.down_src.shape[0]),
                "build_s": round(self.build_s, 3)}

    def save(self, path: str | os.PathLike) -> None:
        """Write to ``path`` (.npz) through a temporary file renamed into place."""
        path = os.fspath(path)
        tmp = f"{path}.{os.getpid()}.tmp.npz"
        try:
            np.savez(tmp, format=np.int64(FORMAT), **{f.name: getattr(self, f.name)
                                                      for f in fields(self)})
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    @classmethod
    def load(cls, path: str | os.PathLike, graph: GraphLike | None = None, *,
             key: str | None = None) -> Hierarchy:
        """Read a saved hierarchy; with ``graph`` (or its :func:`graph_key` ``key``, when the
        caller has it already), refuse one built from another graph."""
        with np.load(os.fspath(path), allow_pickle=False) as z:
            if int(z["format"]) != FORMAT:
                raise InvalidArgumentError(f"{path}: hierarchy format {int(z['format'])}, "
                                           f"expected {FORMAT}")
            kw = {}
            for f in fields(cls):
                v = z[f.name]
                kw[f.name] = v.item() if v.ndim == 0 and f.name != "rank_of" else v
            h = cls(**kw)
        h.n = int(h.n)
        h.graph_key = str(h.graph_key)
        if key is None and graph is not None:
            key = graph_key(CSRGraph.from_any(graph))
        if key is not None and h.graph_key != key:
            raise InvalidArgumentError(f"{path}: hierarchy was built from another graph")
        return h


def graph_key(g: CSRGraph) -> str:
    """A fingerprint of the CSR arrays (a saved hierarchy is only valid for its graph)."""
    h = hashlib.blake2b(digest_size=16)
    for a in (g.indptr, g.indices, g.weights):
        h.update(np.ascontiguousarray(a).view(np.uint8).data)
    return h.hexdigest()


# Witness searches stop after this many settled vertices (while ordering / contracting):
# more finds more witnesses (fewer shortcuts) and takes longer; exactness never depends on it.
LIMIT_SIMULATE = 60
LIMIT_CONTRACT = 400
# Road maps need about one shortcut per arc; far more means a graph with no hierarchy to
# find (random, social): the build stops instead of running for hours.
MAX_SHORTCUTS_PER_ARC = 6


class HierarchyTooDenseError(GpuCoreError):
    """The graph does not contract into a sparse hierarchy (not road-shaped)."""


def road_shaped(graph: GraphLike) -> bool:
    """Whether a hierarchy pays off: a large hop diameter (road maps: hundreds to
    thousands of hops; random or social graphs: a few dozen) and a small mean degree."""
    from ..shape import graph_shape

    sh = graph_shape(CSRGraph.from_any(graph))
    return sh.diameter_estimate >= 4 * max(1, sh.nodes).bit_length() + 16 and sh.mean_degree <= 8


def build_hierarchy(graph: GraphLike, *, progress: ProgressCallback | None = None,
                    cancel: Callable[[], bool] | None = None) -> Hierarchy:
    """Contract ``graph`` (non-negative integer weights) into a hierarchy."""
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

    # numba releases no GIL by itself; the thread lets the caller poll progress meanwhile
    th = threading.Thread(target=work, daemon=True)
    th.start()
    while th.is_alive():
        th.join(0.25)
        if progress is not None:
            progress(float(counter[0]) / max(n, 1), "contracting")
        if cancel is not None and counter[1] == 0 and cancel():
            counter[1] = 1
    if "e" in result:
        raise result["e"]
    if counter[1] == 2:
        raise HierarchyTooDenseError(
            f"contracting this graph needs more than {MAX_SHORTCUTS_PER_ARC} shortcuts per arc "
            "(it is not road-shaped); use a search variant without an index")
    if counter[1]:
        raise CancelledError("building the contraction hierarchy was cancelled")
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

    def renumber(ptr, nbr, w):
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
              stats: dict | None = None):
    """(first row, int64 block [k, cols]) for consecutive batches of ``sources`` (graph
    ids; ``which`` a resolved backend), -1 where unreachable."""
    if which == "cupy":
        from .cuda import iter_rows as cuda_rows

        yield from cuda_rows(h, sources, targets, cancel=cancel, stats=stats)
        return
    from ..errors import CancelledError
    from .cpu import sweep_block

    ncols = h.n if targets is None else int(targets.shape[0])
    step = int(chunk) if chunk else max(8, min(256, CPU_SWEEP_BYTES // (8 * (h.n + ncols))))
    for r0 in range(0, int(sources.shape[0]), step):
        if cancel is not None and cancel():
            raise CancelledError("many-source search cancelled")
        yield r0, sweep_block(h, sources[r0 : r0 + step], targets)


CPU_SWEEP_BYTES = 512 << 20  # the CPU sweep's [n, k] cost block stays near this size
