"""A plain-Python model of the mutable graph (the oracle of its tests) and a generator of
random edit sequences that drives a MutableGraph and the model side by side."""

from __future__ import annotations

import numpy as np

from gpu_core.dynamic import ARC_DELETED, ARC_DISABLED, ARC_LIVE
from gpu_core.graph import CSRGraph


class Model:
    """Arc lists by id, edited one edit at a time."""

    def __init__(self, g: CSRGraph):
        self.n = g.num_nodes
        self.t = g.arc_sources().tolist()
        self.h = g.indices.tolist()
        self.w = g.weights.tolist()
        self.s = [ARC_LIVE] * g.num_arcs

    def ids(self, *states: int) -> list[int]:
        return [e for e, s in enumerate(self.s) if s in states]

    def fresh(self) -> tuple[CSRGraph, np.ndarray]:
        """The graph built from scratch from the live arcs, and the id of each CSR arc."""
        ids = np.array(self.ids(ARC_LIVE), dtype=np.int64)
        t = np.array(self.t, np.int64)[ids] if ids.size else np.zeros(0, np.int64)
        h = np.array(self.h, np.int64)[ids] if ids.size else np.zeros(0, np.int64)
        w = np.array(self.w, np.int64)[ids] if ids.size else np.zeros(0, np.int64)
        g = CSRGraph.from_edges(self.n, t, h, w)
        return g, ids[np.lexsort((h, w, t))]


def random_batch(mg, model: Model, rng: np.random.Generator, size: int, wmax: int = 50):
    """A batch of ``size`` random edits (closures, reopenings, weight changes, insertions,
    deletions, new vertices, splits), applied to the model as it is built."""
    b = mg.batch()
    for _ in range(size):
        kind = rng.choice(["disable", "enable", "weight", "insert", "delete", "vertex",
                           "split"])
        not_deleted = model.ids(ARC_LIVE, ARC_DISABLED)
        if kind in ("disable", "enable", "weight", "delete", "split") and not not_deleted:
            kind = "insert"
        if kind == "insert" and model.n == 0:
            kind = "vertex"
        if kind == "vertex":
            b.add_vertices(1)
            model.n += 1
        elif kind == "insert":
            t, h = int(rng.integers(model.n)), int(rng.integers(model.n))
            if rng.random() < 0.3 and model.t:  # a parallel arc
                e = int(rng.integers(len(model.t)))
                t, h = model.t[e], model.h[e]
            w = int(rng.integers(0, wmax + 1))
            b.insert(t, h, w)
            model.t.append(t)
            model.h.append(h)
            model.w.append(w)
            model.s.append(ARC_LIVE)
        elif kind == "split":
            e = int(rng.choice(not_deleted))
            w1, w2 = (int(x) for x in rng.integers(0, wmax + 1, 2))
            x, a1, a2 = b.split(e, w1, w2)
            assert (x, a1, a2) == (model.n, len(model.t), len(model.t) + 1)
            t, h = model.t[e], model.h[e]
            model.n += 1
            model.t += [t, x]
            model.h += [x, h]
            model.w += [w1, w2]
            model.s += [ARC_LIVE, ARC_LIVE]
            model.s[e] = ARC_DISABLED
        else:
            e = int(rng.choice(not_deleted))
            if kind == "disable":
                b.disable(e)
                model.s[e] = ARC_DISABLED
            elif kind == "enable":
                pick = model.ids(ARC_DISABLED)
                e = int(rng.choice(pick)) if pick else e
                b.enable(e)
                model.s[e] = ARC_LIVE
            elif kind == "weight":
                w = int(rng.integers(0, wmax + 1))
                b.set_weight(e, w)
                model.w[e] = w
            else:
                b.delete(e)
                model.s[e] = ARC_DELETED
    return b


def assert_same_csr(mg, model: Model) -> CSRGraph:
    """mg.compact() equals the graph freshly built from the model's live arcs."""
    got, ids = mg.compact()
    want, want_ids = model.fresh()
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.weights, want.weights)
    np.testing.assert_array_equal(ids, want_ids)
    return want
