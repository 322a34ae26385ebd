"""The twins that run while a numba kernel is not compiled (a fresh install's window,
issue 41) give the kernels' arrays bit for bit: the snapping grid, the map's parts, arc
tails and pairs, an edit batch's apply and compaction, the big-map passes after a search
and a repair."""

from __future__ import annotations

import numpy as np
import pytest

from app.jobs import nogil, snap_index
from maps.generate import generate
from maps.load import load_map
from maps.samples import SAMPLE_MAP


@pytest.fixture(scope="module")
def maps():
    return [load_map(str(SAMPLE_MAP)), generate("kanto", 20000, seed=3), generate("grid", 5000,
                                                                                    seed=2)]


def _same(a, b) -> None:
    assert len(a) == len(b)
    for u, v in zip(a, b, strict=True):
        assert u.dtype == v.dtype and u.shape == v.shape
        np.testing.assert_array_equal(u, v)


def _geometry(net, seed: int):
    """0-3 inner points on every arc, near the straight line between its ends (the sample
    map's arcs are straight)."""
    rng = np.random.default_rng(seed)
    inner = rng.integers(0, 4, net.num_arcs)
    gptr = np.concatenate([[0], np.cumsum(inner)]).astype(np.int64)
    arc = np.repeat(np.arange(net.num_arcs), inner)
    t, h = net.arc_sources()[arc], net.indices[arc]
    f = rng.uniform(0, 1, arc.size)
    gxy = np.column_stack([net.x[t] + f * (net.x[h] - net.x[t]),
                           net.y[t] + f * (net.y[h] - net.y[t])]) + rng.normal(size=(arc.size, 2))
    return gptr, gxy


@pytest.mark.parametrize("geo", [False, True])
def test_the_snapping_grid_twins(maps, geo):
    import dataclasses

    for net in maps:
        if geo:
            gptr, gxy = _geometry(net, 1)
            net = dataclasses.replace(net, geom_indptr=gptr, geom_xy=gxy)
        a = snap_index.GridSnapper(net, kernels=True)
        b = snap_index.GridSnapper(net, kernels=False)
        names = ("ax", "ay", "bx", "by", "seg_arc", "seg_at", "arc_len", "first_seg",
                 "cell_start", "cell_seg")
        _same([getattr(a, k) for k in names], [getattr(b, k) for k in names])
        assert (a.x0, a.y0, a.c, a.nx, a.ny) == (b.x0, b.y0, b.c, b.nx, b.ny)


def test_a_snapper_built_by_the_twins_answers_alike(maps):
    net = maps[0]
    a, b = snap_index.GridSnapper(net, kernels=True), snap_index.GridSnapper(net, kernels=False)
    rng = np.random.default_rng(0)
    for x, y in zip(rng.uniform(net.x.min(), net.x.max(), 50),
                    rng.uniform(net.y.min(), net.y.max(), 50), strict=True):
        assert a.snap(float(x), float(y), max_distance_m=1e9) == \
            b.snap(float(x), float(y), max_distance_m=1e9)


def test_the_map_preparation_twins(maps, monkeypatch):
    for net in maps:
        ip, ix = net.indptr, net.indices
        kernels = (nogil.arc_tails(ip), nogil.weak_components(ip, ix),
                   nogil.first_of_pairs(ip, ix))
        monkeypatch.setattr(nogil, "_ready", lambda k: False)
        _same(kernels, (nogil.arc_tails(ip), nogil.weak_components(ip, ix),
                        nogil.first_of_pairs(ip, ix)))
        monkeypatch.undo()


def test_an_edit_batch_and_its_compaction_by_the_twins(maps, monkeypatch):
    from gpu_core.dynamic import MutableGraph, cpu

    net = maps[1]
    rng = np.random.default_rng(5)
    got = []
    for ready in (True, False):
        monkeypatch.setattr(cpu, "_ready", lambda k, r=ready: r)
        kernels = (cpu._apply, cpu._link) if ready else (cpu._apply.py_func, cpu._link.py_func)
        monkeypatch.setattr(cpu, "_batch_kernels", lambda k, ks=kernels: ks)
        mg = MutableGraph(net, backend="cpu")
        for _ in range(3):
            batch = mg.batch().disable(rng.choice(net.num_arcs, 20, replace=False))
            batch.insert(rng.integers(0, net.num_nodes, 5), rng.integers(0, net.num_nodes, 5),
                         rng.integers(1, 100, 5))
            mg.apply(batch)
            g, ids = mg.compact()
            got.append((g.indptr, g.indices, g.weights, ids))
        rng = np.random.default_rng(5)  # the same edits again
    half = len(got) // 2
    for a, b in zip(got[:half], got[half:], strict=True):
        _same(a, b)


def test_a_small_batch_runs_python_until_this_process_has_the_kernels(monkeypatch):
    """Loading the edit kernels from numba's cache took the window's thread ~18 ms at its
    first closure; Python runs 256 edits in under a millisecond (issue 41)."""
    from gpu_core.dynamic import cpu

    class Kernel:
        def __init__(self, loaded: bool):
            self.signatures = ["sig"] if loaded else []
            self.py_func = object()

    for loaded in (False, True):
        apply, link = Kernel(loaded), Kernel(loaded)
        monkeypatch.setattr(cpu, "_apply", apply)
        monkeypatch.setattr(cpu, "_link", link)
        small = (apply.py_func, link.py_func) if not loaded else (apply, link)
        assert cpu._batch_kernels(1) == small
        assert cpu._batch_kernels(cpu.PY_EDITS) == small
        assert cpu._batch_kernels(cpu.PY_EDITS + 1) == (apply, link)
        with cpu.forced():  # compile_kernels: the kernels, loaded or not
            assert cpu._batch_kernels(1) == (apply, link)


def test_the_big_map_passes_by_numpy(monkeypatch):
    from gpu_core.host import distances
    from gpu_core.repair import cpu as repair_cpu

    rng = np.random.default_rng(2)
    key = rng.integers(0, 2**40, 1 << 16)
    key[::7] = np.iinfo(np.int64).max
    a = distances.dist_from_keys(key, 3, -1)
    monkeypatch.setattr(distances, "_ready", lambda: False)
    np.testing.assert_array_equal(a, distances.dist_from_keys(key, 3, -1))

    from types import SimpleNamespace

    Prev = SimpleNamespace(key=key, pred=rng.integers(-1, 9, key.size).astype(np.int32),
                           dist=a, unreachable=-1)

    n = key.size + 100
    k1, p1, d1 = (x.copy() for x in repair_cpu.extend(Prev, n))
    monkeypatch.setattr(repair_cpu, "ready", lambda k: False)
    k2, p2, d2 = repair_cpu.extend(Prev, n)
    _same((k1, p1, d1), (k2, p2, d2))
