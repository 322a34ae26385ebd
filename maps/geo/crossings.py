"""``--split-crossings``: add the points where lines cross as vertices of both, so that the
shared-vertex noding of ``maps.model.lines`` joins them there too (shapely, on the CPU).

Lines touching only at a vertex already join; this adds, for every pair of lines that
intersect (an STRtree query), the intersection points (the ends of overlapping parts
too) into each line at its place along it. One point computed once is inserted into
both lines, so both get the very same coordinates. Runs in the file's CRS, before the
transform to lon/lat.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np


def split_at_crossings(lines: list[np.ndarray]) -> list[np.ndarray]:
    """``lines`` ((k, 2) each) with their crossing points inserted as vertices."""
    import shapely

    geoms = shapely.linestrings([ln[:, :2] for ln in lines]) if lines else np.zeros(0)
    tree = shapely.STRtree(geoms)
    a, b = tree.query(geoms, predicate="intersects")
    keep = a < b
    a, b = a[keep], b[keep]
    if a.size == 0:
        return lines
    pts, idx = shapely.get_coordinates(shapely.intersection(geoms[a], geoms[b]),
                                       return_index=True)  # fmt: skip
    extra: dict[int, list[np.ndarray]] = defaultdict(list)
    for line_of in (a, b):
        owners = line_of[idx]
        for o in np.unique(owners).tolist():
            extra[o].append(pts[owners == o])
    out = list(lines)
    for i, add in extra.items():
        out[i] = _insert(lines[i], np.concatenate(add), geoms[i])
    return out


def _insert(line: np.ndarray, pts: np.ndarray, geom) -> np.ndarray:
    """``line`` with ``pts`` (lying on it) inserted in order along it; points that are
    already vertices are left out."""
    import shapely

    line = np.asarray(line[:, :2], dtype=np.float64)
    seg = np.hypot(*np.diff(line, axis=0).T)
    at_vertex = np.concatenate([[0.0], np.cumsum(seg)])
    along = shapely.line_locate_point(geom, shapely.points(pts))
    new = ~(pts[:, None, :] == line[None, :, :]).all(axis=2).any(axis=1)
    pts, along = pts[new], along[new]
    if pts.shape[0] == 0:
        return line
    # Merge by position along the line: vertices first at equal distances.
    pos = np.concatenate([at_vertex, along])
    tie = np.concatenate([np.zeros(line.shape[0]), np.ones(pts.shape[0])])
    order = np.lexsort((tie, pos))
    merged = np.concatenate([line, pts])[order]
    keep = np.ones(merged.shape[0], dtype=bool)
    keep[1:] = (merged[1:] != merged[:-1]).any(axis=1)
    return merged[keep]
