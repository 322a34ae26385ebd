"""``signpost bench matrix``: OD matrices side by side (issues 12 and 26).

    signpost bench matrix --map NE.gr.xz --sizes 100,1000 --backend cpu --out bench_out/

For each size K: K seeded random sources and K targets (distinct while K <= n), then in
one run: ours (``gpu_core.multi_source.iter_distance_rows``, every variant the API lists
in ``multi_source.VARIANTS``; on the CPU backend, where the others are all scipy, ``auto``
and ``phast``), and ``phast`` once per query of ``--queries`` (``auto``: the selection
rule; ``phast``, ``rphast``, ``buckets``: issue 26's few-to-few queries) over the route
index, loaded from the cache beside the load cache or built once (``app.jobs.index``; its
build, and the order/topology/customization times when its summary has them, reported
apart). The peers each run in a child process (``app.bench.peers``): scipy's Dijkstra on
all CPU cores, RoutingKit's CCH (``routingkit-cch``; without coordinates a METIS nested
dissection order through ``pymetis``) and pandana's CH, the ``bench`` extra; a peer that
is missing, refuses the map, crashes or passes ``--peer-timeout-s`` is a row saying so and
the other rows stand. Their preprocessing, customization and queries are reported apart,
and ``peer_over_ours`` is a peer's query time over ours (``phast``/``auto``: the rule).
Every matrix is compared with scipy's entry by entry (exit status 1 on a mismatch); a
method past ``--budget-s`` is stopped and its total extrapolated from the rows done.
Prints a table and writes ``matrix_bench.csv``.

Ours is timed from the call to the last row on the host (chunks streamed; the device graph
and the kernels are made by a warm-up on 8 sources first, reported as ``first call``).
"""

from __future__ import annotations

import argparse
import csv
import os
import tempfile
import time
from pathlib import Path

import numpy as np


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", required=True,
                   help="map file (.gr.xz PACE, .gr, .spn, OSM, ...) or gen:KIND[:N]")
    p.add_argument("--sizes", default="1000,10000",
                   help="comma-separated K: a K x K matrix each (seeded random nodes)")
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"))
    p.add_argument("--seed", type=int, default=1, help="seed of the node sets (and generators)")
    p.add_argument("--variants", default=None,
                   help="comma-separated multi-source variants (default: all the API lists)")
    p.add_argument("--queries", default=None,
                   help="comma-separated route-index queries of the phast variant: auto, "
                        "phast, rphast, buckets (default: all the backend runs)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="CPU processes/threads for scipy and the CCH (default: all cores)")
    p.add_argument("--budget-s", type=float, default=300.0,
                   help="stop a method after this long and extrapolate from its rows done")
    p.add_argument("--peer-timeout-s", type=float, default=None,
                   help="kill a peer's child process after this long (default: 2 x budget "
                        "+ 600 s for its preprocessing)")
    p.add_argument("--no-scipy", action="store_true", help="skip scipy (and the check)")
    p.add_argument("--no-cch", action="store_true", help="skip RoutingKit's CCH")
    p.add_argument("--no-pandana", action="store_true", help="skip pandana")
    p.add_argument("--no-recustomize", action="store_true",
                   help="skip the re-customization rows (full and partial, per backend)")
    p.add_argument("--out", default="bench_out", help="folder for matrix_bench.csv")


def node_sets(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(sources, targets): k seeded random node indices each (distinct when k <= n)."""
    rng = np.random.default_rng(seed)
    pick = (lambda: rng.choice(n, k, replace=False)) if k <= n else (
        lambda: rng.integers(0, n, k))
    return pick().astype(np.int32), pick().astype(np.int32)


class Row(dict):
    """One table row: method, variant, query, seconds (or extrapolated), status, notes."""

    total: float | None = None  # unrounded est_total_s, for the ratios (set by _row)


def _f(x: float | None) -> str:
    return "" if x is None else f"{x:.3f}"


def _row(k: int, method: str, variant: str, secs: float | None, done: int, status: str,
         prep_s: float | None = None, note: str = "", query: str = "-",
         customize_s: float | None = None) -> Row:
    total = None if secs is None or done == 0 else secs * k / done
    row = Row(size=k, method=method, variant=variant, query=query, rows_done=done,
               seconds=_f(secs), est_total_s=_f(total),
               ms_per_source="" if total is None else f"{total / k * 1e3:.3f}",
               prep_s=_f(prep_s), customize_s=_f(customize_s), peer_over_ours="",
               status=status, note=note)
    row.total = total  # unrounded, for the ratios
    return row


def _check(ref: np.ndarray | None, ref_done: np.ndarray | None, got: np.ndarray, r0: int,
           bad: list[int]) -> None:
    """Count rows of ``got`` (rows r0..) that differ from scipy's finished rows."""
    if ref is None or ref_done is None:  # (peers set both or neither)
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


def _queries(backend: str, spec: str | None) -> tuple[str, ...]:
    if spec:
        return tuple(q for q in spec.split(",") if q)
    from gpu_core.hierarchy.queries import queries_for

    return queries_for(backend)


def bench_ours(g, src, tgt, backend: str, variant: str, budget_s: float, ref, ref_done,
               k: int, hierarchy=None, query: str = "auto") -> list[Row]:
    from gpu_core.errors import CancelledError
    from gpu_core.multi_source import iter_distance_rows

    t0 = time.perf_counter()
    h = hierarchy if variant == "phast" else None  # had once, timed apart (index row)
    q = query if h is not None else "auto"  # (the index's query; "auto" is the default)
    for _ in iter_distance_rows(g, src[:8], targets=tgt, backend=backend, variant=variant,
                                hierarchy=h, query=q):
        pass  # warm-up: kernels, device graph
    first = time.perf_counter() - t0
    deadline = time.perf_counter() + budget_s
    done = 0
    bad: list[int] = []
    stats: dict = {}
    status = "ok"
    t0 = time.perf_counter()
    try:
        for r0, block in iter_distance_rows(g, src, targets=tgt, backend=backend,
                                            variant=variant, stats=stats, hierarchy=h,
                                            cancel=lambda: time.perf_counter() > deadline,
                                            query=q):
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
    ran = str(stats.get("query", "-"))
    q = ran if query == "auto" or ran == "-" else query
    if query == "auto" and h is not None:
        q = f"auto->{ran}"
    return [_row(k, name, str(stats.get("variant", variant)), secs, done, status,
                 note=f"first call {first:.2f} s (8 sources)", query=q)]


# ---- the peers, each in a child process (app.bench.peers) ---------------------------------
PEER_NAMES = {"scipy": "scipy Dijkstra", "cch": "RoutingKit CCH", "pandana": "pandana CH"}


def bench_peer(name: str, folder: Path, net, g, src, tgt, args, ref, ref_done, k: int):
    """(row, matrix, finished rows) of peer ``name`` run in a child process."""
    from .peers import run_peer

    timeout = args.peer_timeout_s or 2 * args.budget_s + 600
    res = run_peer(name, folder / name, g, src, tgt, workers=args.workers,
                   budget_s=args.budget_s, timeout_s=timeout,
                   lat=getattr(net, "lat", None), lon=getattr(net, "lon", None))
    t = res.times
    status, note = res.status, res.note
    if res.reason:
        note = f"{res.reason}; {note}" if note else res.reason
    if name == "scipy" and status == "ok":
        status = "reference"
    elif ref is not None and res.done is not None and status in ("ok", "budget", "timeout"):
        ok = ref_done & res.done
        bad = np.flatnonzero(ok)[(np.asarray(ref)[ok] != np.asarray(res.matrix)[ok]).any(
            axis=1)].tolist()
        if bad:
            status = f"MISMATCH rows {bad[:3]}"
    elif ref is None and status == "ok":
        status = "unchecked"
    secs = t.get("query_s")
    row = _row(k, f"{PEER_NAMES[name]} (child process)", "-", secs,
               res.rows_done if secs is not None else 0, status, prep_s=t.get("prep_s"),
               note=note, customize_s=t.get("customize_s"))
    return row, res.matrix, None if res.done is None else np.asarray(res.done)


def _ratios(rows: list[Row]) -> None:
    """peer_over_ours: each peer's (extrapolated) query time over ours by the rule."""
    ours = [r for r in rows if r["method"].startswith("ours") and r.total]
    best = next((r for r in ours if r["query"].startswith("auto")), ours[0] if ours else None)
    if best is None or not best.total:  # (every row in ours has a total)
        return
    for r in rows:
        if "child process" in r["method"] and r.total:
            r["peer_over_ours"] = f"{r.total / best.total:.2f}"


def _index_row(net, g) -> tuple[object, Row]:
    """The route index from the cache (or built and cached once), its row: how it was had,
    its build and, when its summary has them, order/topology/customization apart."""
    from app.jobs.index import hierarchy_for

    t0 = time.perf_counter()
    h, info = hierarchy_for(g, policy="on")
    secs = time.perf_counter() - t0
    summ = h.summary()
    parts = {k: summ[k] for k in ("order_s", "topology_s", "customize_s") if k in summ}
    note = ", ".join(f"{k} {v}" for k, v in summ.items())
    row = _row(1, "route index (CPU, once per map)", "phast", secs, 1, info.source,
               prep_s=summ.get("build_s"), note=note, customize_s=parts.get("customize_s"))
    return h, row


# ---- the run ------------------------------------------------------------------------------
def _print(rows: list[Row]) -> None:
    cols = ("size", "method", "variant", "query", "est_total_s", "ms_per_source",
            "rows_done", "prep_s", "customize_s", "peer_over_ours", "status", "note")
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in cols), flush=True)


def _recustomize_rows(g, backend: str) -> list[Row]:
    """Re-customizations of the index after 10 closures (CPU, and ``backend``), over the
    map's cached CCH topology (none without one: the witness CH has no metric to redo).
    The partial row is closure-to-ready: from the edited graph to an index that can
    answer (its lists on the device, the stream synchronized), after what
    ``partial.prepare`` does ahead (its own row: the unpruned lists, spare buffers)."""
    from app.jobs.index import _cached_topology
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import recustomize, topology_key
    from gpu_core.hierarchy.partial import prepare

    t = _cached_topology(topology_key(g))
    if t is None:
        return []
    keep = np.ones(g.num_arcs, bool)
    keep[np.random.default_rng(1).integers(0, g.num_arcs, 10)] = False
    closed = CSRGraph.from_any(CSRGraph.from_edges(g.num_nodes, g.arc_sources()[keep],
                                                   g.indices[keep], g.weights[keep]))
    rows = []
    for be in dict.fromkeys(("cpu", backend)):
        recustomize(t, closed, backend=be, reuse=False)  # warm-up (kernels, device copy)
        full = recustomize(t, closed, backend=be, reuse=False)
        t0 = time.perf_counter()
        prepare(t, be)
        _sync(be)
        ahead = time.perf_counter() - t0
        recustomize(t, g, backend=be)  # partial kernels loaded (numba's cache)
        recustomize(t, closed, backend=be)
        recustomize(t, g, backend=be)  # back to the map's metric (kept, partial)
        t0 = time.perf_counter()
        h2 = recustomize(t, closed, backend=be)  # what an edit costs: partial
        _sync(be)
        ready = time.perf_counter() - t0
        for label, secs, note in (
                ("", ready, f"closure to ready: {getattr(h2, 'customized', '')}"),
                (", ahead", ahead, "partial.prepare after a full customization: the "
                 "unpruned lists, spare buffers (and their device copy)"),
                (", full", full.customize_s, "customize_s: slots, weights, triangles, "
                 "perfect customization and arc removal, sweep layout")):
            rows.append(_row(1, f"route index re-customization after 10 closures ({be}"
                             f"{label})", "phast", secs, 1, "ok", prep_s=secs,
                             customize_s=secs, note=note))
    return rows


def _sync(backend: str) -> None:
    if backend == "cupy":
        import cupy as cp

        cp.cuda.Stream.null.synchronize()


def _peers(args) -> tuple[str, ...]:
    return tuple(p for p, off in (("cch", args.no_cch), ("pandana", args.no_pandana))
                 if not off)


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
    failed = False
    hierarchy = None
    if "phast" in _variants(backend, args.variants):
        hierarchy, row = _index_row(net, g)
        rows += [row, *([] if args.no_recustomize else _recustomize_rows(g, backend))]
        _print(rows)
    for k in [int(s) for s in args.sizes.split(",") if s.strip()]:
        src, tgt = node_sets(g.num_nodes, k, args.seed + k)
        ref = ref_done = None
        size_rows: list[Row] = []
        with tempfile.TemporaryDirectory(dir=out, prefix="peers-") as tmp:
            if not args.no_scipy:
                row, ref, ref_done = bench_peer("scipy", Path(tmp), net, g, src, tgt, args,
                                                None, None, k)
                size_rows.append(row)
                if ref is None:
                    ref_done = None
            for v in _variants(backend, args.variants):
                for q in _queries(backend, args.queries) if v == "phast" else ("auto",):
                    size_rows += bench_ours(g, src, tgt, backend, v, args.budget_s, ref,
                                            ref_done, k, hierarchy, q)
            for p in _peers(args):
                size_rows.append(bench_peer(p, Path(tmp), net, g, src, tgt, args, ref,
                                            ref_done, k)[0])
            ref = ref_done = None  # the memmaps go with the folder
        _ratios(size_rows)
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
