"""Nested dissection of the core graph with METIS, its top levels split in this process so
that the rest runs in parallel worker processes (METIS itself is one thread).

The core is split ``depth`` times: each split is a METIS bisection (``pymetis.part_graph``
into 2), whose cut edges are covered by a minimum vertex cover (Koenig: a maximum matching
of the bipartite cut graph): those vertices are the separator, ordered after both halves.
The ``2**depth`` remaining parts are ordered by ``pymetis.nested_dissection`` side by side
in forked workers (``os.cpu_count()`` of them). The split depends on the graph's size only,
never on the core count, so the order is the same on every machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from ..errors import CancelledError

# Split once per this many core vertices (up to MAX_DEPTH times): below it one METIS call
# takes well under a second and a split costs more than it saves.
SPLIT_MIN = 60_000
MAX_DEPTH = 3


def split_depth(k: int) -> int:
    """How many times a core of ``k`` vertices is split (0: METIS orders it whole)."""
    d = 0
    while d < MAX_DEPTH and k >= SPLIT_MIN * (2 ** d):
        d += 1
    return d


def induced(ptr: np.ndarray, adj: np.ndarray, verts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR (ptr, adj) of the subgraph induced by ``verts`` (ascending), in their positions
    (each row's neighbours in their order in ``adj``)."""
    return _induced(ptr, adj, np.asarray(verts, dtype=np.int64))


@njit(cache=True, nogil=True)
def _induced(ptr, adj, verts):
    # one pass over verts' rows only (the whole graph's arrays in numpy took 0.65 s of
    # a 5.1M-vertex core's split, on its critical path)
    new = np.full(ptr.shape[0] - 1, -1, np.int64)
    for i in range(verts.shape[0]):
        new[verts[i]] = i
    sub_ptr = np.zeros(verts.shape[0] + 1, np.int64)
    for i in range(verts.shape[0]):
        c = 0
        for e in range(ptr[verts[i]], ptr[verts[i] + 1]):
            if new[adj[e]] >= 0:
                c += 1
        sub_ptr[i + 1] = sub_ptr[i] + c
    out = np.empty(sub_ptr[-1], np.int32)
    o = 0
    for i in range(verts.shape[0]):
        for e in range(ptr[verts[i]], ptr[verts[i] + 1]):
            j = new[adj[e]]
            if j >= 0:
                out[o] = j
                o += 1
    return sub_ptr, out


@njit(cache=True, nogil=True)
def _cut(ptr, adj, part):
    """(a, b) int64: the edges from part 0 to part 1, by a ascending, then in adj's order."""
    m = 0
    for u in range(ptr.shape[0] - 1):
        if part[u] == 0:
            for e in range(ptr[u], ptr[u + 1]):
                if part[adj[e]] == 1:
                    m += 1
    a = np.empty(m, np.int64)
    b = np.empty(m, np.int64)
    m = 0
    for u in range(ptr.shape[0] - 1):
        if part[u] == 0:
            for e in range(ptr[u], ptr[u + 1]):
                if part[adj[e]] == 1:
                    a[m] = u
                    b[m] = adj[e]
                    m += 1
    return a, b


def separator(ptr: np.ndarray, adj: np.ndarray, part: np.ndarray) -> np.ndarray:
    """A minimum vertex cover (ascending vertex ids) of the edges between part 0 and part 1."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    a, b = _cut(ptr, adj, np.asarray(part, dtype=np.int64))
    if a.shape[0] == 0:
        return np.empty(0, np.int64)
    left, ai = np.unique(a, return_inverse=True)
    right, bi = np.unique(b, return_inverse=True)
    m = csr_matrix((np.ones(ai.shape[0], np.int8), (ai, bi)),
                   shape=(left.shape[0], right.shape[0]))
    m.sum_duplicates()
    mate = maximum_bipartite_matching(m, perm_type="column")  # left -> right or -1
    mate_r = np.full(right.shape[0], -1, np.int64)
    matched = np.flatnonzero(mate >= 0)
    mate_r[mate[matched]] = matched
    # Koenig: Z = reachable from unmatched left vertices by alternating paths
    zl = mate < 0
    zr = np.zeros(right.shape[0], bool)
    frontier = np.flatnonzero(zl)
    while frontier.shape[0]:
        nb = np.unique(np.concatenate([m.indices[m.indptr[x]:m.indptr[x + 1]] for x in frontier]))
        nb = nb[~zr[nb]]
        zr[nb] = True
        nxt = mate_r[nb]
        nxt = nxt[(nxt >= 0)]
        nxt = nxt[~zl[nxt]]
        zl[nxt] = True
        frontier = nxt
    return np.sort(np.concatenate([left[~zl], right[zr]]))


def _nd(args) -> np.ndarray:
    """METIS's nested dissection order (positions) of one CSR part."""
    import pymetis

    ptr, adj, seed = args
    k = ptr.shape[0] - 1
    if k <= 1 or adj.shape[0] == 0:
        return np.arange(k, dtype=np.int64)
    opts = pymetis.Options()
    opts.seed = seed
    perm, _ = pymetis.nested_dissection(pymetis.CSRAdjacency(ptr, adj), options=opts)
    return np.asarray(perm, dtype=np.int64)


def _split(args):
    """One split of a CSR part: (separator, [(local ids, ptr, adj) of both sides])."""
    import pymetis

    ptr, adj, seed = args
    k = ptr.shape[0] - 1
    if k < 2 or adj.shape[0] == 0:
        part = np.zeros(k, np.int64)
    else:
        opts = pymetis.Options()
        opts.seed = seed
        _, p = pymetis.part_graph(2, adjacency=pymetis.CSRAdjacency(ptr, adj), options=opts)
        part = np.asarray(p, dtype=np.int64)
    sep = separator(ptr, adj, part)
    insep = np.zeros(k, bool)
    insep[sep] = True
    sides = []
    for side in (0, 1):
        loc = np.flatnonzero((part == side) & ~insep)
        sides.append((loc, *induced(ptr, adj, loc)))
    return sep, sides


def order_core(ptr: np.ndarray, adj: np.ndarray, *, seed: int = 1, depth: int | None = None,
               workers: int | None = None, cancel: Callable[[], bool] | None = None,
               stats: dict | None = None) -> np.ndarray:
    """Positions of the core's vertices in elimination order (int64 [k]): nested dissection,
    the top ``depth`` levels (:func:`split_depth` by default) split level by level, the
    ``2**depth`` parts then ordered by METIS, each step's parts side by side in ``workers``
    processes (``os.cpu_count()``; 1: all in this process). ``stats`` receives ``depth``,
    ``metis_cpu_s`` (the CPU seconds of every split and part) and ``critical_cpu_s`` (the
    largest of each step's, summed: the time with a worker per part)."""
    k = ptr.shape[0] - 1
    depth = split_depth(k) if depth is None else depth
    workers = min(os.cpu_count() or 1, 2 ** depth) if workers is None else workers
    if workers > 1 and depth > 0:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return _order_core(ptr, adj, seed, depth, workers, cancel, stats)
        except (BrokenProcessPool, OSError):  # no fork here (a killed worker, no memory)
            pass
    return _order_core(ptr, adj, seed, depth, 1, cancel, stats)


def _order_core(ptr, adj, seed, depth, workers, cancel, stats):
    k = ptr.shape[0] - 1
    ex = None
    if workers > 1 and depth > 0:
        from osutil.children import forked_pool

        ex = forked_pool(workers)  # workers end with this process, SIGKILL included
    try:
        def pmap(fn, items):
            if cancel is not None and cancel():
                raise CancelledError("building the route index was cancelled")
            got = list(ex.map(_TIMED[fn], items)) if ex is not None else [
                _TIMED[fn](x) for x in items]
            cpu[0] += sum(c for _, c in got)
            cpu[1] += max((c for _, c in got), default=0.0)
            return [r for r, _ in got]

        cpu = [0.0, 0.0]

        level = [(np.arange(k, dtype=np.int64), ptr, adj)]  # (core ids, CSR) per part
        seps = []  # per split level: each part's separator (core ids)
        for _ in range(depth):
            done = pmap(_split, [(p, a, seed) for _, p, a in level])
            nxt: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
            sl = []
            for (verts, _, _), (sep, sides) in zip(level, done, strict=True):
                sl.append(verts[sep])
                nxt.extend((verts[loc], p2, a2) for loc, p2, a2 in sides)
            seps.append(sl)
            level = nxt
        orders = [v[o] for (v, _, _), o in zip(
            level, pmap(_nd, [(p, a, seed) for _, p, a in level]), strict=True)]
    finally:
        if ex is not None:
            ex.shutdown(cancel_futures=True)
    if stats is not None:
        stats.update(depth=depth, metis_cpu_s=cpu[0], critical_cpu_s=cpu[1])
    for d in range(depth - 1, -1, -1):  # post-order: both halves, then their separator
        orders = [np.concatenate([orders[2 * i], orders[2 * i + 1], s])
                  for i, s in enumerate(seps[d])]
    return orders[0]


def _split_timed(args):
    """(``_split(args)``, the CPU seconds it took in its process)."""
    c0 = time.process_time()
    return _split(args), time.process_time() - c0


def _nd_timed(args):
    """(``_nd(args)``, the CPU seconds it took in its process)."""
    c0 = time.process_time()
    return _nd(args), time.process_time() - c0


_TIMED = {_split: _split_timed, _nd: _nd_timed}
