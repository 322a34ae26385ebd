"""What every backend of the vertex-program layer shares: the telemetry row and the
typed error of an exhausted message or arc pool."""

from __future__ import annotations

import numpy as np

from ..errors import GpuCoreError

# One row per superstep: vertices that ran compute, messages sent (after combining),
# live arcs after the superstep's topology edits, wall time.
SUPERSTEP_DTYPE = np.dtype(
    [
        ("superstep", np.int32),
        ("active", np.int64),
        ("messages", np.int64),
        ("arcs", np.int64),
        ("time_us", np.float64),
    ]
)


class PoolExhaustedError(GpuCoreError):
    """A vertex program sent more messages (or inserted more arcs) in one superstep than
    the bound it declared; the engine raises instead of dropping anything."""


def telemetry_rows(rows: list[tuple]) -> np.ndarray:
    """Structured array (SUPERSTEP_DTYPE) from (superstep, active, messages, arcs, time_us)."""
    return np.array(rows, dtype=SUPERSTEP_DTYPE) if rows else np.zeros(0, SUPERSTEP_DTYPE)
