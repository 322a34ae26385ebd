"""Choosing between the CuPy (CUDA) and CPU backends, with the reason for the choice."""

from __future__ import annotations

import functools
import logging

from .errors import BackendUnavailableError

BACKENDS = ("auto", "cpu", "cupy")

log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1)
def cupy_status() -> tuple[bool, str]:
    """(usable, text): the GPU's name when CuPy and a device work, else why not."""
    try:
        import cupy  # noqa: F401
    except Exception as exc:  # ImportError, or a broken CUDA install
        return False, f"CuPy is not installed ({type(exc).__name__})"
    try:
        import cupy

        n = cupy.cuda.runtime.getDeviceCount()
        if n < 1:
            return False, "no CUDA device found"
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        cupy.zeros(1, dtype=cupy.int32).sum().item()  # a real round trip
        return True, name
    except Exception as exc:
        return False, f"CUDA device not usable: {exc}"


def resolve_backend(name: str = "auto") -> str:
    """'cpu' or 'cupy' for a requested backend; raises when 'cupy' cannot be used."""
    if name not in BACKENDS:
        raise BackendUnavailableError(
            f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}"
        )
    if name == "cpu":
        return "cpu"
    ok, why = cupy_status()
    if name == "cupy" and not ok:
        raise BackendUnavailableError(f"the cupy backend is not available: {why}")
    log.debug("backend %s -> %s (%s)", name, "cupy" if ok else "cpu", why)
    return "cupy" if ok else "cpu"


def describe_backend(name: str = "auto") -> str:
    """One line for status bars and benchmark headers, e.g. 'GPU: NVIDIA H100' or 'CPU (...)'."""
    ok, why = cupy_status()
    if name == "cpu":
        return "CPU (chosen)"
    return f"GPU: {why}{_pool_limit()}" if ok else f"CPU ({why})"


def _pool_limit() -> str:
    """" (CuPy memory limit 79.1 GiB)" where one is set (``CUPY_GPU_MEMORY_LIMIT``): the
    blocks are sized by it, so a benchmark's header says it beside the card (the status
    bar keeps the card, its tooltip the whole line)."""
    import cupy

    limit = int(cupy.get_default_memory_pool().get_limit())
    return f" (CuPy memory limit {limit / 2**30:.1f} GiB)" if limit > 0 else ""
