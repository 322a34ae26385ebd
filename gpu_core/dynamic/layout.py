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
    key = (weights.astype(xp.int64) << 31) | heads.astype(xp.int64)
    o1 = argsort(key)
    order = o1[argsort(tails[o1])]
    indptr = xp.zeros(n + 1, dtype=xp.int64)
    if tails.size:
        indptr[1:] = xp.cumsum(xp.bincount(tails, minlength=n))
    return (indptr.astype(xp.int32), heads[order].astype(xp.int32),
            weights[order].astype(xp.int32), ids[order].astype(xp.int64))
