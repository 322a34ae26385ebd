"""Target columns folded into others: a matrix whose targets have extra columns (a turn
restriction's copies of a target node, ``maps.model.turns.with_copy_targets``) returns
only the asked-for columns, each the least over its own and its extras' (-1 unreachable).

``fold = (ntargets, into)``: the block's columns ``ntargets + k`` fold into column
``into[k]``. Unreachable is -1, which as an unsigned integer is the largest: a plain
unsigned minimum gives "least reachable, else -1" (the GPU's fold, ``phast.cu``
``phast_fold``, does the same with atomicMin)."""

from __future__ import annotations

import numpy as np

Fold = tuple[int, np.ndarray]


def fold_block(block: np.ndarray, fold: Fold) -> np.ndarray:
    """``block`` [rows, ntargets + extras] (int64 or int32, -1 unreachable) -> [rows,
    ntargets]: a new array, ``block`` unchanged."""
    ntargets, into = int(fold[0]), np.asarray(fold[1], dtype=np.int64)
    out = np.array(block[:, :ntargets], copy=True)
    if into.size:
        u = out.view(np.uint64 if out.dtype.itemsize == 8 else np.uint32)
        extra = block[:, ntargets:ntargets + into.size].view(u.dtype)
        np.minimum.at(u.T, into, extra.T)  # (several extras may fold into one column)
    return out


def fold_rows(blocks, fold: Fold | None):
    """``(first row, block)`` pairs with each block folded (unchanged when ``fold`` is None)."""
    if fold is None:
        yield from blocks
        return
    for r0, b in blocks:
        yield r0, fold_block(np.asarray(b), fold)
