"""Where numba keeps its compiled functions: a user cache folder that outlives reinstalls.

numba's ``cache=True`` writes beside the source (``__pycache__`` of the installed package)
unless ``NUMBA_CACHE_DIR`` is set: a reinstall or upgrade drops every compiled function and
the next run compiles again (a minute on a 2-core machine, issue 41), and a read-only
install falls back to numba's own folder. :func:`use_user_cache` points numba at
``<user cache>/signpost/numba`` (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux,
``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows) unless ``NUMBA_CACHE_DIR``
is set already (a user's or a benchmark's choice wins). numba keys entries by the source
file, its time stamp and the CPU, so one folder serves every installed version.
Standard library only; ``gpu_core`` calls it before it imports numba.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENV = "NUMBA_CACHE_DIR"


def user_cache_root() -> Path:
    """The platform's per-user cache folder (not Signpost's own sub-folder)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"


def numba_cache_dir() -> Path:
    """Signpost's numba cache folder: ``$NUMBA_CACHE_DIR`` when set, else
    ``<user cache>/signpost/numba``."""
    env = os.environ.get(ENV)
    return Path(env) if env else user_cache_root() / "signpost" / "numba"


def use_user_cache() -> str:
    """Set ``NUMBA_CACHE_DIR`` to :func:`numba_cache_dir` unless it is set, and tell numba
    when it is imported already (its config is read at import). Returns the folder. A
    folder that cannot be created leaves numba's default (beside the source)."""
    if os.environ.get(ENV):
        return os.environ[ENV]
    path = numba_cache_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return ""
    os.environ[ENV] = str(path)
    numba = sys.modules.get("numba")
    config = getattr(getattr(numba, "core", None), "config", None)
    if config is not None and not getattr(config, "CACHE_DIR", ""):
        config.CACHE_DIR = str(path)
    return str(path)


def ready(dispatcher: object) -> bool:
    """True when a numba function (``@njit(cache=True)``) needs no compilation: compiled
    in this process, or in numba's cache for its current source (numba's own index of the
    cache file). False when unsure: the caller's numpy path runs (small work only)."""
    if getattr(dispatcher, "signatures", None):
        return True
    try:
        return bool(dispatcher._cache._cache_file._load_index())  # type: ignore[attr-defined]
    except Exception:  # numba's private cache layout changed, or no cache
        return False


def runtime_loaded() -> bool:
    """Whether this process has loaded or compiled a numba function already: the first
    one pays numba's set-up (its target's registries, 0.1-0.6 s on a 2-core machine),
    later ones milliseconds. A small job that a numpy twin does in less than that asks
    this before it loads a kernel from the cache. False when unsure."""
    numba = sys.modules.get("numba")
    if numba is None:
        return False
    try:
        from numba.core.registry import cpu_target

        ctx = cpu_target.__dict__.get("_toplevel_target_context")
        return bool(ctx is not None and ctx._registries)
    except Exception:  # numba's private layout changed: assume not
        return False


# set on import (``gpu_core`` imports this module before numba): the folder, or ""
USER_CACHE = use_user_cache()
