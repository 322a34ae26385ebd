"""``signpost bench dask``: a matrix (and sampled billboards) in one process vs on Dask
clusters of W workers (issue 17's measure).

    signpost bench dask --map NE.gr.xz --sizes 10000 --workers 1,2 --billboards 20 \\
        --epsilon 0.05 --out bench_out/

For each size K: K seeded random origins and K destinations; one process
(``app.jobs.matrix.iter_rows``) writes them to a ``.npy`` file, then for each W a cluster
(``--dask local:W``: one worker per GPU on a GPU machine, else W single-threaded CPU
processes; or ``--scheduler tcp://HOST:PORT`` for a running one) does the same. Reported
apart: the cluster's start, the map's trip to the workers (by file or shipped) with each
worker's load, index and kernel times, then the timed part: from the first block
submitted to the file written. Every file is compared byte for byte with the one-process
file (exit status 1 on a difference); billboards compare sites and gains. The ``note``
column names the mode each row ran: the matrix rows "written by workers" into the .npy in
place (where they see the output folder) or "shipped to the client"
(``--matrix-output``, default both); the billboards' "paths kept on workers" (the greedy
as K rounds of summed per-vertex counts) or "shipped to the client"
(``--billboards-paths``, default kept). Prints a table and writes ``dask_bench.csv``. The one-process runs are warmed up (kernels, device graph)
like the workers.
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from gpu_core.betweenness import BillboardResult


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", required=True, help="map file (cached .spn read by the workers) "
                   "or gen:KIND[:N] (shipped to them)")
    p.add_argument("--sizes", default="1000", help="comma-separated K: a K x K matrix each")
    p.add_argument("--workers", default="1,2", help="comma-separated worker counts W")
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"))
    p.add_argument("--index", default="auto", choices=("auto", "on", "off"),
                   help="route index policy of the matrix job (default auto)")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="a running scheduler instead of local clusters (W is then ignored)")
    p.add_argument("--billboards", type=int, default=0, metavar="K",
                   help="also sampled billboards with K sites (0: none)")
    p.add_argument("--epsilon", type=float, default=0.1, help="billboards: epsilon")
    p.add_argument("--matrix-output", default="both", choices=("written", "shipped", "both"),
                   help="matrix: rows written into the .npy by the workers (where they see "
                        "it), shipped to the client and written there, or both (default)")
    p.add_argument("--billboards-paths", default="kept", choices=("kept", "shipped", "both"),
                   help="billboards, fixed plan: paths kept on the workers (the greedy as "
                        "rounds of per-vertex counts; default), shipped to the client, or both")
    p.add_argument("--sampling", default="fixed", choices=("fixed", "progressive"),
                   help="billboards: the fixed plan (default, as the earlier rows) or the "
                        "progressive rounds (each round's blocks on the workers)")
    p.add_argument("--seed", type=int, default=1, help="seed of the node sets")
    p.add_argument("--out", default="bench_out", help="folder for dask_bench.csv and .npy")


def _load(spec: str, seed: int):
    if spec.startswith("gen:"):
        from app.bench.sssp import _load as gen_load

        return gen_load(spec, seed)
    from maps.load import load_map

    return load_map(spec), os.path.basename(spec)  # cached: the workers read the .spn


def _write_npy(path: Path, rows, F: int, T: int, narrow: bool) -> None:
    """As ``signpost matrix --out M.npy`` writes it (``npy_rows.NpyRows``, flushed)."""
    from app.jobs.npy_rows import NpyRows, create_npy

    create_npy(str(path), (F, T), np.int32 if narrow else np.int64)  # header, size
    with NpyRows(str(path)) as out:
        for r0, block in rows:
            out.put(r0, block)
        out.finish()


def _row(**kw) -> dict:
    base = {"job": "", "size": "", "workers": "", "cluster": "", "start_s": "", "ship_s": "",
            "worker_load_s": "", "worker_index_s": "", "worker_warm_s": "", "seconds": "",
            "speedup": "", "same": "", "note": "", "worker_busy": ""}
    base.update({k: (f"{v:.3f}" if isinstance(v, float) else v) for k, v in kw.items()})
    return base


def _print(rows: list[dict]) -> None:
    cols = [c for c in rows[0] if any(str(r[c]) for r in rows)]
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in cols), flush=True)


def _per_worker(stats: dict, key: str) -> str:
    return " ".join(f"{s[key]:.2f}" for s in stats.values())


def _busy(busy: dict, seconds: float) -> str:
    """Where each worker's part of the timed run went: seconds per kind of work
    (``dask_worker.take_busy``) and ``wait``, the run's seconds outside its tasks (blocks
    not yet given to it, the client's rounds), then its search counts in parentheses
    (sweeps, 64-bit re-sweeps, K, query); workers separated by " | "."""
    parts = []
    for kinds in busy.values():
        text = " ".join(f"{k} {v:.2f}" for k, v in sorted(kinds.items())
                        if k not in ("tasks", "counts"))
        counts = " ".join(f"{k}={v}" for k, v in sorted(kinds.get("counts", {}).items()))
        parts.append(f"{text} wait {max(0.0, seconds - kinds.get('tasks', 0.0)):.2f}"
                     + (f" ({counts})" if counts else ""))
    return " | ".join(parts)


def _sweep_counts(stats: dict) -> str:
    """The one process's search counts, as the workers' breakdown shows theirs."""
    from app.jobs.dask_worker import SWEEP_FACTS, SWEEP_TOTALS

    got = " ".join(f"{k}={stats[k]}" for k in SWEEP_FACTS[1:] + SWEEP_TOTALS if k in stats)
    return f" ({got})" if got else ""


def _matrix_rows(net, src, tgt, args, out: Path, clusters) -> list[dict]:
    from app.jobs import matrix

    F = T = len(src)
    from app.jobs.npy_rows import cost_dtype, max_cost

    narrow = cost_dtype(max_cost(net.weights)) == np.int32
    opts = matrix.MatrixOptions(tuple(src.tolist()), tuple(tgt.tolist()), args.backend,
                                index=args.index)
    stats: dict = {}
    rows = matrix.iter_rows(net, opts, stats=stats, narrow=narrow)  # the index: not timed
    warm = matrix.MatrixOptions(opts.sources[:1], opts.targets[:1], args.backend,
                                index=args.index)
    for _ in matrix.iter_rows(net, warm, narrow=narrow):  # kernels, device graph, index
        pass
    one = out / f"matrix_{F}_one.npy"
    t0 = time.perf_counter()
    _write_npy(one, rows, F, T, narrow)
    base = time.perf_counter() - t0
    _free_device()
    table = [_row(job="matrix", size=F, workers="one process", seconds=base,
                  note=f"{stats.get('backend')} {stats.get('variant')}; index "
                       f"{stats.get('index')} {stats.get('index_s', 0):.2f} s"
                       + _sweep_counts(stats))]
    modes = ("written", "shipped") if args.matrix_output == "both" else (args.matrix_output,)
    for cl in clusters():
        for mode in modes:
            st: dict = {}
            got = out / f"matrix_{F}_dask{cl.workers}.npy"
            t_ship = time.perf_counter()
            if not _dask_npy(net, opts, cl.client, got, F, T, narrow, st, mode):
                continue  # the workers do not see the output folder: no "written" row
            secs = time.perf_counter() - st["dask_submit_t"]
            ws = st["dask_worker_stats"]
            same = one.read_bytes() == got.read_bytes()
            table.append(_row(job="matrix", size=F, workers=cl.workers, cluster=cl.kind,
                              start_s=cl.start_s, ship_s=st["dask_submit_t"] - t_ship,
                              worker_load_s=_per_worker(ws, "load_s"),
                              worker_index_s=_per_worker(ws, "index_s"),
                              worker_warm_s=_per_worker(ws, "warm_s"), seconds=secs,
                              speedup=f"{base / secs:.2f}x", same="yes" if same else "NO",
                              note=f"{st['dask_output']}; {st['dask_blocks']} blocks of "
                                   f"{st['dask_block_rows']}; map "
                                   f"{next(iter(ws.values()))['how']}",
                              worker_busy=_busy(st.get("dask_busy", {}), secs)))
            got.unlink()
    one.unlink()
    return table


def _dask_npy(net, opts, client, got: Path, F: int, T: int, narrow: bool, st: dict,
              mode: str) -> bool:
    """Write the matrix to ``got`` on the cluster: the workers write the rows in place
    (``mode`` "written"; False when they do not see the file) or ship them here."""
    from app.jobs import matrix
    from app.jobs.npy_rows import create_npy

    if mode == "written":
        create_npy(str(got), (F, T), np.int32 if narrow else np.int64)
        write = matrix.npy_by_workers(net, opts, client, str(got), stats=st)
        if write is None:
            got.unlink()
            return False
        write(None)  # the map shipped and loaded first: timed apart from the work
        return True
    it = matrix.iter_rows(net, opts, stats=st, client=client)
    first = next(it)  # the map shipped and loaded first: timed apart from the work
    _write_npy(got, _chain(first, it), F, T, narrow)
    return True


def _free_device() -> None:
    """Give back this process's CuPy memory pools after its one-process runs: a local
    cluster's first worker shares this GPU, and its samplers size their chunks by the
    memory free there."""
    import sys

    cp = sys.modules.get("cupy")
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()


def _chain(first, it):
    yield first
    yield from it


def _billboard_rows(net, args, clusters) -> list[dict]:
    from app.jobs import billboards

    opts = billboards.BillboardsOptions(args.billboards, backend=args.backend,
                                        method="sampled", epsilon=args.epsilon,
                                        seed=args.seed, index=args.index,
                                        sampling=args.sampling)
    billboards.warm_up(opts)
    ref = billboards.run(net, opts)
    mine = _greedy(ref)
    _free_device()
    table = [_row(job=f"billboards K={args.billboards} eps={args.epsilon}",
                  workers="one process", seconds=ref.time_s,
                  note=f"{mine.samples} samples, {mine.kernel}; " + _phases(mine))]
    modes = (True, False) if args.billboards_paths == "both" else (
        args.billboards_paths == "kept",)
    if args.sampling == "progressive":  # the rounds ship their paths (RoundsDraw)
        modes = (False,)
    for cl in clusters():
        for keep in modes:
            t0 = time.perf_counter()
            got = billboards.run(net, opts, client=cl.client, keep_paths=keep)
            theirs = _greedy(got)
            same = (list(theirs.sites) == list(mine.sites)
                    and np.array_equal(theirs.gains, mine.gains))
            d = got.dask
            rounds = (f"; greedy rounds {sum(d['rounds_s']):.2f} s in all"
                      if "rounds_s" in d else "")
            table.append(_row(job=table[0]["job"], workers=cl.workers, cluster=cl.kind,
                              start_s=cl.start_s, ship_s=time.perf_counter() - t0 - got.time_s,
                              seconds=got.time_s, speedup=f"{ref.time_s / got.time_s:.2f}x",
                              same="yes" if same else "NO",
                              note=f"{d['paths']}; {d['blocks']} blocks{rounds}; "
                                   f"{_phases(got.billboards)}; {d['map']}",
                              worker_busy=_busy(d.get("busy", {}), got.time_s)))
    return table


def _greedy(run) -> BillboardResult:
    """The greedy's result in an ``app.jobs.billboards.run`` answer."""
    from gpu_core.betweenness import BillboardResult

    res = run.billboards
    assert isinstance(res, BillboardResult)  # (typed object there)
    return res


def _phases(result) -> str:
    """'sample 30.12 s, select 1.05 s': the sampled greedy's two phases (client's view)."""
    ph = getattr(result, "phase_s", {}) or {}
    return ", ".join(f"{k} {v:.2f} s" for k, v in ph.items())


def run(args: argparse.Namespace) -> int:
    from app.jobs.distributed import connect
    from gpu_core.backend import describe_backend, resolve_backend

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    args.backend = resolve_backend(args.backend)
    t0 = time.perf_counter()
    net, label = _load(args.map, args.seed)
    print(f"map {label}: {net.num_nodes:,} nodes, {net.num_arcs:,} arcs (loaded in "
          f"{time.perf_counter() - t0:.1f} s); backend {args.backend}: "
          f"{describe_backend(args.backend)}; {os.cpu_count()} CPU cores, load average "
          f"{os.getloadavg()[0]:.1f} (other processes share them)")
    counts = [int(w) for w in args.workers.split(",") if w.strip()]

    def clusters():
        specs = [args.scheduler] if args.scheduler else [f"local:{w}" for w in counts]
        for spec in specs:
            with connect(spec, args.backend) as cl:
                yield cl

    from app.bench.matrix import node_sets

    table: list[dict] = []
    for k in [int(s) for s in args.sizes.split(",") if s.strip()]:
        src, tgt = node_sets(net.num_nodes, k, args.seed + k)
        rows = _matrix_rows(net, src, tgt, args, out, clusters)
        _print(rows)
        table += rows
    if args.billboards:
        rows = _billboard_rows(net, args, clusters)
        _print(rows)
        table += rows
    with open(out / "dask_bench.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    bad = any(r["same"] == "NO" for r in table)
    print(f"wrote {out / 'dask_bench.csv'}; identical output: {'NO' if bad else 'yes'}")
    return 1 if bad else 0


if __name__ == "__main__":  # python -m app.bench.dask ...
    ap = argparse.ArgumentParser(prog="bench dask")
    add_arguments(ap)
    raise SystemExit(run(ap.parse_args()))
