"""Child processes that die with their parent (issue 40, item 7).

A forked ``ProcessPoolExecutor`` outlives a parent killed by SIGKILL: its workers wait on
the call queue for good, holding memory and the caller's pipes. :func:`forked_pool` gives
every worker a parent-death signal (Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``), and checks
right after setting it that the parent is still there (it may have died between the fork
and the ``prctl``). Where ``prctl`` is missing, a daemon thread in each worker polls the
parent's pid once a second instead.

The kernel sends the signal when the *thread* that forked the worker ends, so build and
shut the pool down in one thread (as ``with forked_pool(...)`` does).

A fork copies the locks other threads hold, held, with nobody in the child to release
them. numba's compiler lock is one: a worker forked while a thread of the parent compiled
(the GPU billboards' host kernels warming on a thread while the route index's order forked
its METIS workers, on a fresh machine) waited for it for good at its first numba call, and
the command with it (a 24M-node map's first run never got past the order).
:func:`forked_pool` therefore makes every fork of the process wait for that lock and hand
it to the child free (:func:`_guard_numba_lock`). Standard library only (numba's lock is
looked up at fork time, where numba is already imported).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

PR_SET_PDEATHSIG = 1


def _prctl_pdeathsig(sig: int) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent ends; False where not
    available (not Linux, no libc)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(1)


def die_with_parent(parent: int) -> None:
    """Make this (child) process end when the process ``parent`` does, SIGKILL included:
    a parent-death signal, else a watching thread; ends at once if ``parent`` is gone."""
    if not _prctl_pdeathsig(signal.SIGKILL):
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                         name="signpost-parent-watch").start()
    if os.getppid() != parent:  # the parent ended before the signal was armed
        os._exit(1)


def _init_worker(parent: int, user: Callable[..., Any] | None, args: tuple) -> None:
    die_with_parent(parent)
    if user is not None:
        user(*args)


_held: list = []  # numba's compiler lock, taken by the forking thread (one fork at a time)
_guarded = False


def _numba_lock():
    mod = sys.modules.get("numba.core.compiler_lock")
    return None if mod is None else getattr(mod.global_compiler_lock, "_lock", None)


def _before_fork() -> None:
    lock = _numba_lock()
    if lock is not None:
        lock.acquire()  # waits for a thread's compilation to end
        _held.append(lock)


def _after_fork() -> None:
    if _held:
        _held.pop().release()  # in the parent, and in the child (the forking thread's)


def _guard_numba_lock() -> None:
    """Once per process: every later fork waits until no thread holds numba's compiler lock,
    and the child gets it free (module doc)."""
    global _guarded
    if not _guarded and hasattr(os, "register_at_fork"):
        # its own fork hooks first: imported by a thread while a fork waits in ours, its
        # lock's release ran after that fork, which had not taken it ("release unlocked
        # lock", seen once while a thread compiled)
        import concurrent.futures.thread  # noqa: F401

        os.register_at_fork(before=_before_fork, after_in_parent=_after_fork,
                            after_in_child=_after_fork)
        _guarded = True


def forked_pool(workers: int, *, initializer: Callable[..., Any] | None = None,
                initargs: tuple = ()) -> ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` of ``workers`` forked processes that end with this one
    (SIGKILL included) and find numba's compiler lock free (:func:`_guard_numba_lock`);
    ``initializer(*initargs)`` then runs in each as usual. Every place that forks a pool
    uses this."""
    _guard_numba_lock()
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("fork"),
        initializer=_init_worker, initargs=(os.getpid(), initializer, tuple(initargs)))


def wait_child(child, cancel: Callable[[], bool] | None = None, poll_s: float = 0.1) -> float:
    """Wait for the ``subprocess.Popen`` ``child`` (None: nothing to wait for), polling
    ``cancel`` every ``poll_s`` (then it is stopped); the seconds waited."""
    t0 = time.perf_counter()
    if child is None:
        return 0.0
    while child.poll() is None:
        if cancel is not None and cancel():
            stop_child(child)
            break
        time.sleep(poll_s)
    return time.perf_counter() - t0


def stop_child(child) -> None:
    """Stop ``child`` if it still runs, and reap it."""
    if child is None or child.poll() is not None:
        return
    child.kill()
    child.wait()
