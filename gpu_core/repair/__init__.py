"""Incremental repair of shortest-path trees after map edits (issue 15).

``repair(graph, previous, edits)`` gives ``gpu_core.sssp``'s exact result on an edited
:class:`~gpu_core.dynamic.MutableGraph` by re-settling only what the edits touch (or a
fresh search when that is large); ``repair_rows`` does the same for many-source distance
rows. ``api`` (public functions, the correctness argument), ``plan`` (the host-side
preparation both backends share), ``cpu`` (numba), ``cuda`` + ``repair.cu``, and ``buffers`` (recycled host result
arrays, device copies kept per result).
"""

from .api import (
    RepairOptions,
    RepairResult,
    compile_host_passes,
    kernels_ready,
    repair,
    repair_rows,
)

__all__ = ["RepairOptions", "RepairResult", "compile_host_passes", "kernels_ready", "repair",
           "repair_rows"]
