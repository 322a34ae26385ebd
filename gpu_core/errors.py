"""Typed errors of the compute core."""

from __future__ import annotations


class GpuCoreError(Exception):
    """Base class of the compute core's errors."""


class BackendUnavailableError(GpuCoreError):
    """The requested backend (e.g. ``cupy``) cannot be used here; the message says why."""


class GpuOutOfMemoryError(GpuCoreError):
    """The device has too little free memory for the requested work.

    Raised before allocating, from a size estimate, or when an allocation fails; the
    caller may retry on the CPU backend.
    """

    def __init__(self, needed_bytes: int, free_bytes: int, what: str):
        super().__init__(
            f"GPU out of memory for {what}: needs {needed_bytes / 2**20:.1f} MiB, "
            f"{free_bytes / 2**20:.1f} MiB free"
        )
        self.needed_bytes = needed_bytes
        self.free_bytes = free_bytes


class MemoryLimitError(GpuCoreError):
    """Work whose projected host memory is more than this machine has available: refused
    in one line before it starts (issue 40), naming what, how much, and a way out;
    ``needed_bytes`` 0: memory ran out while it ran (a library's allocation failed)."""

    def __init__(self, what: str, needed_bytes: int, available_bytes: int, hint: str = ""):
        head = (f"{what} would need about {_gib(needed_bytes)} of memory, more than the "
                f"{_gib(available_bytes)} available" if needed_bytes else
                f"{what} ran out of memory ({_gib(available_bytes)} available now)")
        super().__init__(head + (f"; {hint}" if hint else ""))
        self.needed_bytes = needed_bytes
        self.available_bytes = available_bytes


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


class CancelledError(GpuCoreError):
    """A long computation was cancelled by its caller."""


class InvalidArgumentError(GpuCoreError, ValueError):
    """An argument (source id, strategy name, K, ...) is out of range or unknown."""


class NegativeWeightsError(InvalidArgumentError):
    """The graph has negative arc weights and the requested algorithm needs non-negative
    ones (Dijkstra-like strategies, matrices, billboards); the message names a way out."""


class NegativeCycleError(GpuCoreError):
    """A cycle of negative total weight is reachable from the source: no shortest path.

    ``arc`` is (u, v), vertex indices of one arc on the cycle; ``cycle`` the cycle's vertex
    indices in order (cycle[i] -> cycle[i+1], the last back to the first). Either may be
    None when only the detection is known (the sssp API fills them in). ``shown``: how the
    message names the arc's ends (e.g. the map file's node ids), the indices otherwise."""

    def __init__(self, arc: tuple[int, int] | None = None, cycle: list[int] | None = None,
                 shown: tuple | None = None):
        self.arc = arc
        self.cycle = cycle
        ends = shown if shown is not None else arc
        where = f" through arc {ends[0]}->{ends[1]}" if ends is not None else ""
        super().__init__(f"negative cycle{where}")
