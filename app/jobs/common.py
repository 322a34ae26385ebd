"""Types every job shares: progress and cancel callbacks."""

from __future__ import annotations

from collections.abc import Callable

# progress(fraction in [0, 1] or None when unknown, message)
Progress = Callable[[float | None, str], None]
# polled between steps; True asks the job to stop (it raises gpu_core.CancelledError)
CancelCheck = Callable[[], bool]


def report(progress: Progress | None, fraction: float | None, message: str) -> None:
    """Call ``progress`` when one was given."""
    if progress is not None:
        progress(fraction, message)
