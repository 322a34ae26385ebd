"""What both backends of the repair share, made on the host from the edit summaries: the
net change of every edited arc, the roots of the invalidated subtrees, the arcs that may
improve a head, the key space of the edited graph (without compacting it) and the
reverse adjacency of the mutable graph (the base graph's, built once per graph, plus the
inserted arcs sorted by head).

Why these suffice (``api`` has the whole argument): a vertex keeps its key unless its
tree path used a raised/closed arc (then it lies in an invalidated subtree) or a
lowered/opened arc now gives it a shorter route (then the search from the seeds finds it).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..dynamic.api import EditSummary, MutableGraph
from ..dynamic.layout import ARC_LIVE
from ..keys import KEY_INF, KeySpace

_KEY_INF = int(KEY_INF)


@dataclass
class EditPlan:
    """Net edits of a sequence of batches, in key space (int64; -1 where the arc is not
    live before / after)."""

    arcs: np.ndarray  # edited arc ids (pre-existing ones first, then inserted ones)
    tails: np.ndarray
    heads: np.ndarray
    old_kw: np.ndarray
    new_kw: np.ndarray
    roots: np.ndarray  # heads of raised/closed tree arcs: their pred-subtrees are invalid
    dec_tails: np.ndarray  # arcs that got cheaper or live: candidates key[u] + w'
    dec_heads: np.ndarray
    dec_kw: np.ndarray
    added_vertices: int

    @property
    def edited_heads(self) -> np.ndarray:
        """Heads of every edited arc: their predecessor may change with an unchanged key."""
        return np.unique(self.heads)


def as_summaries(edits: EditSummary | Sequence[EditSummary]) -> list[EditSummary]:
    from ..errors import InvalidArgumentError

    items = [edits] if isinstance(edits, EditSummary) else list(edits)
    for s in items:
        if not isinstance(s, EditSummary):
            raise InvalidArgumentError(
                f"edits must be EditSummary objects (MutableGraph.apply's result), "
                f"not {type(s).__name__}")
    return items


def net_edits(mg: MutableGraph, summaries: list[EditSummary]):
    """(arc ids, old state, old weight) of each edited arc before the first batch;
    inserted arcs (any batch) get state 0 (absent)."""
    inserted = (np.concatenate([s.inserted for s in summaries]) if summaries
                else np.zeros(0, np.int64))
    if summaries:
        ids = np.concatenate([s.arcs for s in summaries])
        st = np.concatenate([s.old_state for s in summaries])
        w = np.concatenate([s.old_weight for s in summaries])
    else:
        ids, st, w = np.zeros(0, np.int64), np.zeros(0, np.uint8), np.zeros(0, np.int32)
    ids, first = np.unique(ids, return_index=True)  # the first batch's "before" wins
    st, w = st[first], w[first]
    keep = ~np.isin(ids, inserted)
    ids = np.concatenate([ids[keep], inserted]).astype(np.int64)
    st = np.concatenate([st[keep], np.zeros(inserted.size, np.uint8)])
    w = np.concatenate([w[keep], np.zeros(inserted.size, np.int32)])
    return ids, st, w


def make_plan(mg: MutableGraph, summaries: list[EditSummary], ks: KeySpace,
              key: np.ndarray, pred: np.ndarray) -> EditPlan:
    """The plan against the previous result's keys ``key`` and ``pred`` (old size)."""
    h = mg.host
    ids, st0, w0 = net_edits(mg, summaries)
    tails = h.tail[ids].astype(np.int64)
    heads = h.head[ids].astype(np.int64)
    old_kw = np.where(st0 == ARC_LIVE, ks.key_weights(w0), -1).astype(np.int64)
    new_kw = np.where(h.state[ids] == ARC_LIVE, ks.key_weights(h.weight[ids]),
                      -1).astype(np.int64)
    n_old = key.shape[0]
    raised = (old_kw >= 0) & ((new_kw < 0) | (new_kw > old_kw))
    raised &= (tails < n_old) & (heads < n_old)
    t, hd, okw = tails[raised], heads[raised], old_kw[raised]
    ku = key[t]
    # v's tree arc, when tight with its old weight (a tight parallel arc left live makes
    # this over-cautious, never wrong)
    tree = (pred[hd] == t) & (ku != _KEY_INF) & (ku + okw == key[hd])
    lowered = (new_kw >= 0) & ((old_kw < 0) | (new_kw < old_kw))
    return EditPlan(
        arcs=ids, tails=tails, heads=heads, old_kw=old_kw, new_kw=new_kw,
        roots=np.unique(hd[tree]), dec_tails=tails[lowered], dec_heads=heads[lowered],
        dec_kw=new_kw[lowered],
        added_vertices=int(sum(int(s.added_vertices.size) for s in summaries)),
    )


# ---- key space of the edited graph, without a compaction ---------------------------------
_wmax: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def weight_bound(mg: MutableGraph, summaries: list[EditSummary]) -> int:
    """An upper bound of the live arcs' largest weight: the largest weight any arc id ever
    had, kept per graph and raised by each batch's new weights (O(batch) per call)."""
    h = mg.host
    hit = _wmax.get(mg)
    if hit is not None and hit[0] + len(summaries) == mg.version:
        new = [hit[1]]
        for s in summaries:
            if s.new_weight.size:
                new.append(int(s.new_weight.max()))
            if s.inserted.size:
                new.append(int(h.weight[s.inserted].max()))
        wmax = max(new)
    elif hit is not None and hit[0] == mg.version:
        wmax = hit[1]
    else:
        wmax = int(h.weight[: h.total].max()) if h.total else 0
    _wmax[mg] = (mg.version, wmax)
    return wmax


def edited_key_space(mg: MutableGraph, summaries: list[EditSummary]) -> KeySpace:
    """``key_space_for`` of the edited graph's live arcs. The weights are >= 0 (the
    mutable graph refuses negatives), so with the bound from :func:`weight_bound` fitting,
    the answer is ``KeySpace(hop bits of n)``; otherwise the exact (compacting) path."""
    n = mg.num_nodes
    hb = max(1, int(n).bit_length())
    bound = max(n - 1, 0) * weight_bound(mg, summaries)
    if bound < (1 << (62 - hb)):
        return KeySpace(hb)
    from ..sssp.api import prepare_graph

    return prepare_graph(mg)[1]


# ---- reverse adjacency -------------------------------------------------------------------
_reverse: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def base_reverse(mg: MutableGraph) -> tuple[np.ndarray, np.ndarray]:
    """(rev_ptr int64 [n0+1], arc ids int64 by head) of the starting graph's arcs; the
    heads of those ids never change, so this is built once per graph."""
    got = _reverse.get(mg)
    if got is None:
        h = mg.host
        m0 = int(h.base_indptr[-1])
        heads = h.head[:m0]
        order = np.argsort(heads, kind="stable").astype(np.int64)
        ptr = np.zeros(h.n0 + 1, np.int64)
        np.cumsum(np.bincount(heads, minlength=h.n0), out=ptr[1:])
        got = (ptr, order)
        _reverse[mg] = got
    return got


def inserted_by_head(mg: MutableGraph) -> tuple[np.ndarray, np.ndarray]:
    """(heads sorted int64, arc ids int64) of every arc inserted since the start."""
    h = mg.host
    m0 = int(h.base_indptr[-1])
    ids = np.arange(m0, h.total, dtype=np.int64)
    heads = h.head[m0: h.total].astype(np.int64)
    order = np.argsort(heads, kind="stable")
    return heads[order], ids[order]
