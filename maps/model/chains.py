"""Merge degree-2 chains of a map into single arcs, keeping their drawing geometry.

A node ``v`` is merged away when it only passes traffic through: exactly two distinct
neighbours ``a`` and ``b`` and either

* one arc in and one out (``a → v → b``, part of a one-way chain), or
* both directions to both (``a ↔ v ↔ b``, part of a two-way chain),

all its arcs of the same kind and class (a chain never mixes road and rail, or a footway
with a primary road, so the class shown for an arc stays true). Merged arcs sum their
weights and lengths exactly, so the cost between any two kept nodes is unchanged; the
merged nodes' positions become inner geometry points of the new arc. ``edge_source_id``
of a merged arc is the way id of its first piece. A ring made only of mergeable nodes
keeps one node (the tail of its lowest-numbered arc).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class Arcs:
    """Arcs in COO form with their attributes (what a loader hands to build_network)."""

    tails: np.ndarray  # int64 node indices
    heads: np.ndarray
    weights: np.ndarray  # int64
    lengths: np.ndarray  # float64 metres
    kinds: np.ndarray  # uint8
    classes: np.ndarray  # uint8
    source_ids: np.ndarray  # int64
    geometry: list[np.ndarray | None]  # inner points per arc, (k, 2) x/y metres


def contract_chains(
    n: int,
    arcs: Arcs,
    node_xy: np.ndarray,
    protected: Sequence[int] | np.ndarray | None = None,
) -> tuple[np.ndarray, Arcs]:
    """Merge mergeable nodes (module doc). Returns (kept node indices in old numbering,
    arcs renumbered to 0..len(kept)-1)."""
    t = np.asarray(arcs.tails, dtype=np.int64)
    h = np.asarray(arcs.heads, dtype=np.int64)
    m = t.shape[0]
    mergeable = _mergeable_nodes(n, t, h, arcs.kinds, arcs.classes)
    if protected is not None and len(protected):
        mergeable[np.asarray(protected, dtype=np.int64)] = False

    order = np.argsort(t, kind="stable")
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(out_ptr, t + 1, 1)
    out_ptr = np.cumsum(out_ptr)
    out_arcs = order.tolist()
    ptr = out_ptr.tolist()
    tl, hl = t.tolist(), h.tolist()
    merge = mergeable.tolist()
    used = bytearray(m)

    new_t: list[int] = []
    new_h: list[int] = []
    pieces: list[list[int]] = []  # old arc indices making each new arc, in order

    def follow(e0: int) -> None:
        path = [e0]
        used[e0] = 1
        prev, v = tl[e0], hl[e0]
        while merge[v]:
            nxt = -1
            for k in range(ptr[v], ptr[v + 1]):
                e = out_arcs[k]
                if hl[e] != prev:
                    nxt = e
                    break
            if nxt < 0 or used[nxt]:  # cannot happen for a mergeable node; stay safe
                break
            used[nxt] = 1
            path.append(nxt)
            prev, v = v, hl[nxt]
        new_t.append(tl[e0])
        new_h.append(v)
        pieces.append(path)

    kept_flags = [not x for x in merge]
    for s in range(n):
        if kept_flags[s]:
            for k in range(ptr[s], ptr[s + 1]):
                e = out_arcs[k]
                if not used[e]:
                    follow(e)
    # Rings of mergeable nodes only: keep the smallest node of each and walk from it.
    for e in range(m):
        if not used[e]:
            s = tl[e]
            merge[s] = False
            kept_flags[s] = True
            for k in range(ptr[s], ptr[s + 1]):
                e2 = out_arcs[k]
                if not used[e2]:
                    follow(e2)

    kept = np.flatnonzero(np.array(kept_flags, dtype=bool)) if n else np.zeros(0, np.int64)
    remap = np.full(n, -1, dtype=np.int64)
    remap[kept] = np.arange(kept.shape[0])

    w = np.asarray(arcs.weights, dtype=np.int64)
    ln = np.asarray(arcs.lengths, dtype=np.float64)
    geom_out: list[np.ndarray | None] = []
    first = np.array([p[0] for p in pieces], dtype=np.int64)
    flat = np.fromiter((e for p in pieces for e in p), dtype=np.int64, count=m)
    starts = np.cumsum([0] + [len(p) for p in pieces[:-1]]).astype(np.int64)
    weights = np.add.reduceat(w[flat], starts) if m else np.zeros(0, np.int64)
    lengths = np.add.reduceat(ln[flat], starts) if m else np.zeros(0, np.float64)
    for p in pieces:
        if len(p) == 1:
            geom_out.append(arcs.geometry[p[0]])
            continue
        parts: list[np.ndarray] = []
        for i, e in enumerate(p):
            g = arcs.geometry[e]
            if g is not None and len(g):
                parts.append(np.asarray(g, dtype=np.float64).reshape(-1, 2))
            if i + 1 < len(p):
                parts.append(node_xy[hl[e]].reshape(1, 2))
        geom_out.append(np.concatenate(parts))
    out = Arcs(
        tails=remap[np.array(new_t, dtype=np.int64)],
        heads=remap[np.array(new_h, dtype=np.int64)],
        weights=weights,
        lengths=lengths,
        kinds=np.asarray(arcs.kinds)[first] if m else np.zeros(0, np.uint8),
        classes=np.asarray(arcs.classes)[first] if m else np.zeros(0, np.uint8),
        source_ids=np.asarray(arcs.source_ids)[first] if m else np.zeros(0, np.int64),
        geometry=geom_out,
    )
    return kept, out


def _mergeable_nodes(n: int, t: np.ndarray, h: np.ndarray, kinds, classes) -> np.ndarray:
    """Nodes that only pass traffic through (see the module doc)."""
    deg_out = np.bincount(t, minlength=n)
    deg_in = np.bincount(h, minlength=n)
    cand = ((deg_out == 1) & (deg_in == 1)) | ((deg_out == 2) & (deg_in == 2))
    if not cand.any():
        return cand
    kinds = np.asarray(kinds)
    classes = np.asarray(classes)
    ok = cand.copy()
    # Self-loops at a node make it a junction of itself.
    ok[t[t == h]] = False
    # Incident arcs of one (kind, class): compare every arc's attributes with the min/max
    # over the node.
    attr = kinds.astype(np.int64) * 256 + classes.astype(np.int64)
    both = np.concatenate([t, h])
    a2 = np.concatenate([attr, attr])
    amin = np.full(n, np.iinfo(np.int64).max)
    amax = np.full(n, -1)
    np.minimum.at(amin, both, a2)
    np.maximum.at(amax, both, a2)
    ok &= amin == amax
    # Exactly two distinct neighbours, a != b, and for (2,2) nodes both directions to both.
    idx = np.flatnonzero(ok)
    if idx.size == 0:
        return ok
    sel_out = ok[t]
    sel_in = ok[h]
    outs: dict[int, list[int]] = {}
    ins: dict[int, list[int]] = {}
    for u, v in zip(t[sel_out].tolist(), h[sel_out].tolist(), strict=True):
        outs.setdefault(u, []).append(v)
    for u, v in zip(h[sel_in].tolist(), t[sel_in].tolist(), strict=True):
        ins.setdefault(u, []).append(v)
    for v in idx.tolist():
        o = outs.get(v, [])
        i = ins.get(v, [])
        if len(o) == 1:
            good = o[0] != i[0]
        else:
            good = len(set(o)) == 2 and set(o) == set(i)
        if not good:
            ok[v] = False
    return ok
