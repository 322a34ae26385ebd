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

_INT32 = 2**31 - 1

# maps of at most this many vertices run the rounds' greedy with array operations: their
# rounds take milliseconds, where compiling the kernels below takes 2 s on a fresh install
# (2-core CPU), more than the sample map's whole first sampled billboards (issue 41)
ARRAY_ROUNDS_NODES = 30_000


class RoundEntries:
    """A progressive run's entries so far, (sample, vertex) pairs appended block by block
    into buffers that grow by doubling, and on a big map (``compact``: over
    :data:`ARRAY_ROUNDS_NODES` vertices) the structures the rounds' greedy needs, kept up
    as blocks come, so that a round costs its picks, not its entries:

    * each vertex renumbered as it first appears (``cv``: 0..m-1 over the m vertices the
      paths touched; ``label``: each number's vertex; ``idmap``: each vertex's number, -1
      untouched): a round's arrays (counts, candidates) are m long, not n;
    * each number's entries as a list threaded through the entries (``head``/``nxt``):
      a pick walks its own samples, where a regrouping of every entry by vertex each round
      had cost more than the rest of the round;
    * each number's entries in even (training) and odd (hold-out) samples (``counts``);
    * each sample's entries as one run of the buffer (``start``/``length``), as the
      samplers write them; entries of a sample in two runs (``fragmented``) are grouped
      by sample in each round instead.

    Before this each round regrouped all the entries so far (NE's and the 24M-node map's
    rounds cost 2.9× their last round's entries; the 24M map's ``select`` 26.8 s on an
    H100 host, stop 56)."""

    def __init__(self, n: int, eligible: np.ndarray, in_r: np.ndarray,
                 compact: bool | None = None):
        self.n = n
        self.eligible, self.in_r = eligible, in_r
        self.compact = n > ARRAY_ROUNDS_NODES if compact is None else compact
        self._es = _Buffer(np.int32)  # sample numbers
        if not self.compact:
            self._ev = _Buffer(np.int32)  # the array greedy's vertices
            return
        self._cv = _Buffer(np.int32)
        # int32 throughout (entries and samples below 2**31, checked): half the memory
        # that a round's walks and the blocks' appends go through
        self._nxt = _Buffer(np.int32)
        self._label = _Buffer(np.int32)
        self._elig = _Buffer(np.bool_)
        self._in_r = _Buffer(np.bool_)
        self._head = _Buffer(np.int32)
        self._counts = _Buffer(np.int32, 2)  # per number: even, odd samples' entries
        self._start = _Buffer(np.int32)  # per sample (-1: no entries yet)
        self._length = _Buffer(np.int32)
        self.idmap = np.full(n, -1, np.int32)
        self.fragmented = False
        self._last = np.full(1, -1, np.int64)  # the sample of the last entry appended

    def add(self, es: np.ndarray, ev: np.ndarray) -> None:
        """Append a block's entries (host arrays)."""
        g0 = len(self._es)
        if es.shape[0] and (g0 + es.shape[0] >= _INT32 or int(es.max()) >= _INT32):
            raise MemoryError(f"{g0 + es.shape[0]:,} sampled path entries: more than a "
                              "round can hold (2**31)")
        es = np.asarray(es, np.int32)
        if self.compact and es.shape[0]:
            # a sampler writing entry by entry from many threads (the per-source GPU
            # sampler's atomic slots) interleaves its samples: a block is put in sample
            # order here, so that each sample stays one run of the buffer
            es, ev = _in_sample_order(es, np.asarray(ev, np.int32))
        self._es.append(es)
        if not self.compact:
            self._ev.append(np.asarray(ev, np.int32))
            return
        if not es.shape[0]:
            return
        cv, new = _renumber(ev, self.idmap, len(self._label))
        self._cv.append(cv)
        self._label.append(new)
        self._elig.append(self.eligible[new])
        self._in_r.append(self.in_r[new])
        self._head.append(np.full(new.shape[0], -1, np.int32))
        self._counts.append(np.zeros((new.shape[0], 2), np.int32))
        top = int(es.max()) + 1
        if top > len(self._start):
            grow = top - len(self._start)
            self._start.append(np.full(grow, -1, np.int32))
            self._length.append(np.zeros(grow, np.int32))
        self._nxt.append(np.empty(es.shape[0], np.int32))
        if _link(es, cv, g0, self._head.view(), self._nxt.view(), self._counts.view(),
                 self._start.view(), self._length.view(), self._last):
            self.fragmented = True

    def __len__(self) -> int:
        return len(self._es)

    def describe(self) -> str:
        """The entries in a line (the -v log's)."""
        if not self.compact:
            return f"{len(self):,} path entries"
        return (f"{len(self):,} path entries over {len(self._label):,} vertices"
                + (", samples in several runs (grouped each round)" if self.fragmented
                   else ""))

    def round_cover(self, L: int, k: int):
        """One progressive round on its L samples (all the entries so far): the greedy on
        the even sample numbers (training) and its bound, the hold-out cover of the odd
        ones. Returns (sites, lam, hold-out base, hold-out cum)."""
        es = self._es.view()
        if not self.compact:
            ev = self._ev.view()
            train = (es % 2) == 0
            sites, _, _, lam = greedy_arrays(es[train] // 2, ev[train], (L + 1) // 2, self.n,
                                             k, self.eligible, self.in_r)
            hold = ~train
            hbase, cum = prefixes_arrays(es[hold] // 2, ev[hold], L // 2, sites, self.in_r)
            return sites, lam, hbase, cum
        picked, _, _, lam = self._greedy(L, k, 0, True)
        hbase, cum = cover_prefixes(es, L, picked, self.idmap, self._in_r.view(),
                                    self._head.view(), self._nxt.view())
        return picked.tolist(), int(lam), int(hbase), cum.tolist()

    def greedy_sites(self, size: int, k: int):
        """(sites, gains, base) of the greedy over all ``size`` samples (the cap's round)."""
        es = self._es.view()
        if not self.compact:
            sites, gains, base, _ = greedy_arrays(es, self._ev.view(), size, self.n, k,
                                                  self.eligible, self.in_r)
            return sites, gains, base
        sites, gains, base, _ = self._greedy(size, k, 2, False)
        return sites.tolist(), gains.tolist(), int(base)

    def _greedy(self, L: int, k: int, parity: int, bound: bool):
        """``greedy_cover`` over the samples below L of ``parity`` (0: even, 1: odd, 2:
        all); every entry so far must be of a sample below L (the counts are all of
        them)."""
        if len(self._start) > L:
            raise ValueError(f"entries of sample {len(self._start) - 1} in a round of {L}")
        es, cv = self._es.view(), self._cv.view()
        if self.fragmented:  # each sample's entries, grouped afresh
            ptr, sver = _group(es, max(L, len(self._start)), cv)
            beg, end = ptr[:-1], ptr[1:]
        else:
            beg = self._start.view()
            end = beg + self._length.view()  # (-1 + 0 for a sample without entries)
            sver = cv
        counts = self._counts.view()
        cnt = (counts.sum(axis=1, dtype=np.int64) if parity == 2
               else counts[:, parity].astype(np.int64))
        return greedy_cover(es, L, parity, k, cnt, beg, end, sver, self._label.view(),
                            self.idmap, self.eligible, self._elig.view(), self._in_r.view(),
                            self._head.view(), self._nxt.view(), bound)


class _Buffer:
    """An array appended to in place along its first axis, its capacity doubled when
    full."""

    def __init__(self, dtype, width: int = 0):
        self._shape = (width,) if width else ()
        self._a = np.empty((0, *self._shape), dtype)
        self._n = 0

    def append(self, x: np.ndarray) -> None:
        need = self._n + x.shape[0]
        if need > self._a.shape[0]:
            grown = np.empty((max(need, 2 * self._a.shape[0], 1024), *self._shape),
                             self._a.dtype)
            grown[:self._n] = self._a[:self._n]
            self._a = grown
        self._a[self._n:need] = x
        self._n = need

    def view(self) -> np.ndarray:
        return self._a[:self._n]

    def __len__(self) -> int:
        return self._n


@njit(cache=True, nogil=True)
def _link(es, cv, g0, head, nxt, counts, start, length, last):
    """Thread a block's entries (the buffer's from ``g0``) onto their numbers' lists,
    count them by sample parity, and extend each sample's run; True when a sample's
    entries come in a second run (the samples are then grouped in each round)."""
    split = False
    prev = last[0]
    for i in range(es.shape[0]):
        g = g0 + i
        s = es[i]
        c = cv[i]
        nxt[g] = head[c]
        head[c] = g
        counts[c, s & 1] += 1
        if s == prev:
            length[s] += 1
        else:
            if start[s] >= 0:
                split = True
            start[s] = g
            length[s] = 1
            prev = s
    last[0] = prev
    return split


@njit(cache=True, nogil=True)
def _in_sample_order(es, ev):
    """The block's entries (es, ev) as they are when already in sample order, else
    grouped by sample (a counting sort over the block's sample range, stable)."""
    ordered = True
    for i in range(1, es.shape[0]):
        if es[i] < es[i - 1]:
            ordered = False
            break
    if ordered:
        return es, ev
    lo, hi = es[0], es[0]
    for i in range(es.shape[0]):
        lo = min(lo, es[i])
        hi = max(hi, es[i])
    ptr, out_v = _group(es - lo, hi - lo + 1, ev)
    out_s = np.empty(es.shape[0], es.dtype)
    for k in range(hi - lo + 1):
        out_s[ptr[k]:ptr[k + 1]] = lo + k
    return out_s, out_v


@njit(cache=True, nogil=True)
def _renumber(ev, idmap, m0):
    """(each entry's vertex number, the vertices numbered here): a vertex not seen before
    gets the next number from ``m0`` (``idmap`` updated in place)."""
    cv = np.empty(ev.shape[0], np.int32)
    new = np.empty(ev.shape[0], np.int32)
    m = m0
    for i in range(ev.shape[0]):
        v = ev[i]
        c = idmap[v]
        if c < 0:
            c = m
            idmap[v] = m
            new[m - m0] = v
            m += 1
        cv[i] = c
    return cv, new[:m - m0].copy()


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


def warm() -> None:
    """Compile (or load from numba's cache) the kernels on a made-up round, its sample
    0 in two runs (the grouping's kernel too)."""
    mask = np.zeros(3, np.bool_)
    entries = RoundEntries(3, ~mask, mask, compact=True)
    entries.add(np.array([0, 1, 0], np.int64), np.array([1, 2, 2], np.int32))
    entries.round_cover(2, 1)
    entries.greedy_sites(2, 1)
