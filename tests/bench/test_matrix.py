"""``signpost bench matrix`` on a small generated map, CPU backend: ours vs scipy on worker
processes, and the RoutingKit CCH row through a stand-in module with routingkit-cch's
documented API (the package itself is an optional extra)."""

from __future__ import annotations

import csv
import sys
import types

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

from app.bench.matrix import node_sets
from app.cli import main
from gpu_core.reference import scipy_csr


def _fake_routingkit(seen: dict) -> types.ModuleType:
    """routingkit_cch's Python API (its .pyi), answered by scipy."""
    rk = types.ModuleType("routingkit_cch")

    def order(n, tail, head, *coords):
        seen["order"] = "inertial" if coords else "degree"
        return list(range(n))

    class CCH:
        def __init__(self, order, tail, head, filter_always_inf_arcs):
            self.tail, self.head = np.asarray(tail), np.asarray(head)
            self.n = len(order)

    class CCHMetric:
        def __init__(self, cch, weights):
            from scipy.sparse import csr_matrix

            w = np.asarray(weights, float)
            w[w == 0] = 1e-9
            self.mat = csr_matrix((w, (cch.tail, cch.head)), shape=(cch.n, cch.n))

    class CCHOneToMany:
        def __init__(self, metric, targets):
            self.metric, self.targets = metric, list(targets)

        def distances_from(self, source):
            d = dijkstra(self.metric.mat, indices=source)[self.targets]
            return [None if not np.isfinite(x) else int(round(x)) for x in d]

    rk.compute_order_degree = order
    rk.compute_order_inertial = order
    rk.CCH, rk.CCHMetric, rk.CCHOneToMany = CCH, CCHMetric, CCHOneToMany
    return rk


def test_node_sets_are_seeded_and_distinct() -> None:
    a, b = node_sets(100, 40, 3)
    assert len(set(a.tolist())) == 40 and len(set(b.tolist())) == 40
    np.testing.assert_array_equal(a, node_sets(100, 40, 3)[0])
    assert node_sets(5, 9, 1)[0].size == 9  # more than n: with repeats


@pytest.mark.parametrize("with_cch", [False, True])
def test_bench_matrix_cpu(tmp_path, capsys, monkeypatch, with_cch) -> None:
    seen: dict = {}
    if with_cch:
        monkeypatch.setitem(sys.modules, "routingkit_cch", _fake_routingkit(seen))
    else:
        monkeypatch.setitem(sys.modules, "routingkit_cch", None)  # import fails
    rc = main(["bench", "matrix", "--map", "gen:grid:400", "--sizes", "20,33",
               "--backend", "cpu", "--workers", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    rows = list(csv.DictReader(open(tmp_path / "matrix_bench.csv")))
    assert rows[0]["method"].startswith("route index build") and rows[0]["status"] == "ok"
    assert [(r["size"], r["method"].split(" (")[0]) for r in rows[1:]] == [
        (k, m) for k in ("20", "33")
        for m in ("scipy Dijkstra", "ours", "ours", "RoutingKit CCH")]
    by = {(r["size"], r["method"].split(" (")[0], r["variant"]): r for r in rows[1:]}
    assert by[("33", "scipy Dijkstra", "-")]["status"] == "reference"
    for v in ("scipy", "phast"):  # checked entry by entry against scipy
        assert by[("33", "ours", v)]["status"] == "ok" and by[("33", "ours", v)]["rows_done"] == "33"
    cch = next(r for r in rows if r["size"] == "33" and r["method"].startswith("RoutingKit"))
    if with_cch:
        assert cch["status"] == "ok" and cch["rows_done"] == "33" and cch["prep_s"]
        assert seen["order"] == "inertial"  # the grid has coordinates
    else:
        assert cch["status"] == "skipped" and "not installed" in cch["note"]


def test_scipy_rows_match_a_direct_call(tmp_path) -> None:
    from app.bench.matrix import bench_scipy
    from maps.generate import generate

    g = generate("grid", n=200, seed=2)
    src, tgt = node_sets(g.num_nodes, 17, 5)
    _, mat, done = bench_scipy(g, src, tgt, 2, 60.0, 17)
    assert done.all()
    d = dijkstra(scipy_csr(g), indices=src)[:, tgt]
    np.testing.assert_array_equal(mat, np.where(np.isfinite(d), np.rint(d), -1))
