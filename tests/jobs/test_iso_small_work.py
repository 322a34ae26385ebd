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
    f.mark(np.zeros(3), np.zeros(3))
    assert calls == [1]
