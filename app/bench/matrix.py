"""``signpost bench matrix``: OD matrices side by side (issue 12's goal table).

    signpost bench matrix --map NE.gr.xz --sizes 1000,10000 --backend cupy --out bench_out/

For each size K: K seeded random sources and K targets (distinct while K <= n), then in
one run: ours (``gpu_core.multi_source.iter_distance_rows``, every variant the API lists
in ``multi_source.VARIANTS``; on the CPU backend, where the others are all scipy, ``auto``
and ``phast``; ``phast`` sweeps a route index built once first, its build its own row),
scipy's Dijkstra on all CPU cores (``dijkstra(indices=chunk)`` in forked worker
processes writing into one shared matrix) and RoutingKit's CCH when the optional
``routingkit-cch`` package is importable (the ``bench`` extra; skipped with a line
otherwise): order + CCH build and customization are reported apart from the queries
(one ``CCHOneToMany`` per thread, all threads). Every matrix is compared with scipy's
entry by entry (exit status 1 on a mismatch); a method past ``--budget-s`` is stopped and
its total extrapolated from the rows done. Prints a table and writes ``matrix_bench.csv``.

Ours is timed from the call to the last row on the host (chunks streamed; the device graph
and the kernels are made by a warm-up on 8 sources first, reported as ``first call``).
"""

from __future__ import annotations

import argparse
import csv
import mmap
import multiprocessing
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait
from pathlib import Path

import numpy as np

SCIPY_CHUNK = 8  # sources per worker task


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", required=True,
                   help="map file (.gr.xz PACE, .gr, .spn, OSM, ...) or gen:KIND[:N]")
    p.add_argument("--sizes", default="1000,10000",
                   help="comma-separated K: a K x K matrix each (seeded random nodes)")
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"))
    p.add_argument("--seed", type=int, default=1, help="seed of the node sets (and generators)")
    p.add_argument("--variants", default=None,
                   help="comma-separated multi-source variants (default: all the API lists)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="CPU processes/threads for scipy and the CCH (default: all cores)")
    p.add_argument("--budget-s", type=float, default=300.0,
                   help="stop a method after this long and extrapolate from its rows done")
    p.add_argument("--no-scipy", action="store_true", help="skip scipy (and the check)")
    p.add_argument("--no-cch", action="store_true", help="skip RoutingKit's CCH")
    p.add_argument("--out", default="bench_out", help="folder for matrix_bench.csv")


def node_sets(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(sources, targets): k seeded random node indices each (distinct when k <= n)."""
    rng = np.random.default_rng(seed)
    pick = (lambda: rng.choice(n, k, replace=False)) if k <= n else (
        lambda: rng.integers(0, n, k))
    return pick().astype(np.int32), pick().astype(np.int32)


def shared_matrix(rows: int, cols: int) -> np.ndarray:
    """An int64 matrix in anonymous shared memory: forked workers write into it."""
    buf = mmap.mmap(-1, max(1, rows * cols * 8))
    return np.frombuffer(buf, dtype=np.int64, count=rows * cols).reshape(rows, cols)


class Row(dict):
    """One table row: method, variant, seconds (or extrapolated), status, notes."""


def _row(k: int, method: str, variant: str, secs: float | None, done: int, status: str,
         prep_s: float | None = None, note: str = "") -> Row:
    total = None if secs is None or done == 0 else secs * k / done
    return Row(size=k, method=method, variant=variant, rows_done=done,
               seconds="" if secs is None else f"{secs:.3f}",
               est_total_s="" if total is None else f"{total:.3f}",
               ms_per_source="" if total is None else f"{total / k * 1e3:.3f}",
               prep_s="" if prep_s is None else f"{prep_s:.3f}", status=status, note=note)


def _check(ref: np.ndarray | None, ref_done: np.ndarray | None, got: np.ndarray, r0: int,
           bad: list[int]) -> None:
    """Count rows of ``got`` (rows r0..) that differ from scipy's finished rows."""
    if ref is None:
        return
    k = got.shape[0]
    ok = ref_done[r0:r0 + k]
    diff = (ref[r0:r0 + k][ok] != got[ok]).any(axis=1)
    bad.extend((np.flatnonzero(ok)[diff] + r0).tolist())


# ---- ours ---------------------------------------------------------------------------------
def _variants(backend: str, spec: str | None) -> tuple[str, ...]:
    from gpu_core.multi_source import api

    if spec:
        return tuple(v for v in spec.split(",") if v)
    return api.VARIANTS if backend == "cupy" else ("auto", "phast")


def bench_ours(g, src, tgt, backend: str, variant: str, budget_s: float, ref, ref_done,
               k: int, hierarchy=None) -> list[Row]:
    from gpu_core.errors import CancelledError
    from gpu_core.multi_source import iter_distance_rows

    t0 = time.perf_counter()
    h = hierarchy if variant == "phast" else None  # built once, timed apart (index row)
    for _ in iter_distance_rows(g, src[:8], targets=tgt, backend=backend, variant=variant,
                                hierarchy=h):
        pass  # warm-up: kernels, device graph
    first = time.perf_counter() - t0
    deadline = time.perf_counter() + budget_s
    done, bad, stats = 0, [], {}
    status = "ok"
    t0 = time.perf_counter()
    try:
        for r0, block in iter_distance_rows(g, src, targets=tgt, backend=backend,
                                            variant=variant, stats=stats, hierarchy=h,
                                            cancel=lambda: time.perf_counter() > deadline):
            _check(ref, ref_done, np.asarray(block), r0, bad)
            done = r0 + block.shape[0]
    except CancelledError:
        status = "budget"
    secs = time.perf_counter() - t0
    if bad:
        status = f"MISMATCH rows {bad[:3]}"
    elif ref is None and status == "ok":
        status = "unchecked"
    name = f"ours ({stats.get('backend', backend)})"
    return [_row(k, name, str(stats.get("variant", variant)), secs, done, status,
                 note=f"first call {first:.2f} s (8 sources)")]


# ---- scipy on all cores -------------------------------------------------------------------
_JOB: dict = {}  # set before the fork: the workers inherit it


def _scipy_chunk(lo: int, hi: int) -> None:
    from scipy.sparse.csgraph import dijkstra

    from gpu_core.reference import scipy_rows

    j = _JOB
    d = dijkstra(j["mat"], directed=True, indices=j["src"][lo:hi])
    j["out"][lo:hi] = scipy_rows(d[:, j["tgt"]])
    j["done"][lo:hi] = 1


def bench_scipy(g, src, tgt, workers: int, budget_s: float, k: int):
    """(row, matrix, finished-rows mask) of scipy's Dijkstra over ``workers`` processes."""
    from gpu_core.reference import scipy_csr

    out = shared_matrix(k, len(tgt))
    done_buf = mmap.mmap(-1, max(1, k))
    done = np.frombuffer(done_buf, dtype=np.uint8, count=k)
    _JOB.update(mat=scipy_csr(g), src=src, tgt=tgt, out=out, done=done)
    status = "reference"
    t0 = time.perf_counter()
    deadline = t0 + budget_s
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=ctx) as ex:
        pending = {ex.submit(_scipy_chunk, lo, min(lo + SCIPY_CHUNK, k))
                   for lo in range(0, k, SCIPY_CHUNK)}
        while pending:
            finished, pending = wait(pending, timeout=max(0.0, deadline - time.perf_counter()),
                                     return_when=FIRST_COMPLETED)
            for f in finished:
                f.result()
            if time.perf_counter() > deadline and pending:
                for f in pending:
                    f.cancel()
                status = "budget"
                break
    secs = time.perf_counter() - t0
    _JOB.clear()
    mask = done.astype(bool)
    row = _row(k, f"scipy Dijkstra ({workers} processes)", "-", secs, int(mask.sum()), status)
    return row, out, mask


# ---- RoutingKit CCH -----------------------------------------------------------------------
def bench_cch(net, g, src, tgt, workers: int, budget_s: float, ref, ref_done, k: int,
              cache: dict) -> Row:
    """RoutingKit's CCH (PyPI ``routingkit-cch``): preprocessing (order + CCH) and
    customization once per map (``cache``), then K one-to-many sweeps on ``workers``
    threads, one ``CCHOneToMany`` each."""
    try:
        import routingkit_cch as rk
    except ImportError:
        return _row(k, "RoutingKit CCH", "-", None, 0, "skipped",
                    note="routingkit-cch not installed (pip install '.[bench]')")
    tail = g.arc_sources().tolist()
    head = g.indices.tolist()
    if "metric" not in cache:
        t0 = time.perf_counter()
        lat, lon = getattr(net, "lat", None), getattr(net, "lon", None)
        if lat is not None and np.isfinite(lat).all() and np.isfinite(lon).all():
            order = rk.compute_order_inertial(g.num_nodes, tail, head,
                                              lat.astype(np.float32).tolist(),
                                              lon.astype(np.float32).tolist())
            cache["order"] = "inertial (nested dissection)"
        else:
            order = rk.compute_order_degree(g.num_nodes, tail, head)
            cache["order"] = "degree (no coordinates)"
        cch = rk.CCH(order, tail, head, False)
        t1 = time.perf_counter()
        metric = rk.CCHMetric(cch, g.weights.tolist())
        t2 = time.perf_counter()
        cache.update(cch=cch, metric=metric, prep=t1 - t0, custom=t2 - t1)
    metric = cache["metric"]
    targets = tgt.tolist()
    out = np.full((k, len(targets)), -1, dtype=np.int64)
    cdone = np.zeros(k, dtype=bool)
    deadline = time.perf_counter() + budget_s
    nthreads = max(1, workers)

    def part(w: int) -> int:
        q = rk.CCHOneToMany(metric, targets)
        rows = 0
        for i in range(w, k, nthreads):
            if time.perf_counter() > deadline:
                break
            out[i] = [-1 if d is None else d for d in q.distances_from(int(src[i]))]
            cdone[i] = True
            rows += 1
        return rows

    t0 = time.perf_counter()
    with ThreadPoolExecutor(nthreads) as ex:
        done = sum(ex.map(part, range(nthreads)))
    secs = time.perf_counter() - t0
    bad: list[int] = []
    status = "ok" if done == k else "budget"
    if ref is not None:
        ok = ref_done & cdone
        diff = (ref[ok] != out[ok]).any(axis=1)
        bad = np.flatnonzero(ok)[diff].tolist()
    if bad:
        status = f"MISMATCH rows {bad[:3]}"
    return _row(k, f"RoutingKit CCH ({nthreads} threads)", cache["order"], secs, done, status,
                prep_s=cache["prep"] + cache["custom"],
                note=f"order+CCH {cache['prep']:.2f} s, customization {cache['custom']:.2f} s")


# ---- the run ------------------------------------------------------------------------------
def _print(rows: list[Row]) -> None:
    cols = ("size", "method", "variant", "est_total_s", "ms_per_source", "rows_done",
            "prep_s", "status", "note")
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in cols), flush=True)


def _index_rows(g, backend: str, rows: list[Row]):
    """The route index: its build (order, topology and customization apart in the note)
    and, for the customizable one, a re-customization after 10 closures."""
    from gpu_core.hierarchy import build_hierarchy, build_topology, recustomize
    from gpu_core.hierarchy.order import metis_available

    t0 = time.perf_counter()
    t = build_topology(g) if metis_available() else None
    h = build_hierarchy(g, method="cch" if t is not None else "ch", topology=t)
    build = time.perf_counter() - t0
    rows.append(_row(1, "route index build (CPU, once per map)", "phast", build, 1, "ok",
                     prep_s=build, note=str(h.summary())))
    _print(rows[-1:])
    if t is not None:
        from gpu_core.graph import CSRGraph

        keep = np.ones(g.num_arcs, bool)
        keep[np.random.default_rng(1).integers(0, g.num_arcs, 10)] = False
        closed = CSRGraph.from_edges(g.num_nodes, g.arc_sources()[keep], g.indices[keep],
                                     g.weights[keep])
        for be in dict.fromkeys(("cpu", backend)):
            recustomize(t, closed, backend=be, reuse=False)  # warm-up (kernels, device copy)
            full = recustomize(t, closed, backend=be, reuse=False)
            recustomize(t, g, backend=be)  # back to the map's metric (kept, partial)
            h2 = recustomize(t, closed, backend=be)  # what an edit costs: partial
            for label, hh, note in (
                    ("", h2, f"partial: {getattr(h2, 'customized', '')}"),
                    (", full", full, "customize_s: slots, weights, triangles, sweep layout")):
                rows.append(_row(1, f"route index re-customization after 10 closures ({be}"
                                 f"{label})", "phast", hh.customize_s, 1, "ok",
                                 prep_s=hh.customize_s, note=note))
                _print(rows[-1:])
    return h


def run(args: argparse.Namespace) -> int:
    from app.bench.sssp import _load
    from app.jobs.common import refuse_negative
    from gpu_core.backend import describe_backend, resolve_backend
    from gpu_core.graph import CSRGraph

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    backend = resolve_backend(args.backend)
    t0 = time.perf_counter()
    net, label = _load(args.map, args.seed)
    refuse_negative(net, "a distance matrix")
    g = CSRGraph.from_any(net)
    print(f"map {label}: {g.num_nodes:,} nodes, {g.num_arcs:,} arcs "
          f"(loaded in {time.perf_counter() - t0:.1f} s); backend {backend}: "
          f"{describe_backend(backend)}; {args.workers} CPU workers")
    rows: list[Row] = []
    cch_cache: dict = {}
    failed = False
    hierarchy = None
    if "phast" in _variants(backend, args.variants):
        hierarchy = _index_rows(g, backend, rows)
    for k in [int(s) for s in args.sizes.split(",") if s.strip()]:
        src, tgt = node_sets(g.num_nodes, k, args.seed + k)
        ref = ref_done = None
        size_rows: list[Row] = []
        if not args.no_scipy:
            row, ref, ref_done = bench_scipy(g, src, tgt, args.workers, args.budget_s, k)
            size_rows.append(row)
        for v in _variants(backend, args.variants):
            size_rows += bench_ours(g, src, tgt, backend, v, args.budget_s, ref, ref_done, k,
                                    hierarchy)
        if not args.no_cch:
            size_rows.append(bench_cch(net, g, src, tgt, args.workers, args.budget_s, ref,
                                       ref_done, k, cch_cache))
        failed |= any(r["status"].startswith("MISMATCH") for r in size_rows)
        rows += size_rows
        _print(size_rows)
    with open(out / "matrix_bench.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["size"])
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {out / 'matrix_bench.csv'}; verify={'FAIL' if failed else 'ok'}")
    return 1 if failed else 0


if __name__ == "__main__":  # python -m app.bench.matrix ...
    ap = argparse.ArgumentParser(prog="bench matrix")
    add_arguments(ap)
    raise SystemExit(run(ap.parse_args()))
