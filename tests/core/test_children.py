"""Forked workers die with their parent (issue 40, item 7): a process that builds the
nested-dissection pool and is then killed with SIGKILL leaves no worker behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The child orders a grid core in 2 workers whose METIS step (patched) prints its pid and
# sleeps, so the test knows the workers before it kills the child (one os.write per pid: the
# two workers never interleave their lines).
DISSECT_CHILD = textwrap.dedent("""
    import os, sys, time
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import dissect
    from gpu_core.hierarchy.order import undirected
    from maps.generate import generate

    def slow(args):
        os.write(1, b"%d\\n" % os.getpid())
        time.sleep(120)

    dissect._TIMED[dissect._nd] = slow
    g = CSRGraph.from_any(generate("grid", 400, seed=1))
    ptr, adj = undirected(g.num_nodes, g.indptr, g.indices)
    dissect._order_core(ptr, adj, 1, 1, 2, None, None)
""")

POOL_CHILD = textwrap.dedent("""
    import os, time
    from osutil.children import forked_pool

    def slow(_):
        os.write(1, b"%d\\n" % os.getpid())
        time.sleep(120)

    ex = forked_pool(2)
    list(ex.map(slow, range(2)))
""")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _kill_and_watch(script: str) -> list[int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=env,
                             cwd=ROOT, text=True)
    try:
        pids = [int(child.stdout.readline()) for _ in range(2)]
        assert child.pid not in pids and all(_alive(p) for p in pids)
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(p) for p in pids):
            time.sleep(0.05)
        return [p for p in pids if _alive(p)]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_dissection_workers_end_when_the_index_build_is_killed():
    pytest.importorskip("pymetis")
    left = _kill_and_watch(DISSECT_CHILD)
    for p in left:  # never leave them behind, even when the test fails
        os.kill(p, signal.SIGKILL)
    assert left == [], f"workers {left} outlived their killed parent"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_forked_pool_workers_end_with_their_parent():
    left = _kill_and_watch(POOL_CHILD)
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert left == []


def test_die_with_parent_ends_an_orphan_at_once():
    # a child whose parent is already gone (its ppid is not the one named) ends itself
    code = ("import os; from osutil.children import die_with_parent; "
            "die_with_parent(os.getppid() + 10**7); print('survived')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)
    assert out.returncode == 1 and "survived" not in out.stdout


# A thread holds numba's compiler lock (as a thread compiling kernels does) while the pool
# forks; the worker then takes that lock (as its first numba call does). Forked with the lock
# held, the worker waited for good: the parent's run never ended (a 24M-node map's first GPU
# billboards, stop 57). The child prints "ok" when the worker's answer came.
LOCKED_FORK_CHILD = textwrap.dedent("""
    import threading, time
    from numba.core.compiler_lock import global_compiler_lock
    from osutil.children import forked_pool

    held = threading.Event()

    def compiling():
        with global_compiler_lock:
            held.set()
            time.sleep(1.0)

    def first_numba_call(_):
        with global_compiler_lock:
            return 7

    threading.Thread(target=compiling, daemon=True).start()
    held.wait()
    with forked_pool(1) as ex:
        print("ok" if ex.submit(first_numba_call, 0).result(timeout=30) == 7 else "wrong")
""")


@pytest.mark.skipif(not hasattr(os, "register_at_fork"), reason="no fork hooks")
def test_a_worker_forked_while_a_thread_compiles_finds_numbas_lock_free():
    out = subprocess.run([sys.executable, "-c", LOCKED_FORK_CHILD], capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT,
                         timeout=120)
    assert out.stdout.strip() == "ok", out.stderr[-2000:]
