"""Least costs only, with some vertices' costs folded into others' (issue 39).

``costs(graph, source, fold=...)`` is ``sssp(graph, source).dist`` (-1 where unreached)
without the predecessors, read over the fold's outputs: the vertices not listed in
``fold.extra``, in their order, each the least cost over itself and the extra vertices
that fold into it. A turn-restricted map searched in its copies-near numbering is the
case (``app.jobs.turn_search``: the turn copies fold into the file's nodes). On the GPU
the fold runs on the device and only the outputs' costs come back (``cuda/costs.py``):
a turn-restricted one-to-all otherwise downloads keys and predecessors of every copy and
folds them on the host, milliseconds against a search of about ten.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidArgumentError
from ..graph import GraphLike
from .api import PreparedSearch, _as_sources


@dataclass(eq=False)
class CostFold:
    """``extra``: int vertices that are not outputs; ``into``: the output (its index among
    the outputs) each of them folds into. Kept with its map: its device copies are made
    once per device (``device_arrays``)."""

    extra: np.ndarray
    into: np.ndarray
    device_arrays: dict = field(default_factory=dict, repr=False)


def fold_costs(dist: np.ndarray, fold: CostFold | None) -> np.ndarray:
    """int64 costs (-1: unreached) folded on the host: -1 read as the largest uint64, so a
    minimum never picks an unreached vertex over a reached one."""
    if fold is None:
        return dist
    d = dist.view(np.uint64)
    keep = np.ones(d.shape[0], dtype=bool)
    keep[fold.extra] = False
    out = d[keep]
    np.minimum.at(out, fold.into, d[fold.extra])
    return out.view(np.int64)


def costs(graph: GraphLike, source: int | Sequence[int] | np.ndarray, *,
          strategy: str = "auto", backend: str = "auto",
          fold: CostFold | None = None) -> np.ndarray:
    """int64 least costs from ``source`` (a vertex or a set) to every output of ``fold``
    (every vertex when None), -1 where unreached, by ``strategy`` on ``backend`` (the fold
on the device for ``auto`` on the GPU).
    Graphs with negative arcs are refused (-1 is a real cost there: use ``sssp``)."""
    search = PreparedSearch(graph, strategy=strategy, backend=backend, source=source)
    ks = search.key_space
    if ks.negative:
        raise InvalidArgumentError("costs() takes graphs without negative arcs; "
                                   "use sssp() and its SSSPResult.unreachable")
    if search.backend == "cupy" and search.name == "auto":
        from .cuda.context import Recorder
        from .cuda.costs import costs as run

        src = _as_sources(source, search.num_nodes)
        return run(search.graph, src, ks, search.run_options, fold,
                   Recorder("auto", None, None))
    return fold_costs(search.run(source).dist, fold)
