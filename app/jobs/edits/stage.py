"""A pending edit: the MutableGraph batch plus the attributes of the arcs and vertices it
inserts, committed to the ArcStore only once the graph took the batch (so a failed edit
leaves nothing behind)."""

from __future__ import annotations

import numpy as np

from .store import ArcStore


class Stage:
    def __init__(self, store: ArcStore, graph):
        self.store = store
        self.batch = graph.batch()
        self.arcs: list[tuple] = []  # (tail, head, kind, cls, length, src, inner geometry)
        self.verts: list[tuple[float, float]] = []
        self.replaced: dict[int, tuple[int, ...]] = {}  # split arc -> its pieces in order
        self.removed: set[int] = set()
        self.class_names = list(store.class_names)
        self.touched: list[int] = []  # target arcs (for AppliedEdit.arcs)
        self.copies: dict[int, int] = {}  # turn copies added (vertex -> original)

    def vertex(self, x: float, y: float) -> int:
        (v,) = self.batch.add_vertices(1)
        self.verts.append((float(x), float(y)))
        return int(v)

    def vertex_xy(self, v: int) -> tuple[float, float]:
        first = self.store.n + len(self.store.vx)
        if v >= first:
            return self.verts[v - first]
        return self.store.vertex_xy(v)

    def insert(self, t: int, h: int, w: int, kind: int, cls: int, length: float, src: int,
               inner: np.ndarray) -> int:
        (e,) = self.batch.insert([t], [h], [int(w)])
        self.arcs.append((int(t), int(h), int(kind), int(cls), float(length), int(src),
                          np.asarray(inner, dtype=np.float64).reshape(-1, 2)))
        return int(e)

    def class_index(self, name: str) -> int:
        if name not in self.class_names:
            if len(self.class_names) >= 255:
                raise ValueError("the map already has 255 road classes")
            self.class_names.append(name)
        return self.class_names.index(name)

    def commit(self) -> None:
        self.store.extend(self.arcs, self.verts, self.class_names)
