"""The progressive rounds' greedy kernels (``cover_cpu``) and its array greedy (small
maps, as the rounds ran before) against the greedy written out over Python sets: the same
sites, gains, bound and hold-out covers, ties and degenerate rounds included."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpu_core.betweenness import cover_cpu
from gpu_core.betweenness.cover_cpu import (
    _LOW,
    _pop,
    _sift_up,
    _top,
    cover_prefixes,
    greedy_arrays,
    greedy_cover,
    prefixes_arrays,
)
from gpu_core.betweenness.round_entries import RoundEntries, _renumber, warm


def _entries(es, ev, n, eligible, in_r, compact=True) -> RoundEntries:
    """The entries in two blocks, as a round's draws append them."""
    entries = RoundEntries(n, eligible, in_r, compact=compact)
    half = es.shape[0] // 2
    entries.add(es[:half], ev[:half])
    entries.add(es[half:], ev[half:])
    return entries


def _kernel_greedy(es, ev, size, n, k, eligible, in_r, bound=True):
    """``greedy_cover`` over all the samples (both parities), sites as vertices."""
    return _entries(es, ev, n, eligible, in_r)._greedy(size, k, 2, bound)


def _kernel_prefixes(es, ev, size, n, sites, in_r):
    """``cover_prefixes`` with every sample an odd one (the hold-out's)."""
    e = _entries(2 * es + 1, ev, n, ~in_r, in_r)
    return cover_prefixes(e._es.view(), 2 * size, np.asarray(sites, np.int64), e.idmap,
                          e._in_r.view(), e._head.view(), e._nxt.view())


def _greedy_by_sets(es, ev, size, n, k, eligible, in_r):
    """The greedy written out over Python sets, entry by entry: a sample's gain counts
    its entries at a vertex (a repeated vertex twice), picks go to the first vertex of
    the largest gain among eligible ones (vertex 0 when none is eligible), the bound adds
    the k largest eligible gains at every prefix."""
    fixed = {int(v) for v in np.flatnonzero(in_r)}
    paths: dict[int, list[int]] = {}
    for s, v in zip(es.tolist(), ev.tolist(), strict=True):
        paths.setdefault(s, []).append(v)
    covered = {s for s, vs in paths.items() if fixed & set(vs)}
    base = len(covered)
    elig = set(np.flatnonzero(eligible).tolist())
    sites, gains, total, lam = [], [], base, math.inf
    for i in range(k + 1):
        gain = [0] * n
        for s, vs in paths.items():
            if s not in covered:
                for v in vs:
                    gain[v] += 1
        lam = min(lam, total + sum(sorted((gain[v] for v in elig), reverse=True)[:k]))
        if i == k:
            break
        v = max(sorted(elig), key=lambda u: gain[u]) if elig else 0
        sites.append(v)
        gains.append(gain[v] if elig else 0)
        total += gains[-1]
        elig.discard(v)
        covered |= {s for s, vs in paths.items() if v in vs}
    return sites, gains, base, lam


def _prefixes_by_sets(es, ev, size, sites, in_r):
    fixed = {int(v) for v in np.flatnonzero(in_r)}
    paths: dict[int, set[int]] = {}
    for s, v in zip(es.tolist(), ev.tolist(), strict=True):
        paths.setdefault(s, set()).add(v)
    covered = {s for s, vs in paths.items() if fixed & vs}
    base, cum = len(covered), []
    for v in sites:
        covered |= {s for s, vs in paths.items() if v in vs}
        cum.append(len(covered))
    return base, cum


def _case(rng, n, size, per, fixed, eligible_share, repeats):
    """Samples of ``per`` random vertices each (some repeated within a sample, some
    samples empty), entries shuffled (a round's deferred pairs come after the rest)."""
    es = np.repeat(np.arange(size, dtype=np.int64), rng.integers(0, per + 1, size))
    ev = rng.integers(0, n, es.size).astype(np.int32)
    if repeats:
        dup = rng.random(es.size) < 0.2
        es, ev = np.concatenate([es, es[dup]]), np.concatenate([ev, ev[dup]])
    order = rng.permutation(es.size)
    in_r = np.zeros(n, bool)
    in_r[rng.choice(n, fixed, replace=False)] = True
    eligible = (rng.random(n) < eligible_share) & ~in_r
    return es[order], ev[order], in_r, eligible


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("n", "size", "per", "k", "fixed", "share", "repeats"), [
    (200, 300, 6, 5, 0, 1.0, False),
    (200, 300, 6, 8, 3, 0.7, True),
    (50, 40, 3, 60, 1, 0.9, False),  # K beyond the touched vertices: picks that gain 0
    (30, 500, 12, 10, 0, 0.3, True),  # many ties among few vertices
    (1000, 20, 2, 4, 5, 1.0, False),  # most vertices untouched
    (10, 5, 2, 12, 2, 0.5, False),  # more picks than eligible vertices
])
def test_greedy_and_prefixes_equal_the_array_greedy(seed, n, size, per, k, fixed, share,
                                                     repeats):
    rng = np.random.default_rng(seed)
    es, ev, in_r, eligible = _case(rng, n, size, per, fixed, share, repeats)
    want_sites, want_gains, want_base, want_lam = _greedy_by_sets(es, ev, size, n, k,
                                                                    eligible, in_r)
    sites, gains, base, lam = _kernel_greedy(es, ev, size, n, k, eligible, in_r)
    assert sites.tolist() == want_sites
    assert gains.tolist() == want_gains
    assert (base, lam) == (want_base, want_lam)
    # in sample order (each sample's entries one run of the buffer, as samplers write
    # them) the rounds use the runs; a block's shuffled entries are put in sample order;
    # a sample in both blocks makes the rounds group the samples: the same result
    order = np.argsort(es, kind="stable")
    in_order = _entries(es[order], ev[order], n, eligible, in_r)
    half = es.size // 2
    assert not in_order.fragmented
    blocks = np.concatenate([np.sort(es[:half]), np.sort(es[half:])])
    runs = int(es.size > 0) + int((blocks[1:] != blocks[:-1]).sum())
    assert _entries(es, ev, n, eligible, in_r).fragmented == (runs > np.unique(es).size)
    got = in_order._greedy(size, k, 2, True)
    assert [x.tolist() if hasattr(x, "tolist") else x for x in got] == \
        [want_sites, want_gains, want_base, want_lam]
    _, _, _, no_bound = _kernel_greedy(es, ev, size, n, k, eligible, in_r, False)
    assert no_bound == -1
    hb, cum = _kernel_prefixes(es, ev, size, n, sites, in_r)
    want_hb, want_cum = _prefixes_by_sets(es, ev, size, want_sites, in_r)
    assert (hb, cum.tolist()) == (want_hb, want_cum)
    # the small maps' array greedy (no compilation): the same again
    assert greedy_arrays(es, ev, size, n, k, eligible, in_r) == (want_sites, want_gains,
                                                                 want_base, want_lam)
    assert prefixes_arrays(es, ev, size, want_sites, in_r) == (want_hb, want_cum)


@pytest.mark.parametrize("seed", range(3))
def test_a_round_is_the_same_on_either_side_of_the_small_map_threshold(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    es, ev, in_r, eligible = _case(rng, 300, 401, 7, 2, 0.9, True)
    small = _entries(es, ev, 300, eligible, in_r, compact=None)
    assert not small.compact
    monkeypatch.setattr(cover_cpu, "ARRAY_ROUNDS_NODES", 0)
    big = _entries(es, ev, 300, eligible, in_r, compact=None)
    assert big.compact
    assert big.round_cover(401, 6) == small.round_cover(401, 6)
    assert big.greedy_sites(401, 6) == small.greedy_sites(401, 6) == \
        greedy_arrays(es, ev, 401, 300, 6, eligible, in_r)[:3]


def test_inputs_are_left_as_they_were():
    rng = np.random.default_rng(1)
    es, ev, in_r, eligible = _case(rng, 100, 80, 5, 2, 0.8, True)
    before = [x.copy() for x in (es, ev, in_r, eligible)]
    e = _entries(es, ev, 100, eligible, in_r)
    e.round_cover(80, 6)
    e.greedy_sites(80, 6)
    for got, was in zip((es, ev, in_r, eligible), before, strict=True):
        np.testing.assert_array_equal(got, was)


def test_no_entries_and_no_eligible_vertex_pick_as_argmax_does():
    """Nothing sampled: every count is 0, the first eligible vertex is picked (gain 0);
    no eligible vertex at all: vertex 0, as numpy's argmax of all -1."""
    es, ev = np.zeros(0, np.int64), np.zeros(0, np.int32)
    elig = np.array([False, False, True, True])
    none = np.zeros(4, bool)
    sites, gains, base, lam = _kernel_greedy(es, ev, 3, 4, 2, elig, none)
    assert (sites.tolist(), gains.tolist(), base, lam) == ([2, 3], [0, 0], 0, 0)
    sites, gains, _, _ = _kernel_greedy(es, ev, 3, 4, 2, none, none)
    assert (sites.tolist(), gains.tolist()) == ([0, 0], [0, 0])
    want = _greedy_by_sets(es, ev, 3, 4, 2, none, none)
    assert want[:2] == ([0, 0], [0, 0])


def test_lazy_heap_gives_numpys_first_maximum_as_counts_fall():
    """The greedy's max-heap: keys put in at the first counts, then counts fall and
    vertices leave; every top is argmax of the current eligible counts (the first of
    equal ones), or -1 once none is positive."""
    rng = np.random.default_rng(3)
    for n in (1, 7, 60, 400):
        cnt = rng.integers(0, 5, n).astype(np.int64)  # few values: ties
        elig = np.ones(n, bool)
        heap = np.empty(n, np.int64)
        ident = np.arange(n, dtype=np.int32)  # vertices numbered as they are
        size = 0
        for v in np.flatnonzero(cnt > 0):
            _sift_up(heap, size, (int(cnt[v]) << 32) | (int(_LOW) - int(v)))
            size += 1
        while True:
            c = np.where(elig, cnt, 0)
            v, c_num, got, size = _top(heap, size, cnt, elig, ident)
            if c.max() <= 0:
                assert v == -1
                break
            assert (v, c_num, got) == (int(np.argmax(c)), int(np.argmax(c)), int(c.max()))
            if rng.random() < 0.5:
                elig[v] = False  # picked
            fall = rng.random(n) < 0.3
            cnt[fall] = np.maximum(cnt[fall] - rng.integers(0, 3, int(fall.sum())), 0)
        assert _pop(np.array([5], np.int64), 1) == 0


def test_entries_appended_in_blocks_keep_every_entry_and_number_vertices_once():
    """Blocks of every size (the buffers grow by doubling): the entries are those
    appended, in order; each vertex gets one number, in the order it first appears, and
    its eligibility and fixed-site flag go with it."""
    rng = np.random.default_rng(8)
    n = 5000
    eligible, in_r = rng.random(n) < 0.6, rng.random(n) < 0.05
    e = RoundEntries(n, eligible, in_r, compact=True)
    parts = []
    lo = 0
    for size in (0, 1, 7, 1023, 1024, 3000, 5):
        es = np.arange(lo, lo + size, dtype=np.int64) // 3
        ev = rng.integers(0, n, size).astype(np.int32)
        e.add(es, ev)
        parts.append((es, ev))
        lo += size
    es_all = np.concatenate([p[0] for p in parts])
    ev_all = np.concatenate([p[1] for p in parts])
    assert len(e) == es_all.size
    np.testing.assert_array_equal(e._es.view(), es_all)
    label = e._label.view()
    np.testing.assert_array_equal(label[e._cv.view()], ev_all)
    _, first = np.unique(ev_all, return_index=True)
    np.testing.assert_array_equal(label, ev_all[np.sort(first)])
    np.testing.assert_array_equal(e.idmap[label], np.arange(label.size))
    assert (e.idmap >= 0).sum() == label.size
    np.testing.assert_array_equal(e._elig.view(), eligible[label])
    np.testing.assert_array_equal(e._in_r.view(), in_r[label])
    cv, new = _renumber(np.array([3, 3, 1], np.int32), np.full(4, -1, np.int32), 10)
    assert (cv.tolist(), new.tolist()) == ([10, 10, 11], [3, 1])


def test_a_block_interleaving_its_samples_is_put_in_sample_order():
    """Entries written slot by slot from many threads interleave their samples: each
    sample becomes one run again (its entries in their order), and the rounds need no
    grouping."""
    rng = np.random.default_rng(4)
    es = rng.permutation(np.repeat(np.arange(40, 90, dtype=np.int64), 7))
    ev = rng.integers(0, 500, es.size).astype(np.int32)
    e = RoundEntries(500, np.ones(500, bool), np.zeros(500, bool), compact=True)
    e.add(es[:100].copy(), ev[:100].copy())  # samples 40..89 in one block, then more
    e.add(np.arange(90, 95, dtype=np.int64), np.arange(5, dtype=np.int32))
    assert not e.fragmented
    got_s = e._es.view()[:100]
    order = np.argsort(es[:100], kind="stable")
    np.testing.assert_array_equal(got_s, es[:100][order])
    np.testing.assert_array_equal(e._label.view()[e._cv.view()[:100]], ev[:100][order])


def test_a_round_with_entries_of_later_samples_is_refused():
    """The counts are of every entry so far: a round of fewer samples than were appended
    would count paths it does not hold, so it raises instead."""
    e = _entries(np.array([0, 1, 5], np.int64), np.array([1, 2, 3], np.int32), 10,
                 np.ones(10, bool), np.zeros(10, bool))
    with pytest.raises(ValueError, match="sample 5"):
        e.round_cover(4, 2)
    # sample 0 trains (vertex 1); then nothing is left: the first eligible vertex, 0
    assert e.round_cover(6, 2)[0] == [1, 0]


def test_warm_runs_the_kernels():
    warm()  # compiles or loads both kernels; a failure raises here


def _progressive(g, k: int, **kw):
    """(partial results' (sites, epsilon), result) of a progressive run on ``g``, uniform
    demand, every vertex a candidate, weighted, epsilon 0.1, delta 0.1 (``kw`` overrides:
    seed, first, preview, draw)."""
    from gpu_core.betweenness import progressive as P

    n = g.num_nodes
    args = dict(w=g.weights.astype(np.int64), unit=False, a=np.ones(n), b=np.ones(n),
                eligible=np.ones(n, bool), in_r=np.zeros(n, bool), backend="cpu",
                epsilon=0.1, delta=0.1, seed=0, cancel=None, mode="weighted")
    gen = P.progressive_billboards(g, k, **{**args, **kw})
    parts = []
    try:
        while True:
            p = next(gen)
            if p.partial is not None:
                parts.append((p.partial.sites.tolist(), p.partial.epsilon_at_stop))
    except StopIteration as stop:
        return parts, stop.value


def test_progressive_run_with_the_kernels_equals_the_array_rounds(monkeypatch):
    """A whole progressive run (its preview and rounds) with the big maps' kernels equals
    the small maps'."""
    from tests.core import families as fam

    g = fam.road_grid(25, 25, seed=3)

    def run():
        return _progressive(g, 5, seed=9, first=64, preview=32)

    want_parts, want = run()
    monkeypatch.setattr(cover_cpu, "ARRAY_ROUNDS_NODES", 0)
    got_parts, got = run()
    assert got_parts == want_parts and len(want_parts) >= 2  # the preview and a round
    assert got.sites.tolist() == want.sites.tolist()
    assert (got.samples, got.stopped_by, got.epsilon_at_stop) == \
        (want.samples, want.stopped_by, want.epsilon_at_stop)
    assert got.group_betweenness.tolist() == want.group_betweenness.tolist()


def test_cap_round_with_the_kernels_equals_the_array_greedy(monkeypatch):
    """A run that reaches the cap (no round certifies: the hold-out's lower bound forced
    to 0) gives the same sites and gains by either greedy."""
    from gpu_core.betweenness import progressive as P
    from tests.core import families as fam

    g = fam.road_grid(12, 12, seed=4)
    n = g.num_nodes
    monkeypatch.setattr(P, "lower_share", lambda x, n, a: 0.0)

    def run():
        return _progressive(g, 4, seed=1)[1]

    want = run()
    assert want.stopped_by == "cap" and want.samples == P.sample_size(4, n, 0.1, 0.05)
    monkeypatch.setattr(cover_cpu, "ARRAY_ROUNDS_NODES", 0)
    got = run()
    assert got.sites.tolist() == want.sites.tolist()
    assert got.gains.tolist() == want.gains.tolist()
    assert got.group_betweenness.tolist() == want.group_betweenness.tolist()


def test_entries_in_sample_order_give_the_same_greedy():
    """Entries already in sample order take the grouping's shortcut: the same result."""
    rng = np.random.default_rng(11)
    es, ev, in_r, eligible = _case(rng, 150, 200, 6, 2, 0.9, True)
    order = np.argsort(es, kind="stable")
    sorted_es, sorted_ev = es[order], ev[order]
    want = _greedy_by_sets(sorted_es, sorted_ev, 200, 150, 7, eligible, in_r)
    for e_s, e_v in ((sorted_es, sorted_ev), (es, ev)):
        sites, gains, base, lam = _kernel_greedy(e_s, e_v, 200, 150, 7, eligible, in_r)
        assert (sites.tolist(), gains.tolist(), base, lam) == want


def test_host_kernels_of_a_gpu_draw_warm_on_a_thread():
    """``warm_host_ahead`` leaves the rounds' greedy and the tied pairs' walk ready, the
    walk for the GPU sampler's int32 columns (its first call then loads nothing)."""
    from gpu_core.betweenness.indexed_cpu import tied_columns, warm_tied
    from gpu_core.betweenness.progressive import warm_host_ahead

    warm_tied()  # raises where the thread would only log
    th = warm_host_ahead(True)
    th.join(timeout=300)
    assert not th.is_alive()
    assert greedy_cover.signatures and cover_prefixes.signatures
    cols = [sig[0] for sig in tied_columns.signatures]
    assert any(c.dtype.name == "int32" and c.ndim == 2 and c.layout == "C" for c in cols)


class _DeviceLike:
    """An array as a GPU sampler returns it: only ``get()`` brings it to the host."""

    def __init__(self, arr: np.ndarray):
        self._arr = arr

    def get(self) -> np.ndarray:
        return self._arr.copy()


class _DeviceDraw:
    """A draw whose sampler hands back device-like arrays (as ``CudaSampler`` or
    ``IndexedSampler`` do on a GPU), around the CPU's own sampler."""

    fold = None

    def __init__(self, sampler):
        self.inner, self.sampler = sampler, self
        self.kernel, self.xp = sampler.kernel, object()  # not numpy: the device's

    def chunk_size(self, total: int) -> int:
        return self.inner.chunk_size(total)

    def run(self, srcs, tgts, seed, base):
        return tuple(_DeviceLike(a) for a in self.inner.run(srcs, tgts, seed, base))

    def flush(self, seed):
        rest = self.inner.flush(seed)
        return None if rest is None else tuple(_DeviceLike(a) for a in rest)

    def note(self) -> str:
        return self.inner.note()


@pytest.mark.parametrize("threshold", [0, 10**9])
def test_rounds_of_a_device_draw_run_on_the_host_with_the_same_result(threshold,
                                                                      monkeypatch):
    """A GPU draw's entries are brought to the host block by block and the rounds run
    there, on either greedy: the same rounds, sites and bounds as the CPU's draw."""
    from gpu_core.betweenness.api import path_sampler
    from tests.core import families as fam

    monkeypatch.setattr(cover_cpu, "ARRAY_ROUNDS_NODES", threshold)
    g = fam.road_grid(20, 20, seed=6)

    def run(draw):
        return _progressive(g, 4, seed=3, draw=draw, preview=40, first=128)

    want_parts, want = run(None)
    got_parts, got = run(_DeviceDraw(path_sampler(g, "weighted", "cpu")))
    assert got_parts == want_parts and len(want_parts) >= 2
    assert got.sites.tolist() == want.sites.tolist()
    assert (got.samples, got.epsilon_at_stop, got.stopped_by) == \
        (want.samples, want.epsilon_at_stop, want.stopped_by)
    assert got.group_betweenness.tolist() == want.group_betweenness.tolist()
