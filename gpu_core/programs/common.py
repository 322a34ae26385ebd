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


# The per-arc arrays of an engine, with the fill of their new entries (None: the
# backend's "dead" arc state).
ARC_ARRAYS = (("arc_tail", 0), ("arc_head", 0), ("arc_w", 0), ("arc_next", -1),
              ("arc_state", None), ("del_q", 0))


def grow_arc_arrays(xp, engine, new: int, dead_state: int) -> None:
    """Replace ``engine``'s per-arc arrays (numpy or CuPy, ``xp``) by copies of ``new``
    entries: the old ones first, then fills (arcs inserted later take them)."""
    for name, fill in ARC_ARRAYS:
        a = getattr(engine, name)
        out = xp.full(new, dead_state if fill is None else fill, dtype=a.dtype)
        out[: a.shape[0]] = a
        setattr(engine, name, out)
