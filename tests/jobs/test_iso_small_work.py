"""Isochrones on small work need no compilation and draw the same field (issue 41)."""

from __future__ import annotations

import numpy as np
import pytest

from app.jobs import iso_raster


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_numpy_marking_equals_the_compiled_one(seed):
    ny, nx = 60, 80
    k = 4
    rr, cc = np.mgrid[-k:k + 1, -k:k + 1]
    dist = np.hypot(rr, cc) * 2.5
    keep = dist <= 8.0
    dr, dc, dd = rr[keep].astype(np.int64), cc[keep].astype(np.int64), dist[keep]
    fields = []
    for mark in (iso_raster._mark, iso_raster._mark_numpy):
        d = np.full((ny, nx), iso_raster.FAR)
        marked = np.zeros((ny, nx), dtype=bool)
        box = np.array([ny, nx, -1, -1], dtype=np.int64)
        r2 = np.random.default_rng(seed)
        for _ in range(3):  # cutoff by cutoff, with repeats and edge cells
            rows = r2.integers(0, ny, 200).astype(np.int64)
            cols = r2.integers(0, nx, 200).astype(np.int64)
            rows[:3], cols[:3] = (0, ny - 1, rows[3]), (0, nx - 1, cols[3])
            mark(d, marked, box, rows, cols, dr, dc, dd)
        fields.append((d, marked, box))
    (d1, m1, b1), (d2, m2, b2) = fields
    np.testing.assert_array_equal(d1, d2)
    np.testing.assert_array_equal(m1, m2)
    np.testing.assert_array_equal(b1, b2)


def test_cold_marking_takes_numpy(monkeypatch):
    calls = []
    monkeypatch.setattr(iso_raster, "ready", lambda f: False)
    monkeypatch.setattr(iso_raster, "_mark_numpy",
                        lambda *a: calls.append(1) or None)
    lat = type("L", (), {})()
    f = iso_raster.Field.__new__(iso_raster.Field)
    f.lat = lat
    f.lat.cells = lambda x, y: (np.zeros(3, np.int64), np.zeros(3, np.int64))
    f.d = np.full((4, 4), iso_raster.FAR)
    f.marked = np.zeros((4, 4), bool)
    f.box = np.array([4, 4, -1, -1], np.int64)
    f.dr = f.dc = np.zeros(1, np.int64)
    f.dd = np.zeros(1)
    f.in_numpy = False
    f.mark(np.zeros(3), np.zeros(3))
    assert calls == [1] and f.in_numpy
    # compiled, but this process has loaded no numba function yet: numpy too (numba's
    # set-up would cost more than the stamps), and no child is asked for
    monkeypatch.setattr(iso_raster, "ready", lambda f: True)
    monkeypatch.setattr(iso_raster, "runtime_loaded", lambda: False)
    f.in_numpy = False
    f.mark(np.zeros(3), np.zeros(3))
    assert calls == [1, 1] and not f.in_numpy


def test_a_run_marked_in_numpy_compiles_the_kernel_in_a_child_once(monkeypatch):
    """A run that stamped in numpy (the kernel not compiled) starts one detached child per
    process that compiles it (``compile_ahead --raster``), so later runs stamp by the
    kernel; a run that used the kernel starts none (issue 38: no benchmark slower)."""
    from app.jobs import compile_ahead
    from app.jobs import isochrones as iso
    from maps.generate import grid

    spawned: list[tuple[list[str], bool]] = []
    monkeypatch.setattr(compile_ahead, "_spawn",
                        lambda args, *, detached: spawned.append((args, detached)))
    monkeypatch.setattr(compile_ahead, "_raster_started", False)
    monkeypatch.setenv("SIGNPOST_COMPILE_AHEAD", "1")
    net = grid(400, seed=1)
    opts = iso.IsochroneOptions(0, (2000, 5000), buffer_m=30.0, backend="cpu")
    monkeypatch.setattr(iso_raster, "ready", lambda f: True)
    monkeypatch.setattr(iso_raster, "runtime_loaded", lambda: True)
    iso.run(net, opts)
    assert spawned == []
    monkeypatch.setattr(iso_raster, "ready", lambda f: False)
    iso.run(net, opts)
    iso.run(net, opts)
    assert spawned == [(["--raster"], True)]


def test_runtime_loaded_turns_true_with_the_first_numba_function():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = ("from osutil.numba_cache import runtime_loaded as r; from app.jobs import iso_raster; "
            "a = r(); iso_raster.compile_kernel(); print(a, r())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=root).stdout.split()
    assert out == ["False", "True"]


def test_the_raster_child_fills_numba_s_cache(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "nb"), PYTHONPATH=str(root))
    check = ("from osutil.numba_cache import ready; from app.jobs.iso_raster import _mark; "
             "print(ready(_mark))")
    runs = [subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=root,
                           env=env).stdout.strip()
            for cmd in ([sys.executable, "-c", check],
                        [sys.executable, "-m", "app.jobs.compile_ahead", "--raster"],
                        [sys.executable, "-c", check])]
    assert runs == ["False", "", "True"]
