"""The progressive rounds' greedy max coverage over sampled paths, on the host (issue 43).

Each round of ``progressive`` runs a greedy over its training samples (K picks, and at
every prefix the sum of the K largest marginal counts: the OPIM-C bound) and covers its
hold-out samples with the chosen sites. Done with array operations (``sampling.Cover``),
every pick recounts every remaining entry: 21 ``bincount`` passes over up to 7M entries in
NE's last K=20 round, 2.1 s of the CPU's rounds and 1.4 s of the GPU's, whose generic
reductions also compile on a fresh machine (13 s of NVRTC in NE's first GPU run, stop 55).

Here the counts are kept and only decremented: a pick covers its samples once and takes
their entries off their vertices' counts, and the picks and the bound's K largest counts
come off a lazy max-heap, so a round costs O(entries + touched vertices + K² log) in two
numba kernels. The picks, gains, bounds and covers are those of
``Cover``/``greedy_pick`` exactly (first maximum: ties to the smallest vertex; a site
covering nothing new gains 0), which ``tests/core/test_cover_cpu.py`` checks against them.
Small maps keep the array greedy (:data:`ARRAY_ROUNDS_NODES`): :func:`round_cover` and
:func:`greedy_sites` choose.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .sampling import Cover, greedy_pick

# maps of at most this many vertices run the rounds' greedy with array operations: their
# rounds take milliseconds, where compiling the kernels below takes 2 s on a fresh install
# (2-core CPU), more than the sample map's whole first sampled billboards (issue 41)
ARRAY_ROUNDS_NODES = 30_000


def round_cover(es_all, ev_all, L: int, n: int, k: int, eligible, in_r):
    """One progressive round on its L samples' entries (host arrays): the greedy on the
    even sample numbers (training) and its bound, the hold-out cover of the odd ones.
    Returns (sites, lam, hold-out base, hold-out cum)."""
    n1, n2 = (L + 1) // 2, L // 2
    if n <= ARRAY_ROUNDS_NODES:
        train = (es_all % 2) == 0
        sites, _, _, lam = greedy_arrays(es_all[train] // 2, ev_all[train], n1, n, k,
                                         eligible, in_r)
        hold = ~train
        hbase, cum = prefixes_arrays(es_all[hold] // 2, ev_all[hold], n2, sites, in_r)
        return sites, lam, hbase, cum
    es, ev = half_entries(es_all, ev_all, 0)
    picked, _, _, lam = greedy_cover(es, ev, n1, n, k, eligible, in_r, True)
    es, ev = half_entries(es_all, ev_all, 1)
    hbase, cum = cover_prefixes(es, ev, n2, n, picked, in_r)
    return picked.tolist(), int(lam), int(hbase), cum.tolist()


def greedy_sites(es, ev, size: int, n: int, k: int, eligible, in_r):
    """(sites, gains, base) of the greedy over all ``size`` samples (the cap's round)."""
    if n <= ARRAY_ROUNDS_NODES:
        sites, gains, base, _ = greedy_arrays(es, ev, size, n, k, eligible, in_r)
        return sites, gains, base
    sites, gains, base, _ = greedy_cover(es, ev, size, n, k, eligible, in_r, False)
    return sites.tolist(), gains.tolist(), int(base)


def greedy_arrays(es, ev, size: int, n: int, k: int, eligible, in_r):
    """:func:`greedy_cover` with array operations (``Cover``): every pick recounts the
    uncovered entries. Returns (sites, gains, base, lam) as Python lists and ints."""
    cover = Cover(np, es, ev, size)
    base = cover.mark_set(in_r)
    elig = eligible.copy()
    sites: list[int] = []
    gains: list[int] = []
    total, lam = base, math.inf
    for i in range(k + 1):
        cnt = cover.counts(n)
        c = np.where(elig, cnt, 0)
        c = c[c > 0]  # counts are >= 0: the k largest are among the positive ones
        top = min(k, int(c.shape[0]))
        lam = min(lam, total + (int(np.partition(c, c.shape[0] - top)[c.shape[0] - top:].sum())
                                if top > 0 else 0))
        if i == k:
            break
        v, gain = greedy_pick(np, cnt, elig)
        sites.append(v)
        gains.append(gain)
        total += gain
        cover.mark(v)
    return sites, gains, base, int(lam)


def prefixes_arrays(es, ev, size: int, sites: list[int], in_r) -> tuple[int, list[int]]:
    """:func:`cover_prefixes` with array operations."""
    cover = Cover(np, es, ev, size)
    base = cover.mark_set(in_r)
    cum = []
    for v in sites:
        cover.mark(v)
        cum.append(int(cover.covered.sum()))
    return base, cum


@njit(cache=True, nogil=True)
def _by_sample(es, size, ev):
    """(ptr, vertices) of each sample: the entries as they are when already in sample
    order (a round's draws come in order; only deferred pairs come after), else grouped."""
    for i in range(1, es.shape[0]):
        if es[i] < es[i - 1]:
            return _group(es, size, ev)
    ptr = np.zeros(size + 1, np.int64)
    for i in range(es.shape[0]):
        ptr[es[i] + 1] += 1
    for i in range(size):
        ptr[i + 1] += ptr[i]
    return ptr, ev


@njit(cache=True, nogil=True)
def _group(keys, nkeys, vals):
    """(ptr [nkeys + 1], vals grouped by key, stable): a counting sort."""
    ptr = np.zeros(nkeys + 1, np.int64)
    for i in range(keys.shape[0]):
        ptr[keys[i] + 1] += 1
    for i in range(nkeys):
        ptr[i + 1] += ptr[i]
    fill = ptr[:-1].copy()
    out = np.empty(vals.shape[0], vals.dtype)
    for i in range(keys.shape[0]):
        out[fill[keys[i]]] = vals[i]
        fill[keys[i]] += 1
    return ptr, out


# a vertex's place in the greedy's max-heap: its count above, its number reversed below,
# so the largest key is the largest count and, among equal counts, the smallest vertex
_LOW = np.int64(0xFFFFFFFF)


@njit(cache=True, nogil=True)
def _sift_up(heap, j, key):
    while j > 0:
        p = (j - 1) >> 1
        if heap[p] >= key:
            break
        heap[j] = heap[p]
        j = p
    heap[j] = key


@njit(cache=True, nogil=True)
def _pop(heap, size):
    """Remove the largest key of ``heap[:size]``; returns the new size."""
    size -= 1
    key = heap[size]
    j = 0
    while True:
        q = 2 * j + 1
        if q >= size:
            break
        if q + 1 < size and heap[q + 1] > heap[q]:
            q += 1
        if heap[q] <= key:
            break
        heap[j] = heap[q]
        j = q
    if size > 0:
        heap[j] = key
    return size


@njit(cache=True, nogil=True)
def _top(heap, size, cnt, elig):
    """(vertex, count, size) of the largest current eligible count, ties to the smallest
    vertex (-1 when no eligible count is positive): counts only fall, so a key whose count
    has fallen is put back with its count now (lazy greedy) and picked vertices dropped."""
    while size > 0:
        key = heap[0]
        v = _LOW - (key & _LOW)
        c = key >> 32
        if elig[v] and cnt[v] == c:
            return v, c, size
        size = _pop(heap, size)
        if elig[v] and cnt[v] > 0:
            _sift_up(heap, size, (cnt[v] << 32) | (_LOW - v))
            size += 1
    return -1, 0, size


@njit(cache=True, nogil=True)
def _heap_of(cnt, eligible):
    """The max-heap of the eligible vertices of positive count."""
    m = 0
    for v in range(cnt.shape[0]):
        if cnt[v] > 0 and eligible[v]:
            m += 1
    heap = np.empty(m, np.int64)
    m = 0
    for v in range(cnt.shape[0]):
        if cnt[v] > 0 and eligible[v]:
            _sift_up(heap, m, (cnt[v] << 32) | (_LOW - v))
            m += 1
    return heap


@njit(cache=True, nogil=True)
def _top_sum(heap, size, cnt, elig, k, best):
    """(sum of the k largest current eligible counts, size): their keys are taken off the
    heap (into ``best``) and put back."""
    top, got = 0, 0
    while got < k:
        u, c, size = _top(heap, size, cnt, elig)
        if u < 0:
            break
        top += c
        best[got] = heap[0]
        got += 1
        size = _pop(heap, size)
    for j in range(got):
        _sift_up(heap, size, best[j])
        size += 1
    return top, size


@njit(cache=True, nogil=True)
def _first_eligible(elig):
    """``greedy_pick`` when no eligible count is positive: every eligible count is 0 and
    argmax gives the smallest eligible vertex (vertex 0 when none is: numpy's argmax of
    all -1)."""
    for v in range(elig.shape[0]):
        if elig[v]:
            return v
    return 0


@njit(cache=True, nogil=True)
def greedy_cover(es, ev, size, n, k, eligible, in_r, bound):
    """Greedy max coverage of ``size`` samples, whose entries are (sample ``es[i]``,
    vertex ``ev[i]``), by ``k`` sites among ``eligible`` after the samples through a vertex
    of ``in_r`` (the fixed sites) are covered. Returns (sites, gains, base, lam): base =
    the samples ``in_r`` covers; lam (with ``bound``, else -1) = the least over the prefixes
    S_j (j = 0..k) of cover(S_j) + the sum of the k largest marginal counts over S_j."""
    covered = np.zeros(size, np.bool_)
    for i in range(es.shape[0]):
        if in_r[ev[i]]:
            covered[es[i]] = True
    base = 0
    for s in range(size):
        if covered[s]:
            base += 1
    sptr, sver = _by_sample(es, size, ev)  # each sample's vertices
    vptr, vsam = _group(ev, n, es)  # each vertex's samples
    cnt = np.zeros(n, np.int64)
    for i in range(es.shape[0]):
        if not covered[es[i]]:
            cnt[ev[i]] += 1
    heap = _heap_of(cnt, eligible)
    hs = heap.shape[0]
    elig = eligible.copy()
    sites = np.empty(k, np.int64)
    gains = np.empty(k, np.int64)
    best = np.empty(max(k, 1), np.int64)  # the k largest keys, taken off and put back
    total = base
    lam = -1
    for i in range(k + 1):
        v, gain, hs = _top(heap, hs, cnt, elig)
        if bound:
            top, hs = _top_sum(heap, hs, cnt, elig, k, best)
            if lam < 0 or total + top < lam:
                lam = total + top
        if i == k:
            break
        if v < 0:
            v, gain = _first_eligible(elig), 0
        sites[i], gains[i] = v, gain
        total += gain
        elig[v] = False
        for p in range(vptr[v], vptr[v + 1]):
            s = vsam[p]
            if not covered[s]:
                covered[s] = True
                for q in range(sptr[s], sptr[s + 1]):
                    cnt[sver[q]] -= 1
    return sites, gains, base, lam


@njit(cache=True, nogil=True)
def cover_prefixes(es, ev, size, n, sites, in_r):
    """(base, cum): the samples of ``size`` covered by ``in_r``, then by it and each
    prefix of ``sites`` (cum[j]: sites 0..j), in one pass over the entries."""
    k = sites.shape[0]
    pos = np.full(n, k, np.int64)  # a vertex's first place among the sites
    for j in range(k - 1, -1, -1):
        pos[sites[j]] = j
    first = np.full(size, k, np.int64)  # the first site (-1: in_r) covering each sample
    for i in range(es.shape[0]):
        s = es[i]
        p = -1 if in_r[ev[i]] else pos[ev[i]]
        if p < first[s]:
            first[s] = p
    base = 0
    hist = np.zeros(k + 1, np.int64)
    for s in range(size):
        if first[s] < 0:
            base += 1
        else:
            hist[first[s]] += 1
    cum = np.empty(k, np.int64)
    run = base
    for j in range(k):
        run += hist[j]
        cum[j] = run
    return base, cum


@njit(cache=True, nogil=True)
def half_entries(es, ev, part):
    """The entries of the even (``part`` 0: training) or odd (1: hold-out) sample numbers,
    renumbered s // 2: one fused pass where four array operations copied the entries
    (0.15 s of NE's last round)."""
    m = 0
    for i in range(es.shape[0]):
        if es[i] & 1 == part:
            m += 1
    out_s = np.empty(m, np.int64)
    out_v = np.empty(m, ev.dtype)
    m = 0
    for i in range(es.shape[0]):
        if es[i] & 1 == part:
            out_s[m] = es[i] >> 1
            out_v[m] = ev[i]
            m += 1
    return out_s, out_v


def warm() -> None:
    """Compile (or load from numba's cache) both kernels on a made-up round."""
    es = np.array([0, 0, 1], np.int64)
    ev = np.array([1, 2, 2], np.int32)
    mask = np.zeros(3, np.bool_)
    s0, v0 = half_entries(es, ev, 0)
    sites, _, _, _ = greedy_cover(s0, v0, 1, 3, 1, ~mask, mask, True)
    s1, v1 = half_entries(es, ev, 1)
    cover_prefixes(s1, v1, 1, 3, sites, mask)
