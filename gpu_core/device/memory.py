"""Device memory checks shared by every capability's CUDA side.

Every allocation a CUDA backend makes is preceded by :func:`ensure_free` (free memory from
``cudaMemGetInfo`` vs a size estimate), and CuPy's own out-of-memory error is turned into
:class:`gpu_core.errors.GpuOutOfMemoryError` by :func:`oom_as_typed`: the caller may retry
on the CPU backend. Tests monkeypatch :func:`free_memory` (this module's attribute) to
simulate a full device, so callers reach it as ``memory.free_memory()``, never by a name
imported into their own module.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..errors import GpuOutOfMemoryError

# Keep this much free beyond the estimate: CuPy's pool, the CUDA context and the kernels'
# own scratch need some, and memGetInfo is a snapshot.
HEADROOM_BYTES = 64 << 20


def _cupy():
    import cupy

    return cupy


def current_device_id() -> int:
    """The CUDA device current in *this* thread (CuPy keeps it per thread)."""
    return int(_cupy().cuda.runtime.getDevice())


def free_memory() -> tuple[int, int]:
    """(free, total) bytes of the current device that CuPy's pool may still take; tests
    monkeypatch this to simulate OOM.

    A pool limit (``CUPY_GPU_MEMORY_LIMIT``, ``MemoryPool.set_limit``: a GPU shared with
    other programs) caps both: sizes chosen from the card's own free memory would pass the
    limit and fail in the pool (a sweep block sized for 141 GB under an 80 GB cap)."""
    cp = _cupy()
    free, total = (int(x) for x in cp.cuda.runtime.memGetInfo())
    return pool_capped(free, total, cp.get_default_memory_pool())


def pool_capped(free: int, total: int, pool) -> tuple[int, int]:
    """(free, total) within ``pool``'s limit (0: none): the limit less what it holds."""
    limit = int(pool.get_limit())
    if limit <= 0:
        return free, total
    return max(0, min(free, limit - int(pool.total_bytes()))), min(total, limit)


def ensure_free(nbytes: int, what: str) -> None:
    """Raise GpuOutOfMemoryError unless ``nbytes`` (+ headroom) fit in free device memory.

    Memory held by CuPy's pool but unused counts as free (it will be reused first).
    """
    free, _ = free_memory()
    pool = _cupy().get_default_memory_pool()
    reusable = int(pool.total_bytes() - pool.used_bytes())
    if nbytes + HEADROOM_BYTES > free + reusable:
        raise GpuOutOfMemoryError(int(nbytes), int(free + reusable), what)


@contextlib.contextmanager
def oom_as_typed(what: str, nbytes: int = 0) -> Iterator[None]:
    """Turn CuPy's/CUDA's allocation failures inside the block into GpuOutOfMemoryError."""
    cp = _cupy()
    try:
        yield
    except cp.cuda.memory.OutOfMemoryError as exc:
        free, _ = free_memory()
        raise GpuOutOfMemoryError(int(nbytes), free, what) from exc
    except cp.cuda.runtime.CUDARuntimeError as exc:
        if "memory" in str(exc).lower():
            free, _ = free_memory()
            raise GpuOutOfMemoryError(int(nbytes), free, what) from exc
        raise
