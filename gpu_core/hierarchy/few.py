"""Few-to-few queries through the route index (issue 26): when the targets are few, a
matrix need not sweep every vertex.

* ``buckets`` (Knopp, Sanders, Schultes, Schulz, Wagner 2007): a backward upward search
  from each target leaves (target, cost) in the bucket of every vertex it reaches; a
  forward upward search from each source scans the buckets of the vertices it reaches, and
  cost(s, t) is the least ``up(s, x) + down(x, t)`` over the meeting vertices x.
* ``rphast`` (Delling, Goldberg, Werneck 2011, restricted PHAST): the vertices the targets'
  backward upward searches reach are closed under "tail of a downward in-arc", so the PHAST
  sweep restricted to them, renumbered compactly in sweep order (once per target set:
  :class:`Restricted`), still ends with every target's exact cost.

Both work on the :class:`~gpu_core.hierarchy.api.Hierarchy` dataclass alone (any builder
that fills it); the backward upward graph is the downward in-arc CSR read from the head.
:func:`choose_query` is the one rule that picks phast, rphast or buckets by size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import get_num_threads, njit, prange

from ..host.serial import pick, serial_twin
from .contract import INF
from .cpu import CLIMB_MIN_SOURCES, _upward_one, search_spaces, up_tree
from .queries import queries_for

# The selection rule. On the CPU (stop 50, quiet 2-core machine, `signpost bench matrix
# --variants phast --queries rphast,buckets`, docs/perf/few_to_few.md) the buckets won from
# 100 x 100 up since their searches climb the index's stored tree: NE 300/1000/3000 0.05/
# 0.20/1.0 s against the restricted sweep's 0.08/0.42/2.0 s, the Kanto-sized map 100/300/
# 1000 0.15/0.48/1.9 against 0.19/0.69/2.7 (even at 3000); below 100 a side the restricted
# sweep (NE 30 x 30: 10 against 16 ms; 100 x 100 even), and with few sources or few targets
# (one side's searches then cost more than the sweep: COL 10 x 1000, 28 against 212 ms).
# The restricted sweep beats the full one while the targets' union of search spaces stays
# a small part of the graph (targets <= n / 20). On the GPU the restricted sweep runs the
# same level kernels over fewer vertices: one NVIDIA H100, NE (stop 51, `bench matrix
# --backend cupy --variants phast --queries auto,phast,rphast`), 100/1000/10,000 a side
# 5/6/277 ms against the full sweep's 6/26/467 ms; auto takes it up to n / 100 targets
# (15,245 on NE: measured up to 10,000, 0.66 % of n).
BUCKET_MIN_SIDE = 100  # CPU: buckets when sources and targets both number this many
# ... and targets at most this many: the buckets hold an entry per vertex of each target's
# search space (~1,000 on NE: 12 bytes each), measured up to 3,000 targets
BUCKET_MAX_TARGETS = 10_000
RPHAST_MAX_TARGETS_PER_NODE = 1 / 20  # CPU: targets <= n / 20: restricted (or buckets)
GPU_RPHAST_MAX_TARGETS_PER_NODE = 1 / 100  # GPU: targets <= n / 100: restricted


def choose_query(n: int, sources: int, targets: int | None, backend: str) -> str:
    """"phast", "rphast" or "buckets" for ``sources`` x ``targets`` (None: all vertices)
    on an ``n``-vertex index, on ``backend`` ("cpu" or "cupy": no buckets on the GPU)."""
    if targets is None or targets >= n:
        return "phast"
    bound = RPHAST_MAX_TARGETS_PER_NODE if backend == "cpu" else GPU_RPHAST_MAX_TARGETS_PER_NODE
    if not 0 < targets <= n * bound:
        return "phast"
    if ("buckets" in queries_for(backend) and min(sources, targets) >= BUCKET_MIN_SIDE
            and targets <= BUCKET_MAX_TARGETS):
        return "buckets"
    return "rphast"


# ---- the searches -------------------------------------------------------------------------
SEARCHES_PER_THREAD = 16  # each thread's search state is O(n): few searches, few threads


def search_threads(searches: int) -> int:
    """Threads for ``searches`` upward searches: every thread allocates and fills O(n)
    state first (12 MB on NE), which costs more than a dozen searches of a few hundred
    vertices, so a small job takes fewer threads than the machine has."""
    return max(1, min(get_num_threads(), searches // SEARCHES_PER_THREAD))


def _spaces(seeds: np.ndarray, ptr, nbr, wt, n: int, tree=None):
    """(counts, vertices, costs) of the upward searches from ``seeds`` (sweep ids) over
    one direction's arcs, concatenated (``cpu.search_spaces``; ``tree``: climbed)."""
    return search_spaces(seeds, ptr, nbr, wt, n, search_threads(int(seeds.shape[0])), tree)


def source_spaces(h, sources: np.ndarray):
    """(column, sweep id, cost) of the sources' (graph ids) upward search entries (the
    GPU's restricted sweep scatters these)."""
    counts, verts, dists = _spaces(h.rank_of[sources], h.up_ptr, h.up_dst, h.up_w, h.n,
                                   up_tree(h, build=sources.shape[0] >= CLIMB_MIN_SOURCES))
    return np.repeat(np.arange(counts.shape[0], dtype=np.int32), counts), verts, dists


def backward_spaces(h, targets_sweep: np.ndarray):
    """(counts, vertices, costs to the target) of each target's (sweep id) backward
    upward search: over the downward in-arcs read from the head."""
    return _spaces(targets_sweep, h.down_ptr, h.down_src, h.down_w, h.n)


@njit(cache=True)
def _search_state(n, arcs):
    """One thread's upward-search state: costs (INF; a search resets what it touched),
    touched list, lazy heap of at most ``arcs`` + 1 entries, its unused position slot."""
    return (np.full(n, INF, np.int64), np.empty(n, np.int32), np.empty(arcs + 1, np.int64),
            np.empty(arcs + 1, np.int32), np.empty(1, np.int64))


# ---- buckets ------------------------------------------------------------------------------
@dataclass
class Buckets:
    """The targets' backward search spaces grouped by meeting vertex (sweep id)."""

    ptr: np.ndarray  # int64 [n+1]: bucket of x is ptr[x]..ptr[x+1]
    col: np.ndarray  # int32: target column
    cost: np.ndarray  # int64: cost from x to that target
    ncols: int


def make_buckets(h, targets: np.ndarray) -> Buckets:
    """Buckets of ``targets`` (graph ids; duplicates each get their column)."""
    counts, verts, dists = backward_spaces(h, h.rank_of[targets])
    col = np.repeat(np.arange(targets.shape[0], dtype=np.int32), counts)
    order = np.argsort(verts, kind="stable")
    ptr = np.zeros(h.n + 1, np.int64)
    np.cumsum(np.bincount(verts, minlength=h.n), out=ptr[1:])
    return Buckets(ptr, col[order], dists[order], int(targets.shape[0]))


@njit(cache=True, parallel=True)
def _bucket_rows(seeds, up_ptr, up_dst, up_w, n, bptr, bcol, bcost, out, nthreads):
    """out[i, :] (INF-filled): each source's upward search scans the buckets it meets;
    sources split over the threads in prange chunks."""
    S = seeds.shape[0]
    per = (S + nthreads - 1) // nthreads
    for t in prange(nthreads):
        dist, touched, hk, hv, pos = _search_state(n, up_dst.shape[0])
        for i in range(t * per, min(S, (t + 1) * per)):
            nt = _upward_one(seeds[i], up_ptr, up_dst, up_w, dist, touched, hk, hv, pos)
            for k in range(nt):
                x = touched[k]
                ds = dist[x]
                for e in range(bptr[x], bptr[x + 1]):
                    c = ds + bcost[e]
                    j = bcol[e]
                    if c < out[i, j]:
                        out[i, j] = c
                dist[x] = INF


def bucket_block(h, b: Buckets, sources: np.ndarray) -> np.ndarray:
    """int64 [len(sources), targets] costs (-1 unreachable), sources in graph ids."""
    out = np.full((int(sources.shape[0]), b.ncols), INF, np.int64)
    if sources.shape[0]:
        pick(_bucket_rows, _bucket_rows_serial, h.n)(
            np.ascontiguousarray(h.rank_of[sources], dtype=np.int32), h.up_ptr, h.up_dst,
            h.up_w, h.n, b.ptr, b.col, b.cost, out, search_threads(int(sources.shape[0])))
    out[out >= INF] = -1
    return out


# ---- restricted PHAST ---------------------------------------------------------------------
@njit(cache=True)
def _closure(seeds, ptr, nbr, n):
    """Sorted ids reachable from ``seeds`` over (ptr, nbr): the targets' backward upward
    search spaces without their costs."""
    mark = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int32)
    top = 0
    for s in seeds:
        if not mark[s]:
            mark[s] = True
            stack[top] = s
            top += 1
    while top > 0:
        top -= 1
        x = stack[top]
        for e in range(ptr[x], ptr[x + 1]):
            y = nbr[e]
            if not mark[y]:
                mark[y] = True
                stack[top] = y
                top += 1
    return np.flatnonzero(mark).astype(np.int32)


@dataclass
class Restricted:
    """The downward sweep restricted to a target set: its vertices ``sel`` (sweep ids, in
    sweep order) renumbered 0..n-1, their downward in-arcs, levels and target rows. It has
    a Hierarchy's sweep fields (``n``, ``down_*``, ``level_ptr``), so the GPHAST sweeper
    runs on it unchanged."""

    n: int
    sel: np.ndarray  # int32 [n]: local id -> sweep id of the full index
    loc: np.ndarray  # int32 [full n]: sweep id -> local id, -1 outside
    down_ptr: np.ndarray
    down_src: np.ndarray
    down_w: np.ndarray
    level_ptr: np.ndarray
    rows: np.ndarray  # int32 [targets]: local id of each target

    @property
    def levels(self) -> int:
        return int(self.level_ptr.shape[0] - 1)

    def local_spaces(self, col, verts, dists):
        """(column, local vertex, cost) of the sources' upward search entries that lie in
        the selection (the others cannot reach a target downward)."""
        lv = self.loc[verts]
        keep = lv >= 0
        return col[keep], lv[keep], dists[keep]


def restrict(h, targets: np.ndarray) -> Restricted:
    """The restricted sweep of ``targets`` (graph ids). The last one made is kept on ``h``
    (a Hierarchy is never written once built) with its device copy (``cuda._device``), so
    a job that asks again for the same targets block after block (a Dask worker's matrix
    blocks) makes and uploads it once: 10,000 targets of the 24M-node map select a cone of
    millions of vertices."""
    key = _targets_key(targets)
    kept = getattr(h, "_restricted", None)
    if kept is not None and kept[0] == key:
        return kept[1]
    r = _restrict(h, targets)
    h._restricted = (key, r)
    return r


def _targets_key(targets: np.ndarray) -> tuple:
    import hashlib

    a = np.ascontiguousarray(targets, dtype=np.int64)
    return a.shape[0], hashlib.blake2b(a.view(np.uint8).data, digest_size=16).digest()


def _restrict(h, targets: np.ndarray) -> Restricted:
    tr = np.ascontiguousarray(h.rank_of[targets], dtype=np.int32)
    sel = _closure(tr, h.down_ptr, h.down_src, h.n)
    m = int(sel.shape[0])
    loc = np.full(h.n, -1, np.int32)
    loc[sel] = np.arange(m, dtype=np.int32)
    cnt = h.down_ptr[sel + 1] - h.down_ptr[sel]
    ptr = np.zeros(m + 1, np.int64)
    np.cumsum(cnt, out=ptr[1:])
    idx = np.repeat(h.down_ptr[sel] - ptr[:-1], cnt) + np.arange(int(ptr[-1]))
    level_ptr = np.searchsorted(sel, h.level_ptr).astype(np.int64)
    return Restricted(m, sel, loc, ptr, loc[h.down_src[idx]], h.down_w[idx].astype(np.int64),
                      level_ptr, loc[tr])


@njit(cache=True, parallel=True)
def _rphast_rows(seeds, up_ptr, up_dst, up_w, n, loc, m, dptr, dsrc, dw, rows, out, nthreads):
    """out[i, j] = cost from seeds[i] to local vertex rows[j] (-1 unreachable): per source
    an upward search, its entries inside the selection put in one row of m costs, and the
    restricted sweep over that row (it stays in the core's cache); sources in prange."""
    S = seeds.shape[0]
    per = (S + nthreads - 1) // nthreads
    for t in prange(nthreads):
        dist, touched, hk, hv, pos = _search_state(n, up_dst.shape[0])
        row = np.full(m, INF, np.int64)
        for i in range(t * per, min(S, (t + 1) * per)):
            nt = _upward_one(seeds[i], up_ptr, up_dst, up_w, dist, touched, hk, hv, pos)
            for k in range(nt):
                x = touched[k]
                lx = loc[x]
                if lx >= 0:
                    row[lx] = dist[x]
                dist[x] = INF
            for v in range(m):
                best = row[v]
                for e in range(dptr[v], dptr[v + 1]):
                    c = row[dsrc[e]] + dw[e]
                    if c < best:
                        best = c
                row[v] = best
            for j in range(rows.shape[0]):
                c = row[rows[j]]
                out[i, j] = -1 if c >= INF else c
            row[:] = INF


def rphast_block(h, r: Restricted, sources: np.ndarray) -> np.ndarray:
    """int64 [len(sources), targets] costs (-1 unreachable) by the restricted sweep."""
    k = int(sources.shape[0])
    out = np.empty((k, int(r.rows.shape[0])), np.int64)
    if k:
        pick(_rphast_rows, _rphast_rows_serial, h.n)(
            np.ascontiguousarray(h.rank_of[sources], dtype=np.int32), h.up_ptr, h.up_dst,
            h.up_w, h.n, r.loc, r.n, r.down_ptr, r.down_src, r.down_w, r.rows, out,
            search_threads(k))
    return out


def cpu_rows(h, sources: np.ndarray, targets: np.ndarray, query: str, step: int | None,
             cancel=None, budget_bytes: int = 512 << 20):
    """(first row, block) for ``query`` "buckets" or "rphast" on the CPU: the targets'
    side is made once, then sources go in blocks of ``step`` (default: by memory)."""
    from ..errors import CancelledError

    if query == "buckets":
        b = make_buckets(h, targets)
        width = b.ncols
        block = lambda s: bucket_block(h, b, s)  # noqa: E731
    else:
        r = restrict(h, targets)
        width = int(targets.shape[0])
        block = lambda s: rphast_block(h, r, s)  # noqa: E731
    step = int(step) if step else max(8, min(4096, budget_bytes // (8 * max(1, width))))
    for r0 in range(0, int(sources.shape[0]), step):
        if cancel is not None and cancel():
            raise CancelledError("many-source search cancelled")
        yield r0, block(sources[r0 : r0 + step])


# serial twins (``host.serial``): a small map's build compiles without numba's parfor passes
_rphast_rows_serial = serial_twin(_rphast_rows)
_bucket_rows_serial = serial_twin(_bucket_rows)
