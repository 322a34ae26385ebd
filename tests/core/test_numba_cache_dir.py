"""numba's cache goes to a user cache folder that outlives reinstalls (issue 41)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from osutil import numba_cache

ROOT = Path(__file__).resolve().parents[2]


def _child(code: str, **env: str) -> str:
    e = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    e.update(env, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=e, cwd=ROOT, check=True).stdout.strip()


def test_numba_caches_in_the_user_cache_folder(tmp_path):
    got = _child("import gpu_core, numba.core.config as c; print(c.CACHE_DIR)",
                 XDG_CACHE_HOME=str(tmp_path), HOME=str(tmp_path))
    want = tmp_path / "signpost" / "numba" if sys.platform.startswith("linux") else None
    if want is not None:
        assert got == str(want) and want.is_dir()
    else:
        assert got and "signpost" in got


def test_a_set_numba_cache_dir_wins(tmp_path):
    mine = str(tmp_path / "mine")
    got = _child("import app, gpu_core, numba.core.config as c; print(c.CACHE_DIR)",
                 NUMBA_CACHE_DIR=mine)
    assert got == mine


def test_numba_imported_first_is_told(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    class Config:
        CACHE_DIR = ""

    class Core:
        config = Config

    class Numba:
        core = Core

    monkeypatch.setitem(sys.modules, "numba", Numba)
    got = numba_cache.use_user_cache()
    if sys.platform.startswith("linux"):
        assert got == str(tmp_path / "signpost" / "numba")
    assert Config.CACHE_DIR == got and os.environ["NUMBA_CACHE_DIR"] == got
