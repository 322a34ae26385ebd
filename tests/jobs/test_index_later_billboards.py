"""``billboards --method sampled`` on a fresh install (issue 41): the per-source sampler draws
the paths at once (the same sites and values as through the index built in the command),
nothing of the route index is built or compiled in the command, and the background child
leaves the index and its kernels for the next command."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from app.jobs import index_later
from app.jobs.billboards import BillboardsOptions
from maps.generate import generate
from tests.jobs.index_child import run_index_child

ROOT = Path(__file__).resolve().parents[2]


def _opts(**kw):
    return BillboardsOptions(3, **{"backend": "cpu", "method": "sampled", **kw})


def test_which_billboards_wait_for_the_index(cold, monkeypatch):
    net = generate("grid", 900, seed=3)
    why = index_later.defer_billboards(net, _opts())
    assert "build-" in why and index_later.BILLBOARDS_QUERY in why, why
    assert "without the index" in why and "background process" in why
    assert index_later.defer_billboards(net, _opts(method="exact")) == ""  # no index used
    assert index_later.defer_billboards(net, _opts(method="auto")) == ""  # exact: small map
    assert index_later.defer_billboards(net, _opts(mode="hops")) == ""
    assert index_later.defer_billboards(net, _opts(index="off")) == ""
    monkeypatch.setenv(index_later.ENV, "0")
    assert index_later.defer_billboards(net, _opts()) == ""
    monkeypatch.setenv(index_later.ENV, "1")
    monkeypatch.setattr("app.jobs.common.SMALL_WORK_NODES", 100)  # a big map: build it
    assert index_later.defer_billboards(net, _opts()) == ""


def test_the_billboards_child_leaves_the_index_and_its_kernels(cold):
    net = generate("grid", 900, seed=3)
    stages = run_index_child(cold, net, "billboards")
    assert any(s.startswith("build-") for s in stages), stages
    assert any("indexed_cpu" in f for f in stages[index_later.BILLBOARDS_QUERY]), stages
    assert list((cold / "maps").glob("ch-*.npz"))
    assert index_later.defer_billboards(net, _opts()) == ""  # ready: the index draws now


def test_cli_draws_without_the_index_with_the_same_sites(cold, monkeypatch, capsys):
    from numba.core.dispatcher import Dispatcher

    from app.cli import main
    from maps.outputs.dimacs import write_dimacs

    net = generate("grid", 1200, seed=5)
    gr = str(cold / "g.gr")
    write_dimacs(net, gr)

    def run():
        assert main(["billboards", gr, "-k", "3", "--method", "sampled", "--backend", "cpu",
                     "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    started, asked = [], []
    real = Dispatcher.compile

    def spy(disp, sig):
        mod = getattr(disp.py_func, "__module__", "")
        if mod.startswith(("gpu_core.hierarchy", "gpu_core.betweenness.indexed")):
            asked.append((mod, disp.py_func.__name__, threading.current_thread().name))
        return real(disp, sig)

    def built(*a, **k):
        raise AssertionError("the route index was built in the command")

    with monkeypatch.context() as m:
        m.setattr(index_later, "_start", lambda *a: started.append(a[-1]) or True)
        m.setattr("app.jobs.index.hierarchy_for", built)
        m.setattr(Dispatcher, "compile", spy)
        later = run()
    assert started == ["billboards"]
    assert not asked, f"the index's kernels were compiled in the command: {asked}"
    assert later["index"] == "background" and "background process" in later["index_note"]
    monkeypatch.setenv(index_later.ENV, "0")  # as before: the index built in the command
    now = run()
    assert now["index"] == "built"
    keep = ("sites", "site_index", "gains", "group_betweenness", "coverage", "pairs",
            "samples", "epsilon_at_stop", "error_bound", "stopped_by")
    assert {k: later[k] for k in keep} == {k: now[k] for k in keep}


def test_on_the_gpu_only_the_build_waits(cold, monkeypatch):
    """With CuPy the paths, searches and matrices are CUDA (CuPy keeps NVRTC's output), so a
    fresh machine defers only for the index's numba build: the CPU query stages are not
    asked for, and a large map is never deferred on the GPU (its searches without the index
    would not be few)."""
    from app.jobs.matrix import MatrixOptions

    monkeypatch.setattr("gpu_core.backend.resolve_backend", lambda b: "cupy")
    net = generate("grid", 900, seed=3)
    why = index_later.defer_billboards(net, _opts(backend="cupy"))
    assert "build-" in why and index_later.BILLBOARDS_QUERY not in why, why
    why = index_later.defer_search(net, "auto", "on", "cupy")
    assert "search-build-" in why and index_later.SEARCH_QUERY not in why, why
    assert "without the index" in why
    m = MatrixOptions(sources=(0, 1, 2), targets=(3, 4, 5), backend="cupy", index="on")
    why = index_later.defer(net, m)
    assert "build-" in why and "query-cpu" not in why and "GPU" in why, why
    monkeypatch.setattr("app.jobs.common.SMALL_WORK_NODES", 100)  # a large map
    assert index_later.defer(net, m) == ""
    assert index_later.defer_billboards(net, _opts(backend="cupy")) == ""
    # the CPU's rule is unchanged: its query stage is still asked for
    monkeypatch.setattr("gpu_core.backend.resolve_backend", lambda b: "cpu")
    monkeypatch.setattr("app.jobs.common.SMALL_WORK_NODES", 30_000)
    assert index_later.BILLBOARDS_QUERY in index_later.defer_billboards(net, _opts())
