"""Array operations of the GPU's draw paths without CuPy's generic kernels.

CuPy compiles each of its generic kernels (a fill with a non-zero value, fancy indexing,
``concatenate``, ``astype``) with NVRTC at its first use in a process, with CuPy's own
headers: on a fresh machine (no kernel cache) each costs a compilation on the command's
thread. The sampled billboards' draws through a route index used five of them, a fresh
machine's first GPU answer waiting on each in turn (issue 41), and the exact billboards'
rounds two more (a sum over rows, a strided copy). Here they are copies (``concat``) or
kernels of one small module (``arrays.cu``), which ``compile_ahead`` compiles on a thread
with the draw's own modules. Importing this module imports no CuPy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .kernels import get_kernel as _kernel

SRC = Path(__file__).resolve().with_name("arrays.cu")
THREADS = 256
_NAMES = {np.dtype(np.int32): "i32", np.dtype(np.int64): "i64"}


def _grid(work: int) -> tuple[int]:
    return (max(1, min(-(-work // THREADS), 1 << 16)),)


def fill(a, value: int) -> None:
    """Every element of the contiguous device array ``a`` set to ``value`` (0: a memset)."""
    if a.size == 0:
        return
    suffix = _NAMES.get(np.dtype(a.dtype))
    if not a.flags.c_contiguous:
        a.fill(value)  # a strided view (not on the draw paths): a memset would run over it
    elif int(value) == 0:
        a.data.memset_async(0, a.nbytes)
    elif suffix is None:
        a.fill(value)  # not on the draw paths
    else:
        _kernel(SRC, "fill_" + suffix)(_grid(a.size), (THREADS,),
                                       (a, np.int64(a.size), a.dtype.type(value)))


def concat(cp, parts: list, dtype) -> object:
    """One device array of ``dtype`` from 1-D ``parts`` (device or host arrays), in order:
    device parts of ``dtype`` are copied on the device, host parts uploaded."""
    dtype = np.dtype(dtype)
    out = cp.empty(sum(int(p.shape[0]) for p in parts), dtype=dtype)
    pos = 0
    for p in parts:
        k = int(p.shape[0])
        if not k:
            continue
        view = out[pos:pos + k]
        if isinstance(p, np.ndarray):
            view.set(np.ascontiguousarray(p, dtype=dtype))
        elif p.dtype == dtype and p.flags.c_contiguous:
            view.data.copy_from_device_async(p.data, k * dtype.itemsize)
        else:
            view[...] = p  # another dtype or layout: CuPy's copy (not on the draw paths)
        pos += k
    return out


def gather_columns(cp, block, n: int, K: int, cols: np.ndarray):
    """``block.reshape(n, K)[:, cols]`` as a new device array [n, len(cols)] (``block``:
    the flat int32 or int64 device block; ``cols``: host column numbers)."""
    suffix = _NAMES[np.dtype(block.dtype)]
    ncols = int(cols.shape[0])
    out = cp.empty((n, ncols), dtype=block.dtype)
    if n and ncols:
        d_cols = cp.asarray(np.ascontiguousarray(cols, dtype=np.int32))
        _kernel(SRC, "gather_columns_" + suffix)(
            _grid(n * ncols), (THREADS,),
            (block, np.int32(K), np.int64(n), d_cols, np.int32(ncols), out))
    return out


def sum_rows(cp, a):
    """``a.sum(axis=0)`` of a C-contiguous float64 device array [rows, ...], the rows added
    in order (a new device array of ``a.shape[1:]``)."""
    rows = int(a.shape[0])
    out = cp.empty(a.shape[1:], dtype=np.float64)
    cols = int(out.size)
    if cols:
        _kernel(SRC, "sum_rows_f64")(_grid(cols), (THREADS,),
                                     (a, np.int64(rows), np.int64(cols), out))
    return out
