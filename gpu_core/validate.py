"""The one validator of what enters ``gpu_core``'s public functions.

Kernels (numba and CUDA) index arrays without bounds checks, so every public function
(sssp, multi-source, betweenness, the vertex programs, the mutable graph) takes its graph
through :func:`check_graph` (via ``CSRGraph.from_any``) and its vertex ids through
:func:`check_vertex` / :func:`check_vertices`. Each raises InvalidArgumentError (a
ValueError) naming the argument and the value: a wrong dtype (float ids are refused, not
truncated), shape, a non-monotone ``indptr``, an index outside 0..n-1, a negative weight
or one that does not fit the kernels' int32 (int64 weights are checked before the cast,
which would wrap them).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .errors import InvalidArgumentError, NegativeWeightsError

INT32_MAX = int(np.iinfo(np.int32).max)


def _int_array(values: Any, what: str) -> np.ndarray:
    """``values`` as a 1-d integer array, refusing floats, bools, objects, strings."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidArgumentError(f"{what} must be a 1-d array, got shape {arr.shape}")
    if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
        raise InvalidArgumentError(f"{what} must hold integers, got dtype {arr.dtype}")
    return arr


def _first_bad(arr: np.ndarray, bad: np.ndarray) -> Any:
    return arr[int(np.argmax(bad))]


def check_csr(indptr: Any, indices: Any, weights: Any, *, allow_negative: bool = False,
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, weights) as contiguous int32 after every check (module doc);
    negative weights only with ``allow_negative`` (NegativeWeightsError otherwise)."""
    ip = _int_array(indptr, "indptr")
    ix = _int_array(indices, "indices")
    w = _int_array(weights, "weights")
    if ip.shape[0] < 1:
        raise InvalidArgumentError("indptr must have n + 1 >= 1 entries")
    n, m = ip.shape[0] - 1, ix.shape[0]
    if n > INT32_MAX - 1 or m > INT32_MAX:
        raise InvalidArgumentError(f"{n} vertices / {m} arcs exceed the int32 index range")
    if w.shape != ix.shape:
        raise InvalidArgumentError(
            f"weights ({w.shape[0]}) and indices ({m}) differ in length")
    if int(ip[0]) != 0 or int(ip[-1]) != m:
        raise InvalidArgumentError(
            f"indptr must run from 0 to the {m} arcs, got {int(ip[0])}..{int(ip[-1])}")
    if n and (np.diff(ip) < 0).any():
        k = int(np.argmax(np.diff(ip) < 0))
        raise InvalidArgumentError(
            f"indptr is not monotone: indptr[{k}] = {int(ip[k])} > indptr[{k + 1}] = "
            f"{int(ip[k + 1])}")
    if m:
        bad = (ix < 0) | (ix >= n)
        if bad.any():
            raise InvalidArgumentError(
                f"indices[{int(np.argmax(bad))}] = {int(_first_bad(ix, bad))} is outside "
                f"0..{n - 1}")
        if w.min() < 0 and not allow_negative:
            raise NegativeWeightsError(
                f"weights must be non-negative (this graph has an arc of weight "
                f"{int(w.min())})")
        if int(w.min()) < -INT32_MAX:
            raise InvalidArgumentError(
                f"weight {int(w.min())} does not fit the kernels' int32")
        if int(w.max()) > INT32_MAX:
            raise InvalidArgumentError(
                f"weight {int(w.max())} does not fit the kernels' int32 (at most {INT32_MAX})")
    return (np.ascontiguousarray(ip, dtype=np.int32), np.ascontiguousarray(ix, dtype=np.int32),
            np.ascontiguousarray(w, dtype=np.int32))


def check_vertex(v: Any, n: int, what: str = "source") -> int:
    """``v`` as an int in 0..n-1; InvalidArgumentError for floats (1.7 is not 1), bools,
    strings or out-of-range ids."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, np.integer)):
        raise InvalidArgumentError(f"{what} {v!r} is not an integer vertex id")
    v = int(v)
    if not 0 <= v < n:
        raise InvalidArgumentError(f"{what} {v} is outside 0..{n - 1}")
    return v


def check_vertices(values: Any, n: int, what: str = "sources", *,
                   allow_empty: bool = True) -> np.ndarray:
    """``values`` (an id or a 1-d list of ids) as int32 vertex ids in 0..n-1."""
    if np.ndim(values) == 0:  # one id: the message names it as such
        return np.array([check_vertex(values.item() if isinstance(values, np.ndarray)
                                      and values.dtype.kind in "iu" else values, n, what)],
                        dtype=np.int32)
    arr = _int_array(values, what)
    if not allow_empty and arr.size == 0:
        raise InvalidArgumentError(f"no {what} given")
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidArgumentError(f"{what}[{i}] = {int(arr[i])} is outside 0..{n - 1}")
    return arr.astype(np.int32)
