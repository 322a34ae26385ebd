"""CPU (numba) kernels of the billboard search: one exact search per source.

Per source s (not in R) a search in settle order counts ``sigma`` (all shortest s-v
paths) and ``sbar`` (those avoiding R, R-vertices themselves get 0), then a back-trace in
reverse settle order gives ``dbar[v] = sum over tight arcs (v, w), w not in R, of
b_w / sigma_w + dbar[w]`` and the gain ``a_s * sbar[v] * dbar[v]`` (eq. 4 rewritten with
the total counts, so no second count per child is needed). See ``common`` for the
definitions. Sources are split over a fixed number of lanes so the float sums have the
same order whatever the thread count.

The tight arcs of a source's search (``dist[u] + w == dist[x]``) do not depend on R, so a
greedy of K > 1 rounds keeps them as one bit per arc per source (``store``): rounds after
the first replay sigma/sbar over that DAG in a topological order (Kahn) instead of a new
Dijkstra. Path counts are sums of the same integers, and the back-trace sums each row's
arcs in CSR order over children already final, so the gains are bit-for-bit the same.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..host.csr import INF
from ..host.heap import sift_down, sift_up

LANES = 8


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


@njit(cache=True, nogil=True)
def _record_tight(indptr, indices, w, dist, order, cnt, bits):
    """Set bit e of ``bits`` for every tight arc e of the search (w >= 1: no self-loop)."""
    bits[:] = 0
    for i in range(cnt):
        u = order[i]
        du = dist[u]
        for e in range(indptr[u], indptr[u + 1]):
            if du + w[e] == dist[indices[e]]:
                bits[e >> 3] |= np.uint8(1 << (e & 7))


@njit(cache=True, nogil=True)
def _replay(indptr, indices, s, bits, in_r, sigma, sbar, indeg, order):
    """sigma/sbar of source s over its kept tight-arc DAG (Kahn's order into ``order``);
    returns the number of vertices reached, as ``_search`` does."""
    n = indptr.shape[0] - 1
    for v in range(n):
        sigma[v] = 0.0
        sbar[v] = 0.0
        indeg[v] = 0
    for u in range(n):
        for e in range(indptr[u], indptr[u + 1]):
            if bits[e >> 3] & (1 << (e & 7)):
                indeg[indices[e]] += 1
    sigma[s] = 1.0
    sbar[s] = 0.0 if in_r[s] else 1.0
    order[0] = s
    head = 0
    cnt = 1
    while head < cnt:
        u = order[head]
        head += 1
        su = sigma[u]
        bu = sbar[u]
        for e in range(indptr[u], indptr[u + 1]):
            if bits[e >> 3] & (1 << (e & 7)):
                x = indices[e]
                sigma[x] += su
                if not in_r[x]:
                    sbar[x] += bu
                indeg[x] -= 1
                if indeg[x] == 0:
                    order[cnt] = x
                    cnt += 1
    return cnt


@njit(cache=True, nogil=True)
def _backtrace(indptr, indices, s, a_s, b, in_r, bits, sigma, sbar, order, cnt, dbar, net,
               pl):
    """Back-trace of one source over its tight arcs ``bits``; adds gains/losses to ``net``
    and pairs lost to ``pl``.

    Returns (sb_s, pairs_s): this source's share of SB(R) and of the pair count P(R).
    """
    sb = 0.0
    pairs = 0.0
    for i in range(cnt - 1, -1, -1):
        v = order[i]
        d = 0.0
        for e in range(indptr[v], indptr[v + 1]):
            x = indices[e]
            if not in_r[x] and bits[e >> 3] & (1 << (e & 7)):
                d += b[x] / sigma[x] + dbar[x]
        dbar[v] = d
        if v != s and not in_r[v]:
            net[v] += a_s * sbar[v] * d
            # pair (s, v): covered share leaves the sum if v joins R
            net[v] -= a_s * b[v] * ((sigma[v] - sbar[v]) / sigma[v])
            pl[v] += a_s * b[v]
    # this source's sums in vertex order: the same whichever order the search settled
    for v in range(indptr.shape[0] - 1):
        if sigma[v] > 0.0 and v != s and not in_r[v]:
            sb += b[v] * ((sigma[v] - sbar[v]) / sigma[v])
            pairs += b[v]
    net[s] -= a_s * sb  # pairs (s, t) leave the sum if s joins R
    pl[s] += a_s * pairs
    return a_s * sb, a_s * pairs


@njit(cache=True, parallel=True)
def round_gains(indptr, indices, w, unit, in_r, a, b, sources, lanes, store, row_of, kept):
    """One greedy round over ``sources``: (net gain, pairs lost, SB(R), P(R)) partials.

    ``store`` (rows of (m + 7) // 8 bytes), ``row_of[s]`` (store row of source s, -1:
    none) and ``kept[s]`` (its row holds s's tight arcs): a source with a kept row is
    replayed, one with a row and none searched and kept; ``store`` of 0 rows: no keeping.
    """
    n = indptr.shape[0] - 1
    m = indices.shape[0]
    nb = (m + 7) >> 3
    net2 = np.zeros((lanes, n))
    pl2 = np.zeros((lanes, n))
    sb2 = np.zeros(lanes)
    pp2 = np.zeros(lanes)
    ns = sources.shape[0]
    for lane in prange(lanes):
        dist = np.empty(n, np.int64)
        sigma = np.empty(n)
        sbar = np.empty(n)
        dbar = np.empty(n)
        order = np.empty(n, np.int32)
        indeg = np.empty(n, np.int32)
        heap_k = np.empty(m + 1, np.int64)
        heap_v = np.empty(m + 1, np.int32)
        scratch = np.empty(nb, np.uint8)
        for j in range(lane, ns, lanes):
            s = sources[j]
            if in_r[s] or a[s] == 0.0:
                continue
            r = row_of[s] if store.shape[0] > 0 else -1
            bits = store[r] if r >= 0 else scratch
            if r >= 0 and kept[s]:
                cnt = _replay(indptr, indices, s, bits, in_r, sigma, sbar, indeg, order)
            else:
                cnt = _search(indptr, indices, w, s, unit, dist, sigma, sbar, order, in_r,
                              heap_k, heap_v)
                _record_tight(indptr, indices, w, dist, order, cnt, bits)
                if r >= 0:
                    kept[s] = True
            x, y = _backtrace(indptr, indices, s, a[s], b, in_r, bits, sigma, sbar,
                              order, cnt, dbar, net2[lane], pl2[lane])
            sb2[lane] += x
            pp2[lane] += y
    net = np.zeros(n)
    pl = np.zeros(n)
    sb = 0.0
    pp = 0.0
    for lane in range(lanes):
        net += net2[lane]
        pl += pl2[lane]
        sb += sb2[lane]
        pp += pp2[lane]
    return net, pl, sb, pp


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
    cap = 1024
    out_s = np.empty(cap, np.int64)
    out_v = np.empty(cap, np.int32)
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
                if cnt == cap:
                    cap *= 2
                    ns_ = np.empty(cap, np.int64)
                    nv_ = np.empty(cap, np.int32)
                    ns_[:cnt] = out_s[:cnt]
                    nv_[:cnt] = out_v[:cnt]
                    out_s = ns_
                    out_v = nv_
                out_s[cnt] = gid
                out_v[cnt] = x
                cnt += 1
                step += 1
    return out_s[:cnt], out_v[:cnt], reach
