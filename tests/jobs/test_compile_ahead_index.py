"""A fresh install's big-map sampled billboards on the CPU (issue 43): a child compiles the
index's and the sampler's kernels while the command reads and orders the map
(``app.jobs.compile_ahead.start_index_kernels``). The answer is the one without it; the
command waits for it before drawing; cancel, the command's end, or a SIGTERM to the
command leave no child behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from app.jobs import billboards, compile_ahead
from gpu_core.graph import CSRGraph
from maps.generate import generate

pytest.importorskip("pymetis")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """Children on an empty numba cache (this process keeps its own: it imported numba
    already), the compile-ahead on (tests/conftest.py turns it off)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setenv("SIGNPOST_WARM_DIR", str(tmp_path / "numba" / "signpost-warm"))
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "maps"))
    monkeypatch.setenv(compile_ahead.ENV, "always")  # whatever the machine's load
    return tmp_path


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie not reaped yet counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _opts(**kw) -> billboards.BillboardsOptions:
    return billboards.BillboardsOptions(3, backend="cpu", method="sampled", epsilon=0.3,
                                        index="on", seed=5, **kw)


def test_the_child_compiles_the_stage_and_the_answer_is_the_same(fresh):
    g = CSRGraph.from_any(generate("grid", 1600, seed=3))
    plain = billboards.run(g, _opts())
    child = compile_ahead.start_index_kernels()
    assert child is not None
    ahead = billboards.run(g, _opts(), kernels_ahead=child)
    assert child.poll() == 0  # waited for, before the draws
    a, b = plain.billboards, ahead.billboards
    assert list(a.sites) == list(b.sites) and a.samples == b.samples
    assert a.epsilon_at_stop == b.epsilon_at_stop and list(a.gains) == list(b.gains)
    names = json.loads((fresh / "numba" / "signpost-warm" /
                        f"{compile_ahead.INDEX_SAMPLER_STAGE}.json").read_text())["functions"]
    # the topology's (bins of subtrees too), the customization's, the draws' kernels; not
    # the order's (the command compiles those while it orders the map)
    for name in ("gpu_core.hierarchy.elimination:_rows", "gpu_core.hierarchy.elimination:_place",
                 "gpu_core.hierarchy.metric:_run_plain", "gpu_core.hierarchy.perfect:_run_plain",
                 "gpu_core.hierarchy.cpu:_sweep_fresh", "gpu_core.betweenness.indexed_cpu:walk_back"):
        assert name in names, name
    assert not any(n.startswith("gpu_core.hierarchy.order:_undirected") for n in names)
    assert list((fresh / "numba").rglob("*.nbi"))  # numba's cache written


def test_free_cpus_reads_a_count_of_cpus():
    free = compile_ahead.free_cpus(0.05)
    assert 0.0 <= free <= (os.cpu_count() or 1)


def test_nothing_starts_when_turned_off_or_busy_and_cancel_stops_the_child(fresh, monkeypatch):
    monkeypatch.setenv(compile_ahead.ENV, "0")
    assert compile_ahead.start_index_kernels() is None
    monkeypatch.setenv(compile_ahead.ENV, "1")
    monkeypatch.setattr(compile_ahead, "free_cpus", lambda: 1.0)  # the other CPU busy
    assert compile_ahead.start_index_kernels() is None
    monkeypatch.setattr(compile_ahead, "free_cpus", lambda: 2.0)  # both idle
    child = compile_ahead.start_index_kernels()
    assert child is not None
    compile_ahead.finish(child, cancel=lambda: True)
    assert child.poll() is not None and child.returncode != 0  # stopped, not finished
    assert not (fresh / "numba" / "signpost-warm").exists() or not list(
        (fresh / "numba" / "signpost-warm").glob("*.json"))


_COMMAND = """
import sys, time
from app.jobs import compile_ahead
child = compile_ahead.start_index_kernels()
print(child.pid, flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_sigterm_to_the_command_leaves_no_child(fresh):
    cmd = subprocess.Popen([sys.executable, "-c", _COMMAND], cwd=str(ROOT), text=True,
                           stdout=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        pid = int(cmd.stdout.readline())
        time.sleep(1.0)
        assert _alive(pid)  # compiling (an empty numba cache)
        cmd.send_signal(signal.SIGTERM)
        cmd.wait(timeout=30)
        deadline = time.monotonic() + 20
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid)
    finally:
        if cmd.poll() is None:
            cmd.kill()
            cmd.wait()


def test_the_cli_stops_a_child_its_map_does_not_need(fresh, monkeypatch, tmp_path, capsys):
    """A small map (the sampled paths there are index_later's business): the child is
    stopped after the map is read, and the answer is the one without a child."""
    from app.cli import main

    path = tmp_path / "grid.gr"
    assert main(["generate", "grid", "-n", "900", "--out", str(path), "-q"]) == 0
    capsys.readouterr()
    argv = ["-q", "billboards", str(path), "-k", "2", "--backend", "cpu", "--method", "sampled",
            "--seed", "3", "--json"]
    monkeypatch.setenv(compile_ahead.ENV, "0")
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)
    started = []

    def sleeper():
        started.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]))
        return started[-1]

    monkeypatch.setenv(compile_ahead.ENV, "always")
    monkeypatch.setattr(compile_ahead, "start_index_kernels", sleeper)
    assert main(argv) == 0
    ahead = json.loads(capsys.readouterr().out)
    assert len(started) == 1 and started[0].poll() is not None
    assert ahead["sites"] == plain["sites"] and ahead["samples"] == plain["samples"]
    assert ahead["epsilon_at_stop"] == plain["epsilon_at_stop"]


def test_the_warm_up_skips_the_per_source_sampler_when_the_draws_use_the_index():
    g = CSRGraph.from_any(generate("grid", 1600, seed=3))
    opts = _opts()
    assert billboards.draws_through_index(g, opts)
    assert billboards.warm_up(opts, g, first_only=True) == 0.0
    off = billboards.BillboardsOptions(3, backend="cpu", method="sampled", index="off")
    assert not billboards.draws_through_index(g, off)
    assert np.isfinite(billboards.warm_up(off, g, first_only=True))


def test_a_cached_index_is_drawn_through_without_the_shape_test(tmp_path, monkeypatch):
    """A graph that is not road-shaped draws through its index once one is cached (as
    ``_index`` then loads it), and the shape's BFS sweeps are not run for that (1.3 s on
    NE where numba's BFS is not compiled)."""
    import gpu_core.hierarchy as hierarchy
    from app.jobs.index import hierarchy_for
    from tests.core import families as fam

    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    g = fam.rmat(seed=4)
    assert not hierarchy.road_shaped(g)
    auto = billboards.BillboardsOptions(3, backend="cpu", method="sampled", index="auto")
    assert not billboards.draws_through_index(g, auto)
    h, info = hierarchy_for(g, policy="on", sources=1 << 30)
    assert h is not None and os.path.exists(info.path)

    def no_bfs(net):
        raise AssertionError("the shape test ran although the index is cached")

    monkeypatch.setattr(hierarchy, "road_shaped", no_bfs)
    assert billboards.draws_through_index(g, auto)
