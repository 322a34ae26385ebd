"""Maps with negative arcs through the CLI: sssp/route with the label-correcting strategies
(checked against scipy's Bellman-Ford), the refusals, and the negative-cycle line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import bellman_ford

from app.cli import main

# node ids 1..5; 5 is unreachable from 1; costs from 1: 0, 4, -62, -61 (a real -1 is not
# needed to show the point: the CSV/NPY must tell costs from "unreached" by the mask)
GR = "p sp 5 6\na 1 2 4\na 1 3 2\na 2 4 -3\na 3 4 1\na 2 3 -66\na 5 1 -1\n"
CYCLE = "c 2 -> 3 -> 2 costs -1\np sp 3 3\na 1 2 1\na 2 3 -2\na 3 2 1\n"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture()
def neg(tmp_path):
    (tmp_path / "neg.gr").write_text(GR)
    (tmp_path / "cyc.gr").write_text(CYCLE)
    (tmp_path / "ids.csv").write_text("node_id\n1\n2\n")
    return tmp_path


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _oracle(source: int) -> np.ndarray:
    t, h, w = [], [], []
    for line in GR.splitlines()[1:]:
        _, u, v, c = line.split()
        t.append(int(u) - 1)
        h.append(int(v) - 1)
        w.append(float(c))
    return bellman_ford(csr_matrix((w, (t, h)), shape=(5, 5)), indices=source)


@pytest.mark.parametrize("strategy", ["conventional", "selection", "adaptive",
                                      "bellman_ford_queue"])
def test_sssp_csv_and_npy(capsys, neg, strategy) -> None:
    expect = _oracle(0)
    rc, out, err = run(capsys, "sssp", neg / "neg.gr", "--source", "node:1", "--out",
                       neg / "d.csv", "--strategy", strategy, "--backend", "cpu")
    assert rc == 0, err
    rows = (neg / "d.csv").read_text().splitlines()
    assert rows[0] == "node_id,cost"
    got = {int(r.split(",")[0]): r.split(",")[1] for r in rows[1:]}
    for i in range(5):
        want = "" if not np.isfinite(expect[i]) else str(int(expect[i]))
        assert got[i + 1] == want
    assert "-62" in (neg / "d.csv").read_text()
    rc, _, err = run(capsys, "sssp", neg / "neg.gr", "--source", "node:1", "--out",
                     neg / "d.npy", "--strategy", strategy, "--backend", "cpu")
    assert rc == 0, err
    arr = np.load(neg / "d.npy")
    assert arr["cost"][4] == np.iinfo(np.int64).min  # unreached: the dtype's minimum
    np.testing.assert_array_equal(arr["cost"][:4], expect[:4].astype(np.int64))


@pytest.mark.parametrize("strategy", ["auto", "delta", "eval_dijkstra"])
def test_dijkstra_like_refused(capsys, neg, strategy) -> None:
    argv = ["sssp", neg / "neg.gr", "--source", "node:1", "--out", neg / "d.csv"]
    if strategy != "auto":
        argv += ["--strategy", strategy]
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"strategy {strategy} needs non-negative" in err
    assert "--strategy bellman_ford_queue" in err


def test_negative_cycle_line_names_file_ids(capsys, neg) -> None:
    for cmd in (["sssp", neg / "cyc.gr", "--source", "node:1", "--out", neg / "d.csv"],
                ["route", neg / "cyc.gr", "--from", "node:1", "--to", "node:3"]):
        rc, out, err = run(capsys, *cmd, "--strategy", "bellman_ford_queue")
        assert rc == 2 and out == ""
        # indices 1 -> 2 -> 1; the arc into the lowest index (1 = id 2) comes from id 3
        assert err.strip() == f"signpost {cmd[0]}: error: negative cycle through arc 3->2"
    assert not (neg / "d.csv").exists()


def test_route_with_negative_cost(capsys, neg) -> None:
    rc, out, err = run(capsys, "route", neg / "neg.gr", "--from", "node:1", "--to", "node:4",
                       "--strategy", "selection", "--json")
    assert rc == 0, err
    got = json.loads(out)
    assert got["cost"] == int(_oracle(0)[3]) == -61
    assert got["node_ids"] == [1, 2, 3, 4]
    rc, _, err = run(capsys, "route", neg / "neg.gr", "--from", "node:1", "--to", "node:5",
                     "--strategy", "selection")
    assert rc == 2 and "unreachable" in err


@pytest.mark.parametrize("cmd", ["matrix", "billboards"])
def test_many_source_jobs_refuse(capsys, neg, cmd) -> None:
    if cmd == "matrix":
        argv = ["matrix", neg / "neg.gr", "--from", neg / "ids.csv", "--to", neg / "ids.csv",
                "--out", neg / "m.csv"]
    else:
        argv = ["billboards", neg / "neg.gr", "-k", "1"]
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1
    assert "negative arc weights (the lowest is -66)" in err
