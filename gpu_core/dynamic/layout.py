"""What both backends of the mutable graph share: arc states, edit codes, error codes and
the validation messages and the sort that turns the live arcs into CSR rows (numpy or CuPy, the same order)."""

from __future__ import annotations

import numpy as np

# A state byte per arc id. DISABLED: closed, kept (enable reopens it); DELETED: gone, its id
# is never reused.
ARC_DELETED, ARC_LIVE, ARC_DISABLED = 0, 1, 2
# Edit codes of EditBatch.arrays(): (op, a, b, c) = (code, arc id or tail, head, weight).
OP_DISABLE, OP_ENABLE, OP_SET_WEIGHT, OP_INSERT, OP_DELETE, OP_ADD_VERTEX = range(1, 7)
# Validation failures (the host loop returns one with the edit's index).
ERR_ID, ERR_DELETED, ERR_TAIL, ERR_HEAD, ERR_WEIGHT = range(1, 6)
MAX_WEIGHT = 2**31 - 1  # weights are int32 like every CSR of gpu_core
OPS = {"disable": OP_DISABLE, "enable": OP_ENABLE, "set_weight": OP_SET_WEIGHT,
       "insert": OP_INSERT, "delete": OP_DELETE, "add_vertex": OP_ADD_VERTEX}
OP_NAMES = {code: name for name, code in OPS.items()}
STATE_NAMES = {ARC_DELETED: "deleted", ARC_LIVE: "live", ARC_DISABLED: "disabled"}


def describe_error(code: int, i: int, ops, a, b, c, total: int, n: int) -> str:
    """The message of validation failure ``code`` at edit ``i`` (arc ids 0..total-1 and
    vertices 0..n-1 existed at that edit)."""
    what = f"edit {i} ({OP_NAMES.get(int(ops[i]), '?')})"
    if code == ERR_ID:
        return f"{what}: arc id {int(a[i])} does not exist (ids 0..{total - 1})"
    if code == ERR_DELETED:
        return f"{what}: arc id {int(a[i])} was deleted"
    if code == ERR_TAIL:
        return f"{what}: tail vertex {int(a[i])} is outside 0..{n - 1}"
    if code == ERR_HEAD:
        return f"{what}: head vertex {int(b[i])} is outside 0..{n - 1}"
    if code == ERR_WEIGHT:
        if int(c[i]) < 0:
            return f"{what}: weight {int(c[i])} is negative"
        return f"{what}: weight {int(c[i])} is above {MAX_WEIGHT} (int32)"
    return f"{what}: invalid (code {code})"


def sorted_csr(xp, n: int, ids, tails, heads, weights):
    """(indptr int32, indices int32, weights int32, arc ids int64) of the given arcs with
    rows ordered by (tail, weight, head, id): ``CSRGraph.from_edges`` on the arcs listed
    by id. Two stable sorts (weight|head packed in 62 bits, then tail), so numpy and CuPy
    (whose argsort is stable) give the same order."""
    if xp is np:
        def argsort(a):
            return np.argsort(a, kind="stable")
    else:
        argsort = xp.argsort
    indptr = xp.zeros(n + 1, dtype=xp.int64)
    if tails.size:
        indptr[1:] = xp.cumsum(xp.bincount(tails, minlength=n))
    if xp is np and _in_order(tails, heads, weights):  # the sorts would move no arc
        return (indptr.astype(np.int32), heads.astype(np.int32), weights.astype(np.int32),
                ids.astype(np.int64))
    key = (weights.astype(xp.int64) << 31) | heads.astype(xp.int64)
    o1 = argsort(key)
    order = o1[argsort(tails[o1])]
    return (indptr.astype(xp.int32), heads[order].astype(xp.int32),
            weights[order].astype(xp.int32), ids[order].astype(xp.int64))


def _in_order(tails: np.ndarray, heads: np.ndarray, weights: np.ndarray) -> bool:
    """Whether the arcs are in (tail, weight, head) order already, as a map's own arcs
    are after closures only (its rows come sorted by weight and head, and closing removes
    arcs): then both stable sorts are the identity. A few comparisons of neighbours
    instead of two argsorts of every arc, where the compaction's kernel is not compiled
    (a CLI-only install never compiles it): NE's closed map made in 0.69-0.76 s instead
    of 1.75-1.86 s (loaded 2-core machine; the check itself 0.02 s)."""
    if tails.shape[0] < 2:
        return True
    t0, t1 = tails[:-1], tails[1:]
    if not (t1 >= t0).all():
        return False
    w0, w1 = weights[:-1], weights[1:]
    later = (w1 > w0) | ((w1 == w0) & (heads[1:] >= heads[:-1]))
    return bool((later | (t1 != t0)).all())


def base_subset_csr(base_indptr: np.ndarray, head: np.ndarray, weight: np.ndarray,
                    live: np.ndarray):
    """(indptr int32, indices int32, weights int32, arc ids int64) of the live arcs of a
    graph that inserted none (``live``: a mask over the base arc ids, which are its CSR
    positions), or None where a row's live arcs are not in (weight, head) order.

    Where it answers, it answers what ``sorted_csr`` would: the live arcs keep their rows
    and, in order already, their places. Closures and removals only ever take arcs away,
    so a closed map is this (NE, 3.9M arcs: a few masked copies, no kernel and no sort,
    where a new process's compaction first loaded numba, issue 41)."""
    indices, weights = head[live], weight[live]
    dead = np.flatnonzero(~live)
    # each row starts earlier by the closed arcs before it (a search in the few closed ids)
    indptr = base_indptr - np.searchsorted(dead, base_indptr) if dead.size \
        else base_indptr.copy()
    if not _rows_in_order(indptr, indices, weights):
        return None
    return (indptr.astype(np.int32, copy=False), indices.astype(np.int32, copy=False),
            weights.astype(np.int32, copy=False), np.flatnonzero(live))


def _rows_in_order(indptr: np.ndarray, heads: np.ndarray, weights: np.ndarray) -> bool:
    """Whether each CSR row's arcs are in (weight, head) order (``_in_order`` by rows,
    without a tail per arc)."""
    m = heads.shape[0]
    if m < 2:
        return True
    w0, w1 = weights[:-1], weights[1:]
    later = (w1 > w0) | ((w1 == w0) & (heads[1:] >= heads[:-1]))
    if later.all():
        return True
    starts = np.zeros(m, dtype=bool)  # arc i + 1 opens a row: no order asked of (i, i + 1)
    starts[indptr[1:-1][indptr[1:-1] < m]] = True
    return bool((later | starts[1:]).all())
