"""Child processes that die with their parent (issue 40, item 7).

A forked ``ProcessPoolExecutor`` outlives a parent killed by SIGKILL: its workers wait on
the call queue for good, holding memory and the caller's pipes. :func:`forked_pool` gives
every worker a parent-death signal (Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``), and checks
right after setting it that the parent is still there (it may have died between the fork
and the ``prctl``). Where ``prctl`` is missing, a daemon thread in each worker polls the
parent's pid once a second instead.

The kernel sends the signal when the *thread* that forked the worker ends, so build and
shut the pool down in one thread (as ``with forked_pool(...)`` does). Standard library only.
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


def forked_pool(workers: int, *, initializer: Callable[..., Any] | None = None,
                initargs: tuple = ()) -> ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` of ``workers`` forked processes that end with this one
    (SIGKILL included); ``initializer(*initargs)`` then runs in each as usual. Every place
    that forks a pool uses this."""
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
