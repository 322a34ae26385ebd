"""The window's route index built, and its kernels compiled, in a child process (issue 41).

The window builds a big map's search index in a worker thread (``app.gui.route_index``:
maps of 50,000 nodes or more). On a fresh install that thread compiled the index's numba
kernels (build, customization, the searches through it, the what-if repair's partial
update), and numba compiles holding the GIL: the window's own thread stalled. Here
:func:`build_in_child` runs :func:`app.jobs.index.prepare_search_index` in a lower-priority
child process (``python -m app.jobs.index_later``, kind ``window``), which writes the index
into the map cache and the kernels into numba's cache, and waits for it without holding the
GIL; the window's worker then loads the cached index (``info.source`` "cache") and gets it
ready, compiling nothing. Nothing is started when the index is cached and the kernels are
in numba's cache already (:func:`needed`).

``SIGNPOST_COMPILE_AHEAD=0`` (``app.jobs.compile_ahead``, the tests' default) keeps the
build in the worker thread, as before.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from . import index_later

STAGE = index_later.WINDOW_STAGE
POLL_S = 0.2


def needed(graph) -> bool:
    """Whether the window's worker would build the index of ``graph`` or compile any of
    the kernels that getting it ready runs (then :func:`build_in_child` does it)."""
    from gpu_core.graph import prepared
    from gpu_core.hierarchy import key_graph_fingerprint

    from .common import compile_ahead_enabled as enabled
    from .index import index_path

    if not enabled():
        return False
    pg = prepared(graph)
    if not pg.indexable:
        return False  # negative arcs: no index, nothing to build
    cached = os.path.exists(index_path(graph, key_graph_fingerprint(pg.csr)))
    return not (cached and index_later.stage_ready(STAGE))


EDITS_WAIT = ("its kernels are not compiled yet on this machine (the route index's "
              "background process compiles them)")


def edits_ready() -> bool:
    """Whether re-customizing the index for an edited map compiles nothing here: the
    window's child compiled what it runs (:func:`index_later.warm_window_edit`, in the
    manifest of :data:`STAGE`), or compiling in this process is allowed
    (``SIGNPOST_COMPILE_AHEAD=0``). Asked on the index worker, not the window's thread."""
    from .common import compile_ahead_enabled as enabled

    return not enabled() or index_later.stage_ready(STAGE)


def build_in_child(graph, *, cancel: Callable[[], bool] | None = None,
                   progress: Callable[[float | None, str], None] | None = None) -> bool:
    """Run the child that builds ``graph``'s search index and compiles what getting it
    ready runs, and wait for it (polling ``cancel``: the child is stopped and False
    returned). False when no child could run (the caller then builds in its thread)."""
    from gpu_core.graph import CSRGraph
    from maps.cache import cache_dir

    while not index_later._take_lock():  # a CLI's background child: let it finish first
        if cancel is not None and cancel():
            return False
        time.sleep(POLL_S)
    g = CSRGraph.from_any(graph)
    path = cache_dir() / f"index-warm-{os.getpid()}.npz"
    try:
        np.savez(path, indptr=g.indptr, indices=g.indices, weights=g.weights,
                 sources=np.zeros(0, np.int32), targets=np.zeros(0, np.int32),
                 kind=np.array("window"))
        env = dict(os.environ, SIGNPOST_CACHE_DIR=str(cache_dir()))
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        child = subprocess.Popen([sys.executable, "-m", "app.jobs.index_later", str(path)],
                                 env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, close_fds=True)
    except OSError:
        path.unlink(missing_ok=True)
        index_later._lock_path().unlink(missing_ok=True)
        return False
    if progress is not None:
        progress(None, "building in a background process (compiled once per install)")
    while child.poll() is None:
        if cancel is not None and cancel():
            child.kill()  # ours: stopped with the build it was doing
            child.wait()
            path.unlink(missing_ok=True)
            index_later._lock_path().unlink(missing_ok=True)
            return False
        time.sleep(POLL_S)
    return child.returncode == 0
