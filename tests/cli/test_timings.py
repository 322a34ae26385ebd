"""JSON timings split load, warm-up (numba cache loads / JIT / CUDA module loads) and the
search: the compiled functions are warmed before the search, so that ``search_s`` (and
``search_ms``) is the search alone."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

from app.cli import main
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")
# the package (gpu_core re-exports the function sssp under the same name)
sssp_pkg = importlib.import_module("gpu_core.sssp")
KEYS = {"load_s", "warmup_s", "search_s", "compile_s"}


@pytest.fixture
def calls(monkeypatch):
    """Records the order of gpu_core.sssp.warm_up and gpu_core.sssp.sssp calls."""
    seen: list[tuple] = []
    real_warm, real_sssp = sssp_pkg.warm_up, sssp_pkg.sssp

    def warm(strategies=None, backend="cpu", *, target=False, small_work=False):
        seen.append(("warm_up", tuple(strategies or ()), backend, target))
        return real_warm(strategies, backend, target=target, small_work=small_work)

    def search(*a, **kw):
        seen.append(("sssp", kw.get("strategy"), kw.get("backend"), kw.get("target") is not None))
        return real_sssp(*a, **kw)

    class Recorded(sssp_pkg.PreparedSearch):  # the `sssp` command's search (SsspPlan)
        def run(self, source, **kw):
            seen.append(("sssp", self.strategy, self.backend, self.options.target is not None))
            return super().run(source, **kw)

    monkeypatch.setattr(sssp_pkg, "warm_up", warm)
    monkeypatch.setattr(sssp_pkg, "sssp", search)
    monkeypatch.setattr("app.jobs.sssp.PreparedSearch", Recorded)  # imported by name there
    return seen


def test_route_json_splits_load_warmup_search(calls, capsys):
    assert main(["route", TINY, "--from", "node:1", "--to", "node:3", "--json", "--backend",
                 "cpu", "--strategy", "delta", "--no-cache"]) == 0
    out = json.loads(capsys.readouterr().out)
    t = out["timings"]
    assert set(t) == KEYS and all(v >= 0 for v in t.values())
    assert t["search_s"] + t["compile_s"] == pytest.approx(out["search_ms"] / 1000, abs=2e-6)
    # the kernels the route uses (strategy, backend, a search with a target) are warmed
    # first, so the timed search finds them loaded
    assert calls == [("warm_up", ("delta",), "cpu", True), ("sssp", "delta", "cpu", True)]
    assert out["cost"] == 7


def test_route_text_prints_the_split(capsys):
    assert main(["route", TINY, "--from", "node:1", "--to", "node:3", "--backend", "cpu"]) == 0
    line = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("timings")]
    assert len(line) == 1 and "load " in line[0] and "warm-up " in line[0] and "search " in line[0]


def test_sssp_warms_up_before_its_search(calls, tmp_path, capsys):
    out = tmp_path / "s.csv"
    assert main(["sssp", TINY, "--source", "node:1", "--out", str(out), "--backend", "cpu",
                 "--strategy", "adaptive"]) == 0
    assert calls == [("warm_up", ("adaptive",), "cpu", False), ("sssp", "adaptive", "cpu", False)]
    text = capsys.readouterr().out
    assert "(load " in text and "warm-up " in text
    assert out.read_text().splitlines()[:2] == ["node_id,cost", "1,0"]


def test_billboards_json_timings(monkeypatch, capsys):
    from app.jobs import billboards

    order: list[str] = []
    real_warm, real_run = billboards.warm_up, billboards.run
    monkeypatch.setattr(billboards, "warm_up", lambda o, *g, **kw: order.append("warm") or real_warm(o, *g, **kw))
    monkeypatch.setattr(billboards, "run",
                        lambda *a, **kw: order.append("run") or real_run(*a, **kw))
    assert main(["billboards", TINY, "-k", "1", "--backend", "cpu", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["timings"]) == KEYS
    t = out["timings"]
    assert t["search_s"] + t["compile_s"] == pytest.approx(out["time_s"], abs=1e-3)
    assert out["timings"]["load_s"] == pytest.approx(out["load_s"], abs=1e-3)
    assert order == ["warm", "run"]


def test_warm_up_loads_the_named_strategies_only():
    from gpu_core.sssp import warm_up

    t = warm_up(["delta", "selection"], "cpu")
    assert t >= 0
    with pytest.raises(Exception, match="nosuch"):
        warm_up(["nosuch"], "cpu")


def test_billboards_warm_up_runs_the_run_s_kernels():
    from app.jobs import billboards

    for method in ("exact", "sampled", "auto"):
        assert billboards.warm_up(billboards.BillboardsOptions(1, backend="cpu",
                                                              method=method)) >= 0


def test_compilation_inside_the_search_is_not_search_time(monkeypatch, capsys):
    """Issue 42, item 13: ``search_s`` counted a first run's compilation although the README
    calls it the search alone. A function compiled inside the search is ``compile_s``."""
    import time

    from numba import njit

    real = sssp_pkg.sssp

    def compiling_search(*a, **kw):
        @njit(cache=False)
        def fresh(n):  # compiled now, inside the timed search
            s = 0
            for i in range(int(n)):
                s += i * i % 7
            return s

        t0 = time.perf_counter()
        for arg in (10, 10.0, np.int32(10)):  # three compilations: > 50 ms on a fast CPU
            fresh(arg)
        took = time.perf_counter() - t0
        compiling_search.compile_s = took
        res = real(*a, **kw)
        res.elapsed_s += took  # as when the kernel compiles inside gpu_core's clock
        return res

    monkeypatch.setattr(sssp_pkg, "sssp", compiling_search)  # what `route` calls
    assert main(["route", TINY, "--from", "node:1", "--to", "node:3", "--json", "--backend",
                 "cpu", "--strategy", "delta", "--no-cache"]) == 0
    t = json.loads(capsys.readouterr().out)["timings"]
    took = compiling_search.compile_s
    assert took > 0.05
    assert t["compile_s"] >= 0.8 * took, (t, took)
    assert t["search_s"] < 0.5 * took, (t, took)


def test_billboards_compile_s_is_the_greedys_own(monkeypatch, capsys):
    """A route index built inside the command compiles before the greedy's clock starts:
    its compilations are not taken out of the greedy's ``search_s`` (which read 0.0 when
    the index's kernels compiled cold)."""
    import time

    from numba import njit

    import app.jobs.billboards as job

    real = job._index

    def compiling_index(*a, **kw):
        @njit(cache=False)
        def fresh(n):  # compiled while the index is made, before the greedy
            s = 0
            for i in range(int(n)):
                s += i * 3 % 5
            return s

        t0 = time.perf_counter()
        for arg in (10, 10.0, np.int32(10)):  # three compilations: > 50 ms on a fast CPU
            fresh(arg)
        compiling_index.took = time.perf_counter() - t0
        return real(*a, **kw)

    monkeypatch.setattr(job, "_index", compiling_index)
    assert main(["billboards", TINY, "-k", "2", "--method", "sampled", "--epsilon", "0.5",
                 "--backend", "cpu", "--json", "--no-cache"]) == 0
    t = json.loads(capsys.readouterr().out)["timings"]
    assert compiling_index.took > 0.05
    assert t["compile_s"] < 0.5 * compiling_index.took, (t, compiling_index.took)
    assert t["search_s"] > 0, t  # the greedy's own time is left (it read 0.0)
