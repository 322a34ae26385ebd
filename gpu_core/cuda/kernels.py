"""Loading the CUDA sources (.cu files beside this module) with cupy.RawModule.

Each module is compiled once per (device, file, options) and memoised; the cache is
guarded by a lock because the app calls the core from a worker QThread. ``common.cuh`` is
prepended to every file (NVRTC has no file system search path we rely on), so the .cu
files share the 64-bit atomics and warp helpers.
"""

from __future__ import annotations

import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
_lock = threading.Lock()
_modules: dict[tuple, object] = {}
_sources: dict[str, str] = {}


def _source(name: str) -> str:
    if name not in _sources:
        common = (HERE / "common.cuh").read_text(encoding="utf-8")
        body = (HERE / name).read_text(encoding="utf-8")
        _sources[name] = common + "\n#line 1 \"" + name + "\"\n" + body
    return _sources[name]


def get_module(name: str, *, defines: tuple[str, ...] = (), cooperative: bool = False):
    """The compiled RawModule of ``gpu_core/cuda/<name>`` on the current device."""
    import cupy

    from .device import current_device_id

    dev = current_device_id()
    key = (dev, name, defines, cooperative)
    with _lock:
        mod = _modules.get(key)
        if mod is None:
            opts = ("--std=c++17",) + tuple(f"-D{d}" for d in defines)
            mod = cupy.RawModule(code=_source(name), options=opts,
                                 enable_cooperative_groups=cooperative)
            _modules[key] = mod
        return mod


def get_kernel(name: str, func: str, **kw):
    """One kernel function (RawKernel) of a module; see :func:`get_module`."""
    return get_module(name, **kw).get_function(func)
