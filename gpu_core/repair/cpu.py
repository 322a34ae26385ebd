"""CPU backend of the repair: one compiled pass over the mutable graph's host arrays
(``dynamic.cpu.HostArcs``: base CSR rows by arc id, inserted arcs in per-tail lists, a
state byte per arc) and the reverse adjacency of ``plan``.

Steps (each timed as one telemetry row): invalidate (walk the old pred-subtrees below the
roots: a child y of x is an out-neighbour with pred[y] == x, over every arc id of x, any
state, since the old tree may use an arc closed now), seed (each invalidated vertex gets
the best key over its live in-arcs from valid vertices; lowered arcs offer key[u] + w'),
settle (a binary-heap Dijkstra from the seeds that accepts improvements only) and pred
(the rule of ``gpu_core.keys`` for every vertex whose key changed, their out-neighbours
and the heads of edited arcs). Work beyond ``limit`` vertices stops it (status 1: the
caller runs a fresh search).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit, prange

from ..dynamic.layout import ARC_LIVE
from ..host.heap import pop_min, sift_up


@njit(cache=True, inline="always")
def _out_start(x, n0, base_indptr, first_extra):
    """(e, e_end, ex): the cursor over x's out-arcs, its base CSR row then its inserted
    arcs (added vertices have no base row)."""
    if x < n0:
        return base_indptr[x], base_indptr[x + 1], first_extra[x]
    return 0, 0, first_extra[x]


@njit(cache=True, inline="always")
def _out_next(e, e_end, ex, next_extra):
    """(arc, e, ex): the next out-arc id of the cursor, arc -1 at the end."""
    if e < e_end:
        return e, e + 1, ex
    if ex >= 0:
        return ex, e, next_extra[ex]
    return -1, e, ex

_INF = np.iinfo(np.int64).max
OK, TOO_LARGE = 0, 1


@njit(cache=True, inline="always")
def _kw(weight, e, hb):
    w = np.int64(weight[e])
    return (w << hb) | 1 if hb else w


@njit(cache=True, inline="always")
def _ins_range(ins_heads, v):
    return np.searchsorted(ins_heads, v, "left"), np.searchsorted(ins_heads, v, "right")


@njit(cache=True)
def _in_scan(v, n0, rev_ptr, rev_ids, ins_heads, ins_ids, tail, weight, state, hb, key,
             want):
    """want < 0: (min key[u] + w' over live in-arcs, -1); else (want, the smallest u
    with key[u] + w' == want) -- the seed and the predecessor rule."""
    best = _INF
    bu = -1
    for pass_ in range(2):
        if pass_ == 0:
            if v >= n0:
                continue
            lo, hi = rev_ptr[v], rev_ptr[v + 1]
        else:
            lo, hi = _ins_range(ins_heads, v)
        for i in range(lo, hi):
            e = rev_ids[i] if pass_ == 0 else ins_ids[i]
            if state[e] != ARC_LIVE:
                continue
            u = tail[e]
            ku = key[u]
            if ku == _INF:
                continue
            nk = ku + _kw(weight, e, hb)
            if want < 0:
                if nk < best:
                    best = nk
            elif nk == want and (bu < 0 or u < bu):
                bu = u
    return best, bu


@njit(cache=True)
def _invalidate(roots, n0, base_indptr, first_extra, next_extra, head, pred, mark, limit):
    """Vertices of the pred-subtrees below ``roots`` (mark = 1); (list, count) with count
    > limit when it stopped early."""
    out = np.empty(limit + 1, np.int64)
    cnt = 0
    for r in roots:
        if mark[r] == 0:
            mark[r] = 1
            out[cnt] = r
            cnt += 1
            if cnt > limit:
                return out, cnt
    i = 0
    while i < cnt:
        x = out[i]
        i += 1
        e, e_end, ex = _out_start(x, n0, base_indptr, first_extra)
        while True:  # base row, then the inserted list, any state
            arc, e, ex = _out_next(e, e_end, ex, next_extra)
            if arc < 0:
                break
            y = head[arc]
            if y < pred.shape[0] and pred[y] == x and mark[y] == 0:
                mark[y] = 1
                out[cnt] = y
                cnt += 1
                if cnt > limit:
                    return out, cnt
    return out, cnt


@njit(cache=True)
def _settle(key, heap_k, heap_v, size, mark, touched, cnt, limit, n0, base_indptr,
            first_extra, next_extra, head, weight, state, hb):
    """Dijkstra from the heap's entries (lazy deletion). Returns (touched count, arcs
    relaxed); the count exceeds limit when it stopped early."""
    edges = 0
    while size > 0:
        k, x, size = pop_min(heap_k, heap_v, heap_v, False, size)
        if k != key[x]:
            continue
        e, e_end, ex = _out_start(x, n0, base_indptr, first_extra)
        while True:
            arc, e, ex = _out_next(e, e_end, ex, next_extra)
            if arc < 0:
                break
            if state[arc] != ARC_LIVE:
                continue
            edges += 1
            y = head[arc]
            nk = k + _kw(weight, arc, hb)
            if nk < key[y]:
                key[y] = nk
                if mark[y] == 0:
                    mark[y] = 2
                    touched[cnt] = y
                    cnt += 1
                    if cnt > limit:
                        return cnt, edges
                if size == heap_k.shape[0]:
                    heap_k2 = np.empty(2 * size, np.int64)
                    heap_v2 = np.empty(2 * size, np.int64)
                    heap_k2[:size] = heap_k
                    heap_v2[:size] = heap_v
                    heap_k, heap_v = heap_k2, heap_v2
                sift_up(heap_k, heap_v, heap_v, False, size, nk, y)
                size += 1
    return cnt, edges


@njit(cache=True)
def _seed(inv, n_inv, dec_t, dec_h, dec_kw, mark, touched, n0, rev_ptr, rev_ids, ins_heads,
          ins_ids, tail, weight, state, hb, key):
    """Keys of the invalidated vertices from their valid in-neighbours, then the lowered
    arcs' offers; (heap keys, heap values, size, touched count)."""
    for i in range(n_inv):
        key[inv[i]] = _INF
    cap = max(16, 2 * (n_inv + dec_t.shape[0]))
    heap_k = np.empty(cap, np.int64)
    heap_v = np.empty(cap, np.int64)
    size = 0
    for i in range(n_inv):
        v = inv[i]
        best, _ = _in_scan(v, n0, rev_ptr, rev_ids, ins_heads, ins_ids, tail, weight, state,
                           hb, key, -1)
        if best < _INF:  # a valid in-neighbour's key: invalid ones are still INF here
            sift_up(heap_k, heap_v, heap_v, False, size, best, v)
            size += 1
    # keys only after every scan: a seed must not read another invalidated vertex's seed
    # (it would still be exact, but the order-free rule keeps both backends alike)
    for j in range(size):
        v = heap_v[j]
        if heap_k[j] < key[v]:
            key[v] = heap_k[j]
    cnt = 0
    for i in range(dec_t.shape[0]):
        u = dec_t[i]
        if key[u] == _INF:
            continue
        nk = key[u] + dec_kw[i]
        v = dec_h[i]
        if nk < key[v]:
            key[v] = nk
            if mark[v] == 0:
                mark[v] = 2
                touched[cnt] = v
                cnt += 1
            sift_up(heap_k, heap_v, heap_v, False, size, nk, v)
            size += 1
    return heap_k, heap_v, size, cnt


@njit(cache=True)
def _pred_one(y, out, cnt, done, n0, rev_ptr, rev_ids, ins_heads, ins_ids, tail, weight,
              state, hb, key, pred):
    """The pred rule at y (once per call: ``done``); appends y to ``out``."""
    if done[y]:
        return out, cnt
    done[y] = 1
    if cnt == out.shape[0]:
        out2 = np.empty(2 * cnt, np.int64)
        out2[:cnt] = out
        out = out2
    out[cnt] = y
    if key[y] == _INF:
        pred[y] = -1
    else:
        _, bu = _in_scan(y, n0, rev_ptr, rev_ids, ins_heads, ins_ids, tail, weight, state, hb,
                         key, key[y])
        pred[y] = bu
    return out, cnt + 1


@njit(cache=True)
def _preds(inv, n_inv, touched, n_touched, heads, n0, base_indptr, first_extra, next_extra,
           head, rev_ptr, rev_ids, ins_heads, ins_ids, tail, weight, state, hb, key, pred,
           done):
    """The pred rule for every invalidated or lowered vertex, their live out-neighbours
    and the edited heads; ``done`` (all zero) avoids repeats. Returns the vertices whose
    pred was recomputed."""
    out = np.empty(64, np.int64)
    cnt = 0
    for li in range(3):
        c = n_inv if li == 0 else (n_touched if li == 1 else heads.shape[0])
        for i in range(c):
            x = inv[i] if li == 0 else (touched[i] if li == 1 else heads[i])
            out, cnt = _pred_one(x, out, cnt, done, n0, rev_ptr, rev_ids, ins_heads, ins_ids,
                                 tail, weight, state, hb, key, pred)
            if li == 2:
                continue  # an edited head's out-neighbours keep their in-arcs and keys
            e, e_end, ex = _out_start(x, n0, base_indptr, first_extra)
            while True:
                arc, e, ex = _out_next(e, e_end, ex, next_extra)
                if arc < 0:
                    break
                if state[arc] == ARC_LIVE:
                    out, cnt = _pred_one(head[arc], out, cnt, done, n0, rev_ptr, rev_ids,
                                         ins_heads, ins_ids, tail, weight, state, hb, key,
                                         pred)
    for i in range(cnt):
        done[out[i]] = 0
    return out[:cnt]


def repair_arrays(arrays: dict, key: np.ndarray, pred: np.ndarray, plan, hb: int, limit: int):
    """Repair ``key``/``pred`` (new size, copies of the previous result) in place.

    Returns (status, changed vertex ids, affected count, rows) where rows are the
    telemetry (name, frontier, edges, µs) of each step done."""
    a = arrays
    n = key.shape[0]
    mark = np.zeros(n, np.uint8)
    rows = []
    t0 = time.perf_counter()
    inv, n_inv = _invalidate(plan.roots, a["n0"], a["base_indptr"], a["first_extra"],
                             a["next_extra"], a["head"], pred, mark, limit)
    t1 = time.perf_counter()
    rows.append(("repair_invalidate", n_inv, 0, (t1 - t0) * 1e6))
    if n_inv > limit:
        return TOO_LARGE, None, n_inv, rows
    touched = np.empty(limit + 2 + plan.dec_tails.size, np.int64)
    common = (a["n0"], a["rev_ptr"], a["rev_ids"], a["ins_heads"], a["ins_ids"], a["tail"],
              a["weight"], a["state"], np.int64(hb), key)
    heap_k, heap_v, size, cnt = _seed(inv, n_inv, plan.dec_tails, plan.dec_heads,
                                      plan.dec_kw, mark, touched, *common)
    t2 = time.perf_counter()
    rows.append(("repair_seed", size, 0, (t2 - t1) * 1e6))
    cnt, edges = _settle(key, heap_k, heap_v, size, mark, touched, cnt, limit - n_inv,
                         a["n0"], a["base_indptr"], a["first_extra"], a["next_extra"],
                         a["head"], a["weight"], a["state"], np.int64(hb))
    t3 = time.perf_counter()
    rows.append(("repair_settle", cnt, edges, (t3 - t2) * 1e6))
    if cnt > limit - n_inv:
        return TOO_LARGE, None, n_inv + cnt, rows
    mark[:] = 0
    changed = _preds(inv, n_inv, touched, cnt, plan.edited_heads, a["n0"], a["base_indptr"],
                     a["first_extra"], a["next_extra"], a["head"], a["rev_ptr"], a["rev_ids"],
                     a["ins_heads"], a["ins_ids"], a["tail"], a["weight"], a["state"],
                     np.int64(hb), key, pred, mark)
    t4 = time.perf_counter()
    rows.append(("repair_pred", changed.size, 0, (t4 - t3) * 1e6))
    return OK, changed, n_inv + cnt, rows


def host_arrays(mg) -> dict:
    """The mutable graph's host arrays and its reverse adjacency, by name."""
    from .plan import base_reverse, inserted_by_head

    h = mg.host
    rev_ptr, rev_ids = base_reverse(mg)
    ins_heads, ins_ids = inserted_by_head(mg)
    return {"n0": np.int64(h.n0), "base_indptr": h.base_indptr, "first_extra": h.first_extra,
            "next_extra": h.next_extra, "head": h.head, "tail": h.tail, "weight": h.weight,
            "state": h.state, "rev_ptr": rev_ptr, "rev_ids": rev_ids, "ins_heads": ins_heads,
            "ins_ids": ins_ids}


@njit(cache=True, parallel=True)
def _extend(src_k, src_p, src_d, key, pred, dist, unreachable):
    n_old = src_k.shape[0]
    for i in prange(key.shape[0]):
        if i < n_old:
            key[i] = src_k[i]
            pred[i] = src_p[i]
            dist[i] = src_d[i]
        else:
            key[i] = _INF
            pred[i] = -1
            dist[i] = unreachable


def ready(kernel) -> bool:
    from osutil.numba_cache import ready as cached

    return cached(kernel)


def kernels_ready() -> bool:
    """True when the repair's kernels need no compilation (compiled in this process or in
    numba's cache): a fresh install's first edit in the window then repairs without
    compiling, holding the GIL, for seconds (issue 41)."""
    return all(ready(k) for k in (_invalidate, _settle, _seed, _pred_one, _preds, _in_scan))


def compile_extend() -> None:
    """Compile (or load) the big-map pass of :func:`extend` (a warm-up's)."""
    n = 1 << 15
    src = np.zeros(1, np.int64)
    _extend(src, src.astype(np.int32), src, np.empty(n, np.int64), np.empty(n, np.int32),
            np.empty(n, np.int64), np.int64(-1))


def extend(previous, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key, pred, dist) copies of ``previous`` grown to ``n`` vertices (new: unreached),
    in recycled arrays (``buffers``); one parallel pass (three numpy copies cost ~3 ms on a
    1.5M-node map)."""
    from ..host.result_buffers import take

    key, pred, dist = take(n)
    if n < 1 << 15 or not ready(_extend):  # numpy while not compiled (a fresh install)
        n_old = previous.key.shape[0]
        key[:n_old], pred[:n_old], dist[:n_old] = previous.key, previous.pred, previous.dist
        key[n_old:], pred[n_old:], dist[n_old:] = _INF, -1, previous.unreachable
    else:
        _extend(previous.key, previous.pred, previous.dist, key, pred, dist,
                np.int64(previous.unreachable))
    return key, pred, dist


def scatter_result(previous, n: int, idx, kv, pv, ks):
    """``previous`` grown to ``n`` with (key, pred) of vertices ``idx`` replaced."""
    from ..host.distances import dist_from_keys

    key, pred, dist = extend(previous, n)
    key[idx] = kv
    pred[idx] = pv
    dist[idx] = dist_from_keys(kv, ks.hop_bits, ks.unreachable)
    return key, pred, dist


def run(mg, previous, plan, ks, limit: int, opts, budget_s: float | None = None):
    """(status "ok" or why not, key, pred, dist, affected, telemetry rows, extra);
    ``budget_s`` is for the GPU (the CPU pass is bounded by ``limit`` alone)."""
    from ..host.distances import dist_from_keys

    key, pred, dist = extend(previous, mg.num_nodes)
    status, changed, affected, rows = repair_arrays(host_arrays(mg), key, pred, plan,
                                                    ks.hop_bits, limit)
    if status != OK:
        return (f"the edits affect more than {limit} vertices (limit of RepairOptions)",
                None, None, None, affected, rows, {})
    dist[changed] = dist_from_keys(key[changed], ks.hop_bits, ks.unreachable)
    return "ok", key, pred, dist, affected, rows, {"changed": int(changed.size)}
