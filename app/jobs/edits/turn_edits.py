"""Turn bans as what-if edits (issue 39): ``ban_turn`` and ``lift_turn`` on a turn
(from-way F, via node V, to-way T), by the node splitting of ``maps.model.turns`` done on
the edited graph.

Every current arc of F that enters V (V itself or any copy of it) is an *approach*. For
each approach whose head's turns change, a new copy k of V is added: k gets a copy of each
of the head's out-arcs that stays allowed (same head, weight, state, kind, class, length,
way id and geometry), and the approach is replaced by an arc into k (the old arc disabled;
``Scenario._replaced`` maps it to the new one, so a later closure of that road finds it).

* ``ban_turn``: the head's out-arcs of T are left out (a u-turn when T is F).
* ``lift_turn``: the turn F→T at V becomes legal from every approach: V's own out-arcs of
  T (V keeps every out-arc) are added where the head lacks them, whatever banned them (a
  ``no_*`` at V, an ``only_*`` toward another way, or a via-way restriction ending in that
  turn). Lifting an ``only_*`` wholly is lifting each of the other turns.

All of it is one batch of the MutableGraph: undo and redo are those of every edit. The new
copies are vertices of the edited map numbered after the map's own copies, with their
original in ``Scenario.turn_copies`` (``network()`` lists them in ``meta["turn_copies"]``,
so every answer folds them as it folds the file's copies). An edit that changes no
approach (the turn is banned, or legal, already) is refused with a line saying so.
"""

from __future__ import annotations

import numpy as np

from gpu_core.dynamic import ARC_DELETED, ARC_DISABLED

from .model import Edit, EditError
from .stage import Stage


def original(sc, x: int) -> int:
    """The file's node a vertex stands for (a copy's original; else itself)."""
    return sc.targets.same(x)[0]


def out_arcs(sc, u: int) -> list[int]:
    """The current out-arcs of vertex ``u`` (live or closed; not deleted, removed or
    replaced by a split), base row then inserted arcs."""
    h = sc.graph.host
    ids: list[int] = []
    if u < h.n0:
        ids.extend(range(int(h.base_indptr[u]), int(h.base_indptr[u + 1])))
    e = int(h.first_extra[u])
    while e >= 0:
        ids.append(e)
        e = int(h.next_extra[e])
    return [e for e in ids if h.state[e] != ARC_DELETED and e not in sc._replaced
            and e not in sc._removed]


def _copy_arc(sc, stage: Stage, f: int, tail: int, head: int) -> int:
    """A new arc tail -> head like ``f`` (weight, attributes, geometry; closed if f is)."""
    st = sc.store
    kind, cls, length, src = st.attrs(f)
    new = stage.insert(tail, head, int(sc.graph.host.weight[f]), kind, cls, length, src,
                       st.inner(f))
    if sc.graph.host.state[f] == ARC_DISABLED:
        stage.batch.disable([new])
    return new


def apply_turn(sc, stage: Stage, edit: Edit, label: str) -> None:
    """Put ``edit`` (ban_turn / lift_turn) into the stage's batch (module doc)."""
    assert edit.turn is not None  # checked with the edit (model._check_turn)
    f_way, v_key, t_way = edit.turn
    v = original(sc, sc.targets.node(v_key, label))
    st = sc.store
    members = set(sc.targets.same(v))
    approaches = [e for e in sc.targets.way(Edit("close", way=str(f_way)), label)
                  if st.ends(e)[1] in members]
    if not approaches:
        raise EditError(label, f"way {f_way} does not enter node {v_key}")
    own = [f for f in out_arcs(sc, v) if st.source_id(f) == t_way]
    if not own:
        raise EditError(label, f"way {t_way} does not leave node {v_key}")
    changed = 0
    for e in approaches:
        tail, head = st.ends(e)
        outs = out_arcs(sc, head)
        if edit.action == "ban_turn":
            keep = [(f, st.ends(f)[1]) for f in outs if st.source_id(f) != t_way]
            if len(keep) == len(outs):
                continue
        else:
            have = {original(sc, st.ends(f)[1]) for f in outs if st.source_id(f) == t_way}
            more = [(f, st.ends(f)[1]) for f in own if original(sc, st.ends(f)[1]) not in have]
            if not more:
                continue
            keep = [(f, st.ends(f)[1]) for f in outs] + more
        x, y = st.vertex_xy(v)
        k = stage.vertex(x, y)
        stage.copies[k] = v
        for f, h in keep:
            _copy_arc(sc, stage, f, k, h)
        new = _copy_arc(sc, stage, e, tail, k)
        if sc.graph.host.state[e] != ARC_DISABLED:
            stage.batch.disable([e])
        stage.replaced[e] = (new,)
        stage.touched.append(e)
        changed += 1
    if not changed:
        what = "banned" if edit.action == "ban_turn" else "legal"
        raise EditError(label, f"the turn from way {f_way} onto way {t_way} at node {v_key} "
                               f"is {what} already")


def turn_is_open(sc, f_way: int, v: int, t_way: int) -> bool:
    """Whether some approach of way ``f_way`` into node index ``v`` may still turn onto
    way ``t_way`` (the window's turn mode bans it then, else lifts it)."""
    st = sc.store
    members = set(sc.targets.same(v))
    approaches = [e for e in sc.targets.way(Edit("close", way=str(f_way)), f"way {f_way}")
                  if st.ends(e)[1] in members]
    return any(st.source_id(g) == t_way for e in approaches for g in out_arcs(sc, st.ends(e)[1]))


def copies_array(sc) -> np.ndarray:
    """The original of every copy of the edited graph, in vertex order: the map's copies,
    then those of turn edits (``meta["turn_copies"]`` of ``Scenario.network()``)."""
    base = np.asarray(sc.base.meta.get("turn_copies") or [], dtype=np.int64)
    extra = [sc.turn_copies[k] for k in sorted(sc.turn_copies)]
    return np.r_[base, np.asarray(extra, dtype=np.int64)]
