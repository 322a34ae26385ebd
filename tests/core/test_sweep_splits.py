"""How the GPU's sweep splits a level's in-arcs over threads (``hierarchy.levels.splits``):
every arc of every vertex falls in exactly one chunk, only narrow levels of many arcs a
vertex are split, and never past what fills the device."""

from __future__ import annotations

import numpy as np

from gpu_core.hierarchy import levels
from gpu_core.hierarchy.levels import FILL, SPLIT_ARCS, splits


def test_chunks_cover_each_vertex_arcs_once_and_only_narrow_levels_split():
    rng = np.random.default_rng(3)
    widths = [1, 1, 3, 0, 2, 50, 4000, 1, 0]
    deg = np.concatenate([rng.integers(0, 900, w) if w < 100 else rng.integers(0, 40, w)
                          for w in widths]).astype(np.int64)
    ptr = np.concatenate([[0], np.cumsum(deg)])
    lp = np.concatenate([[0], np.cumsum(widths)]).tolist()
    K = 1024
    got = splits(ptr, lp, K)
    assert len(got) == len(widths)
    for lv, (chunks, length) in enumerate(got):
        width = lp[lv + 1] - lp[lv]
        most = int(deg[lp[lv]:lp[lv + 1]].max(initial=0))
        if chunks == 1:
            # unsplit: few arcs, or as many threads as fill the device already
            assert most <= SPLIT_ARCS or width * K * 2 > FILL
            continue
        assert width * K * chunks <= FILL
        # chunk c of a vertex covers arcs [c*length, (c+1)*length): all of its arcs, once
        assert chunks * length >= most > (chunks - 1) * length
    assert got[0][0] > 1  # a single vertex of hundreds of arcs is split
    assert got[6] == (1, 0)  # 4,000 vertices fill the device: one thread a vertex


def test_off_switch_and_empty_levels(monkeypatch):
    ptr = np.array([0, 500, 500], np.int64)
    assert splits(ptr, [0, 1, 1, 2], 64) == [(16, 32), (1, 0), (1, 0)]
    monkeypatch.setattr(levels, "SPLIT", False)
    assert splits(ptr, [0, 1, 1, 2], 64) == [(1, 0)] * 3
