"""CPU side of the contraction hierarchy: the upward searches (numba, parallel over
sources) that both backends use, and the PHAST downward sweep for the CPU backend.

Vertex ids here are the hierarchy's sweep order (``Hierarchy.order``): every downward arc
goes from a smaller id to a larger one, so one pass over the ids in increasing order, each
vertex pulling from its in-arcs, completes every distance (Delling et al., PHAST).
"""

from __future__ import annotations

import threading
import weakref

import numpy as np
from numba import get_num_threads, njit, prange

from ..host.heap import pop_min, sift_up
from ..host.serial import pick, serial_twin
from .contract import INF


@njit(cache=True, nogil=True)
def _settle(size, nt, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos):
    """Dijkstra in the upward graph from the ``size`` entries already in the heap (their
    vertices the first ``nt`` of ``touched``); returns (vertices reached, arcs scanned)."""
    arcs = 0
    while size > 0:
        d, x, size = pop_min(hk, hv, pos, False, size)
        if d > dist[x]:
            continue
        arcs += up_ptr[x + 1] - up_ptr[x]
        for e in range(up_ptr[x], up_ptr[x + 1]):
            y = up_dst[e]
            nd = d + up_w[e]
            if nd < dist[y]:
                if dist[y] == INF:
                    touched[nt] = y
                    nt += 1
                dist[y] = nd
                sift_up(hk, hv, pos, False, size, nd, np.int32(y))
                size += 1
    return nt, arcs


@njit(cache=True, nogil=True)
def upward(src, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos):
    """Dijkstra from every vertex of ``src`` (sweep ids, cost 0) in the upward graph;
    ``dist`` (INF outside the search) receives the costs. Returns (vertices reached, arcs
    scanned); their ids are ``touched[:reached]`` (the caller resets ``dist``)."""
    nt = 0
    size = 0
    for i in range(src.shape[0]):
        s = src[i]
        if dist[s] != 0:
            dist[s] = 0
            touched[nt] = s
            nt += 1
            sift_up(hk, hv, pos, False, size, np.int64(0), np.int32(s))
            size += 1
    return _settle(size, nt, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos)


@njit(cache=True)
def _upward_one(s, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos):
    """Dijkstra from s in the upward graph; returns how many vertices it reached (their ids
    in ``touched``, distances in ``dist``; the caller resets ``dist``)."""
    touched[0] = s
    dist[s] = 0
    sift_up(hk, hv, pos, False, 0, np.int64(0), np.int32(s))
    return _settle(1, 1, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos)[0]


@njit(cache=True, nogil=True)
def _grown(out_v, out_d, used, need):
    """(vertices, costs) output arrays of at least ``need`` entries, the first ``used``
    kept: doubled (amortised copies)."""
    cap = max(2 * out_v.shape[0], need)
    nv = np.empty(cap, np.int32)
    nd = np.empty(cap, np.int64)
    nv[:used] = out_v[:used]
    nd[:used] = out_d[:used]
    return nv, nd


@njit(cache=True, nogil=True)
def _upward_chunk(sources, up_ptr, up_dst, up_w, dist, touched, hk, hv, pos):
    """The upward searches from ``sources`` one after another, in one pass: (vertices
    reached per source, their ids, their costs), concatenated in source order. ``dist``
    (INF everywhere) is left INF again for the next call."""
    S = sources.shape[0]
    counts = np.empty(S, np.int64)
    cap = max(1024, 64 * S)
    out_v = np.empty(cap, np.int32)
    out_d = np.empty(cap, np.int64)
    used = 0
    for i in range(S):
        nt = _upward_one(sources[i], up_ptr, up_dst, up_w, dist, touched, hk, hv, pos)
        if used + nt > out_v.shape[0]:
            out_v, out_d = _grown(out_v, out_d, used, used + nt)
        for k in range(nt):
            x = touched[k]
            out_v[used + k] = x
            out_d[used + k] = dist[x]
            dist[x] = INF
        used += nt
        counts[i] = nt
    return counts, out_v[:used], out_d[:used]


@njit(cache=True, nogil=True)
def _walk_chunk(sources, ptr, arc_depth, wt, parent, depth, sd):
    """The upward searches from ``sources`` as climbs of their elimination-tree paths
    (``etree``; no heap: each vertex of the path, in order, pushes its arcs into the
    path's costs ``sd``, indexed by depth, INF everywhere and left so), concatenated as
    ``_upward_chunk`` gives them: the same vertices and costs, in path order."""
    S = sources.shape[0]
    counts = np.empty(S, np.int64)
    out_v = np.empty(max(1024, 64 * S), np.int32)
    out_d = np.empty(out_v.shape[0], np.int64)
    used = 0
    for i in range(S):
        x = sources[i]
        p = depth[x]
        sd[p] = 0
        nt = used
        while x >= 0:
            dx = sd[p]
            if dx < INF:
                if nt == out_v.shape[0]:
                    out_v, out_d = _grown(out_v, out_d, nt, nt + 1)
                out_v[nt] = x
                out_d[nt] = dx
                nt += 1
                for e in range(ptr[x], ptr[x + 1]):
                    c = dx + wt[e]
                    q = arc_depth[e]
                    if c < sd[q]:
                        sd[q] = c
                sd[p] = INF
            x = parent[x]
            p -= 1
        counts[i] = nt - used
        used = nt
    return counts, out_v[:used], out_d[:used]


# Sources from which upward searches make the tree to climb when ``h`` has none yet (NE:
# the head depths of a new Hierarchy's arcs take ~10 ms, a loaded index's tree ~0.12 s;
# a climb saves ~0.05 ms a source on NE, ~0.5 ms on the Kanto-sized index)
CLIMB_MIN_SOURCES = 512


def up_tree(h, build: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(parent, depth, each upward arc's head depth) for climbing ``h``'s upward searches
    (``_walk_chunk``: 2.2-2.4x faster than the Dijkstra on one thread, NE and the
    Kanto-sized index), kept with ``h``; None for a witness-search CH, whose tree may run
    far past its search spaces, or when none is kept and ``build`` is false."""
    if getattr(h, "method", "ch") != "cch":
        return None
    got = getattr(h, "_arc_depth", None)
    if got is not None and got[0]() is h.up_dst:
        return got[1], got[2], got[3]
    if not build:
        return None
    from .etree import elimination_tree

    parent, depth = elimination_tree(h)
    got = (weakref.ref(h.up_dst), parent, depth, depth[h.up_dst])
    h._arc_depth = got
    return parent, depth, got[3]


_SCRATCH = threading.local()  # each search thread's O(n) state, kept between calls
_POOL: list = []  # [ThreadPoolExecutor], made on first use


def _scratch(n: int, m: int) -> tuple:
    """This thread's (dist INF [n], touched [n], heap keys/values [m+1], pos) for a graph
    of n vertices and m arcs: made once per thread and graph size, not once per call (on
    NE 12 MB filled per thread; 64 threads refilling it for every GPU sweep, twice, cost
    more than the searches). The heap arrays are reserved, not touched."""
    got = getattr(_SCRATCH, "arrays", None)
    if got is None or got[0] != (n, m):
        got = ((n, m), np.full(n, INF, np.int64), np.empty(n, np.int32),
               np.empty(m + 1, np.int64), np.empty(m + 1, np.int32), np.empty(1, np.int64))
        _SCRATCH.arrays = got
    return got[1:]


def _pool(threads: int):
    from concurrent.futures import ThreadPoolExecutor

    if not _POOL or _POOL[0]._max_workers < threads:  # noqa: SLF001 (its size, to grow it)
        if _POOL:
            _POOL.pop().shutdown(wait=False)
        _POOL.append(ThreadPoolExecutor(threads, thread_name_prefix="upward"))
    return _POOL[0]


def search_spaces(seeds: np.ndarray, ptr, nbr, wt, n: int, threads: int | None = None,
                  tree: tuple | None = None):
    """(counts, vertices, costs) of the upward searches from ``seeds`` (sweep ids) over
    one direction's arcs (``ptr``/``nbr``/``wt``), concatenated in seed order: one pass,
    contiguous runs of seeds on ``threads`` threads (default numba's count; the searches
    release the GIL), each with its kept scratch; with ``tree`` (``up_tree`` of these
    arcs) climbed along the elimination tree instead of a Dijkstra each."""
    seeds = np.ascontiguousarray(seeds, dtype=np.int32)
    S = int(seeds.shape[0])
    m = int(nbr.shape[0])
    nth = max(1, min(threads or get_num_threads(), S))

    def run(lo: int, hi: int):
        if tree is not None:
            parent, depth, arc_depth = tree
            sd = np.full(int(depth.max(initial=0)) + 1, INF, np.int64)
            return _walk_chunk(seeds[lo:hi], ptr, arc_depth, wt, parent, depth, sd)
        return _upward_chunk(seeds[lo:hi], ptr, nbr, wt, *_scratch(n, m))

    if nth == 1:
        return run(0, S)
    cuts = np.linspace(0, S, nth + 1).astype(np.int64)
    parts = list(_pool(nth).map(run, cuts[:-1], cuts[1:]))
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


def upward_searches(h, sources: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each source (sweep ids): (offsets [S+1], vertices, distances) of its upward
    search space, concatenated. The elimination tree is climbed when it costs no search
    (read with the index, or its topology's: ``etree.known_tree``; then only the arcs'
    head depths, ~0.05 s on the Kanto-sized index) or when the sources are many: the
    window's first billboards block of 64 sources took 0.4-1.8 s by Dijkstra there."""
    from .etree import known_tree

    many = int(sources.shape[0]) >= CLIMB_MIN_SOURCES
    tree = up_tree(h, build=many or known_tree(h) is not None)
    counts, verts, dists = search_spaces(sources, h.up_ptr, h.up_dst, h.up_w, h.n, tree=tree)
    offsets = np.zeros(counts.shape[0] + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets, verts, dists


@njit(cache=True, parallel=True)
def _sweep(d, down_ptr, down_src, down_w, lanes):
    """d [n, k]: each thread sweeps every vertex for its ``lanes`` columns."""
    n, k = d.shape
    nblk = (k + lanes - 1) // lanes
    for b in prange(nblk):
        j0 = b * lanes
        j1 = min(k, j0 + lanes)
        for v in range(n):
            for e in range(down_ptr[v], down_ptr[v + 1]):
                u = down_src[e]
                w = down_w[e]
                for j in range(j0, j1):
                    c = d[u, j] + w
                    if c < d[v, j]:
                        d[v, j] = c


def sweep(d: np.ndarray, h) -> None:
    """Complete the [n, k] block ``d`` (sweep ids x sources; the upward searches' costs in,
    ``INF`` elsewhere) down the hierarchy, the columns split over the threads (a small
    map: the serial twin, cheap to compile)."""
    k = int(d.shape[1])
    lanes = max(1, -(-k // max(1, get_num_threads())))
    pick(_sweep, _sweep_serial, h.n)(d, h.down_ptr, h.down_src, h.down_w, min(lanes, 16))


@njit(cache=True, parallel=True)
def _sweep_fresh(d, down_ptr, down_src, down_w, lanes, seeded, inf, big_at):
    """``_sweep`` on a block holding only the rows where ``seeded`` (the upward searches'
    vertices; ``inf`` outside their costs): every other row is set ``inf`` as the sweep
    reaches it, in the thread's own columns (no pass filling the whole block first).
    Returns how many lane blocks met a finite cost >= ``big_at`` (a 32-bit block's
    overflow test, as ``phast.cu``'s). The rows are taken as slices and relaxed with a
    branch-free ``min`` (no conditional store): LLVM vectorizes the column loop, 1.9-2.2x
    faster than ``_sweep``'s form on the Kanto-sized index (docs/perf/billboards_cpu.md)."""
    n, k = d.shape
    nblk = (k + lanes - 1) // lanes
    flagged = 0
    for b in prange(nblk):
        j0 = b * lanes
        j1 = min(k, j0 + lanes)
        m = j1 - j0
        big = 0
        for v in range(n):
            dv = d[v, j0:j1]
            if not seeded[v]:
                dv[:] = inf
            for e in range(down_ptr[v], down_ptr[v + 1]):
                du = d[down_src[e], j0:j1]
                w = down_w[e]
                for j in range(m):
                    dv[j] = min(du[j] + w, dv[j])
            for j in range(m):
                x = dv[j]
                big |= (x >= big_at) & (x < inf)
        flagged += big
    return flagged


# 32-bit blocks (half the memory traffic of 64 bits): exact while every cost and arc stays
# below BIG32, INF32 unreachable (phast.cu's argument); a block meeting a cost >= BIG32 is
# swept again in 64 bits by the caller
INF32 = np.int64(0x7FFFFFFF)
BIG32 = np.int64(1 << 30)


def down_w32(h) -> np.ndarray | None:
    """``h.down_w`` as int32 when every arc weighs less than ``BIG32`` (else None)."""
    if h.down_w.size and int(h.down_w.max()) >= BIG32:
        return None
    return h.down_w.astype(np.int32)


def sweep_fresh(d: np.ndarray, h, offsets: np.ndarray, verts: np.ndarray,
                dists: np.ndarray, seeded: np.ndarray, w: np.ndarray | None = None) -> bool:
    """Fill ``d`` [n, k] (any contents) with the costs from the k sources whose upward
    searches are (``offsets``, ``verts``, ``dists``), as ``sweep`` does after a fill with
    INF: the columns split evenly over the threads (one lane block each: wider blocks
    read each arc once for more columns; 16-column lanes left a third of NE's 44 columns
    to one of two threads). ``seeded`` (bool [n], all False) is used as scratch and left
    all False. An int32 ``d`` (``w``: ``down_w32(h)``) holds ``INF32`` for unreachable;
    returns False when a cost reached ``BIG32`` there (sweep it again in 64 bits)."""
    k = int(d.shape[1])
    narrow = d.dtype == np.int32
    if narrow and dists.size and int(dists.max()) >= BIG32:
        return False
    inf = INF32 if narrow else INF
    rows = np.unique(verts)  # the searches share the hierarchy's top: rows set once
    seeded[rows] = True
    d[rows] = inf
    d[verts, np.repeat(np.arange(k), np.diff(offsets))] = dists
    lanes = max(1, -(-k // max(1, get_num_threads())))
    big = pick(_sweep_fresh, _sweep_fresh_serial, h.n)(
        d, h.down_ptr, h.down_src, w if narrow else h.down_w, lanes, seeded, inf,
        BIG32 if narrow else INF)
    seeded[rows] = False
    return big == 0


def sweep_block(h, sources: np.ndarray, targets: np.ndarray | None) -> np.ndarray:
    """int64 [len(sources), cols] costs (-1 unreachable) for sources/targets given in the
    graph's own ids."""
    k = int(sources.shape[0])
    offsets, verts, dists = upward_searches(h, h.rank_of[sources])
    d = np.full((h.n, k), INF, np.int64)
    col = np.repeat(np.arange(k), np.diff(offsets))
    d[verts, col] = dists
    sweep(d, h)
    rows = h.rank_of if targets is None else h.rank_of[targets]
    out = d[rows].T
    return np.where(out >= INF, -1, out)


# serial twin (``host.serial``): a small map's sweep compiles without numba's parfor passes
_sweep_serial = serial_twin(_sweep)
_sweep_fresh_serial = serial_twin(_sweep_fresh)
