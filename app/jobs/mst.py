"""Minimum spanning forest of a map (seed 003's Borůvka vertex program, or direct)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.jobs.common import CancelCheck, Progress, report


@dataclass(frozen=True)
class MSTOptions:
    backend: str = "auto"  # auto | cpu | cupy
    method: str = "framework"  # framework (the Borůvka vertex program, with its superstep
    # telemetry) | direct (direct Borůvka on the GPU, Kruskal on the CPU) | kruskal


@dataclass
class MSTResult:
    forest: object  # gpu_core.programs.MSTResult: node indices, weights, telemetry
    from_ids: np.ndarray  # source-file ids of each edge's smaller-index end
    to_ids: np.ndarray  # ... and of its other end
    unit: str
    nodes: int

    @property
    def edges(self) -> int:
        return self.forest.num_edges


def superstep_reporter(progress: Progress | None, what: str):
    """An on_superstep callback turning telemetry rows into progress messages."""
    if progress is None:
        return None

    def on_row(row) -> None:
        report(progress, None, f"{what}: superstep {int(row['superstep'])}, "
                               f"{int(row['active'])} active, {int(row['messages'])} messages")

    return on_row


def run(net, opts: MSTOptions, *, progress: Progress | None = None,
        cancel: CancelCheck | None = None) -> MSTResult:
    from gpu_core.programs import minimum_spanning_forest

    report(progress, 0.0, "minimum spanning forest")
    forest = minimum_spanning_forest(net, backend=opts.backend, method=opts.method,
                                     on_superstep=superstep_reporter(progress, "MST"),
                                     cancel=cancel)
    labels = net.node_labels()
    report(progress, 1.0, f"{forest.num_edges} forest edges")
    return MSTResult(forest, labels[forest.tails], labels[forest.heads], net.unit,
                     net.num_nodes)
