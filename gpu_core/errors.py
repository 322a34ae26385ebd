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


class CancelledError(GpuCoreError):
    """A long computation was cancelled by its caller."""


class InvalidArgumentError(GpuCoreError, ValueError):
    """An argument (source id, strategy name, K, ...) is out of range or unknown."""
