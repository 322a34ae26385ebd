"""How many lanes pull each vertex in the GPU sweep (``one_to_all.cu: ota_level``), per level.

A level's time on the GPU is its rounds (vertices x lanes per vertex / lanes running) times
the longest in-arc row a group reads one load after another. High in the hierarchy the
levels are a few separator vertices with tens to hundreds of in-arcs each (one lane each
would wait on every load in turn); low down they are thousands of vertices with two or
three. Pure numpy so the choice is tested without a GPU.
"""

from __future__ import annotations

import numpy as np

WIDTHS = (1, 2, 4, 8, 16, 32)  # a group never crosses a warp: the shuffles stay inside it


def level_groups(level_ptr: np.ndarray, down_ptr: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """int32 lanes per vertex for each level: the width of ``WIDTHS`` with the fewest
    dependent loads, rounds x ceil(longest row / width) + the shuffle steps, where a level
    has ``lanes[lv]`` lanes (the grid's)."""
    nlev = int(level_ptr.shape[0]) - 1
    out = np.ones(nlev, np.int32)
    if nlev <= 0:
        return out
    verts = np.diff(level_ptr).astype(np.int64)
    deg = np.diff(down_ptr).astype(np.int64)
    longest = np.zeros(nlev, np.int64)
    nz = verts > 0
    if deg.size:
        longest[nz] = np.maximum.reduceat(deg, level_ptr[:-1][nz].astype(np.int64))
    best = None
    for w in WIDTHS:
        rounds = -(-verts * w // np.maximum(lanes.astype(np.int64), w))
        cost = rounds * (-(-longest // w) + int(np.log2(w)))
        if best is None:
            best = cost
            continue
        better = cost < best
        out[better] = w
        best = np.where(better, cost, best)
    return out
