"""The cache folder (issue 40, item 8): partial ``*.tmp.npz`` saves of killed runs are
swept, the folder is held to $SIGNPOST_CACHE_MAX_GB by evicting the least recently used
entries after each save, and ``signpost cache`` shows and clears it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from app.cli import main
from maps import cache_folder
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")
A, B, C = "a" * 40 + ".spn", "ch-" + "b" * 32 + ".npz", "cch-topo-" + "c" * 32 + ".npz"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    d.mkdir()
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(d))
    return d


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _old(path, age: float = 3600) -> None:
    t = time.time() - age
    os.utime(path, (t, t))


def test_partial_index_saves_of_dead_runs_are_swept(cache):
    dead, alive = _dead_pid(), os.getppid()
    stale = cache / f"{B}.{dead}.tmp.npz"
    fresh = cache / f"{C}.{dead}.tmp.npz"
    live = cache / f"{A}.{alive}.tmp.npz"
    other = cache / "notes.tmp.npz"  # not ours: never touched
    for p in (stale, fresh, live, other):
        p.write_bytes(b"partial")
    for p in (stale, live, other):
        _old(p)
    assert cache_folder.sweep(cache) == [stale.name]
    assert not stale.exists() and fresh.exists() and live.exists() and other.exists()


def test_a_save_evicts_least_recently_used_entries_over_the_cap(cache, monkeypatch):
    for i, name in enumerate((A, B, C)):
        (cache / name).write_bytes(b"x" * 400_000)
        _old(cache / name, 3000 - 1000 * i)  # A oldest, C newest
    cache_folder.touch(cache / A)  # A used now: B is the least recently used
    monkeypatch.setenv("SIGNPOST_CACHE_MAX_GB", "0.001")  # 1 MB: the tiny map's entry + 1
    assert main(["info", TINY]) == 0  # its load writes an entry: the save evicts
    names = sorted(p.name for p in cache.iterdir())
    # B was used longest ago: evicted first, and that was enough; the new entry stays
    assert B not in names and A in names and C in names
    assert len([n for n in names if n.endswith(".spn") and n != A]) == 1
    assert sum((cache / n).stat().st_size for n in names) <= 1_000_000


def test_the_cap_reads_its_variable(monkeypatch):
    monkeypatch.delenv("SIGNPOST_CACHE_MAX_GB", raising=False)
    assert cache_folder.max_bytes() == 10 * 10**9
    monkeypatch.setenv("SIGNPOST_CACHE_MAX_GB", "lots")
    from maps.errors import MapError

    with pytest.raises(MapError, match="SIGNPOST_CACHE_MAX_GB='lots' is not a number"):
        cache_folder.max_bytes()


def test_signpost_cache_shows_and_clears(cache, capsys):
    assert main(["info", TINY]) == 0
    (cache / "keep.txt").write_text("not a cache file")
    capsys.readouterr()
    assert main(["cache", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["folder"] == str(cache) and got["max_bytes"] == 10 * 10**9
    (entry,) = got["entries"]
    assert entry["kind"] == "map" and entry["bytes"] == got["bytes"] > 0
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert str(cache) in out and "1 entries" in out and entry["name"] in out
    assert main(["cache", "--clear"]) == 0
    assert "cleared" in capsys.readouterr().out
    assert [p.name for p in cache.iterdir()] == ["keep.txt"]
