"""``signpost matrix MAP --from a.csv --to b.csv --out m.csv|.npy``: a distance matrix.

Inputs: a CSV with a ``lon,lat`` header and one point per row (or a ``node`` header and
one node id of the map per row, for maps without coordinates), or GeoJSON / GeoPackage
points. Points are snapped like routes (``maps.points.resolve``/``maps.points.snap``: nearest road arc,
its nearer end node). An id column (--id-column; default the first column that is neither
lon/lat nor node) names each point in the output. Output: ``.csv`` with header
``from,to,cost,from_id,to_id`` and one row per pair (``from``/``to`` = the 0-based
data-row numbers of the inputs, ``cost`` the integer cost in the map's unit, EMPTY when
unreachable, the ids those of the id column, else the map's node ids), ``.parquet`` with
the same columns (cost null when unreachable; needs pyarrow), or ``.npy`` ([F, T], -1 unreachable;
int32 when every cost fits, i.e. the map's arc weights sum below 2^31, else int64) for
large matrices. ``--index`` (auto, on, off): the route index (a customizable contraction
hierarchy built once per map and cached; ``--close``/``--scenario`` only re-customize it)
makes large matrices on road maps ~100x faster; its build time is printed apart.

The matrix is computed and written chunk by chunk (it is never held whole), into a
temporary file beside ``--out`` that is renamed at the end: a failure or Ctrl-C leaves
no half-written output.

``--dask local|local:N|tcp://HOST:PORT`` computes blocks of origins on the workers of a
Dask cluster (several GPUs or hosts; ``pip install 'signpost[dask]'``): a ``.npy`` is written
in place by the workers where they all see its folder, else (and CSV/Parquet) the rows come
here and are written in source order as they finish; the same bytes as without it. ``--chunk`` is then the origins per
block. Its time counts from the first block submitted to the file written; the cluster's
start and each worker's map load are printed apart.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

import numpy as np

from app.cli import CliError, db_out
from app.cli._atomic import out_formats, out_paths

DESCRIPTION = __doc__.split("\n\n", 1)[1] if __doc__ else ""
OUT_EXT = (".csv", ".parquet", ".npy")  # in the order a refusal lists them


def register(sub) -> None:
    from gpu_core.multi_source import VARIANTS

    from ._common import (
        add_backend_argument,
        add_command,
        add_edit_arguments,
        add_index_argument,
        add_snap_argument,
        add_turn_penalty_argument,
    )
    from ._dask import add_dask_argument

    p = add_command(sub, "matrix", run,
                    "costs between two point lists (CSV/GeoJSON/GeoPackage in; CSV, Parquet "
                    "or .npy out)", DESCRIPTION, raw=True)
    p.add_argument("--from", dest="from_csv", required=True, metavar="A.csv",
                   help="origins: CSV with a lon,lat header (or node), GeoJSON or GeoPackage "
                        "points")
    p.add_argument("--to", dest="to_csv", required=True, metavar="B.csv",
                   help="destinations: as --from")
    p.add_argument("--out", required=True, metavar="M.csv|M.parquet|M.npy", help="output file")
    p.add_argument("--id-column", default=None, metavar="NAME",
                   help="column naming each point in the output (default: the first that "
                        "is neither lon/lat nor node)")
    add_backend_argument(p)
    p.add_argument("--variant", default="auto", choices=VARIANTS,
                   help="GPU many-source variant (default: the fastest)")
    add_snap_argument(p, "farthest a point may lie from a road, metres (default 1000)")
    p.add_argument("--chunk", type=int, default=None, metavar="ROWS",
                   help="origins per computed chunk, per block with --dask (default: what "
                        "fits memory)")
    add_index_argument(p)
    add_edit_arguments(p)
    add_turn_penalty_argument(p)
    add_dask_argument(p)
    db_out.add_arguments(p)
    out_formats(p, OUT_EXT)


def _note_duplicates(path: str, keys: list, nodes: np.ndarray) -> None:
    seen: dict = {}
    dup = []
    for i, k in enumerate(keys):
        if k in seen:
            dup.append((seen[k], i))
        else:
            seen[k] = i
    if dup:
        pairs = ", ".join(f"{a}={b}" for a, b in dup[:5]) + (" ..." if len(dup) > 5 else "")
        print(f"note: {path}: {len(dup)} duplicate point(s) (rows {pairs}); computed anyway",
              file=sys.stderr)
    same_node = len(nodes) - len(np.unique(nodes)) - len(dup)
    if same_node > 0:
        print(f"note: {path}: {same_node} more row(s) snap to a node another row already uses",
              file=sys.stderr)


def _fmt_bytes(n: int) -> str:
    x = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if x < 1024 or unit == "TiB":
            return f"{x:.1f} {unit}"
        x /= 1024
    return f"{n} B"


def _output_bytes(F: int, T: int, npy: bool) -> int:
    """Bytes the output will take: exact for .npy, a lower bound for CSV (each row
    ``from,to,cost`` has at least the digits of its row numbers, two commas and a newline)."""
    if npy:
        return F * T * 8 + 128
    return F * T * (len(str(max(F - 1, 0))) + len(str(max(T - 1, 0))) + 3)


def _check_disk(out_dir: str, F: int, T: int, npy: bool) -> None:
    """Refuse up front when the output cannot fit the disk (a memmap on a full disk would
    crash with SIGBUS, a CSV stop half-way)."""
    import shutil

    need = _output_bytes(F, T, npy)
    try:
        free = shutil.disk_usage(out_dir).free
    except OSError:
        return
    if need > free:
        raise CliError(
            f"the {F} x {T} matrix needs {'' if npy else 'at least '}{need} bytes "
            f"({_fmt_bytes(need)}) in {out_dir}, which has only {free} bytes "
            f"({_fmt_bytes(free)}) free" + ("" if npy else "; a .npy output is smaller")
        )


def _with_progress(rows, F: int, T: int):
    """The matrix's row blocks, advancing a progress bar of origins done."""
    from app.progress import step

    with step("matrix", total=F, unit="origins") as p:
        for r0, block in rows:
            yield r0, block
            p.advance(r0 + block.shape[0], f"{r0 + block.shape[0]:,}/{F:,} x {T:,}")


def _with_block_progress(rows, F: int, T: int, workers: int, hook: list):
    """The rows of a Dask run, with a bar of blocks done (in any order): ``hook`` gets the
    ``on_block(done, count)`` callback that advances it."""
    from app.progress import step

    with step(f"matrix on {workers} workers", unit="blocks") as p:
        def on_block(done: int, count: int) -> None:
            p.total = count
            p.advance(done, f"{done}/{count} blocks of {F:,} x {T:,}")

        hook.append(on_block)
        yield from rows


def _rows(net, opts, cl, stats: dict, F: int, T: int, narrow: bool = False):
    """The matrix's blocks of rows in source order, with a progress bar (the route index
    had first, under its own bar); ``narrow``: int32 blocks (a .npy of int32)."""
    from app.jobs import matrix
    from app.progress import step

    if cl is None:
        with step("route index") as p:  # a one-time build on a new map: its own bar
            it = matrix.iter_rows(net, opts, stats=stats, progress=p, narrow=narrow)
        return _with_progress(it, F, T)
    hook: list = []  # the bar's callback, set when the rows start
    with step("route index") as p:
        it = matrix.iter_rows(net, opts, stats=stats, progress=p, client=cl.client,
                              on_block=lambda done, count: hook[0](done, count))
    return _with_block_progress(it, F, T, cl.workers, hook)


def _npy_by_workers(net, opts, cl, tmp: str, shape: tuple[int, int], dtype,
                    stats: dict) -> int | None:
    """The unreachable count once the Dask workers wrote the rows straight into the .npy
    ``tmp`` (made here), or None when some worker does not see it (then the rows come
    here: :func:`_rows`)."""
    from app.jobs import matrix
    from app.jobs.distributed import workers_see
    from app.jobs.npy_rows import create_npy
    from app.progress import step

    create_npy(tmp, shape, dtype)  # header and size; the workers fill the rows
    if not workers_see(cl.client, tmp):
        return None
    with step("route index") as p:
        write = matrix.npy_by_workers(net, opts, cl.client, tmp, stats=stats, progress=p)
    if write is None:
        return None
    F, T = shape
    with step(f"matrix on {cl.workers} workers", unit="blocks") as p:
        def on_block(done: int, count: int) -> None:
            p.total = count
            p.advance(done, f"{done}/{count} blocks of {F:,} x {T:,}")

        return write(on_block)


def _copy_rows(args: argparse.Namespace, net, rows, from_ids: list, to_ids: list) -> int:
    """The CSV's rows COPYed into a new database table as they come (one transaction,
    renamed at commit); the unreachable count."""
    from .matrix_out import CsvRows

    cols = [("from", "integer"), ("to", "integer"), ("cost", "bigint"),
            ("from_id", db_out.id_type(from_ids)), ("to_id", db_out.id_type(to_ids))]
    unreachable = 0
    lines = CsvRows(from_ids, to_ids)
    with db_out.table(args, net, cols) as fh:
        fh.write(lines.header)
        for r0, block in rows:
            fh.write(lines.lines(r0, block))
            unreachable += int((block < 0).sum())
    return unreachable


def _write_rows(low: str, tmp: str, rows, shape: tuple[int, int], dtype, from_ids: list,
                to_ids: list, max_cost: int) -> int:
    """Write the blocks ``rows`` to ``tmp`` as .npy, .parquet or CSV; the unreachable count."""
    from .matrix_out import CsvRows, ParquetRows

    unreachable = 0
    if low.endswith(".npy"):  # written behind the search of the next rows
        from app.jobs.npy_rows import NpyRows, create_npy

        create_npy(tmp, shape, dtype)  # the header and the file's size
        with NpyRows(tmp) as out:
            for r0, block in rows:
                out.put(r0, block)
            unreachable = out.finish()
    elif low.endswith(".parquet"):
        pq = ParquetRows(tmp, from_ids, to_ids, max_cost)
        for r0, block in rows:
            pq.write(r0, block)
            unreachable += int((block < 0).sum())
        pq.close()
    else:
        lines = CsvRows(from_ids, to_ids)
        with open(tmp, "w", newline="") as fh:
            fh.write(lines.header)
            for r0, block in rows:
                fh.write(lines.lines(r0, block))
                unreachable += int((block < 0).sum())
    return unreachable


def _index_later(net, opts):
    """(the options to run, why the route index answers later or ""): a small map, or a
    large one asked for few sources, whose index kernels are not compiled yet is answered
    by scipy, and a background process builds the index (``app.jobs.index_later``: the
    same costs) once :func:`_start_index_later` is called."""
    from dataclasses import replace

    from app.jobs import index_later

    why = index_later.defer(net, opts)
    if not why:
        return opts, ""
    return replace(opts, index="off"), why


def _start_index_later(net, opts, why: str) -> str:
    """Start the background index build for ``opts``; ``why``, told when one was running
    already. Called once the matrix is written: the child, even niced, took a share of the
    2-core CPU from the searches (NE's first 100 x 100: 15.6-16.9 s with the child started
    before them, 12.2-16.2 s after, issue 41)."""
    from app.jobs import index_later

    if index_later.start_background(net, opts):
        return why
    return why.replace("is being built in a background process",  # one running, or none
                       "is being built by a background process already running (or "
                       "none could start)")


def run(args: argparse.Namespace) -> int:
    from ._dask import cluster

    # the cluster first: an unreachable scheduler fails before anything is read or written
    with cluster(args) as cl:
        return _run(args, cl)


def _run(args: argparse.Namespace, cl) -> int:
    from app.jobs import matrix
    from gpu_core.multi_source import available_memory
    from maps.points.resolve import read_points

    from ._common import edits_note, map_from_args

    out = args.out
    low = out.lower()
    to_db = db_out.wanted(args)
    if to_db:  # a file's extension and folder: the --out policy (_atomic)
        db_out.check(args)
    out_dir = os.path.dirname(os.path.abspath(out))
    if args.chunk is not None and args.chunk < 1:
        raise CliError(f"--chunk must be >= 1, got {args.chunk}")
    t0 = time.perf_counter()
    net = map_from_args(args)
    box: list = []  # one Snapper for both files
    src, dst = (read_points(p, net, max_distance_m=args.max_snap, snapper_box=box,
                            id_column=args.id_column)
                for p in (args.from_csv, args.to_csv))
    for path, read in ((args.from_csv, src), (args.to_csv, dst)):
        if read.note:
            print(f"note: {path}: {read.note}", file=sys.stderr)
        _note_duplicates(path, read.keys, read.nodes)
    from_ids, to_ids = src.row_ids(net), dst.row_ids(net)
    src_nodes, dst_nodes = src.nodes, dst.nodes
    F, T = int(src_nodes.shape[0]), int(dst_nodes.shape[0])
    nbytes = F * T * 8
    if nbytes > available_memory() // 2:
        hint = "" if low.endswith(".npy") else " (a .npy output is far smaller than CSV)"
        print(f"note: the {F} x {T} matrix is {nbytes} bytes ({_fmt_bytes(nbytes)}), more than "
              f"fits in memory: streaming it to disk in chunks{hint}", file=sys.stderr)
    if not low.endswith(".parquet") and not to_db:  # compressed: no useful bound
        _check_disk(out_dir, F, T, low.endswith(".npy"))
    stats: dict = {}
    opts = matrix.MatrixOptions(tuple(src_nodes.tolist()), tuple(dst_nodes.tolist()),
                                args.backend, args.variant, args.chunk, args.index)
    # every cost is at most the sum of all arc weights: int32 (-1 unreachable) when that fits
    from app.jobs.npy_rows import cost_dtype
    from app.jobs.npy_rows import max_cost as most_of

    max_cost = most_of(net.weights)
    dtype = cost_dtype(max_cost)
    narrow = dtype == np.int32
    opts, later = _index_later(net, opts) if cl is None else (opts, "")
    t_index = 0.0
    # failed or interrupted: the old file (table), no temp
    files = contextlib.nullcontext([None]) if to_db else out_paths([out], out)
    with files as (tmp,):
        unreachable = None
        if cl is not None and low.endswith(".npy") and not to_db:  # the workers write it where they see it
            assert tmp is not None  # out_paths: a temporary beside out
            unreachable = _npy_by_workers(net, opts, cl, tmp, (F, T), dtype, stats)
        if unreachable is None:
            t_index = time.perf_counter()
            rows = _rows(net, opts, cl, stats, F, T, narrow and low.endswith(".npy"))
            t_index = time.perf_counter() - t_index
            # the rows closed first (a Dask run cancels its outstanding blocks while its
            # client is still open)
            with contextlib.closing(rows):
                if to_db:
                    unreachable = _copy_rows(args, net, rows, from_ids, to_ids)
                else:
                    assert tmp is not None  # out_paths: a temporary beside out
                    unreachable = _write_rows(low, tmp, rows, (F, T), dtype, from_ids,
                                              to_ids, max_cost)
    el = time.perf_counter() - t0
    if later:
        # an edited map's closures are re-customized over the unedited map's index: the
        # child builds that one (the edited map's own would be a whole new topology)
        from dataclasses import replace

        base = getattr(args, "unedited", None)
        if base is not None:  # (an added link's new nodes are not the unedited map's)
            n0 = base.num_nodes
            opts = replace(opts, sources=tuple(v for v in opts.sources if int(v) < n0),
                           targets=tuple(v for v in opts.targets if int(v) < n0))
        later = _start_index_later(base or net, opts, later)
    idx = ""
    if stats.get("index", "none") != "none":  # the index's time apart from the search's
        how = {"cache": "loaded from the cache", "customized": "re-customized"}.get(
            stats["index"], stats["index"])
        idx = f"; route index {how} in {stats['index_s']:.2f} s, not counted"
        if "query" in stats:  # how the index was searched (issue 26)
            idx += f"; query {stats['query']}"
        el -= t_index
    if later:
        stats["index"] = "background"
        idx += f"; route index: {later}"
    if cl is not None:  # from the first block submitted to the file written
        from ._dask import describe

        el = time.perf_counter() - stats["dask_submit_t"]
        idx += f"; {describe(cl, stats['dask_map'])}, not counted; {stats['dask_output']}"
    print(f"wrote {out}: {F} x {T} costs in {net.unit} ({unreachable} unreachable), "
          f"backend {stats.get('backend', args.backend)} ({stats.get('variant', args.variant)}), "
          f"{el:.2f} s{idx}{edits_note(args)}")
    return 0
