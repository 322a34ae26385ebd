"""A progressive run's sampled path entries, kept as the draws append them (issue 43):
:class:`RoundEntries` holds what each round's greedy (``cover_cpu``'s kernels) needs, so
that a round costs its picks, not a pass over every entry drawn so far."""

from __future__ import annotations

import numpy as np
from numba import njit

from .cover_cpu import (
    _group,
    array_rounds,
    cover_prefixes,
    greedy_arrays,
    greedy_cover,
    prefixes_arrays,
)

_INT32 = 2**31 - 1


class RoundEntries:
    """A progressive run's entries so far, (sample, vertex) pairs appended block by block
    into buffers that grow by doubling, and on a big map (``compact``: over
    :data:`cover_cpu.ARRAY_ROUNDS_NODES` vertices) the structures the rounds' greedy needs, kept up
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
        self.compact = not array_rounds(n) if compact is None else compact
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
            ptr, sver = _group(es, L, cv)
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


def warm() -> None:
    """Compile (or load from numba's cache) the kernels on a made-up round: a block out
    of sample order (put in order), then sample 0 again in a second block (two runs: the
    rounds group the samples), so every path's kernels."""
    mask = np.zeros(3, np.bool_)
    entries = RoundEntries(3, ~mask, mask, compact=True)
    entries.add(np.array([1, 0], np.int64), np.array([2, 1], np.int32))
    entries.add(np.array([0], np.int64), np.array([2], np.int32))
    entries.round_cover(2, 1)
    entries.greedy_sites(2, 1)
