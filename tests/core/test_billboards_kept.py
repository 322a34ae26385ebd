"""The CPU exact greedy's fast paths (kept tight-arc DAGs, Dial's buckets, threads, a
keep budget that runs out) against the plain path and against the code before them."""

from __future__ import annotations

import json
from pathlib import Path

import numba
import numpy as np
import pytest

from gpu_core.betweenness import api as bb_api
from gpu_core.betweenness import place_billboards
from gpu_core.graph import CSRGraph
from tests.core import families as fam

ROOT = Path(__file__).resolve().parents[2]


def _same(x, y) -> None:
    assert list(x.sites) == list(y.sites)
    assert x.gains.tolist() == y.gains.tolist()
    assert x.pairs.tolist() == y.pairs.tolist()
    assert x.group_betweenness.tolist() == y.group_betweenness.tolist()


def _graph(seed: int, wmax: int) -> CSRGraph:
    return fam.random_sparse(seed=seed, n=80, avg_deg=4, wmax=wmax)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dial_buckets_equal_heap(monkeypatch, seed):
    """Dial's bucket queue gives the heap's counts and so bit for bit its gains."""
    g = _graph(seed, 40)
    assert bb_api._dial_buckets(g, g.weights.astype(np.int64)) > 0
    kw = dict(mode="weighted", backend="cpu", method="exact", fixed=[3])
    dial = place_billboards(g, 4, **kw)
    monkeypatch.setattr(bb_api, "_dial_buckets", lambda g, w: 0)
    _same(dial, place_billboards(g, 4, **kw))


@pytest.mark.parametrize("wmax", [1, 3, 200, 5000])
def test_dial_occupancy_words_equal_the_heap_search(wmax):
    """Dial's queue jumping over empty buckets by its occupancy words (one word and many,
    distances that wrap around the buckets, sparse distances): the heap search's
    distances and counts, a settle order by distance, and the same greedy bit for bit."""
    from gpu_core.betweenness.cpu import _search, _search_dial

    g = _graph(wmax, wmax)
    w = g.weights.astype(np.int64)
    n, m = g.num_nodes, g.num_arcs
    nb = max(1 << int(w.max()).bit_length(), 64)  # as _dial_buckets and round_gains
    assert nb // 64 > (1 if wmax > 64 else 0)  # several occupancy words where arcs are long
    in_r = np.zeros(n, np.bool_)
    in_r[[5, 17]] = True
    got = [(np.empty(n, np.int64), np.empty(n), np.empty(n), np.empty(n, np.int32))
           for _ in range(2)]
    for s in range(n):
        (d1, s1, b1, o1), (d2, s2, b2, o2) = got
        c1 = _search_dial(g.indptr, g.indices, w, np.int32(s), d1, s1, b1, o1, in_r,
                          np.empty(nb, np.int32), np.empty(nb >> 6, np.uint64),
                          np.empty(m + 1, np.int32), np.empty(m + 1, np.int32))
        c2 = _search(g.indptr, g.indices, w, np.int32(s), False, d2, s2, b2, o2, in_r,
                     np.empty(m + 1, np.int64), np.empty(m + 1, np.int32))
        assert c1 == c2
        assert d1.tolist() == d2.tolist() and s1.tolist() == s2.tolist()
        assert b1.tolist() == b2.tolist()
        assert sorted(o1[:c1].tolist()) == sorted(o2[:c2].tolist())
        assert (np.diff(d1[o1[:c1]]) >= 0).all()
    kw = dict(mode="weighted", backend="cpu", method="exact", fixed=[3])
    if bb_api._dial_buckets(g, w) > 0:
        dial = place_billboards(g, 3, **kw)
        heap_api = bb_api._dial_buckets
        try:
            bb_api._dial_buckets = lambda g, w: 0
            _same(dial, place_billboards(g, 3, **kw))
        finally:
            bb_api._dial_buckets = heap_api


def test_long_arcs_use_the_heap():
    """Arcs of 2^16 or more (or composite keys) leave the search to the heap."""
    g = _graph(0, 4)
    w = g.weights.astype(np.int64) * 70000
    assert bb_api._dial_buckets(g, w) == 0


@pytest.mark.parametrize("mode", ["hops", "weighted"])
def test_keep_budget_running_out_mid_round(monkeypatch, mode):
    """Sources past the keep budget are searched again each round: same result."""
    g = _graph(4, 9)
    kw = dict(mode=mode, backend="cpu", method="exact")
    full = place_billboards(g, 4, **kw)
    monkeypatch.setattr(bb_api, "CPU_KEEP_BYTES", 2000)  # a few sources' DAGs only
    _same(full, place_billboards(g, 4, **kw))


def test_same_bits_whatever_the_thread_count():
    """Lanes and their reduction order are fixed: one thread or all give equal bits."""
    g = _graph(5, 30)
    kw = dict(mode="weighted", backend="cpu", method="exact")
    many = place_billboards(g, 4, **kw)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one = place_billboards(g, 4, **kw)
    finally:
        numba.set_num_threads(before)
    _same(many, one)


def test_sample_map_k5_equals_the_code_before():
    """The app's first tool on the sample map: the sites and gains (bit for bit) of the
    code before the kept DAGs and Dial's queue, written by scripts/billboards_expectation.py
    from commit d2fe593 (tight arcs kept as bits, heap Dijkstra)."""
    from maps.load import load_map

    exp = json.loads((ROOT / "tests/fixtures/billboards/helsinki_k5.json").read_text())
    g = CSRGraph.from_any(load_map(str(ROOT / exp["map"])))
    assert (g.num_nodes, g.num_arcs) == (exp["nodes"], exp["arcs"])
    r = place_billboards(g, exp["k"], mode=exp["mode"], backend="cpu", method="exact")
    assert r.sites.tolist() == exp["sites"]
    assert [float(x).hex() for x in r.gains] == exp["gains"]
    assert [float(x).hex() for x in r.pairs] == exp["pairs"]
    assert float(r.base_group_betweenness).hex() == exp["base_group_betweenness"]


def test_bench_cpu_rounds(tmp_path, capsys):
    """``signpost bench billboards --cpu-rounds``: one line per thread count, the sites of
    place_billboards, the summary file written."""
    from app.bench.billboards import _load
    from app.cli import main

    summary = tmp_path / "s.txt"
    rc = main(["bench", "billboards", "--cpu-rounds", "--map", "gen:grid:100", "--k-max", "3",
               "--summary", str(summary)])
    out = capsys.readouterr().out
    assert rc == 0, out
    g, _ = _load("gen:grid:100")
    sites = place_billboards(g, 3, mode="weighted", backend="cpu", method="exact").sites
    lines = [ln for ln in out.splitlines() if ln.startswith("billboards cpu gen:grid:100")]
    assert lines and all(ln.endswith(f"sites {sites.tolist()}") for ln in lines)
    assert "threads=1:" in lines[0]
    assert summary.read_text().count("billboards cpu") == len(lines)


def test_dag_buffers_take_the_kept_dtypes_and_give_the_same_gains(monkeypatch):
    """Issue 41: a small map's searched DAGs use the kept rows' dtypes (uint16/uint8), so
    the DAG kernels compile once; the gains equal those with int32 buffers bit for bit."""
    g = _graph(4, 40)
    w = g.weights.astype(np.int64)
    ones = np.ones(g.num_nodes)
    assert bb_api.cpu_engine(g, w, False, ones, ones).dag_dtypes == (
        np.uint16, np.uint8, np.uint16)
    hub = CSRGraph.from_edges(300, [0] * 299 + list(range(1, 300)),
                              list(range(1, 300)) + [0] * 299, [1] * 598)  # degree 299
    assert bb_api.cpu_engine(hub, hub.weights.astype(np.int64), False, np.ones(300),
                            np.ones(300)).dag_dtypes == (np.int32,) * 3
    kw = dict(mode="weighted", backend="cpu", method="exact")
    small = place_billboards(g, 4, **kw)
    real_init = bb_api.CpuEngine.__init__

    def wide(self, *a, **k):
        real_init(self, *a, **k)
        self.dag_dtypes = (np.int32,) * 3
        self.pools = tuple(np.empty(0, np.int32) for _ in range(3))
        self.keep = False

    monkeypatch.setattr(bb_api.CpuEngine, "__init__", wide)
    _same(small, place_billboards(g, 4, **kw))
