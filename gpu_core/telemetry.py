"""Per-phase telemetry: what every search records and the app charts live.

A phase is one synchronous step of a search (one RELAX+UPDATE round, one bucket round,
one settle step). For each phase we keep its index, the frontier size (vertices whose
distance was updated in it), the arcs relaxed, its time in microseconds and the launch
mode that ran it (``MODE_NAMES``).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

# Launch modes (what actually ran a phase); strategies map onto these.
MODE_NAMES = (
    "conventional",  # |V| threads / all-vertex scan
    "selection",  # frontier list only
    "switch",  # a selection phase that first rebuilt the list from the mask (SWITCH kernel)
    "eval_dijkstra",
    "bellman_ford_queue",
    "delta",
    "persistent",  # phases run inside one persistent launch
    "cpu",  # a CPU phase of a strategy without GPU-style modes
    # gpu_core.repair: the four steps of an incremental repair (one row each)
    "repair_invalidate",  # pred-subtrees below raised/closed tree arcs
    "repair_seed",  # boundary and improved-head keys of the invalidated part
    "repair_settle",  # the label-correcting search from the seeds
    "repair_pred",  # predecessors of every vertex whose key or in-arcs changed
    # gpu_core.indexed_sssp: a one-to-all search through the route index
    "phast_up",  # the upward search from the sources
    "phast",  # one level of the downward sweep
    "phast_pred",  # keys and predecessors in the graph's ids
)
MODE_CODE = {name: i for i, name in enumerate(MODE_NAMES)}

PHASE_DTYPE = np.dtype(
    [
        ("phase", np.int32),
        ("frontier", np.int64),
        ("edges", np.int64),
        ("time_us", np.float64),
        ("mode", np.uint8),
    ]
)


@dataclass
class PhaseLog:
    """A growable table of phases (structured numpy array underneath)."""

    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=PHASE_DTYPE))

    @classmethod
    def from_columns(cls, frontier, edges, time_us, mode, start: int = 0) -> PhaseLog:
        k = len(frontier)
        rows = np.zeros(k, dtype=PHASE_DTYPE)
        rows["phase"] = np.arange(start, start + k)
        rows["frontier"] = frontier
        rows["edges"] = edges
        rows["time_us"] = time_us
        rows["mode"] = mode
        return cls(rows)

    def extend(self, other: PhaseLog) -> None:
        self.rows = np.concatenate([self.rows, other.rows])

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    @property
    def total_edges(self) -> int:
        return int(self.rows["edges"].sum())

    @property
    def total_time_us(self) -> float:
        return float(self.rows["time_us"].sum())

    def mode_names(self) -> list[str]:
        return [MODE_NAMES[m] for m in self.rows["mode"].tolist()]

    def to_csv(self, path_or_buf=None) -> str | None:
        """CSV with header phase,frontier,edges,time_us,mode (mode as its name)."""
        buf = io.StringIO()
        buf.write("phase,frontier,edges,time_us,mode\n")
        for r, name in zip(self.rows.tolist(), self.mode_names(), strict=True):
            buf.write(f"{r[0]},{r[1]},{r[2]},{r[3]:.3f},{name}\n")
        text = buf.getvalue()
        if path_or_buf is None:
            return text
        from osutil.atomic import atomic_open

        with atomic_open(path_or_buf, "w") as fh:
            fh.write(text)
        return None
