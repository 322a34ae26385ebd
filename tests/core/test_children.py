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
