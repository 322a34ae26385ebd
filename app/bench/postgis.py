"""``signpost bench postgis --dsn postgresql://.../db?table=ways``: Signpost against
pgRouting on the same table, side by side in one run.

1. **Load**: the table read from the database (binary COPY, no cache), then the first
   and the second cached load (the second checks the fingerprint only).
2. **One-to-all**: ``--sources`` seeded random vertices: ``gpu_core.sssp`` (the GPU when
   one is usable, and the CPU) against ``pgr_drivingDistance(edges, v, 1e300)`` (every
   reachable vertex), median seconds per source; every cost compared.
3. **Matrices** K x K for each ``--sizes`` K (one seeded vertex set, rows = columns, as
   ``pgr_dijkstraCostMatrix`` takes it): ``app.jobs.matrix`` (the route index of a road
   map is built once and reported apart; ``--index off`` for plain searches) against
   ``pgr_dijkstraCostMatrix``, costs compared entry by entry. pgRouting runs under
   ``--pgr-budget-s`` (``statement_timeout``): past it, a K x K matrix is estimated from
   the largest one it finished as (K / K_done) x its time (it runs one Dijkstra per
   vertex) and marked so; ``--pgr-max-k`` skips the larger ones outright, estimated
   the same way.

The edges pgRouting reads are the ones Signpost read (``SELECT id, source, target, cost,
reverse_cost``, or ``--weight COL``). Integer costs must be equal; float costs (made
integers at one power-of-ten scale, ``maps.model.weights``) equal to within half a unit of that
scale per arc (for routes of up to 100 arcs). Prints a table; ``--doc F.md`` writes it as
Markdown with the machine. Exit status 1 when a cost differs.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time

import numpy as np


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dsn", required=True, metavar="URI",
                   help="postgresql://.../db?table=NAME: a pgRouting edge table")
    p.add_argument("--weight", default=None, metavar="COL", help="cost column (default cost)")
    p.add_argument("--sources", type=int, default=3, help="one-to-all sources (median)")
    p.add_argument("--sizes", default="100,1000", help="K of the K x K matrices")
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"),
                   help="Signpost's first backend (the CPU is always measured too)")
    p.add_argument("--index", default="auto", choices=("auto", "on", "off"),
                   help="route index for Signpost's matrices")
    p.add_argument("--pgr-budget-s", type=float, default=300.0,
                   help="longest a pgRouting matrix may run before it is estimated")
    p.add_argument("--pgr-max-k", type=int, default=None, metavar="K",
                   help="run pgRouting's matrices only up to K x K; larger ones are "
                   "estimated from the largest it ran")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--doc", default=None, metavar="F.md", help="write the table as Markdown")


def _pgr(conn, query: str, params, budget_s: float):
    """(rows, seconds) or (None, seconds) past the budget."""
    import psycopg

    conn.execute(f"SET statement_timeout = {int(budget_s * 1000)}")
    t0 = time.perf_counter()
    try:
        rows = conn.execute(query, params).fetchall()
    except psycopg.errors.QueryCanceled:
        conn.rollback()
        return None, time.perf_counter() - t0
    finally:
        if not conn.info.transaction_status:  # idle: safe to reset
            conn.execute("SET statement_timeout = 0")
    return rows, time.perf_counter() - t0


def run(args: argparse.Namespace) -> int:
    from gpu_core.backend import cupy_status
    from maps.load import load_map
    from maps.postgis.conn import connect, parse_uri, redact
    from maps.postgis.read import pgrouting_query

    uri = parse_uri(args.dsn)
    shown = redact(args.dsn)
    rows: list[tuple[str, str, str, str]] = []  # (what, Signpost, pgRouting, note)
    ok = True
    t0 = time.perf_counter()
    net = load_map(args.dsn, use_cache=False, weight=args.weight)
    load_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="signpost-bench-pg-") as cdir:
        old = os.environ.get("SIGNPOST_CACHE_DIR")
        os.environ["SIGNPOST_CACHE_DIR"] = cdir
        try:
            t0 = time.perf_counter()
            load_map(args.dsn, weight=args.weight)
            first_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            hit = load_map(args.dsn, weight=args.weight)
            cached_s = time.perf_counter() - t0
        finally:
            if old is None:
                os.environ.pop("SIGNPOST_CACHE_DIR", None)
            else:
                os.environ["SIGNPOST_CACHE_DIR"] = old
    if not hit.meta.get("cache_hit"):
        print("note: the second cached load missed the cache (the table changed meanwhile?)")
    print(f"{shown}: {net.num_nodes:,} vertices, {net.num_arcs:,} arcs, "
          f"{net.meta.get('edges', 0):,} edges")
    rows.append(("load from the database (binary COPY)", f"{load_s:.2f} s", "—",
                 f"cached: first {first_s:.2f} s, then {cached_s:.2f} s"))
    backends = ["cpu"]
    gpu_ok, why = cupy_status()
    if args.backend in ("auto", "cupy") and gpu_ok:
        backends.insert(0, "cupy")
    conn = connect(uri)
    conn.autocommit = True
    edges = pgrouting_query(args.dsn, weight=_spec(args.weight) if args.weight else None)
    rng = np.random.default_rng(args.seed)
    comp = net.components()[1]
    big = np.flatnonzero(comp == np.bincount(comp).argmax())
    srcs = rng.choice(big, args.sources, replace=False)
    ok &= _one_to_all(net, conn, edges, srcs, backends, rows, args.pgr_budget_s)
    done_k, done_s = None, None
    for k in (int(s) for s in args.sizes.split(",") if s.strip()):
        vs = rng.choice(big, min(k, big.size), replace=False)
        good, pgr_s = _matrix(net, conn, edges, vs, backends, rows, args, done_k, done_s)
        ok &= good
        if pgr_s is not None:
            done_k, done_s = k, pgr_s
    conn.close()
    machine = (f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPU cores; "
               + ("GPU: CuPy" if gpu_ok else f"no GPU ({why})"))
    _print(rows, shown, net, machine)
    if args.doc:
        _write_doc(args.doc, rows, shown, net, machine, args)
    return 0 if ok else 1


def _spec(weight: str):
    from maps.model.weights import weight_spec

    return weight_spec(weight)


def _scale(net) -> float:
    from maps.model.weights import unit_scale

    sc = unit_scale(net.unit)
    return 10.0 ** -(sc[1] if sc else 0)


# Costs in floats (osm2pgrouting's degrees, seconds) become integers at one scale, each arc
# off by at most half a unit of it: a route of up to this many arcs may differ by that much.
ROUNDED_ARCS = 100


def _differ(ours: np.ndarray, theirs: np.ndarray, scale: float) -> np.ndarray:
    """Where Signpost's costs (already times ``scale``) differ from pgRouting's: exactly
    for integer costs (scale 1), else beyond the rounding of ROUNDED_ARCS arcs."""
    if scale == 1.0:
        return ours != theirs
    return np.abs(ours - theirs) > 0.5 * scale * ROUNDED_ARCS + 1e-12 * np.abs(theirs)


def _one_to_all(net, conn, edges: str, srcs, backends, rows, budget_s: float) -> bool:
    from gpu_core.sssp import sssp, warm_up

    ok = True
    scale = _scale(net)
    for be in backends:
        warm_up(["auto"], be, target=False)
        times, res = [], {}
        for s in srcs.tolist():
            r = sssp(net, s, strategy="auto", backend=be)
            times.append(r.elapsed_s)
            res[s] = r.dist
        pgr_times = []
        if be == backends[0]:
            for s in srcs.tolist():
                got, secs = _pgr(conn, "SELECT node, agg_cost FROM pgr_drivingDistance(%s, "
                                 "%s::bigint, 1e300::float8)", (edges, int(net.node_ids[s])),
                                 budget_s)
                pgr_times.append(secs)
                if got is not None:
                    ok &= _same_costs(net, res[s], got, scale)
        pgr = f"{statistics.median(pgr_times):.2f} s" if pgr_times else "—"
        rows.append((f"one-to-all, {be} (median of {len(srcs)})",
                     f"{statistics.median(times) * 1000:.1f} ms", pgr,
                     "pgr_drivingDistance; costs equal" if pgr_times and ok else ""))
    return ok


def _same_costs(net, dist: np.ndarray, got, scale: float) -> bool:
    ids = np.array([int(v) for v, _ in got], dtype=np.int64)
    theirs = np.array([c for _, c in got])
    idx = np.array([net.index_of(i) for i in ids.tolist()])
    reached = np.flatnonzero(dist >= 0)
    if reached.size != ids.size:
        print(f"MISMATCH: pgRouting reaches {ids.size:,} vertices, Signpost {reached.size:,}")
        return False
    ours = dist[idx] * scale
    bad = _differ(ours, theirs, scale)
    if bad.any():
        print(f"MISMATCH at vertex {ids[bad][0]}: {ours[bad][0]} vs {theirs[bad][0]}")
    return not bad.any()


def _matrix(net, conn, edges, vs, backends, rows, args, done_k, done_s):
    from app.jobs import matrix

    k = int(vs.shape[0])
    ok = True
    scale = _scale(net)
    ref: np.ndarray | None = None
    for be in backends:
        stats: dict = {}
        opts = matrix.MatrixOptions(tuple(vs.tolist()), tuple(vs.tolist()), be, "auto",
                                    None, args.index)
        t0 = time.perf_counter()
        it = matrix.iter_rows(net, opts, stats=stats)
        t_index = time.perf_counter() - t0
        m = np.empty((k, k), dtype=np.int64)
        t0 = time.perf_counter()
        for r0, block in it:
            m[r0:r0 + block.shape[0]] = block
        secs = time.perf_counter() - t0
        ref = m if ref is None else ref
        ok &= bool(np.array_equal(m, ref))
        note = (f"route index {stats.get('index')}: {t_index:.1f} s apart"
                if stats.get("index", "none") != "none" else "no route index")
        rows.append((f"{k} x {k} matrix, {be}", f"{secs:.2f} s", "", note))
    ids = [int(v) for v in net.node_ids[vs].tolist()]
    skip = args.pgr_max_k is not None and k > args.pgr_max_k
    got, secs = (None, 0.0) if skip else _pgr(
        conn, "SELECT start_vid, end_vid, agg_cost FROM pgr_dijkstraCostMatrix(%s, "
        "%s::bigint[])", (edges, ids), args.pgr_budget_s)
    if got is None:
        what, ours_s, _, note = rows[-len(backends)]
        note += (f"; pgr_dijkstraCostMatrix not run (--pgr-max-k {args.pgr_max_k})" if skip
                 else f"; pgr_dijkstraCostMatrix stopped at {args.pgr_budget_s:.0f} s")
        shown = "not run" if skip else f"> {args.pgr_budget_s:.0f} s"
        if done_k:
            shown = f"~{done_s * k / done_k:.0f} s (est.)"
            note += f", ~ estimated as {k}/{done_k} x its {done_k} x {done_k} time"
        rows[-len(backends)] = (what, ours_s, shown, note)
        return ok, None
    assert ref is not None  # backends holds "cpu" at least
    pos = {v: i for i, v in enumerate(ids)}
    theirs = np.full((k, k), -1.0)
    np.fill_diagonal(theirs, 0.0)
    for a, b, c in got:
        theirs[pos[int(a)], pos[int(b)]] = c
    ours = np.where(ref >= 0, ref * scale, -1.0)
    same = not _differ(ours, theirs, scale).any()
    if not same:
        print(f"MISMATCH in the {k} x {k} matrix")
    rows[-len(backends)] = rows[-len(backends)][:2] + (
        f"{secs:.2f} s", rows[-len(backends)][3] + ("; pgr_dijkstraCostMatrix, costs equal"
                                                    if same else "; COSTS DIFFER"))
    return ok and same, secs


def _print(rows, shown, net, machine) -> None:
    print(f"\n{shown} ({net.num_nodes:,} vertices, {net.num_arcs:,} arcs); {machine}")
    w = max(len(r[0]) for r in rows)
    print(f"{'':<{w}}  {'Signpost':>12}  {'pgRouting':>14}  note")
    for what, ours, theirs, note in rows:
        print(f"{what:<{w}}  {ours:>12}  {theirs or '':>14}  {note}")


def _write_doc(path, rows, shown, net, machine, args) -> None:
    from osutil.atomic import atomic_open

    lines = [f"Table `{shown.rsplit('table=', 1)[-1]}`: {net.num_nodes:,} vertices, "
             f"{net.num_arcs:,} arcs ({net.meta.get('edges', 0):,} edges). Machine: {machine}.",
             "", "| | Signpost | pgRouting | note |", "|---|---:|---:|---|"]
    lines += [f"| {a} | {b} | {c or ''} | {d} |" for a, b, c, d in rows]
    with atomic_open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
