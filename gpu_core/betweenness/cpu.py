"""CPU (numba) kernels of the billboard search: one exact search per source.

Per source s (not in R) a search in settle order counts ``sigma`` (all shortest s-v
paths) and ``sbar`` (those avoiding R, R-vertices themselves get 0), then a back-trace in
reverse settle order gives ``dbar[v] = sum over tight arcs (v, w), w not in R, of
b_w / sigma_w + dbar[w]`` and the gain ``a_s * sbar[v] * dbar[v]`` (eq. 4 rewritten with
the total counts, so no second count per child is needed). See ``common`` for the
definitions. Sources are split over a fixed number of lanes so the float sums have the
same order whatever the thread count (the lanes' kernels: ``cpu_lanes``).

The tight arcs of a source's search (``dist[u] + w == dist[x]``) do not depend on R, so a
greedy of K > 1 rounds keeps each source's tight-arc DAG in flat arrays (settle order,
tight out-degree per position, heads in CSR order: about 5 bytes per vertex on a road
map): rounds after the first push sigma/sbar over it in settle order and back-trace it in
reverse, with no heap and no scan of non-tight arcs. Path counts are summed in the same
order as the search's, and the back-trace sums each row's arcs in CSR order over children
already final, so the gains are bit-for-bit those of a fresh search. Every source's gains
come from such a replay of its DAG (round 1's too, right after its search: ``cpu_lanes``).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ..host.csr import INF
from ..host.heap import sift_down, sift_up


@njit(cache=True, nogil=True)
def _search(indptr, indices, w, s, unit, dist, sigma, sbar, order, in_r, heap_k, heap_v):
    """Dijkstra (BFS when ``unit``) from s; returns the number of settled vertices."""
    n = indptr.shape[0] - 1
    for v in range(n):
        dist[v] = INF
        sigma[v] = 0.0
        sbar[v] = 0.0
    dist[s] = 0
    sigma[s] = 1.0
    sbar[s] = 0.0 if in_r[s] else 1.0
    cnt = 0
    if unit:
        order[0] = s
        head = 0
        cnt = 1
        while head < cnt:
            u = order[head]
            head += 1
            du = dist[u] + 1
            for e in range(indptr[u], indptr[u + 1]):
                x = indices[e]
                if dist[x] == INF:
                    dist[x] = du
                    order[cnt] = x
                    cnt += 1
                if dist[x] == du:
                    sigma[x] += sigma[u]
                    if not in_r[x]:
                        sbar[x] += sbar[u]
        return cnt
    # binary heap with lazy deletion; key ties popped in any order (counts stay exact
    # because every arc has length >= 1, so a vertex's predecessors settle before it)
    hn = 1
    heap_k[0] = 0
    heap_v[0] = s
    while hn > 0:
        k = heap_k[0]
        u = heap_v[0]
        hn -= 1
        if hn > 0:  # the last entry sifted down from the root
            sift_down(heap_k, heap_v, heap_v, False, hn, heap_k[hn], heap_v[hn])
        if k != dist[u]:
            continue  # stale entry (pushes only on strict improvement: no equal duplicates)
        order[cnt] = u
        cnt += 1
        su = sigma[u]
        bu = sbar[u]
        for e in range(indptr[u], indptr[u + 1]):
            x = indices[e]
            nd = k + w[e]
            if nd < dist[x]:
                dist[x] = nd
                sigma[x] = su
                sbar[x] = 0.0 if in_r[x] else bu
                sift_up(heap_k, heap_v, heap_v, False, hn, nd, x)
                hn += 1
            elif nd == dist[x]:
                sigma[x] += su
                if not in_r[x]:
                    sbar[x] += bu
    return cnt


@njit(cache=True, nogil=True, inline="always")
def _search_dial(indptr, indices, w, s, dist, sigma, sbar, order, in_r, bhead, bbits, enext,
                 ev):
    """Dijkstra from s with Dial's circular buckets (``bhead.size`` a power of two, at
    least 64, above the largest arc length): the same distances and counts as
    ``_search``; returns the number of settled vertices. Each bucket holds one distance.
    ``bbits`` (``bhead.size / 64`` words) marks the buckets that hold entries, so the
    queue jumps over empty distances by a word's trailing zeros instead of stepping
    through them one by one (a road map has ~5x more distance values than vertices: the
    sample map's searches took ~2x longer stepping, each step a hard-to-predict branch).
    Entries leave a bucket last in, first out, as before: the same settle order."""
    n = indptr.shape[0] - 1
    mask = bhead.shape[0] - 1
    one = np.uint64(1)
    for v in range(n):
        dist[v] = INF
        sigma[v] = 0.0
        sbar[v] = 0.0
    for i in range(bbits.shape[0]):
        bbits[i] = 0
    dist[s] = 0
    sigma[s] = 1.0
    sbar[s] = 0.0 if in_r[s] else 1.0
    ev[0] = s
    enext[0] = -1
    bhead[0] = 0
    bbits[0] = one
    ne = 1
    pending = 1
    d = 0
    cnt = 0
    while pending > 0:
        bi = d & mask
        word = bbits[bi >> 6] >> np.uint64(bi & 63)
        if word == 0:  # the rest of this word's buckets are empty
            d += 64 - (bi & 63)
            continue
        if (word & one) == 0:
            d += np.int64(trailing_zeros(word))  # type: ignore[assignment, call-arg]
            bi = d & mask
        q = bhead[bi]
        nq = enext[q]
        if nq < 0:
            bbits[bi >> 6] &= ~(one << np.uint64(bi & 63))
        else:
            bhead[bi] = nq
        pending -= 1
        u = ev[q]
        if dist[u] != d:
            continue  # stale entry (pushes only on strict improvement)
        order[cnt] = u
        cnt += 1
        su = sigma[u]
        bu = sbar[u]
        for e in range(indptr[u], indptr[u + 1]):
            x = indices[e]
            nd = d + w[e]
            if nd < dist[x]:
                dist[x] = nd
                sigma[x] = su
                sbar[x] = 0.0 if in_r[x] else bu
                b = nd & mask
                ev[ne] = x
                bit = one << np.uint64(b & 63)
                if bbits[b >> 6] & bit:
                    enext[ne] = bhead[b]
                else:
                    enext[ne] = -1
                    bbits[b >> 6] |= bit
                bhead[b] = ne
                ne += 1
                pending += 1
            elif nd == dist[x]:
                sigma[x] += su
                if not in_r[x]:
                    sbar[x] += bu
    return cnt


@njit(cache=True, nogil=True, inline="always")
def _tight_dag(indptr, indices, w, dist, order, cnt, deg, heads):
    """The search's tight-arc DAG in settle order: ``deg[i]`` tight arcs leave ``order[i]``,
    their heads follow one another in ``heads`` in CSR order; returns the number of heads."""
    t = 0
    for i in range(cnt):
        u = order[i]
        du = dist[u]
        c = 0
        for e in range(indptr[u], indptr[u + 1]):
            x = indices[e]
            if du + w[e] == dist[x]:
                heads[t] = x
                t += 1
                c += 1
        deg[i] = c
    return t


@njit(cache=True, nogil=True, inline="always")
def _replay(s, in_r, order, deg, heads, cnt, sigma, sbar):
    """sigma/sbar of source s pushed over its kept DAG in settle order: each count is the
    sum of its tails' counts in the order the Dijkstra added them (bit-for-bit equal)."""
    for v in range(sigma.shape[0]):
        sigma[v] = 0.0
        sbar[v] = 0.0
    sigma[s] = 1.0
    sbar[s] = 0.0 if in_r[s] else 1.0
    t = 0
    for i in range(cnt):
        u = order[i]
        su = sigma[u]
        bu = sbar[u]
        for j in range(t, t + deg[i]):
            x = heads[j]
            sigma[x] += su
            if not in_r[x]:
                sbar[x] += bu
        t += deg[i]


@njit(cache=True, nogil=True, inline="always")
def _backtrace(s, a_s, b, in_r, order, deg, heads, cnt, nheads, sigma, sbar, dbar, net, pl):
    """Back-trace of one source over its tight DAG (reverse settle order); adds gains/losses
    to ``net`` and pairs lost to ``pl``. ``dbar[x]`` ends holding x's term of its parents'
    sums (the same float as summing b_x / sigma_x + dbar_x there), ``sbar`` the covered
    share of each pair (s, v).

    Returns (sb_s, pairs_s): this source's share of SB(R) and of the pair count P(R).
    """
    sb = 0.0
    pairs = 0.0
    t = nheads
    for i in range(cnt - 1, -1, -1):
        v = order[i]
        c = deg[i]
        t -= c
        d = 0.0
        for j in range(t, t + c):  # the row's tight arcs in CSR order
            d += dbar[heads[j]]
        if v != s and not in_r[v]:
            net[v] += a_s * sbar[v] * d
            # pair (s, v): covered share leaves the sum if v joins R
            cov = (sigma[v] - sbar[v]) / sigma[v]
            net[v] -= a_s * b[v] * cov
            pl[v] += a_s * b[v]
            sbar[v] = cov  # for the sums below
        # what a parent adds for v (0 for a site): b_v / sigma_v + dbar[v]
        dbar[v] = 0.0 if in_r[v] else b[v] / sigma[v] + d
    # this source's sums in vertex order: the same whichever order the search settled
    for v in range(sigma.shape[0]):
        if sigma[v] > 0.0 and v != s and not in_r[v]:
            sb += b[v] * sbar[v]
            pairs += b[v]
    net[s] -= a_s * sb  # pairs (s, t) leave the sum if s joins R
    pl[s] += a_s * pairs
    return a_s * sb, a_s * pairs


def pack_rows(c_order, c_deg, c_heads, c_len, out=None):
    """The chunk buffers' DAG rows, back to back (rows of length 0 skipped): (order, deg,
    heads) flat arrays for the kept pools; with ``out`` (three flat arrays of the packed
    lengths: the pools' free space) written there row by row, and those returned. numpy,
    not numba: nothing to compile (its numba version cost ~13 s of a fresh install's first
    billboards on 2 cores, with numba's slice-shape error helpers, issue 41)."""
    rows = c_len.shape[0]
    if out is not None:  # a slice copy a row: no mask, index array nor temporary (the
        # masks' gather took ~25 ms a chunk of 280 rows on the sample map, 2 ms this way)
        o, d, h = out
        lens = c_len[:rows].tolist()
        v = t = 0
        for j in range(rows):
            cnt, nh = lens[j]
            if cnt:
                o[v:v + cnt] = c_order[j, :cnt]
                d[v:v + cnt] = c_deg[j, :cnt]
                v += cnt
            if nh:
                h[t:t + nh] = c_heads[j, :nh]
                t += nh
        return out
    lv = c_len[:rows, 0:1]
    lh = c_len[:rows, 1:2]
    mv = np.arange(c_order.shape[1])[None, :] < lv
    mh = np.arange(c_heads.shape[1])[None, :] < lh
    return (np.ascontiguousarray(c_order[:rows][mv]), np.ascontiguousarray(c_deg[:rows][mv]),
            np.ascontiguousarray(c_heads[:rows][mh]))


_M = np.uint64(1000003)


@njit(cache=True, nogil=True)
def _u01(seed, i, j, step):
    """The counter hash of betweenness.cu's u01 (splitmix64 finaliser): same draws."""
    z = np.uint64(seed)
    z = z * _M + np.uint64(i)
    z = z * _M + np.uint64(j)
    z = z * _M + np.uint64(step)
    z += np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def grow_entries(out_s, out_v, cnt):
    """The (sample, vertex) entry arrays at twice their size, the first ``cnt`` kept
    (copied in a loop: a slice assignment compiles numba's shape-mismatch error message,
    ~1 s of a fresh install's first sampled billboards on 2 cores, issue 41)."""
    cap = 2 * out_s.shape[0]
    grown_s = np.empty(cap, np.int64)
    grown_v = np.empty(cap, np.int32)
    for i in range(cnt):
        grown_s[i] = out_s[i]
        grown_v[i] = out_v[i]
    return grown_s, grown_v


@njit(cache=True, nogil=True)
def sample_paths(indptr, indices, w, unit, rindptr, rindices, rw, sources, targets, seed, base):
    """Random shortest paths from each source to its T targets (see betweenness.cu).

    Returns (sample id int64[], interior vertex int32[], reached uint8[nsrc*T]).
    """
    n = indptr.shape[0] - 1
    m = indices.shape[0]
    ns, T = targets.shape
    dist = np.empty(n, np.int64)
    sigma = np.empty(n)
    sbar = np.empty(n)
    order = np.empty(n, np.int32)
    in_r = np.zeros(n, np.bool_)
    heap_k = np.empty(m + 1, np.int64)
    heap_v = np.empty(m + 1, np.int32)
    out_s = np.empty(1024, np.int64)
    out_v = np.empty(1024, np.int32)
    cnt = 0
    reach = np.zeros(ns * T, np.uint8)
    for j in range(ns):
        s = sources[j]
        _search(indptr, indices, w, s, unit, dist, sigma, sbar, order, in_r, heap_k, heap_v)
        gj = base + j
        for ti in range(T):
            t = targets[j, ti]
            if t == s or dist[t] == INF:
                continue
            reach[j * T + ti] = 1
            gid = gj * T + ti
            x = t
            step = 0
            while True:
                r = _u01(seed, gj, ti, step) * sigma[x]
                dx = dist[x]
                acc = 0.0
                pick = -1
                for e in range(rindptr[x], rindptr[x + 1]):
                    u = rindices[e]
                    du = dist[u]
                    if du != INF and du + rw[e] == dx:
                        acc += sigma[u]
                        pick = u
                        if acc > r:
                            break
                x = pick
                if x == s or x < 0:
                    break
                if cnt == out_s.shape[0]:
                    out_s, out_v = grow_entries(out_s, out_v, cnt)
                out_s[cnt] = gid
                out_v[cnt] = x
                cnt += 1
                step += 1
    return out_s[:cnt], out_v[:cnt], reach
