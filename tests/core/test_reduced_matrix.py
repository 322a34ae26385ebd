"""The few-source matrix on the reduced graph (``multi_source.reduce``) and in forked
workers (``multi_source.forked``) equals plain scipy on the whole graph and the reference."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_core.errors import CancelledError
from gpu_core.graph import CSRGraph
from gpu_core.multi_source import cpu, distance_matrix
from gpu_core.multi_source.reduce import reduce_graph
from gpu_core.reference import reference_sssp

ROOT = Path(__file__).resolve().parents[2]
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork: Linux only")


def road_like(seed: int, n: int = 300, wmax: int = 9) -> CSRGraph:
    """A random graph with what the reduction removes and what must survive it: trees of
    dead ends, long two-way and one-way chains, chains closing on themselves, parallel
    arcs, self-loops, zero weights, one-way arcs and unreachable parts."""
    r = np.random.default_rng(seed)
    tails: list[int] = []
    heads: list[int] = []

    def arc(a: int, b: int, both: bool) -> None:
        tails.append(a)
        heads.append(b)
        if both:
            tails.append(b)
            heads.append(a)

    core = n // 5
    for _ in range(core * 2):  # a core of random arcs, some one-way
        arc(int(r.integers(core)), int(r.integers(core)), bool(r.random() < 0.6))
    v = core
    while v < n:
        kind = r.integers(4)
        length = int(r.integers(1, 30))
        ids = list(range(v, min(n, v + length)))
        v += len(ids)
        if not ids:
            break
        ends = [int(r.integers(core)), int(r.integers(core))]
        both = bool(r.random() < 0.7)
        if kind == 0:  # a tree hanging from the core
            for i, x in enumerate(ids):
                parent = ends[0] if i == 0 else ids[int(r.integers(i))]
                arc(parent, x, bool(r.random() < 0.8))
        else:  # a chain: core -> ... -> core, or a loop back to its start, or loose
            path = [ends[0], *ids] + ([ends[1]] if kind == 1 else [ends[0]] if kind == 2 else [])
            for a, b in zip(path, path[1:], strict=False):
                arc(a, b, both)
    m = len(tails)
    w = r.integers(0, wmax + 1, m)
    w[r.random(m) < 0.15] = 0
    for _ in range(n // 20):  # parallel arcs and self-loops
        i = int(r.integers(m))
        tails.append(tails[i])
        heads.append(heads[i])
        x = int(r.integers(n))
        tails.append(x)
        heads.append(x)
    w = np.concatenate([w, r.integers(0, wmax + 1, len(tails) - m)])
    return CSRGraph.from_edges(n, tails, heads, w)


def plain(g: CSRGraph, src, tgt) -> np.ndarray:
    rows = cpu.iter_rows(g, np.asarray(src), np.asarray(tgt), None, reduce=False, workers=0)
    return np.concatenate([b for _, b in rows])


def reduced(g: CSRGraph, src, tgt, chunk=None, workers=0) -> np.ndarray:
    rows = cpu.iter_rows(g, np.asarray(src), np.asarray(tgt), chunk, reduce=True,
                         workers=workers)
    return np.concatenate([b for _, b in rows])


def reference(g: CSRGraph, src, tgt) -> np.ndarray:
    return np.array([reference_sssp(g, int(s))[1][tgt] for s in src], dtype=np.int64)


@pytest.mark.parametrize("seed", range(12))
def test_reduced_equals_scipy_and_reference(seed):
    g = road_like(seed)
    r = np.random.default_rng(seed + 100)
    src = r.integers(0, g.num_nodes, 15)
    tgt = r.integers(0, g.num_nodes, 12)
    src[:3] = src[3]  # duplicate sources
    tgt[:2] = src[5:7]  # sources that are targets
    tgt[2] = tgt[3]  # duplicate targets
    want = plain(g, src, tgt)
    np.testing.assert_array_equal(want, reference(g, src, tgt))
    np.testing.assert_array_equal(reduced(g, src, tgt, chunk=4), want)
    assert (want == -1).any() or seed % 3  # the families do produce unreachable pairs


def test_reduction_removes_chains_and_trees():
    g = road_like(3, n=2000)
    keep = np.arange(10)
    red = reduce_graph(g, keep, max_passes=200)
    assert red.num_nodes < g.num_nodes // 3
    assert (red.new_id[keep] >= 0).all()
    # the kept vertices keep their order; the reduced graph has no self-loop
    assert (np.diff(red.new_id[keep]) > 0).all()
    tails = np.repeat(np.arange(red.num_nodes), np.diff(red.indptr))
    assert not (tails == red.indices).any()


def test_long_chains_contract_to_one_arc_each_way():
    n = 1001  # 0 -> 1 -> ... -> 1000 one-way, and 1000 <-> 999 <-> ... <-> 500 two-way
    t = list(range(n - 1))
    h = list(range(1, n))
    t += list(range(501, n))
    h += list(range(500, n - 1))
    w = np.arange(len(t)) % 7
    g = CSRGraph.from_edges(n, t, h, w)
    red = reduce_graph(g, np.array([0, 500, 1000]), max_passes=200)
    assert red.num_nodes == 3 and red.indices.size == 3  # 0->500, 500->1000, 1000->500
    src = tgt = np.array([0, 500, 1000])
    np.testing.assert_array_equal(reduced(g, src, tgt), reference(g, src, tgt))


def test_parallel_shortcuts_keep_the_minimum():
    # 0 -> 1 -> 3 (2 + 2) and 0 -> 2 -> 3 (1 + 1) become two parallel 0 -> 3 shortcuts;
    # scipy would sum them (6) where the least cost is 2.
    g = CSRGraph.from_edges(4, [0, 1, 0, 2, 0], [1, 3, 2, 3, 3], [2, 2, 1, 1, 9])
    red = reduce_graph(g, np.array([0, 3]))
    assert red.num_nodes == 2 and red.indices.size == 1 and red.weights[0] == 2
    np.testing.assert_array_equal(reduced(g, [0, 3], [0, 3]), [[0, 2], [-1, 0]])


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), m=st.integers(0, 120), wmax=st.integers(0, 6),
       seed=st.integers(0, 10_000), passes=st.integers(1, 50))
def test_random_directed_graphs(n, m, wmax, seed, passes):
    r = np.random.default_rng(seed)
    g = CSRGraph.from_edges(n, r.integers(0, n, m), r.integers(0, n, m),
                            r.integers(0, wmax + 1, m))
    src = r.integers(0, n, r.integers(1, 6))
    tgt = r.integers(0, n, r.integers(1, 6))
    red = reduce_graph(g, np.concatenate([src, tgt]), max_passes=passes)
    mat = cpu._scipy_csr(red.num_nodes, red.indptr, red.indices, red.weights)
    got = cpu.block(mat, red.new_id[src], red.new_id[tgt])
    np.testing.assert_array_equal(got, reference(g, src, tgt))


def test_sample_map():
    from maps.load import load_map

    g = CSRGraph.from_any(load_map(str(ROOT / "maps/samples/helsinki.osm.pbf")))
    r = np.random.default_rng(7)
    src = r.integers(0, g.num_nodes, 20)
    tgt = r.integers(0, g.num_nodes, 30)
    want = plain(g, src, tgt)
    np.testing.assert_array_equal(reduced(g, src, tgt), want)
    np.testing.assert_array_equal(want[:3], reference(g, src[:3], tgt))
    red = reduce_graph(g, np.concatenate([src, tgt]))
    assert red.num_nodes < 0.8 * g.num_nodes
    # the public path picks the reduction for this many sources and gives the same rows
    np.testing.assert_array_equal(distance_matrix(g, src, tgt, backend="cpu"), want)


@linux
def test_forked_workers_equal_one_process():
    g = road_like(5, n=3000)
    r = np.random.default_rng(1)
    src = r.integers(0, g.num_nodes, 40)
    src[:4] = src[10]
    tgt = r.integers(0, g.num_nodes, 25)
    want = reduced(g, src, tgt, chunk=3, workers=0)
    np.testing.assert_array_equal(reduced(g, src, tgt, chunk=3, workers=2), want)
    np.testing.assert_array_equal(plain(g, src, tgt), want)
    rows = cpu.iter_rows(g, src, None, 7, reduce=False, workers=2)  # no targets: whole rows
    np.testing.assert_array_equal(
        np.concatenate([b for _, b in rows]),
        np.concatenate([b for _, b in cpu.iter_rows(g, src, None, 7, workers=0)]))


@linux
def test_forked_workers_cancel_between_chunks():
    g = road_like(6, n=2000)
    src = np.arange(30)
    asked = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) > 2

    rows = cpu.iter_rows(g, src, np.arange(10), 2, reduce=True, workers=2, cancel=cancel)
    got = []
    with pytest.raises(CancelledError):
        for r0, _b in rows:
            got.append(r0)
    assert got == [0, 2]


def test_workers_for_small_work_and_env(monkeypatch):
    from gpu_core.multi_source import forked

    monkeypatch.setattr(forked, "cores", lambda: 2)
    assert forked.workers_for(100, 10) == 0  # small work: one process
    assert forked.workers_for(1, 10**7) == 0  # one search
    assert forked.workers_for(100, 10**6) == (2 if sys.platform.startswith("linux") else 0)
    monkeypatch.setenv(forked.ENV, "1")
    assert forked.workers_for(100, 10**6) == 0
    monkeypatch.delenv(forked.ENV)
    import multiprocessing

    monkeypatch.setattr(multiprocessing.current_process(), "daemon", True, raising=False)
    assert forked.workers_for(100, 10**6) == 0  # a Dask worker may not fork a pool


_QUIET = """
import signal, sys
import numpy as np
sys.path.insert(0, {root!r})
from tests.core.test_reduced_matrix import road_like
from gpu_core.multi_source import cpu

def term(signum, frame):  # as the CLI does (app.cli._on_sigterm)
    raise KeyboardInterrupt

signal.signal(signal.SIGTERM, term)
g = road_like(2, n=1500)
rows = cpu.iter_rows(g, np.arange(20), np.arange(8), 2, reduce=True, workers=2)
print(sum(int(b.sum()) for _, b in rows))
rows = cpu.iter_rows(g, np.arange(400), np.arange(8), 2, reduce=True, workers=2)
next(rows)
rows.close()  # stopped early (cancel, Ctrl-C): the pool ends its busy workers
"""


@linux
def test_forked_workers_end_quietly_under_the_cli_s_sigterm_handler():
    import subprocess

    r = subprocess.run([sys.executable, "-c", _QUIET.format(root=str(ROOT))],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and r.stdout.strip().lstrip("-").isdigit()


def test_the_reduction_is_skipped_when_its_memory_is_short(monkeypatch):
    import osutil.memory

    g = road_like(4, n=1000)
    src, tgt = np.arange(20), np.arange(30, 40)
    calls = []
    real = cpu.reduce_graph
    monkeypatch.setattr(cpu, "reduce_graph", lambda *a, **k: calls.append(1) or real(*a, **k))
    want = plain(g, src, tgt)
    for avail, used in ((1 << 40, 1), (g.num_arcs * cpu.REDUCE_BYTES_PER_ARC, 0)):
        calls.clear()
        monkeypatch.setattr(osutil.memory, "available_memory", lambda a=avail: a)
        got = np.concatenate([b for _, b in cpu.iter_rows(g, src, tgt, None, workers=0)])
        np.testing.assert_array_equal(got, want)
        assert len(calls) == used
