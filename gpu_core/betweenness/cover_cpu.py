"""The progressive rounds' greedy max coverage over sampled paths, on the host (issue 43).

Each round of ``progressive`` runs a greedy over its training samples (K picks, and at
every prefix the sum of the K largest marginal counts: the OPIM-C bound) and covers its
hold-out samples with the chosen sites. Done with array operations (``sampling.Cover``),
every pick recounts every remaining entry: 21 ``bincount`` passes over up to 7M entries in
NE's last K=20 round, 2.1 s of the CPU's rounds and 1.4 s of the GPU's, whose generic
reductions also compile on a fresh machine (13 s of NVRTC in NE's first GPU run, stop 55).

Here the counts are kept and only decremented: a pick covers its samples once and takes
their entries off their vertices' counts, so a round costs O(entries + K·touched
vertices) in two numba kernels. The picks, gains, bounds and covers are those of
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


@njit(cache=True, nogil=True)
def _top_sum(cnt, elig, touched, k):
    """Sum of the k largest positive counts of eligible vertices (only ``touched`` ones can
    be positive): a min-heap of k."""
    heap = np.empty(max(k, 1), np.int64)
    size = 0
    for v in touched:
        c = cnt[v]
        if c <= 0 or not elig[v]:
            continue
        if size < k:  # push, sift up
            i = size
            size += 1
            while i > 0:
                p = (i - 1) >> 1
                if heap[p] <= c:
                    break
                heap[i] = heap[p]
                i = p
            heap[i] = c
        elif c > heap[0]:  # replace the least, sift down
            i = 0
            while True:
                j = 2 * i + 1
                if j >= size:
                    break
                if j + 1 < size and heap[j + 1] < heap[j]:
                    j += 1
                if heap[j] >= c:
                    break
                heap[i] = heap[j]
                i = j
            heap[i] = c
    total = 0
    for i in range(size):
        total += heap[i]
    return total


@njit(cache=True, nogil=True)
def _pick(cnt, elig, touched):
    """``greedy_pick``'s (site, gain): the first maximum count among eligible vertices.
    A positive one is a touched vertex's; else every eligible count is 0 and argmax gives
    the smallest eligible vertex (vertex 0 when none is: numpy's argmax of all -1)."""
    best, at = 0, -1
    for v in touched:  # ascending: strict > keeps the first maximum
        if elig[v] and cnt[v] > best:
            best, at = cnt[v], v
    if at >= 0:
        return at, best
    for v in range(elig.shape[0]):
        if elig[v]:
            return v, 0
    return 0, 0


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
    sptr, sver = _group(es, size, ev)  # each sample's vertices
    vptr, vsam = _group(ev, n, es)  # each vertex's samples
    cnt = np.zeros(n, np.int64)
    for i in range(es.shape[0]):
        if not covered[es[i]]:
            cnt[ev[i]] += 1
    m = 0
    for v in range(n):
        if vptr[v + 1] > vptr[v]:
            m += 1
    touched = np.empty(m, np.int64)
    m = 0
    for v in range(n):
        if vptr[v + 1] > vptr[v]:
            touched[m] = v
            m += 1
    elig = eligible.copy()
    sites = np.empty(k, np.int64)
    gains = np.empty(k, np.int64)
    total = base
    lam = -1
    for i in range(k + 1):
        if bound:
            got = total + _top_sum(cnt, elig, touched, k)
            if lam < 0 or got < lam:
                lam = got
        if i == k:
            break
        v, gain = _pick(cnt, elig, touched)
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
