"""Loading any capability's CUDA sources (.cu files) with cupy.RawModule.

A capability passes the path of its .cu file (kept next to the Python module that uses
it, e.g. ``Path(__file__).with_name("sssp_bf.cu")``). ``common.cuh`` (this folder) is
prepended to every file (NVRTC has no file-system search path we rely on), so all kernels
share its 64-bit atomics, warp helpers, grid barrier, timer and relax helpers. Each module
is compiled once per (device, file, defines, cooperative) and memoised; the cache is
guarded by a lock because the app calls the core from a worker QThread.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from pathlib import Path

from .memory import current_device_id

COMMON = Path(__file__).resolve().with_name("common.cuh")
log = logging.getLogger(__name__)
_lock = threading.Lock()
_modules: dict[tuple, object] = {}
_sources: dict[str, str] = {}
_ahead: dict[tuple, threading.Thread] = {}  # modules compiling on threads (compile_ahead)


def _source(path: str) -> str:
    if path not in _sources:
        common = COMMON.read_text(encoding="utf-8")
        body = Path(path).read_text(encoding="utf-8")
        name = os.path.basename(path)
        _sources[path] = common + "\n#line 1 \"" + name + "\"\n" + body
    return _sources[path]


def get_module(cu_file: str | os.PathLike, *, defines: tuple[str, ...] = (),
               cooperative: bool = False):
    """The compiled RawModule of ``cu_file`` (common.cuh prepended) on the current device."""
    import cupy

    path = os.fspath(cu_file)
    key = (current_device_id(), path, defines, cooperative)
    with _lock:
        ahead = _ahead.get(key)
    if ahead is not None and ahead is not threading.current_thread():
        ahead.join()  # compiling on a thread (compile_ahead): wait for it, not twice
    with _lock:
        mod = _modules.get(key)
        if mod is None:
            opts = ("--std=c++17",) + tuple(f"-D{d}" for d in defines)
            mod = cupy.RawModule(code=_source(path), options=opts,
                                 enable_cooperative_groups=cooperative)
            _modules[key] = mod
            log.info("CUDA module %s%s on device %d (NVRTC compile or CuPy's kernel cache)",
                     os.path.basename(path), f" {' '.join(defines)}" if defines else "",
                     key[0])
        return mod


_functions: dict[tuple, object] = {}


def get_kernel(cu_file: str | os.PathLike, func: str, *, defines: tuple[str, ...] = (),
               cooperative: bool = False):
    """One kernel function of a module (see :func:`get_module`), memoised too: engines
    look kernels up inside their superstep loops."""
    key = (current_device_id(), os.fspath(cu_file), defines, cooperative, func)
    fn = _functions.get(key)
    if fn is None:
        t0 = time.perf_counter()
        fn = get_module(cu_file, defines=defines, cooperative=cooperative).get_function(func)
        log.debug("kernel %s of %s ready in %.1f ms", func, os.path.basename(key[1]),
                  (time.perf_counter() - t0) * 1e3)
        with _lock:
            fn = _functions.setdefault(key, fn)
    return fn


_FIRST_KERNEL = re.compile(r'extern\s+"C"\s+__global__\s+(?:void\s+)?'
                           r'(?:__launch_bounds__\([^)]*\)\s+)?(?:void\s+)?(\w+)\s*\(')


def compile_ahead(cu_file: str | os.PathLike, *, defines: tuple[str, ...] = (),
                  cooperative: bool = False, kernel: str = "") -> threading.Thread:
    """Compile ``cu_file``'s module on a thread now (see :func:`get_module`), so that a
    later first use finds it made. NVRTC lets go of the GIL: on a fresh machine (no CuPy
    kernel cache) the modules a job will use compile side by side and beside its host
    work, instead of one after another at each first launch (issue 41). A failure here
    is only logged: the first use compiles again and raises where it is handled.
    ``kernel``: a function the module has under ``defines`` (default: the file's first)."""
    path = os.fspath(cu_file)
    dev = current_device_id()
    key = (dev, path, defines, cooperative)
    with _lock:
        running = _ahead.get(key)
    if running is not None:
        return running

    def work() -> None:
        import cupy

        t0 = time.perf_counter()
        try:
            with cupy.cuda.Device(dev):
                found = _FIRST_KERNEL.search(_source(path))
                name = kernel or (found.group(1) if found is not None else "")
                if name:  # CuPy compiles a module at its first get_function
                    get_kernel(path, name, defines=defines, cooperative=cooperative)
        except Exception as exc:  # noqa: BLE001 - the first use reports it
            log.debug("compiling %s ahead failed: %s", os.path.basename(path), exc)
        else:
            log.debug("compiled %s ahead in %.2f s", os.path.basename(path),
                      time.perf_counter() - t0)
        finally:
            with _lock:
                _ahead.pop(key, None)

    th = threading.Thread(target=work, name=f"signpost-nvrtc-{os.path.basename(path)}",
                          daemon=True)
    with _lock:  # started before get_module can see it (a thread not started can't be joined)
        _ahead[key] = th
        th.start()
    return th
