"""The matrix job: least costs between origin and destination nodes (seed 000's
many-source SSSP). ``run`` holds the whole matrix (the window's OD table);
:func:`iter_rows` streams it chunk by chunk (``signpost matrix`` writes huge ones)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from .common import CancelCheck, Progress, refuse_negative, report


@dataclass(frozen=True)
class MatrixOptions:
    sources: tuple[int, ...]  # origin node indices (rows)
    targets: tuple[int, ...]  # destination node indices (columns)
    backend: str = "auto"
    variant: str = "auto"  # GPU many-source variant
    chunk: int | None = None  # origins per computed chunk (None: what fits memory)


@dataclass
class MatrixResult:
    matrix: np.ndarray  # int64 [F, T], -1 unreachable
    stats: dict = field(default_factory=dict)


def run(net, opts: MatrixOptions, *, progress: Progress | None = None,
        cancel: CancelCheck | None = None) -> MatrixResult:
    """The whole matrix (``net``: a RoadNetwork or a CSRGraph)."""
    from gpu_core.multi_source import distance_matrix

    refuse_negative(net, "a distance matrix")
    m = distance_matrix(net, np.asarray(opts.sources, dtype=np.int64),
                        np.asarray(opts.targets, dtype=np.int64), backend=opts.backend,
                        variant=opts.variant, chunk=opts.chunk, cancel=cancel,
                        on_progress=lambda d, t: report(progress, d / max(t, 1), ""))
    return MatrixResult(np.asarray(m))


def iter_rows(net, opts: MatrixOptions, *, cancel: CancelCheck | None = None,
              stats: dict | None = None) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, block of rows) chunk by chunk; ``stats`` receives backend and variant."""
    from gpu_core.multi_source import iter_distance_rows

    refuse_negative(net, "a distance matrix")
    return iter_distance_rows(net, np.asarray(opts.sources, dtype=np.int32),
                              targets=np.asarray(opts.targets, dtype=np.int32),
                              backend=opts.backend, variant=opts.variant, chunk=opts.chunk,
                              cancel=cancel, stats=stats)
