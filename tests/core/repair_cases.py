"""Edit sequences for the repair tests (CPU and GPU share them): random batches from
``dynamic_model``, closures of shortest-path-tree roads, inverse batches (undo), and the
check that a repaired result equals a fresh search."""

from __future__ import annotations

import numpy as np

from gpu_core import sssp
from gpu_core.dynamic import ARC_DELETED, ARC_DISABLED, ARC_LIVE


def assert_same(res, mg, backend: str = "cpu") -> None:
    """``res`` (a repair) equals a fresh search on ``mg`` from the same sources."""
    fresh = sssp(mg, res.sources, backend=backend)
    np.testing.assert_array_equal(res.dist, fresh.dist)
    np.testing.assert_array_equal(res.pred, fresh.pred)
    np.testing.assert_array_equal(res.key, fresh.key)
    assert res.key_space == fresh.key_space


def tree_roads(mg, res, rng, k: int) -> np.ndarray:
    """Up to ``k`` random live tree arcs of ``res`` (pred[head] == tail), each with its live
    reverse arcs (a road closed both ways)."""
    t, h, _, s = mg.arcs()
    t, h = t.astype(np.int64), h.astype(np.int64)
    n_old = res.pred.shape[0]
    live = s == ARC_LIVE
    ok = live & (h < n_old) & (t < n_old)
    tree = np.flatnonzero(ok & (res.pred[np.minimum(h, n_old - 1)] == t))
    if tree.size == 0:
        return tree
    pick = rng.choice(tree, size=min(k, tree.size), replace=False)
    rev = np.flatnonzero(live & np.isin(t * (1 << 32) + h,
                                        h[pick] * (1 << 32) + t[pick]))
    return np.unique(np.concatenate([pick, rev]))


def model_of(mg):
    """A dynamic_model.Model of the graph as it is now (arc ids kept)."""
    from tests.core.dynamic_model import Model

    m = Model.__new__(Model)
    t, h, w, s = mg.arcs()
    m.n, m.t, m.h, m.w, m.s = mg.num_nodes, t.tolist(), h.tolist(), w.tolist(), s.tolist()
    return m


def close_tree_roads(mg, res, rng, k: int = 1):
    arcs = tree_roads(mg, res, rng, k)
    b = mg.batch()
    if arcs.size:
        b.disable(arcs)
    return b


def inverse_batch(mg, summary):
    """A batch that brings back the live arcs (tail, head, weight) before ``summary``:
    states and weights restored, inserted arcs deleted, deleted arcs inserted anew."""
    b = mg.batch()
    t, h, w, s = mg.arcs()
    for e, st, wo, now in zip(summary.arcs.tolist(), summary.old_state.tolist(),
                              summary.old_weight.tolist(), s[summary.arcs].tolist(),
                              strict=True):
        if now == ARC_DELETED:
            if st == ARC_LIVE:
                b.insert(int(t[e]), int(h[e]), int(wo))
            continue
        b.set_weight(e, int(wo))
        if st == ARC_LIVE:
            b.enable(e)
        elif st == ARC_DISABLED:
            b.disable(e)
    gone = summary.inserted[s[summary.inserted] != ARC_DELETED]
    if gone.size:
        b.delete(gone)
    return b


def reopen_all(mg):
    b = mg.batch()
    s = mg.arcs()[3]
    closed = np.flatnonzero(s == ARC_DISABLED)
    if closed.size:
        b.enable(closed)
    return b


def disconnect(mg, v: int):
    """Close every live out-arc of ``v``."""
    b = mg.batch()
    out = mg.out_arcs(v)
    if out.size:
        b.disable(out)
    return b
