"""What every capability's CUDA side shares: ``common.cuh`` (device helpers every kernel
includes), the kernel loader (``kernels``), memory checks (``memory``), the device-graph
cache (``graph``) and array operations without CuPy's generic kernels (``arrays``).

Importing this package does not import CuPy; the functions do, when called.
"""

from .csr import DeviceGraph, device_graph
from .kernels import compile_ahead, get_kernel, get_module
from .memory import current_device_id, ensure_free, free_memory, oom_as_typed

__all__ = [
    "DeviceGraph",
    "compile_ahead",
    "current_device_id",
    "device_graph",
    "ensure_free",
    "free_memory",
    "get_kernel",
    "get_module",
    "oom_as_typed",
]
