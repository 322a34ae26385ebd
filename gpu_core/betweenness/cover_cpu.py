"""The progressive rounds' greedy max coverage over sampled paths, on the host (issue 43).

Each round of ``progressive`` runs a greedy over its training samples (K picks, and at
every prefix the sum of the K largest marginal counts: the OPIM-C bound) and covers its
hold-out samples with the chosen sites. Done with array operations (``sampling.Cover``),
every pick recounts every remaining entry: 21 ``bincount`` passes over up to 7M entries in
NE's last K=20 round, 2.1 s of the CPU's rounds and 1.4 s of the GPU's, whose generic
reductions also compile on a fresh machine (13 s of NVRTC in NE's first GPU run, stop 55).

Here the counts are kept and only decremented: a pick covers its samples once and takes
their entries off their vertices' counts, and the picks and the bound's K largest counts
come off a lazy max-heap; each vertex's samples and each sample's vertices come ready from
``RoundEntries``, so a round costs O(touched vertices + the entries its picks cover). The picks, gains, bounds and covers are those of
``Cover``/``greedy_pick`` exactly (first maximum: ties to the smallest vertex; a site
covering nothing new gains 0), which ``tests/core/test_cover_cpu.py`` checks against them.
Small maps keep the array greedy (:data:`ARRAY_ROUNDS_NODES`); a run's entries and the
structures these kernels read are ``round_entries.RoundEntries``, which chooses.
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


def array_rounds(n: int) -> bool:
    """Whether a map of ``n`` vertices runs its rounds with array operations (read at
    call time: the tests move the threshold)."""
    return n <= ARRAY_ROUNDS_NODES


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
    """(ptr [nkeys + 1], vals grouped by key, stable): a counting sort (int32 offsets:
    fewer than 2**31 entries)."""
    ptr = np.zeros(nkeys + 1, np.int32)
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
def _top(heap, size, cnt, elig, idmap):
    """(vertex, its number, count, size) of the largest current eligible count, ties to
    the smallest vertex (-1 when no eligible count is positive): counts only fall, so a
    key whose count has fallen is put back with its count now (lazy greedy) and picked
    vertices dropped. Keys hold the vertex; ``idmap`` gives its number."""
    while size > 0:
        key = heap[0]
        v = _LOW - (key & _LOW)
        c = idmap[v]
        if elig[c] and cnt[c] == key >> 32:
            return v, c, key >> 32, size
        size = _pop(heap, size)
        if elig[c] and cnt[c] > 0:
            _sift_up(heap, size, (cnt[c] << 32) | (_LOW - v))
            size += 1
    return -1, -1, 0, size


@njit(cache=True, nogil=True)
def _heap_of(cnt, elig, label):
    """The max-heap of the eligible vertices of positive count."""
    m = 0
    for c in range(cnt.shape[0]):
        if cnt[c] > 0 and elig[c]:
            m += 1
    heap = np.empty(m, np.int64)
    m = 0
    for c in range(cnt.shape[0]):
        if cnt[c] > 0 and elig[c]:
            _sift_up(heap, m, (cnt[c] << 32) | (_LOW - label[c]))
            m += 1
    return heap


@njit(cache=True, nogil=True)
def _top_sum(heap, size, cnt, elig, idmap, k, best):
    """(sum of the k largest current eligible counts, size): their keys are taken off the
    heap (into ``best``) and put back."""
    top, got = 0, 0
    while got < k:
        u, _, c, size = _top(heap, size, cnt, elig, idmap)
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
def _first_eligible(eligible, sites, picked):
    """``greedy_pick`` when no eligible count is positive: every eligible count is 0 and
    argmax gives the smallest eligible vertex not picked yet (vertex 0 when none is:
    numpy's argmax of all -1). A scan of the map's vertices: only degenerate rounds."""
    for v in range(eligible.shape[0]):
        if eligible[v]:
            taken = False
            for j in range(picked):
                if sites[j] == v:
                    taken = True
                    break
            if not taken:
                return v
    return 0


@njit(cache=True, nogil=True)
def _in_half(s, L, parity):
    return s < L and (parity == 2 or s & 1 == parity)


@njit(cache=True, nogil=True)
def greedy_cover(es, L, parity, k, cnt, beg, end, sver, label, idmap, eligible, elig_c,
                 in_r_c, head, nxt, bound):
    """Greedy max coverage of the samples below ``L`` of ``parity`` (0 even, 1 odd, 2
    all) by ``k`` sites among ``eligible`` (``elig_c``: by vertex number), after the
    samples through a vertex of ``in_r_c`` (the fixed sites, by number) are covered.
    ``cnt``: each number's entries in those samples (taken as the counts, decremented);
    a sample's numbers are ``sver[beg[s]:end[s]]``; a number's entries are on the list
    ``head``/``nxt`` (entry g of sample ``es[g]``); ``label``: each number's vertex,
    ``idmap`` each vertex's number. Returns (sites, gains, base, lam): base = the samples
    ``in_r`` covers; lam (with ``bound``, else -1) = the least over the prefixes S_j
    (j = 0..k) of cover(S_j) + the sum of the k largest marginal counts over S_j."""
    covered = np.zeros(L, np.bool_)
    base = 0
    for c in range(in_r_c.shape[0]):
        if in_r_c[c]:
            base += _cover(c, es, L, parity, covered, cnt, beg, end, sver, head, nxt)
    elig = elig_c.copy()
    heap = _heap_of(cnt, elig, label)
    hs = heap.shape[0]
    sites = np.empty(k, np.int64)
    gains = np.empty(k, np.int64)
    best = np.empty(max(k, 1), np.int64)  # the k largest keys, taken off and put back
    total = base
    lam = -1
    for i in range(k + 1):
        v, c, gain, hs = _top(heap, hs, cnt, elig, idmap)
        if bound:
            top, hs = _top_sum(heap, hs, cnt, elig, idmap, k, best)
            if lam < 0 or total + top < lam:
                lam = total + top
        if i == k:
            break
        if v < 0:
            v, gain = _first_eligible(eligible, sites, i), 0
            c = idmap[v]
        sites[i], gains[i] = v, gain
        total += gain
        if c >= 0:  # (a vertex no path touched covers nothing)
            elig[c] = False
            _cover(c, es, L, parity, covered, cnt, beg, end, sver, head, nxt)
    return sites, gains, base, lam


@njit(cache=True, nogil=True)
def _cover(c, es, L, parity, covered, cnt, beg, end, sver, head, nxt):
    """Cover the samples (of the half) through number ``c``, taking each one's entries
    off the counts; returns how many were not covered before."""
    got = 0
    g = head[c]
    while g >= 0:
        s = es[g]
        if _in_half(s, L, parity) and not covered[s]:
            covered[s] = True
            got += 1
            for q in range(beg[s], end[s]):
                cnt[sver[q]] -= 1
        g = nxt[g]
    return got


@njit(cache=True, nogil=True)
def cover_prefixes(es, L, sites, idmap, in_r_c, head, nxt):
    """(base, cum) over the odd samples below ``L`` (the hold-out): those covered by the
    fixed sites (``in_r_c``, by vertex number), then by them and each prefix of ``sites``
    (vertices; cum[j]: sites 0..j). Walks the fixed sites' and the sites' own entries
    (the lists ``head``/``nxt``), not every entry."""
    k = sites.shape[0]
    first = np.full(L, k, np.int64)  # the first site (-1: in_r) covering each sample
    for c in range(in_r_c.shape[0]):
        if in_r_c[c]:
            _first_cover(c, -1, es, L, first, head, nxt)
    for j in range(k):
        c = idmap[sites[j]]
        if c >= 0:
            _first_cover(c, j, es, L, first, head, nxt)
    base = 0
    hist = np.zeros(k + 1, np.int64)
    for s in range(1, L, 2):
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
def _first_cover(c, j, es, L, first, head, nxt):
    g = head[c]
    while g >= 0:
        s = es[g]
        if s < L and s & 1 == 1 and j < first[s]:
            first[s] = j
        g = nxt[g]
