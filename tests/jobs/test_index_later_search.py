"""``route``/``sssp``/``isochrones --index on`` on a fresh install (issue 41): the small-work
search answers at once (the same bytes as with the index built in the command), nothing of
the index is built or compiled in the command, and the background child leaves an index
and kernels the next command uses."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from app.jobs import index_later
from maps.generate import generate
from tests.jobs.index_child import run_index_child

ROOT = Path(__file__).resolve().parents[2]


def test_a_cold_small_map_defers_the_search_index(cold, monkeypatch):
    net = generate("grid", 900, seed=3)
    why = index_later.defer_search(net, "auto", "on", "cpu")
    assert "search-build-" in why and index_later.SEARCH_QUERY in why, why
    assert "without the index" in why and "background process" in why
    assert index_later.defer_search(net, "auto", "auto", "cpu") == ""  # auto builds none
    assert index_later.defer_search(net, "auto", "off", "cpu") == ""
    assert index_later.defer_search(net, "dijkstra", "on", "cpu") == ""  # no index used
    monkeypatch.setenv(index_later.ENV, "0")
    assert index_later.defer_search(net, "auto", "on", "cpu") == ""
    monkeypatch.setenv(index_later.ENV, "1")
    monkeypatch.setattr("app.jobs.common.SMALL_WORK_NODES", 100)  # a big map: build it
    assert index_later.defer_search(net, "auto", "on", "cpu") == ""


def test_one_search_child_at_a_time(cold, monkeypatch):
    started = []
    monkeypatch.setattr("subprocess.Popen", lambda *a, **k: started.append(a[0]))
    net = generate("grid", 400, seed=2)
    assert index_later.search_policy(net, "auto", "on", "cpu")[0] == "off"
    policy, why = index_later.search_policy(net, "auto", "on", "cpu")
    assert policy == "off" and "already running" in why
    assert len(started) == 1 and started[0][-2] == "app.jobs.index_later"
    with np.load(started[0][-1]) as z:
        assert str(z["kind"]) == "search" and z["indptr"].shape[0] == net.num_nodes + 1


def test_the_search_child_leaves_an_index_the_next_command_uses(cold):
    from app.jobs.index import key_hierarchy_for

    net = generate("grid", 900, seed=3)
    stages = run_index_child(cold, net, "search")
    assert any(s.startswith("search-build-") for s in stages), stages
    assert any("indexed_sssp" in f for f in stages[index_later.SEARCH_QUERY]), stages
    assert index_later.defer_search(net, "auto", "on", "cpu") == ""  # ready: index answers
    h, info = key_hierarchy_for(net, policy="auto")  # never builds: only the child's file
    assert h is not None and info.source == "cache"


@pytest.fixture
def grid_map(cold):
    from maps.outputs.dimacs import write_dimacs

    net = generate("grid", 1200, seed=5)
    gr = cold / "g.gr"
    write_dimacs(net, str(gr))
    return str(gr)


def _no_index_in_the_parent(monkeypatch) -> list:
    """Fail if the command builds the search index; the index and indexed search kernels
    the command asks numba for (none expected)."""
    from numba.core.dispatcher import Dispatcher

    def built(*a, **k):
        raise AssertionError("the search index was built in the command")

    monkeypatch.setattr("gpu_core.hierarchy.key_hierarchy", built)
    monkeypatch.setattr(index_later, "start_search_background", lambda net: True)
    asked: list = []
    real = Dispatcher.compile

    def spy(disp, sig):
        mod = getattr(disp.py_func, "__module__", "")
        if mod.startswith(("gpu_core.hierarchy", "gpu_core.indexed_sssp")):
            asked.append((mod, disp.py_func.__name__, threading.current_thread().name))
        return real(disp, sig)

    monkeypatch.setattr(Dispatcher, "compile", spy)
    return asked


def _twice(monkeypatch, run) -> tuple:
    """``run(tag)`` deferred (nothing of the index in this process), then with the index
    built in the command (``SIGNPOST_INDEX_BACKGROUND=0``)."""
    with monkeypatch.context() as m:
        asked = _no_index_in_the_parent(m)
        deferred = run("later")
        assert not asked, f"the index's kernels were compiled in the command: {asked}"
    monkeypatch.setenv(index_later.ENV, "0")
    return deferred, run("built")


def test_sssp_answers_without_the_index_with_the_same_bytes(grid_map, cold, monkeypatch,
                                                           capsys):
    from app.cli import main

    def run(tag):
        out = cold / f"s_{tag}.csv"
        assert main(["sssp", grid_map, "--source", "node:7", "--out", str(out),
                     "--backend", "cpu", "--index", "on"]) == 0
        return out.read_bytes(), capsys.readouterr().out

    (a, said), (b, built) = _twice(monkeypatch, run)
    assert "search index: its kernels" in said and "background process" in said, said
    assert "through the search index" in built and "search index:" not in built, built
    assert a == b


def test_route_answers_without_the_index_with_the_same_route(grid_map, cold, monkeypatch,
                                                            capsys):
    from app.cli import main

    def run(tag):
        assert main(["route", grid_map, "--from", "node:7", "--to", "node:1100",
                     "--backend", "cpu", "--index", "on", "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    a, b = _twice(monkeypatch, run)
    assert a["index"] == "background" and "background process" in a["index_note"]
    assert "index" not in b
    timing = {"search_ms", "phases", "timings", "index", "index_note"}
    assert {k: v for k, v in a.items() if k not in timing} == {
        k: v for k, v in b.items() if k not in timing}
    assert a["node_ids"] and a["cost"] > 0


def test_isochrones_answer_without_the_index_with_the_same_bytes(grid_map, cold,
                                                                monkeypatch, capsys):
    from app.cli import main

    def run(tag):
        out = cold / f"i_{tag}.geojson"
        assert main(["isochrones", grid_map, "--from", "node:7", "--cost", "2000,5000",
                     "--out", str(out), "--backend", "cpu", "--index", "on", "--json"]) == 0
        return out.read_bytes(), json.loads(capsys.readouterr().out)

    (a, said), (b, built) = _twice(monkeypatch, run)
    assert said["index"] == "background" and "index" not in built
    assert all(r["area_km2"] > 0 for r in said["isochrones"]), said
    assert a == b
