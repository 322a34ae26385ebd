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
    index: str = "auto"  # route index policy (app.jobs.index): auto, on, off


@dataclass
class MatrixResult:
    matrix: np.ndarray  # int64 [F, T], -1 unreachable
    stats: dict = field(default_factory=dict)


def run(net, opts: MatrixOptions, *, progress: Progress | None = None,
        cancel: CancelCheck | None = None) -> MatrixResult:
    """The whole matrix (``net``: a RoadNetwork or a CSRGraph)."""
    from gpu_core.multi_source import distance_matrix

    refuse_negative(net, "a distance matrix")
    h, info = _index(net, opts, progress, cancel)
    m = distance_matrix(net, np.asarray(opts.sources, dtype=np.int64),
                        np.asarray(opts.targets, dtype=np.int64), backend=opts.backend,
                        variant=opts.variant, chunk=opts.chunk, cancel=cancel,
                        on_progress=lambda d, t: report(progress, d / max(t, 1), ""),
                        hierarchy=h)
    return MatrixResult(np.asarray(m), info.as_dict())


def _index(net, opts: MatrixOptions, progress, cancel):
    """The route index this job uses (none for variants that do not sweep one)."""
    from .index import IndexInfo, hierarchy_for

    if opts.variant not in ("auto", "phast"):
        return None, IndexInfo()
    policy = "on" if opts.variant == "phast" and opts.index == "auto" else opts.index
    return hierarchy_for(net, policy=policy, sources=len(opts.sources), progress=progress,
                         cancel=cancel)


def iter_rows(net, opts: MatrixOptions, *, cancel: CancelCheck | None = None,
              stats: dict | None = None, progress: Progress | None = None,
              ) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, block of rows) chunk by chunk; ``stats`` receives backend, variant and
    how the route index was had (its load or build time apart from the search)."""
    from gpu_core.multi_source import iter_distance_rows

    refuse_negative(net, "a distance matrix")
    h, info = _index(net, opts, progress, cancel)
    if stats is not None:
        stats.update(info.as_dict())
    return iter_distance_rows(net, np.asarray(opts.sources, dtype=np.int32),
                              targets=np.asarray(opts.targets, dtype=np.int32),
                              backend=opts.backend, variant=opts.variant, chunk=opts.chunk,
                              cancel=cancel, stats=stats, hierarchy=h)
