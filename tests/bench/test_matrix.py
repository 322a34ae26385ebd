"""``signpost bench matrix`` on a small generated map, CPU backend: ours (every route-index
query) vs the peers, each peer in a child process. The peers' packages are optional
extras, so the child processes import stand-in modules put first on their PYTHONPATH:
one answering with routingkit-cch's documented API through scipy, and ones that crash
(``abort``, as a C++ ``std::terminate`` does), refuse, hang or are missing."""

from __future__ import annotations

import csv
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

from app.bench.matrix import node_sets
from app.cli import main
from gpu_core.hierarchy.few import choose_query
from gpu_core.reference import scipy_csr

FAKE_CCH = '''
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

def compute_order_degree(n, tail, head):
    return list(range(n))

compute_order_inertial = None  # set below: records that coordinates were used

def _inertial(n, tail, head, lat, lon):
    return list(range(n))

compute_order_inertial = _inertial

class CCH:
    def __init__(self, order, tail, head, filter_always_inf_arcs):
        self.tail, self.head, self.n = np.asarray(tail), np.asarray(head), len(order)

class CCHMetric:
    def __init__(self, cch, weights):
        w = np.asarray(weights, float)
        w[w == 0] = 1e-9
        self.mat = csr_matrix((w, (cch.tail, cch.head)), shape=(cch.n, cch.n))

class CCHOneToMany:
    def __init__(self, metric, targets):
        self.metric, self.targets = metric, list(targets)

    def distances_from(self, source):
        d = dijkstra(self.metric.mat, indices=source)[self.targets]
        return [None if not np.isfinite(x) else int(round(x)) for x in d]
'''

CRASH = '''
import os

def compute_order_degree(n, tail, head):
    os.abort()  # what a C++ std::terminate does to the process

compute_order_inertial = lambda n, tail, head, lat, lon: compute_order_degree(n, tail, head)
'''

REFUSE = '''
class Network:
    def __init__(self, *a, **k):
        raise RuntimeError("this map has too many nodes for me")
'''

HANG = '''
import time

class Network:
    def __init__(self, *a, **k):
        time.sleep(600)
'''

MISSING = 'raise ImportError("no such package", name="{name}")\n'


def _fakes(tmp_path: Path, monkeypatch, **modules: str) -> None:
    """Put stand-in modules first on the child processes' PYTHONPATH."""
    d = tmp_path / "fakes"
    d.mkdir(exist_ok=True)
    for name, text in modules.items():
        (d / f"{name}.py").write_text(textwrap.dedent(text.replace("{name}", name)))
    monkeypatch.setenv("PYTHONPATH", str(d))
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def _bench(tmp_path: Path, capsys, *extra: str) -> tuple[int, list[dict], str]:
    out = tmp_path / "out"
    rc = main(["bench", "matrix", "--map", "gen:grid:400", "--backend", "cpu", "--workers",
               "2", "--out", str(out), *extra])
    text = capsys.readouterr().out
    return rc, list(csv.DictReader(open(out / "matrix_bench.csv"))), text


def test_node_sets_are_seeded_and_distinct() -> None:
    a, b = node_sets(100, 40, 3)
    assert len(set(a.tolist())) == 40 and len(set(b.tolist())) == 40
    np.testing.assert_array_equal(a, node_sets(100, 40, 3)[0])
    assert node_sets(5, 9, 1)[0].size == 9  # more than n: with repeats


def test_bench_matrix_cpu_every_query_and_peer(tmp_path, capsys, monkeypatch) -> None:
    _fakes(tmp_path, monkeypatch, routingkit_cch=FAKE_CCH, pandana=MISSING)
    rc, rows, out = _bench(tmp_path, capsys, "--sizes", "20,33")
    assert rc == 0, out
    assert rows[0]["method"].startswith("route index") and rows[0]["status"] == "built"
    assert rows[0]["prep_s"] and "build_s" in rows[0]["note"]
    recust = [r for r in rows if r["method"].startswith("route index re-customization")]
    assert recust and all(r["status"] == "ok" and float(r["seconds"]) >= 0 for r in recust)
    notes = [r["note"] for r in recust]  # the edit's row: closure to ready, partial
    assert any(x.startswith("closure to ready: partial (") for x in notes), notes
    rows = [rows[0]] + [r for r in rows[1:] if not r["method"].startswith("route index")]
    n = int(rows[0]["note"].split("nodes ")[1].split(",")[0])
    rule = {k: "auto->" + choose_query(n, int(k), int(k), "cpu") for k in ("20", "33")}
    assert rule == {"20": "auto->rphast", "33": "auto->phast"}  # 33 > n / 20 targets
    body = [(r["size"], r["method"].split(" (")[0], r["query"]) for r in rows[1:]]
    assert body == [(k, m, q) for k in ("20", "33") for m, q in (
        ("scipy Dijkstra", "-"), ("ours", "-"), ("ours", rule[k]), ("ours", "phast"),
        ("ours", "rphast"), ("ours", "buckets"), ("RoutingKit CCH", "-"),
        ("pandana CH", "-"))]
    by = {(r["size"], r["method"].split(" (")[0], r["query"]): r for r in rows[1:]}
    assert by[("33", "scipy Dijkstra", "-")]["status"] == "reference"
    for q in ("-", rule["33"], "phast", "rphast", "buckets"):  # entry by entry vs scipy
        r = by[("33", "ours", q)]
        assert r["status"] == "ok" and r["rows_done"] == "33", r
    cch = by[("33", "RoutingKit CCH", "-")]
    assert cch["status"] == "ok" and cch["rows_done"] == "33" and cch["prep_s"]
    assert cch["customize_s"] and "order: inertial" in cch["note"]  # the grid has coordinates
    assert float(cch["peer_over_ours"]) > 0
    pan = by[("33", "pandana CH", "-")]
    assert pan["status"] == "skipped" and "pandana not installed" in pan["note"]
    assert "verify=ok" in out


def test_a_crashing_refusing_or_hanging_peer_is_a_row(tmp_path, capsys, monkeypatch) -> None:
    _fakes(tmp_path, monkeypatch, routingkit_cch=CRASH, pandana=REFUSE)
    rc, rows, out = _bench(tmp_path, capsys, "--sizes", "25", "--queries", "auto")
    assert rc == 0, out
    by = {r["method"].split(" (")[0]: r for r in rows[1:]}
    assert by["RoutingKit CCH"]["status"] == "crashed"
    assert "SIGABRT" in by["RoutingKit CCH"]["note"]
    assert by["pandana CH"]["status"] == "refused"
    assert "too many nodes" in by["pandana CH"]["note"]
    # the other rows stand, checked against scipy
    assert by["scipy Dijkstra"]["status"] == "reference"
    assert by["ours"]["status"] == "ok" and by["ours"]["rows_done"] == "25"

    _fakes(tmp_path, monkeypatch, routingkit_cch=FAKE_CCH, pandana=HANG)
    rc, rows, out = _bench(tmp_path, capsys, "--sizes", "25", "--queries", "auto",
                           "--variants", "phast", "--no-scipy", "--peer-timeout-s", "20")
    assert rc == 0, out
    by = {r["method"].split(" (")[0]: r for r in rows[1:]}
    assert by["pandana CH"]["status"] == "timeout" and "20 s" in by["pandana CH"]["note"]
    assert by["RoutingKit CCH"]["status"] == "unchecked"  # no scipy reference this time
    assert by["ours"]["status"] == "unchecked"


def test_scipy_peer_rows_match_a_direct_call(tmp_path) -> None:
    from app.bench.peers import run_peer
    from maps.generate import generate

    g = generate("grid", n=200, seed=2)
    src, tgt = node_sets(g.num_nodes, 17, 5)
    res = run_peer("scipy", tmp_path / "scipy", g, src, tgt, workers=2, budget_s=60.0,
                   timeout_s=120.0)
    assert res.status == "ok" and res.done.all() and res.times["query_s"] > 0
    d = dijkstra(scipy_csr(g), indices=src)[:, tgt]
    np.testing.assert_array_equal(res.matrix, np.where(np.isfinite(d), np.rint(d), -1))


@pytest.mark.parametrize("maker", ["metis", "degree"])
def test_cch_order_without_coordinates(monkeypatch, maker) -> None:
    """Without coordinates the CCH gets METIS nested dissection (pymetis) or, when that
    is missing, RoutingKit's degree order; never made-up coordinates."""
    from app.bench import peers

    seen: dict = {}

    class Rk:
        def compute_order_degree(self, n, tail, head):
            seen["how"] = "degree"
            return list(range(n))

        def compute_order_inertial(self, *a):
            raise AssertionError("no coordinates to use")

    if maker == "degree":
        monkeypatch.setitem(sys.modules, "pymetis", None)  # import fails
    else:
        pytest.importorskip("pymetis")
    job = type("J", (), {})()
    job.n, job.lat, job.lon = 6, None, None
    tail, head = [0, 1, 2, 3, 4, 5, 1], [1, 2, 3, 4, 5, 0, 1]
    order, how = peers._cch_order(Rk(), job, tail, head)
    assert sorted(order) == list(range(6))
    if maker == "degree":
        assert seen["how"] == "degree" and how.startswith("degree")
    else:
        assert how.startswith("METIS") and "how" not in seen
