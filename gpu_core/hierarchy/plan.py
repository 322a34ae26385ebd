"""The parallel schedule of a customization pass (``metric.triangles``, ``metric.prune``).

Both passes visit vertices group by group (elimination-tree heights bottom-up for the
triangles, sweep levels top-down for the prune); the vertices of one group are
independent. On a grid-like map the nested-dissection separators are ~sqrt(n) wide, so
the top groups hold one or a few vertices each, with thousands of neighbours and most of
the work (Kanto-sized map: 98% of the triangle work in groups of fewer than 2,048
vertices). So each group gets one of three modes, from its vertices' work:

- ``SERIAL``: too little work for a parallel launch;
- ``VERTICES``: many vertices, none heavy: ``prange`` over the vertices;
- ``TASKS``: a few heavy vertices: each heavy vertex's item loop (lower neighbours for the
  triangles, upper edges for the prune) is cut into chunks of about equal work, each chunk
  writing the minimum into its own copy of the vertex's row (``deg_up`` up and down
  weights), reduced afterwards. Chunks and light vertices are dealt to ``ways`` bins by
  longest-processing-time first, and the bins run in a ``prange`` (one bin per thread).

Every value is a minimum over the same candidates whatever the cut, so the result equals
the serial pass bit for bit (integer minima do not depend on their order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

SERIAL, VERTICES, TASKS = 0, 1, 2
TRIANGLES, UPPER = 0, 1  # the item loop a plan cuts (metric._tri_range / metric._up_range)

# A group with less work than this (inner-loop steps, ~8 ns each) runs in the caller's
# thread; a vertex is cut into chunks of at least SPLIT_WORK steps.
SERIAL_WORK = 1 << 15
SPLIT_WORK = 1 << 13


@njit(cache=True, inline="always")
def _items(kind, u, up_ptr, dn_ptr):
    if kind == TRIANGLES:
        return dn_ptr[u], dn_ptr[u + 1]
    return up_ptr[u], up_ptr[u + 1]


@njit(cache=True, inline="always")
def _item_work(kind, u, k, up_ptr, dn_src, dn_edge):
    """Inner steps of item k of u, plus one: for the triangles, lower neighbour v's edges
    above u; for the prune, u's edges above its k-th."""
    if kind == TRIANGLES:
        return up_ptr[dn_src[k] + 1] - dn_edge[k]
    return up_ptr[u + 1] - k


@njit(cache=True, inline="always")
def run_of(ptr, lo, hi, q):
    """The r in [lo, hi) with ptr[r] <= q < ptr[r + 1] (``ptr`` ascending, ptr[lo] <= q <
    ptr[hi]): which run of a flattened list item q belongs to."""
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if ptr[mid] <= q:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True, inline="always")
def reduce_slot(q, r0, r1, red_pos, red_v, red_off, red_m, up_ptr, su, sd, up, down):
    """Slot q of the cut rows r0..r1 of a group: the minimum of its row copies (su/sd)
    and its own value into up/down; returns its edge id."""
    lo = run_of(red_pos, r0, r1, q)
    u = red_v[lo]
    d = up_ptr[u + 1] - up_ptr[u]
    f = up_ptr[u] + q - red_pos[lo]
    o = red_off[lo] + q - red_pos[lo]
    mu, md = up[f], down[f]
    for c in range(red_m[lo]):
        mu = min(mu, su[o + c * d])
        md = min(md, sd[o + c * d])
    up[f], down[f] = mu, md
    return f


@njit(cache=True, parallel=True)
def vertex_work(kind, n, up_ptr, dn_ptr, dn_src, dn_edge):
    """int64 [n]: each vertex's inner-loop steps in the pass ``kind``."""
    wk = np.zeros(n, np.int64)
    for u in prange(n):
        k0, k1 = _items(kind, u, up_ptr, dn_ptr)
        s = 0
        for k in range(k0, k1):
            s += _item_work(kind, u, k, up_ptr, dn_src, dn_edge)
        wk[u] = s
    return wk


@njit(cache=True)
def _chunks(wk_u, target, deg, items, split_work):
    """How many chunks vertex u is cut into: about wk/target, each at least split_work
    steps and twice its row (the copy and the reduction), at most one per item."""
    if wk_u <= target:
        return 1
    m = (wk_u + target - 1) // target
    m = min(m, wk_u // max(split_work, 2 * deg, 1), items)
    return max(m, 1)


@njit(cache=True)
def _cut(kind, u, m, wk_u, up_ptr, dn_ptr, dn_src, dn_edge, out):
    """out[0..c]: item boundaries of c <= m chunks of about wk_u / m steps; returns c."""
    k0, k1 = _items(kind, u, up_ptr, dn_ptr)
    out[0] = k0
    c = 0
    acc = 0
    for k in range(k0, k1):
        acc += _item_work(kind, u, k, up_ptr, dn_src, dn_edge)
        if c < m - 1 and acc * m >= (c + 1) * wk_u and k + 1 < k1:
            c += 1
            out[c] = k + 1
    c += 1
    out[c] = k1
    return c


@njit(cache=True)
def _group(kind, h, lvl_ptr, lvl_vert, wk, up_ptr, dn_ptr, dn_src, dn_edge, ways,
           serial_work, split_work, split_all, fill, mode, bin_ptr, tk_v, tk_k0, tk_k1,
           tk_buf, tk_w, red_v, red_off, red_m, red_pos, counts, cuts, tmp_w, tmp_i):
    """Plan group h; without ``fill`` only count its tasks, reductions and buffer size
    into counts[0..3] (offsets into the plan's arrays when filling)."""
    s, e = lvl_ptr[h], lvl_ptr[h + 1]
    tot = 0
    mx = 0
    for i in range(s, e):
        w = wk[lvl_vert[i]]
        tot += w
        mx = max(mx, w)
    target = max(split_work, (tot + 2 * ways - 1) // (2 * ways))
    if ways <= 1 or tot < serial_work:
        md = SERIAL
    elif mx <= target and e - s >= 16 * ways and not split_all:
        md = VERTICES
    else:
        md = TASKS
    if fill:
        mode[h] = md
    if md != TASKS:
        return
    t0, r0, b0 = counts[0], counts[1], counts[2]
    nt, nr, nb = 0, 0, 0
    for i in range(s, e):
        u = lvl_vert[i]
        deg = up_ptr[u + 1] - up_ptr[u]
        k0, k1 = _items(kind, u, up_ptr, dn_ptr)
        m = _chunks(wk[u], target, deg, k1 - k0, split_work)
        if m > 1:
            m = _cut(kind, u, m, wk[u], up_ptr, dn_ptr, dn_src, dn_edge, cuts)
        if m == 1:
            if fill:
                tk_v[t0 + nt], tk_k0[t0 + nt], tk_k1[t0 + nt] = u, k0, k1
                tk_buf[t0 + nt], tk_w[t0 + nt] = -1, wk[u]
            nt += 1
            continue
        if fill:
            red_v[r0 + nr], red_off[r0 + nr], red_m[r0 + nr] = u, b0 + nb, m
            red_pos[r0 + nr + 1] = red_pos[r0 + nr] + deg
            for c in range(m):
                q = t0 + nt + c
                tk_v[q], tk_k0[q], tk_k1[q] = u, cuts[c], cuts[c + 1]
                tk_buf[q] = b0 + nb + c * deg
                w = 0
                for k in range(cuts[c], cuts[c + 1]):
                    w += _item_work(kind, u, k, up_ptr, dn_src, dn_edge)
                tk_w[q] = w
        nt += m
        nr += 1
        nb += m * deg
    if fill:
        _deal(t0, t0 + nt, ways, tk_v, tk_k0, tk_k1, tk_buf, tk_w, bin_ptr, h, tmp_w, tmp_i)
    counts[0] += nt
    counts[1] += nr
    counts[2] += nb
    counts[3] = max(counts[3], nb)


@njit(cache=True)
def _deal(t0, t1, ways, tk_v, tk_k0, tk_k1, tk_buf, tk_w, bin_ptr, h, tmp_w, tmp_i):
    """Deal tasks t0..t1 to ``ways`` bins, heaviest first to the least loaded, and reorder
    them bin by bin (bin j of group h: tasks bin_ptr[h, j]..bin_ptr[h, j + 1])."""
    n = t1 - t0
    order = np.argsort(-tk_w[t0:t1], kind="mergesort")
    load = np.zeros(ways, np.int64)
    which = np.empty(n, np.int64)
    for q in range(n):
        best = 0
        for j in range(1, ways):
            if load[j] < load[best]:
                best = j
        which[order[q]] = best
        load[best] += tk_w[t0 + order[q]]
    cnt = np.zeros(ways + 1, np.int64)
    for q in range(n):
        cnt[which[q] + 1] += 1
    for j in range(ways):
        cnt[j + 1] += cnt[j]
    for j in range(ways + 1):
        bin_ptr[h, j] = t0 + cnt[j]
    pos = cnt[:ways].copy()
    dst = np.empty(n, np.int64)
    for q in range(n):
        dst[q] = pos[which[q]]
        pos[which[q]] += 1
    for arr in (tk_k0, tk_k1, tk_buf, tk_w):
        tmp_w[:n] = arr[t0:t1]
        for q in range(n):
            arr[t0 + dst[q]] = tmp_w[q]
    tmp_i[:n] = tk_v[t0:t1]
    for q in range(n):
        tk_v[t0 + dst[q]] = tmp_i[q]


@njit(cache=True)
def _build(kind, lvl_ptr, lvl_vert, wk, up_ptr, dn_ptr, dn_src, dn_edge, ways, serial_work,
           split_work, split_all):
    H = lvl_ptr.shape[0] - 1
    e0 = np.zeros(0, np.int64)
    e1 = np.zeros((0, 0), np.int64)
    i0 = np.zeros(0, np.int32)
    m0 = np.zeros(0, np.int8)
    counts = np.zeros(4, np.int64)
    maxdeg = 1
    for u in range(lvl_vert.shape[0]):
        k0, k1 = _items(kind, u, up_ptr, dn_ptr)
        maxdeg = max(maxdeg, k1 - k0 + 1)
    cuts = np.empty(maxdeg + 1, np.int64)
    for h in range(H):  # count
        _group(kind, h, lvl_ptr, lvl_vert, wk, up_ptr, dn_ptr, dn_src, dn_edge, ways,
               serial_work, split_work, split_all, False, m0, e1, i0, e0, e0, e0, e0, i0,
               e0, e0, e0, counts, cuts, e0, i0)
    nt, nr, scratch = counts[0], counts[1], counts[3]
    mode = np.zeros(H, np.int8)
    bin_ptr = np.zeros((H, ways + 1), np.int64)
    tk_v = np.empty(nt, np.int32)
    tk_k0 = np.empty(nt, np.int64)
    tk_k1 = np.empty(nt, np.int64)
    tk_buf = np.empty(nt, np.int64)
    tk_w = np.empty(nt, np.int64)
    red_v = np.empty(nr, np.int32)
    red_off = np.empty(nr, np.int64)
    red_m = np.empty(nr, np.int64)
    red_pos = np.zeros(nr + 1, np.int64)
    red_ptr = np.zeros(H + 1, np.int64)
    tmp_w = np.empty(nt, np.int64)
    tmp_i = np.empty(nt, np.int32)
    counts[:] = 0
    for h in range(H):  # fill; buffer offsets restart per group (the scratch is reused)
        counts[2] = 0
        _group(kind, h, lvl_ptr, lvl_vert, wk, up_ptr, dn_ptr, dn_src, dn_edge, ways,
               serial_work, split_work, split_all, True, mode, bin_ptr, tk_v, tk_k0, tk_k1,
               tk_buf, tk_w, red_v, red_off, red_m, red_pos, counts, cuts, tmp_w, tmp_i)
        red_ptr[h + 1] = counts[1]
    return mode, bin_ptr, tk_v, tk_k0, tk_k1, tk_buf, red_ptr, red_v, red_off, red_m, \
        red_pos, scratch


@dataclass
class Plan:
    """The schedule of one pass over one topology (see the module docstring)."""

    mode: np.ndarray  # int8 [groups]: SERIAL, VERTICES or TASKS
    bin_ptr: np.ndarray  # int64 [groups, ways + 1]: each bin's tasks (TASKS groups)
    tk_v: np.ndarray  # int32 [tasks]: the vertex
    tk_k0: np.ndarray  # int64: its items k0..k1
    tk_k1: np.ndarray
    tk_buf: np.ndarray  # int64: the chunk's row copy in the scratch, -1: the row itself
    red_ptr: np.ndarray  # int64 [groups + 1]: each group's cut vertices
    red_v: np.ndarray  # int32: a cut vertex
    red_off: np.ndarray  # int64: its first chunk's copy (chunk c at + c * deg_up)
    red_m: np.ndarray  # int64: its chunks
    red_pos: np.ndarray  # int64 [cut + 1]: prefix sums of deg_up (the reduction's items)
    scratch: int  # int64 slots one row-copy buffer needs (per direction)
    ways: int
    serial: bool = False  # every group SERIAL (serial_plan): run by the kernels' serial twins

    @property
    def cut_vertices(self) -> int:
        return int(self.red_v.shape[0])


def serial_plan(groups: int) -> Plan:
    """Every group ``SERIAL``, no task: a small map's pass on one thread, planned without
    compiling the planner (issue 41: its kernels cost ~12 s of a fresh install's first
    index on 2 cores). The same result as any plan (see the module docstring)."""
    e64, e32 = np.zeros(0, np.int64), np.zeros(0, np.int32)
    return Plan(np.full(groups, SERIAL, np.int8), np.zeros((groups, 2), np.int64), e32, e64,
                e64, e64, np.zeros(groups + 1, np.int64), e32, e64, e64, np.zeros(1, np.int64),
                scratch=0, ways=1, serial=True)


def build_plan(kind: int, lvl_ptr: np.ndarray, lvl_vert: np.ndarray, up_ptr: np.ndarray,
               dn_ptr: np.ndarray, dn_src: np.ndarray, dn_edge: np.ndarray, ways: int,
               serial_work: int = SERIAL_WORK, split_work: int = SPLIT_WORK,
               split_all: bool = False) -> Plan:
    """The schedule of pass ``kind`` (TRIANGLES or UPPER) over the groups ``lvl_ptr``/
    ``lvl_vert`` for ``ways`` threads. ``split_all``: no ``VERTICES`` mode (a group of
    every vertex, as the arc removal runs, sorted by rank has its heavy vertices at the
    end, where a static ``prange`` gives them all to the last thread)."""
    n = lvl_vert.shape[0]
    wk = vertex_work(kind, n, up_ptr, dn_ptr, dn_src, dn_edge)
    out = _build(kind, lvl_ptr, lvl_vert, wk, up_ptr, dn_ptr, dn_src, dn_edge, max(ways, 1),
                 serial_work, max(split_work, 1), split_all)
    mode, bin_ptr, tk_v, tk_k0, tk_k1, tk_buf, red_ptr, red_v, red_off, red_m, red_pos, sc = out
    return Plan(mode, bin_ptr, tk_v, tk_k0, tk_k1, tk_buf, red_ptr, red_v, red_off, red_m,
                red_pos, scratch=int(sc), ways=max(ways, 1))


@njit(cache=True)
def _cost(kind, mode, bin_ptr, tk_k0, tk_k1, tk_v, red_ptr, red_m, red_pos, lvl_ptr, lvl_vert,
          wk, up_ptr, dn_src, dn_edge, out):
    ways = bin_ptr.shape[1] - 1
    for h in range(lvl_ptr.shape[0] - 1):
        s, e = lvl_ptr[h], lvl_ptr[h + 1]
        tot = 0
        for i in range(s, e):
            tot += wk[lvl_vert[i]]
        out[0] += tot
        if mode[h] == SERIAL:
            out[1] += tot
        elif mode[h] == VERTICES:  # a static prange: equal slices of the group's vertices
            best = 0
            for j in range(ways):
                acc = 0
                for i in range(s + (e - s) * j // ways, s + (e - s) * (j + 1) // ways):
                    acc += wk[lvl_vert[i]]
                best = max(best, acc)
            out[1] += best
            out[2] += 1
        else:
            best = 0
            for j in range(ways):
                acc = 0
                for q in range(bin_ptr[h, j], bin_ptr[h, j + 1]):
                    for k in range(tk_k0[q], tk_k1[q]):
                        acc += _item_work(kind, tk_v[q], k, up_ptr, dn_src, dn_edge)
                best = max(best, acc)
            slots = 0
            for r in range(red_ptr[h], red_ptr[h + 1]):
                slots += (red_pos[r + 1] - red_pos[r]) * red_m[r]
            out[1] += best + (slots + ways - 1) // ways
            out[2] += 1 + (red_ptr[h + 1] > red_ptr[h])


def plan_cost(kind: int, p: Plan, lvl_ptr: np.ndarray, lvl_vert: np.ndarray,
              up_ptr: np.ndarray, dn_ptr: np.ndarray, dn_src: np.ndarray,
              dn_edge: np.ndarray) -> dict:
    """The inner steps of pass ``kind`` under plan ``p``: ``work`` in all, ``path`` its
    critical path (per group: the serial work, the busiest static slice of a ``prange``,
    or the busiest bin plus a share of the reduction), ``barriers`` (parallel loops):
    work / path bounds the speed-up over one thread."""
    wk = vertex_work(kind, lvl_vert.shape[0], up_ptr, dn_ptr, dn_src, dn_edge)
    out = np.zeros(3, np.int64)
    _cost(kind, p.mode, p.bin_ptr, p.tk_k0, p.tk_k1, p.tk_v, p.red_ptr, p.red_m, p.red_pos,
          lvl_ptr, lvl_vert, wk, up_ptr, dn_src, dn_edge, out)
    return {"work": int(out[0]), "path": int(out[1]), "barriers": int(out[2]),
            "groups": int(lvl_ptr.shape[0] - 1), "ways": p.ways}
