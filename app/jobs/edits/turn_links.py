"""Added links on a map with turn restrictions (issue 39): the node splitting of
``maps.model.turns`` kept exact on the edited graph.

A new link is a way in no restriction, so no ban applies to it:

* **leaving over it**: every vertex standing for its tail node (the node and each of its
  turn copies) gets an arc over the link, so every arrival at the node may take it;
* **arriving over it** lands on the node itself (the "base" vertex, as any approach that no
  restriction names does; a new vertex's own base vertex for a split end).

An end that lands mid-road splits that road at a new vertex ``x``. The road's arcs come
from the copies of its ends too (each arc led to the copy its approach needs), so ``x``
takes one vertex per *state* a driver may be in there: per direction and the copy the
arc leads to. The base state of both directions (the arcs the file nodes themselves keep)
is ``x`` itself; every other state is a turn copy of ``x`` (``Stage.copies``), whose
out-arcs are: on along its own arc to that arc's copy, back (a u-turn at ``x``, allowed
as at every node no relation names) onto the other direction's base arc, and the link.
Each state's arc is cut as ``actions._split`` cuts an arc (weights shared by length, the
sum exact; kind, class, way id, geometry kept), so every arc into the road's far end
keeps the copy it led to, and via-way restrictions along the road stay whole.
"""

from __future__ import annotations

import numpy as np

from .stage import Stage
from .store import cut, locate, polyline_length


def restricted(sc) -> bool:
    """Whether the edited map has turn copies (the file's or those of turn edits)."""
    return bool(sc.base.meta.get("turn_copies")) or bool(sc.turn_copies)


def members(sc, stage: Stage, v: int) -> list[int]:
    """The vertices standing for node ``v``: itself (or its original) and every copy,
    those made by this stage included."""
    first = sc.store.n + len(sc.store.vx)
    base = [v] if v >= first else sc.targets.same(v)
    return base + [k for k, o in stage.copies.items() if o == base[0]]


def base_of(sc, v: int) -> int:
    """The node a vertex stands for (its original when it is a copy)."""
    first = sc.store.n + len(sc.store.vx)
    return v if v >= first else sc.targets.same(v)[0]


def split_road(sc, stage: Stage, road: list[int], points: dict[int, list]) -> None:
    """Split the road arcs ``road`` (every live arc between two nodes, from every copy)
    at ``points`` (arc -> [(x, y, new vertex)]; the new vertex is the base state there),
    one vertex per state (module doc)."""
    st = sc.store
    ref = road[0]
    t0, h0 = base_of(sc, st.ends(ref)[0]), base_of(sc, st.ends(ref)[1])
    pts = {v: (x, y) for e in road for x, y, v in points.get(e, [])}
    fwd = [e for e in road if base_of(sc, st.ends(e)[0]) == t0]
    back = [e for e in road if e not in fwd]
    # the arc each direction's file node keeps: its head is the base state's landing
    base_f = next((e for e in fwd if st.ends(e)[0] == t0), fwd[0] if fwd else None)
    base_b = next((e for e in back if st.ends(e)[0] == h0), back[0] if back else None)
    chains: dict[tuple[str, int], list[int]] = {}  # state -> vertices at the points, in order
    seg: dict[tuple[str, int], list[int]] = {}  # state -> weights of its pieces
    for side, arcs, base in (("f", fwd, base_f), ("b", back, base_b)):
        for e in arcs:
            _, h = st.ends(e)
            key = (side, h)
            if key in chains:
                continue
            poly = st.polyline(e)
            at = sorted((locate(poly, *pts[v])[0], v) for v in pts)
            verts = [v for _, v in at]
            if base is not None and h != st.ends(base)[1]:
                verts = [_copy_vertex(stage, v, pts[v]) for v in verts]
            chains[key] = verts
            seg[key] = _cut_weights(poly, [a for a, _ in at], int(sc.graph.host.weight[e]))
    done: set[tuple[int, int]] = set()
    for e in road:
        t, h = st.ends(e)
        key = ("f" if e in fwd else "b", h)
        verts, w = [t, *chains[key], h], seg[key]
        poly = st.polyline(e)
        cuts = [0.0, *sorted(locate(poly, *pts[v])[0] for v in pts), polyline_length(poly)]
        kind, cls, length, src = st.attrs(e)
        total = cuts[-1]
        pieces = []
        for k in range(len(verts) - 1):
            if k > 0 and (verts[k], verts[k + 1]) in done:
                continue  # a state's own piece, shared by every arc of that state
            done.add((verts[k], verts[k + 1]))
            frac = (cuts[k + 1] - cuts[k]) / total if total > 0 else 0.0
            pieces.append(stage.insert(verts[k], verts[k + 1], w[k], kind, cls, length * frac,
                                       src, cut(poly, cuts[k], cuts[k + 1])))
        stage.batch.disable([e])
        stage.replaced[e] = tuple(pieces)
    _u_turns(sc, stage, chains, pts, base_f, base_b)


def _copy_vertex(stage: Stage, v: int, xy: tuple[float, float]) -> int:
    k = stage.vertex(*xy)
    stage.copies[k] = v
    return k


def _cut_weights(poly: np.ndarray, at: list[float], w: int) -> list[int]:
    total = polyline_length(poly)
    frac = [0.0] + [a / total if total > 0 else 0.0 for a in at] + [1.0]
    upto = [int(np.rint(w * f)) for f in frac]
    upto[-1] = w
    return [upto[k + 1] - upto[k] for k in range(len(upto) - 1)]


def _u_turns(sc, stage: Stage, chains: dict, pts: dict, base_f, base_b) -> None:
    """From each copy state at a point, the other direction's base piece onward (a u-turn
    there leaves the state behind, as at every node no relation names)."""
    st = sc.store
    for side, base, other in (("f", base_f, base_b), ("b", base_b, base_f)):
        if base is None or other is None:
            continue
        ob = ("b" if side == "f" else "f", st.ends(other)[1])
        back_verts = chains[ob][::-1]  # the other direction's base vertices, in our order
        poly = st.polyline(other)
        kind, cls, length, src = st.attrs(other)
        cuts = [0.0, *sorted(locate(poly, *pts[v])[0] for v in pts), polyline_length(poly)]
        w = _cut_weights(poly, cuts[1:-1], int(sc.graph.host.weight[other]))
        r = len(cuts) - 2  # points; the other arc's pieces 0..r in its own direction
        total = cuts[-1]
        for key, verts in chains.items():
            if key[0] != side or key == (side, st.ends(base)[1]):
                continue
            for k, v in enumerate(verts):
                j = r - k  # the other direction's piece from this point back toward our tail
                to = back_verts[k - 1] if k > 0 else st.ends(other)[1]
                frac = (cuts[j + 1] - cuts[j]) / total if total > 0 else 0.0
                stage.insert(v, to, w[j], kind, cls, length * frac, src,
                             cut(poly, cuts[j], cuts[j + 1]))


def link_arcs(sc, stage: Stage, a: int, b: int, w: int, cls: int, length: float,
              inner: np.ndarray, kind: int) -> None:
    """The link a -> b from every vertex standing for a into b itself (module doc)."""
    for u in members(sc, stage, a):
        stage.insert(u, b, w, kind, cls, length, -1, inner)


# ---- the edited map with its copies last -------------------------------------------------
def copies_last(sc) -> tuple[np.ndarray | None, list[int]]:
    """(vertex order of ``Scenario.network()`` or None when it is the graph's own, the
    original of each copy in that order): the file's nodes, the added vertices that are
    no copy (a split road's new node), the map's copies, then the copies edits made, so
    "copies are the last nodes" (``maps.model.turns``) holds on the edited map too."""
    nb = sc.base.num_nodes
    base = np.asarray(sc.base.meta.get("turn_copies") or [], dtype=np.int64)
    n0 = nb - base.shape[0]
    added = np.arange(nb, nb + len(sc.store.vx), dtype=np.int64)
    is_copy = np.isin(added, np.fromiter(sc.turn_copies, dtype=np.int64))
    order = np.concatenate([np.arange(n0, dtype=np.int64), added[~is_copy],
                            np.arange(n0, nb, dtype=np.int64), added[is_copy]])
    pos = np.empty_like(order)
    pos[order] = np.arange(order.shape[0])
    extra = np.asarray([sc.turn_copies[int(k)] for k in added[is_copy]], dtype=np.int64)
    origs = np.concatenate([base, pos[extra]]).tolist()
    if np.array_equal(order, np.arange(order.shape[0])):
        return None, origs
    return order, origs


def permute_csr(order: np.ndarray, indptr, indices, weights, ids):
    """The CSR rows of the vertices in ``order`` (old ids), heads renumbered; each row's
    arcs keep their order. Returns (indptr, indices, weights, arc ids)."""
    indptr = np.asarray(indptr, dtype=np.int64)
    pos = np.empty_like(order)
    pos[order] = np.arange(order.shape[0])
    counts = np.diff(indptr)[order]
    out_ptr = np.zeros(order.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=out_ptr[1:])
    sel = np.repeat(indptr[order] - out_ptr[:-1], counts) + np.arange(int(out_ptr[-1]))
    return (out_ptr, pos[np.asarray(indices, dtype=np.int64)[sel]],
            np.asarray(weights)[sel], np.asarray(ids)[sel])
