"""The matrix job: least costs between origin and destination nodes (seed 000's
many-source SSSP). ``run`` holds the whole matrix (the window's OD table);
:func:`iter_rows` streams it chunk by chunk (``signpost matrix`` writes huge ones)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from gpu_core.host.fold import fold_block
from maps.model.turns import with_copy_targets

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
    from gpu_core.multi_source import multi_source_sssp

    refuse_negative(net, "a distance matrix")
    h, info = _index(net, opts, progress, cancel)
    turns = with_copy_targets(net, opts.targets)  # turn copies of targets (maps.model.turns)
    targets = np.asarray(opts.targets if turns is None else turns[0], dtype=np.int64)
    res = multi_source_sssp(net, np.asarray(opts.sources, dtype=np.int64),
                            targets=targets,
                            backend=opts.backend, variant=opts.variant, chunk=opts.chunk,
                            cancel=cancel,
                            on_progress=lambda d, t: report(progress, d / max(t, 1), ""),
                            hierarchy=h)
    stats = info.as_dict()
    if "query" in res.extra:  # how the route index was searched (phast, rphast, buckets)
        stats["query"] = res.extra["query"]
    dist = np.asarray(res.dist)
    if turns is not None:
        dist = fold_block(dist, (len(opts.targets), turns[1]))
    return MatrixResult(dist, stats)


def _index(net, opts: MatrixOptions, progress, cancel):
    """The route index this job uses (none for variants that do not sweep one)."""
    from .index import IndexInfo, hierarchy_for

    if opts.variant not in ("auto", "phast"):
        return None, IndexInfo()
    policy = "on" if opts.variant == "phast" and opts.index == "auto" else opts.index
    return hierarchy_for(net, policy=policy, sources=len(opts.sources), progress=progress,
                         cancel=cancel, backend=opts.backend)


def iter_rows(net, opts: MatrixOptions, *, cancel: CancelCheck | None = None,
              stats: dict | None = None, progress: Progress | None = None,
              client=None, on_block=None, narrow: bool = False,
              ) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, block of rows) chunk by chunk; ``stats`` receives backend, variant and
    how the route index was had (its load or build time apart from the search).
    ``narrow``: int32 blocks (every cost fits; made so on the GPU), in this process only.

    ``client`` (a ``distributed.Client``): the rows are computed by its workers in blocks
    of ``opts.chunk`` origins (default: sized to the workers) and come back in source
    order, the same bytes as here (``app.jobs.distributed``); ``on_block(done, blocks)``
    as blocks finish, in any order."""

    refuse_negative(net, "a distance matrix")
    turns = with_copy_targets(net, opts.targets)  # turn copies of targets (maps.model.turns)
    if turns is not None:  # their columns folded into the targets' (on the GPU: there)
        wide = replace(opts, targets=tuple(turns[0].tolist()))
        return _rows(net, wide, cancel, stats, progress, client, on_block, narrow,
                     fold=(len(opts.targets), turns[1]))
    return _rows(net, opts, cancel, stats, progress, client, on_block, narrow)


def _rows(net, opts: MatrixOptions, cancel, stats, progress, client, on_block, narrow,
          fold=None):
    from gpu_core.host.fold import fold_rows
    from gpu_core.multi_source import iter_distance_rows

    if client is not None:
        return fold_rows(_distributed_rows(net, opts, client, stats, progress, cancel,
                                           on_block), fold)
    h, info = _index(net, opts, progress, cancel)
    if stats is not None:
        stats.update(info.as_dict())
    return iter_distance_rows(net, np.asarray(opts.sources, dtype=np.int32),
                              targets=np.asarray(opts.targets, dtype=np.int32),
                              backend=opts.backend, variant=opts.variant, chunk=opts.chunk,
                              cancel=cancel, stats=stats, hierarchy=h, narrow=narrow,
                              fold=fold)


def _distributed_setup(net, opts: MatrixOptions, client, stats, progress, cancel) -> dict:
    """The keyword arguments of ``distributed.matrix_rows``/``matrix_to_npy`` for ``opts``:
    the workers' backend and the route index, resolved (loaded, or built once and cached)
    here, where the policy is decided; the workers read its file or receive it once."""
    from .distributed import worker_backend

    backend = worker_backend(client, opts.backend)
    h, info = _index(net, opts, progress, cancel)
    if stats is not None:
        v = "phast" if h is not None else (
            opts.variant if opts.variant != "auto" else "batched")
        stats.update(info.as_dict(), variant=v if backend == "cupy" or v == "phast" else "scipy")
    return {"backend": backend, "variant": opts.variant, "hierarchy": h,
            "index_path": info.path, "block": opts.chunk, "stats": stats}


def _distributed_rows(net, opts: MatrixOptions, client, stats, progress, cancel, on_block):
    from .distributed import matrix_rows

    kw = _distributed_setup(net, opts, client, stats, progress, cancel)
    return matrix_rows(client, net, np.asarray(opts.sources, dtype=np.int32),
                       np.asarray(opts.targets, dtype=np.int32), on_block=on_block, **kw)


def npy_by_workers(net, opts: MatrixOptions, client, path: str, *, stats: dict | None = None,
                   progress: Progress | None = None, cancel: CancelCheck | None = None,
                   ) -> Callable[[Callable[[int, int], None] | None], int] | None:
    """When every worker of ``client`` sees ``path`` (a ``.npy`` of shape [F, T] the caller
    made with ``npy_rows.create_npy``, in the dtype :func:`iter_rows` would write: int32 when
    the map's weights sum below 2^31), ``write(on_block)``, which has the workers write
    their blocks of rows straight into it and returns the unreachable count; else None
    (then stream :func:`iter_rows` with the client instead). The route index is had here,
    before ``write`` is returned."""
    from .distributed import matrix_to_npy, workers_see

    refuse_negative(net, "a distance matrix")
    if not workers_see(client, path) or with_copy_targets(net, opts.targets) is not None:
        return None  # turn copies among the targets: the streamed rows fold them
    kw = _distributed_setup(net, opts, client, stats, progress, cancel)

    def write(on_block: Callable[[int, int], None] | None = None) -> int:
        return matrix_to_npy(client, net, np.asarray(opts.sources, dtype=np.int32),
                             np.asarray(opts.targets, dtype=np.int32), path,
                             on_block=on_block, **kw)

    return write


def _csv_cell(v) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow([v])
    return buf.getvalue()


class CsvRows:
    """``from,to,cost,from_id,to_id`` lines: ``from`` / ``to`` the 0-based row of each
    point in its list, ``cost`` empty when unreachable, ``from_id`` / ``to_id`` each
    point's id. The one matrix CSV format: `signpost matrix --out m.csv` and the window's
    OD export both write it (issue 42: they shared a header with different meanings)."""

    header = "from,to,cost,from_id,to_id\n"

    def __init__(self, from_ids: list, to_ids: list):
        self.fi = [_csv_cell(v) for v in from_ids]
        self.ti = [_csv_cell(v) for v in to_ids]

    def lines(self, r0: int, block: np.ndarray) -> str:
        out = []
        ti = self.ti
        for i in range(block.shape[0]):
            fr = r0 + i
            fid = self.fi[fr]
            out.append("".join(
                f"{fr},{j},{c},{fid},{ti[j]}\n" if c >= 0 else f"{fr},{j},,{fid},{ti[j]}\n"
                for j, c in enumerate(block[i].tolist())
            ))
        return "".join(out)
