"""A small map's route index built in a background process while scipy answers (issue 41):
the same costs, the right stages asked for, one child at a time."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from app.jobs import index_later, matrix
from maps.generate import generate
from tests.jobs.index_child import run_index_child

ROOT = Path(__file__).resolve().parents[2]


def _opts(net, index="on", n=(3, 3)):
    r = np.random.default_rng(7)
    src = tuple(int(x) for x in r.integers(0, net.num_nodes, n[0]))
    tgt = tuple(int(x) for x in r.integers(0, net.num_nodes, n[1]))
    return matrix.MatrixOptions(src, tgt, backend="cpu", index=index)


def test_a_cold_small_map_defers_and_says_which_stages(cold, monkeypatch):
    net = generate("grid", 900, seed=3)
    why = index_later.defer(net, _opts(net))
    assert "build-" in why and "query-cpu-" in why and "scipy" in why
    assert index_later.defer(net, _opts(net, index="off")) == ""
    monkeypatch.setenv(index_later.ENV, "0")
    assert index_later.defer(net, _opts(net)) == ""
    monkeypatch.setenv(index_later.ENV, "1")
    monkeypatch.setattr("app.jobs.common.SMALL_WORK_NODES", 100)  # a big map:
    assert "scipy" in index_later.defer(net, _opts(net))  # few searches: scipy answers
    cores = max(1, os.cpu_count() or 1)
    monkeypatch.setattr(index_later, "FEW_SEARCH_VISITS_PER_CORE", 3 * 900 / cores)
    assert "scipy" in index_later.defer(net, _opts(net))  # 3 x 900 visits: at the bound
    assert index_later.defer(net, _opts(net, n=(4, 3))) == ""  # past it: build it
    # auto with few sources builds no index: nothing to wait for
    assert index_later.defer(net, _opts(net, index="auto")) == ""


def test_the_background_work_makes_the_stages_ready(cold):
    net = generate("grid", 900, seed=3)
    opts = _opts(net)
    stages = run_index_child(cold, net, sources=opts.sources, targets=opts.targets)
    assert any(s.startswith("build-") for s in stages), stages
    assert any(s.startswith("query-cpu-") for s in stages), stages
    assert all(stages.values()) and all(":" in n for v in stages.values() for n in v)
    assert list((cold / "maps").glob("ch-*.npz"))  # the index kept for the next command
    assert index_later.defer(net, opts) == ""  # ready: the index answers now


def test_one_background_child_at_a_time(cold, monkeypatch):
    started = []
    monkeypatch.setattr("subprocess.Popen", lambda *a, **k: started.append(a[0]))
    net = generate("grid", 400, seed=2)
    assert index_later.start_background(net, _opts(net))
    assert not index_later.start_background(net, _opts(net))
    assert len(started) == 1 and started[0][-2:] == ["app.jobs.index_later", started[0][-1]]


def test_cli_answers_from_scipy_with_the_same_bytes(cold, tmp_path, monkeypatch, capsys):
    from app.cli import main
    from maps.outputs.dimacs import write_dimacs

    monkeypatch.setattr(index_later, "start_background", lambda net, opts: True)
    net = generate("grid", 1200, seed=5)
    gr = tmp_path / "g.gr"
    write_dimacs(net, str(gr))
    pts = tmp_path / "p.csv"
    pts.write_text("node\n3\n70\n500\n")
    out = {}
    for ix in ("on", "off"):
        out[ix] = tmp_path / f"m_{ix}.csv"
        assert main(["matrix", str(gr), "--from", str(pts), "--to", str(pts), "--out",
                     str(out[ix]), "--backend", "cpu", "--index", ix]) == 0
    text = capsys.readouterr().out
    assert "(scipy)" in text and "background process" in text
    assert out["on"].read_bytes() == out["off"].read_bytes()


def test_cli_starts_the_child_once_the_matrix_is_written(cold, tmp_path, monkeypatch, capsys):
    """The child, even niced, takes a share of a small CPU from the searches (issue 41):
    the CLI starts it after the file is in place, and says so as before."""
    from app.cli import main
    from maps.outputs.dimacs import write_dimacs

    out = tmp_path / "m.csv"
    seen = []
    monkeypatch.setattr(index_later, "start_background",
                        lambda net, opts: seen.append(out.exists()) or False)
    net = generate("grid", 1200, seed=5)
    gr = tmp_path / "g.gr"
    write_dimacs(net, str(gr))
    pts = tmp_path / "p.csv"
    pts.write_text("node\n3\n70\n500\n")
    assert main(["matrix", str(gr), "--from", str(pts), "--to", str(pts), "--out", str(out),
                 "--backend", "cpu", "--index", "on"]) == 0
    assert seen == [True]
    assert "already running (or none could start)" in capsys.readouterr().out


def test_a_closed_command_s_child_builds_the_unedited_map_s_index(cold, tmp_path,
                                                                 monkeypatch, capsys):
    """A closure is re-customized over the unedited map's index: the child started by a
    closed matrix builds that one (the edited map's own was a whole new topology: minutes
    on NE, stop 53), with the command's sources and targets."""
    from app.cli import main
    from maps.outputs.dimacs import write_dimacs

    got = []
    monkeypatch.setattr(index_later, "start_background",
                        lambda net, opts: got.append((net, opts)) or True)
    net = generate("grid", 1200, seed=5)
    gr = tmp_path / "g.gr"
    write_dimacs(net, str(gr))
    pts = tmp_path / "p.csv"
    pts.write_text("node\n3\n70\n500\n")
    assert main(["matrix", str(gr), "--from", str(pts), "--to", str(pts), "--out",
                 str(tmp_path / "m.csv"), "--backend", "cpu", "--index", "on",
                 "--close", "nodes:1,2"]) == 0
    (child_net, opts), = got
    from gpu_core.graph import CSRGraph

    g = CSRGraph.from_any(child_net)
    file_map = CSRGraph.from_any(net)
    # the file's arcs, the closed one among them (the edited map has it at a blocked cost)
    np.testing.assert_array_equal(g.indptr, file_map.indptr)
    np.testing.assert_array_equal(g.weights, file_map.weights)
    assert len(opts.sources) == 3 and len(opts.targets) == 3
    assert "background" in capsys.readouterr().out


def test_the_child_is_behind_the_user_in_its_own_session():
    """``behind_the_user``: nice 10, and its session's autogroup nice 10 where Linux groups
    sessions (a task's nice alone ranks it only within its own session)."""
    import subprocess
    import sys

    code = ("import os; from app.jobs.index_later import behind_the_user; behind_the_user(); "
            "print(os.nice(0)); p = '/proc/self/autogroup'; "
            "print((open(p).read().split() or ['none'])[-1] if os.path.exists(p) else 'none')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=60, cwd=ROOT, start_new_session=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    nice, group = r.stdout.split()
    assert int(nice) >= 10 and group in ("10", "none"), r.stdout + r.stderr


def test_a_child_in_the_callers_session_leaves_its_autogroup_alone():
    """The window's index child shares the window's session: ``behind_the_user`` nices
    only itself there, never the session's autogroup (the window's and its terminal's)."""
    import subprocess
    import sys

    p = "/proc/self/autogroup"
    if not os.path.exists(p):
        pytest.skip("no autogroup")
    # the file is empty where the task's group is not an autogroup (a cgroup-managed
    # container's tasks outside a session of their own): "none" then
    code = ("import os; from app.jobs.index_later import behind_the_user; p = '/proc/self/autogroup'; "
            "g = lambda: (open(p).read().split() or ['none'])[-1]; "
            "a = g(); behind_the_user(); print(os.nice(0), a, g())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=60, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    nice, before, after = r.stdout.split()
    assert int(nice) >= 10, r.stdout
    if before == "none":
        pytest.skip("this session's tasks are in no autogroup (the kernel shows none)")
    assert before == after, r.stdout + r.stderr


def test_every_child_compiles_the_shape_probe_first(cold, monkeypatch):
    """Commands on a fresh install probe a map's shape by scipy's BFS (``gpu_core.shape``,
    issue 41); every background child compiles the numba BFS (no GIL, issue 27) for what
    comes after, whatever its kind."""
    import pytest

    import gpu_core.shape

    class Called(Exception):
        pass

    def called() -> None:
        raise Called

    monkeypatch.setattr(gpu_core.shape, "compile_bfs", called)
    net = generate("grid", 100, seed=1)
    for kind in ("matrix", "search", "billboards", "window"):
        path = cold / f"{kind}.npz"
        np.savez(path, indptr=net.indptr, indices=net.indices, weights=net.weights,
                 sources=np.zeros(1, np.int32), targets=np.zeros(1, np.int32),
                 kind=np.array(kind))
        with pytest.raises(Called):
            index_later.warm(str(path))


def test_compile_bfs_fills_numba_s_cache(tmp_path):
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "nb"), PYTHONPATH=str(ROOT))
    check = ("from osutil.numba_cache import ready; from gpu_core.shape import _bfs_ecc; "
             "print(ready(_bfs_ecc))")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=300, cwd=ROOT, env=env).stdout.strip()
            for code in (check, "from gpu_core.shape import compile_bfs; compile_bfs()", check)]
    assert runs == ["False", "", "True"]
