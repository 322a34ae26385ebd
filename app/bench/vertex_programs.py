"""``signpost bench vertex-programs``: seed 003's evaluation (Figures 5-8, Table 1) on our
code -- the three programs through the vertex-program framework beside direct
implementations, so the framework's overhead is visible.

    signpost bench vertex-programs --map NE.gr.xz --map gen:kanto --graphs rmat,random,wiki,revwiki --scaling 15:20 --backend cupy --cpu-rows road --out bench_out/

Graphs (``vertex_programs_graphs``, Table 1 -> ``graphs.csv``): the ``--map`` road graphs,
the ``--graphs`` synthetic ones (R-MAT and random of ``--nodes`` vertices and
``--arcs-per-node`` arcs each, and stand-ins for WikiTalk / rev-WikiTalk, which are not
available offline: a skewed R-MAT of WikiTalk's size and its reverse), and with
``--scaling LO:HI`` random graphs of 2^LO..2^HI vertices, |E| = 16|V| (Figure 8). Weights
uniform 1..1000 as in the paper.

Rows per program (median wall time of ``--repeats`` runs after a warm-up; GPU results
come back to the host, so the work is finished when the clock stops):

* MST (Figure 5): the Borůvka vertex program (list mode; on the GPU also the copy
  version and the collision ablation, the direct Borůvka kernels of
  ``programs/direct.cu``, and the Medusa-style buffer rebuilds a round-by-
  round contraction would need: layout + upload of every round's graph, as the paper
  measured Medusa here),
  the direct Kruskal oracle (CPU) and scipy's ``minimum_spanning_tree`` (CPU; it drops
  zero-weight edges, so its total is compared only on maps without them);
* PageRank, ``--iterations`` power iterations (tol 0; Figure 7): framework, the direct
  CSR power iteration on the same backend and on the CPU (scipy), and on the GPU the
  Medusa-style baseline (static per-arc buffers, ``programs/medusa.py``);
* Bellman-Ford from the vertex of largest out-degree (Figure 6): framework (list;
  collision on the GPU), the Medusa-style baseline and its layout rebuild alone (host
  build + upload: what each topology change costs it), ``sssp(strategy="auto")`` and
  scipy Dijkstra;
* GPU rows reuse what they derive from the map (edge lists, transposes, the engine's
  initial arc lists), built once per map on its DeviceGraph during the warm-up; the
  "per-map ... (once, host)" rows time that one-time preparation (no warm-up, nor for
  the Medusa-style rebuild rows: host work and copies, no kernel to compile).

``--cpu-rows road|none`` drops the CPU rows (scipy, Kruskal, the per-map host
preparation) on the synthetic graphs or everywhere, to keep a full GPU run short; CPU
rows and layout rebuilds run once, with no warm-up. ``--time-cap S`` bounds each row: a
framework run past S seconds stops at its next superstep, any other run past S is not
repeated; such a row reads ``over cap`` with the time it ran (a lower bound, hatched in
the figures), and a row stops repeating once it has taken S in all; the warm-up, which
also builds what the graph's rows share once, may take 10 S. ``--big-repeats N``
sets the runs per row on graphs above 4M arcs. ``--include DIR`` adds an earlier run's
rows (e.g. the road graph measured in another call; a graph measured again replaces its
rows of the same implementations), ``--skip TEXT`` leaves rows out by implementation. GPU rows name the device (CSV
``device`` column, figure titles). The goals of issue 11 are printed as ``SUMMARY goal
...`` lines (``vertex_programs_goals``). Every row is checked against the
first row of its program (``ok`` / ``MISMATCH``). Per graph, the mutable graph's costs
go in two columns: ``edit_batch_ms`` (one batch of ``--edits`` mixed arc edits) and
``compact_ms`` (``MutableGraph.compact()`` after it; on the GPU it stays on the device).
Out: ``vertex_programs.csv``, ``graphs.csv`` and ``fig5_mst.png``, ``fig6_bellman_ford.png``,
``fig7_pagerank.png``, ``fig8_scaling.png`` (rewritten after every graph, so a run cut
short keeps what it measured).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

import numpy as np

from app.bench.vertex_programs_rows import Row, bf_rows, mst_rows, pagerank_rows
from osutil.atomic import atomic_open

PROGRAMS = ("mst", "pagerank", "bf")
OVER_CAP = "over cap"  # the check column of a row stopped by --time-cap
BIG_ARCS = 4_000_000  # --big-repeats applies above this many arcs


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", action="append", default=None, metavar="MAP",
                   help="road graph: map file or gen:KIND[:N] (repeatable; e.g. NE.gr.xz, "
                        "gen:kanto). Default gen:rmat:65536 when no --graphs")
    p.add_argument("--graphs", default="",
                   help="comma-separated synthetic graphs: rmat,random (--nodes vertices), "
                        "wiki,revwiki (stand-ins for WikiTalk / rev-WikiTalk)")
    p.add_argument("--nodes", type=int, default=1 << 20, help="vertices of rmat/random")
    p.add_argument("--arcs-per-node", type=int, default=16, help="arcs per vertex of "
                   "rmat/random (paper: 16)")
    p.add_argument("--wiki-nodes", type=int, default=2_394_385,
                   help="vertices of the WikiTalk stand-in (WikiTalk's own by default)")
    p.add_argument("--wiki-arcs", type=int, default=5_021_410,
                   help="arcs of the WikiTalk stand-in")
    p.add_argument("--weights", default="paper", choices=("paper", "map"),
                   help="paper: every graph weighs 1..1000 (default); map: maps keep theirs")
    p.add_argument("--programs", default=",".join(PROGRAMS),
                   help="comma-separated subset of mst,pagerank,bf")
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"))
    p.add_argument("--repeats", type=int, default=3, help="timed runs per row (median)")
    p.add_argument("--big-repeats", type=int, default=0, metavar="N",
                   help=f"timed runs per row on graphs of more than {BIG_ARCS:,} arcs "
                        "(default: --repeats)")
    p.add_argument("--iterations", type=int, default=100, help="PageRank iterations")
    p.add_argument("--edits", type=int, default=10_000,
                   help="arc edits of the batch timed before compact() (0: skip)")
    p.add_argument("--cpu-rows", default="all", choices=("all", "road", "none"),
                   help="on the GPU backend, where to run the CPU comparison rows")
    p.add_argument("--seed", type=int, default=1, help="seed of the generators and weights")
    p.add_argument("--out", default="bench_out", help="folder for the CSV and PNG files")
    p.add_argument("--include", metavar="DIR",
                   help="start from the rows of an earlier run of this bench (its "
                        "vertex_programs.csv and graphs.csv in DIR, e.g. the road graph "
                        "measured in an earlier call on the same machine): they are kept "
                        "in the CSV and drawn in the figures")
    p.add_argument("--time-cap", type=float, default=0.0, metavar="S",
                   help="seconds per row: a run that passes it is stopped at the next "
                        "superstep (framework rows) or not repeated, and the row says "
                        "'over cap' with the time it ran (0: no cap)")
    p.add_argument("--skip", action="append", default=[], metavar="TEXT",
                   help="leave out the rows whose implementation contains TEXT (repeatable; "
                        "e.g. Medusa, to re-measure the other rows of graphs whose "
                        "host-bound Medusa-style rows an --include'd run holds)")
    p.add_argument("--scaling", metavar="LO:HI",
                   help="also random graphs of 2^LO..2^HI vertices, |E| = 16|V|, weights "
                        "1..1000 (Figure 8: 15:20; HI caps the top size)")


WARM_CAPS = 10


class OverCap(Exception):
    """A row ran past ``--time-cap``: ``seconds`` is how long it ran (a lower bound)."""

    def __init__(self, seconds: float):
        super().__init__(f"over the time cap after {seconds:.1f} s")
        self.seconds = seconds


def _capped_run(row: Row, cap: float):
    """(seconds, result) of one run of ``row``; OverCap when it passed ``cap`` (> 0)."""
    from gpu_core.errors import CancelledError

    t0 = time.perf_counter()
    cancel = (lambda: time.perf_counter() - t0 > cap) if cap > 0 else None
    try:
        res = row.run(cancel) if row.cancellable else row.run()
    except CancelledError as exc:
        raise OverCap(time.perf_counter() - t0) from exc
    took = time.perf_counter() - t0
    if cap > 0 and took > cap:
        raise OverCap(took)
    return took, res


def _time(row: Row, repeats: int, cap: float = 0.0) -> tuple[float, object, int]:
    """(median seconds, last result, timed runs), after one untimed warm-up call when
    ``row.warm``. OverCap when one run passes ``cap``; the runs also stop once the row
    as a whole (warm-up included) has taken ``cap``, so a row costs at most about
    WARM_CAPS + 1 caps."""
    t0 = time.perf_counter()
    # the warm-up also builds what a graph's rows share once (edge lists, device arc lists,
    # static layouts: host work of seconds on 16M arcs, excluded from the timings by
    # design), so it may take WARM_CAPS caps before the row is called over its cap
    res = _capped_run(row, cap * WARM_CAPS)[1] if row.warm else None
    times = []
    for _ in range(max(1, repeats)):
        took, res = _capped_run(row, cap)
        times.append(took)
        if cap > 0 and time.perf_counter() - t0 > cap:
            break
    return statistics.median(times), res, len(times)


def _same(a, b) -> bool:
    if a is None or b is None:
        return True  # not comparable (scipy drops zero-weight edges)
    if isinstance(a, tuple):
        return a == b
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return a.shape == b.shape and bool(np.abs(a - b).max(initial=0.0) <= 1e-9)
    return bool(np.array_equal(a, b))


def _edit_costs(g, backend: str, edits: int, seed: int) -> tuple[str, str]:
    """(edit_batch_ms, compact_ms) of the mutable graph of ``g``: one batch of ``edits``
    mixed arc edits (``app.bench.dynamic.edit_batch``), then ``compact()`` (on the
    GPU: to device arrays, no host copy). Empty strings when skipped."""
    if edits <= 0 or g.num_arcs == 0:
        return "", ""
    from app.bench.dynamic import edit_batch
    from gpu_core.dynamic import MutableGraph

    rng = np.random.default_rng(seed)
    mg = MutableGraph(g, backend=backend, reserve_arcs=edits + 1024)
    mg.apply(edit_batch(mg, 100, rng))  # warm-up: numba load, kernel compile
    mg.graph()
    batch = edit_batch(mg, edits, rng)
    sync = mg.device.cp.cuda.Device().synchronize if mg.device is not None else (lambda: None)
    sync()
    t0 = time.perf_counter()
    mg.apply(batch)
    sync()
    t1 = time.perf_counter()
    mg.graph()
    sync()
    t2 = time.perf_counter()
    return f"{(t1 - t0) * 1e3:.3f}", f"{(t2 - t1) * 1e3:.3f}"


def _graphs(args: argparse.Namespace, wanted_graphs: list[str]):
    """(same, name, kind, make) per graph to run, made one at a time (16M-arc graphs: one
    in memory). ``same``: a key naming the graph when another entry may be the very same
    graph -- Figure 8's random 2^k is the ``random`` graph when --nodes is 2^k with 16
    arcs per vertex: the second one's rows are copies of the first's, not measured
    twice -- else None."""
    from app.bench.vertex_programs_graphs import (
        SYNTHETIC_NAMES,
        road_graph,
        scaling_graph,
        synthetic_graph,
    )

    maps = args.map if args.map is not None else ([] if wanted_graphs else ["gen:rmat:65536"])
    for spec in maps:
        yield None, spec, "road", lambda spec=spec: road_graph(spec, args.seed, args.weights)

    def synthetic(kinds):
        for kind in kinds:
            same = ("random", args.nodes) if kind == "random" and args.arcs_per_node == 16 \
                else None
            yield same, SYNTHETIC_NAMES[kind], kind, lambda kind=kind: synthetic_graph(
                kind, args.nodes, args.arcs_per_node, args.wiki_nodes, args.wiki_arcs,
                args.seed)

    # Figure 8's graphs first (smallest first), then R-MAT and Random, then the WikiTalk
    # stand-ins: a run cut short by its timeout has every figure, with what it reached
    if args.scaling:
        lo, _, hi = args.scaling.partition(":")
        for k in range(int(lo), int(hi or lo) + 1):
            yield ("random", 2**k), f"random 2^{k}", "scaling", \
                lambda k=k: scaling_graph(k, args.seed)
    yield from synthetic(k for k in wanted_graphs if k in ("rmat", "random"))
    yield from synthetic(k for k in wanted_graphs if k not in ("rmat", "random"))


def _check_args(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    from app.bench.vertex_programs_graphs import SYNTHETIC
    from app.cli import CliError  # one line, exit 2 (SystemExit(text) exits 1, no 'error:')

    wanted = [p for p in args.programs.split(",") if p]
    bad = [p for p in wanted if p not in PROGRAMS]
    if bad:
        raise CliError(f"unknown program {bad[0]!r}; choose from {', '.join(PROGRAMS)}")
    graphs = [x for x in args.graphs.split(",") if x]
    bad = [x for x in graphs if x not in SYNTHETIC]
    if bad:
        raise CliError(f"--graphs: unknown graph {bad[0]!r}; choose from "
                         f"{', '.join(SYNTHETIC)}")
    if args.scaling:
        lo, _, hi = args.scaling.partition(":")
        if not (lo.isdigit() and (hi or lo).isdigit() and 1 <= int(lo) <= int(hi or lo) <= 30):
            raise CliError(f"--scaling {args.scaling!r}: give LO:HI with 1 <= LO <= HI <= 30")
    for name in ("nodes", "arcs_per_node", "wiki_nodes", "wiki_arcs"):
        if getattr(args, name) < 2:
            raise CliError(f"--{name.replace('_', '-')} {getattr(args, name)}: give at least 2")
    return wanted, graphs


def _merged(table: list[dict], stats: list[dict], rows: list[dict],
            st: dict) -> tuple[list[dict], list[dict]]:
    """``table`` and ``stats`` with one graph's fresh ``rows`` and stats ``st``: they replace
    the --include'd rows of the same implementations. The edit/compact figures are the
    graph's, not a row's: rows kept (skipped implementations) take those measured now, or
    with none measured now (``--edits 0``) the fresh rows take the kept ones'."""
    fresh = {(r["graph"], r["program"], r["implementation"]) for r in rows}
    table = [r for r in table if (r["graph"], r["program"], r["implementation"]) not in fresh]
    kept = [r for r in table if r["graph"] == st["graph"]]
    cols = ("edit_batch_ms", "compact_ms")
    if rows and kept:
        src, dst = (rows[0], kept) if rows[0]["edit_batch_ms"] != "" else (kept[0], rows)
        for r in dst:
            r.update({c: src[c] for c in cols})
    return table + rows, [x for x in stats if x["graph"] != st["graph"]] + [st]


def _included(folder: str | None) -> tuple[list[dict], list[dict]]:
    """(rows, graph rows) of an earlier run's CSVs (``--include``); empty without."""
    if not folder:
        return [], []
    got = []
    for name in ("vertex_programs.csv", "graphs.csv"):
        path = Path(folder) / name
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                got.append(list(csv.DictReader(fh)))
        except OSError as exc:
            from app.cli import CliError

            raise CliError(f"--include: cannot read {path}: {exc.strerror or exc}") from None
    print(f"included {len(got[0])} rows of {len(got[1])} graphs from {folder}")
    return got[0], got[1]


def _write(out: Path, name: str, rows: list[dict]) -> None:
    if not rows:
        return
    with atomic_open(out / name, "w") as fh:
        names = list(dict.fromkeys(k for r in rows for k in r))  # included rows may lack some
        w = csv.DictWriter(fh, fieldnames=names, restval="")
        w.writeheader()
        w.writerows(rows)


def run(args: argparse.Namespace) -> int:
    from app.bench.vertex_programs_graphs import degree_stats
    from app.bench.vertex_programs_plot import write_figures
    from app.progress import step
    from gpu_core.backend import describe_backend, resolve_backend

    wanted, synthetic = _check_args(args)
    backend = resolve_backend(args.backend)
    print(f"backend {backend}: {describe_backend(backend)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table, stats = _included(args.include)
    figs: list[Path] = []
    failed = False
    device = describe_backend(backend)
    done: dict[tuple, list[dict]] = {}  # rows of graphs that may come again (_graphs)
    goals_shown = False
    for same, name, kind, make in _graphs(args, synthetic):
        if kind != "road" and not goals_shown:  # the road graphs come first: their goals
            goals_shown = _print_goals(table, backend)  # are out before a long run ends
        if same in done:
            first = done[same][0]["graph"]
            rows = [dict(r, graph=name, kind=kind,
                         note="; ".join(x for x in (r["note"], f"rows of {first} (the same "
                                                    "graph)") if x))
                    for r in done[same]]
            print(f"graph {name} ({kind}): the same graph as {first} above, rows copied")
            table, stats = _merged(table, stats, rows, dict(
                next(x for x in stats if x["graph"] == first), graph=name, kind=kind))
            _write(out, "vertex_programs.csv", table)
            _write(out, "graphs.csv", stats)
            figs = write_figures(table, out, device)
            continue
        bg = make()
        st = degree_stats(bg)
        print(f"graph {bg.name} ({bg.kind}): {st['nodes']:,} nodes, {st['arcs']:,} arcs, "
              f"max in/out degree {st['max_in']:,}/{st['max_out']:,}"
              + (f"  [{bg.note}]" if bg.note else ""), flush=True)
        with step(f"vertex programs on {bg.name}") as p:
            p(None, ", ".join(wanted))
            rows, bad = _table(bg, st["bf_source"], backend, wanted, args)
        for r in rows:
            r["device"] = device if r["backend"] == "cupy" else "host CPU"
        table, stats = _merged(table, stats, rows, st)
        if same is not None:
            done[same] = rows
        failed |= bad
        _write(out, "vertex_programs.csv", table)
        _write(out, "graphs.csv", stats)
        figs = write_figures(table, out, device)
        del bg
    print(f"wrote {out / 'vertex_programs.csv'}, {out / 'graphs.csv'}"
          + "".join(f", {p.name}" for p in figs))
    mismatched = sum(r["check"] not in ("ok", OVER_CAP) for r in table)
    over = sum(r["check"] == OVER_CAP for r in table)
    print(f"SUMMARY vertex-programs backend={backend} graphs={len(stats)} rows={len(table)} "
          f"mismatches={mismatched} over_cap={over} figures={len(figs)}")
    if not goals_shown:
        _print_goals(table, backend)
    return 1 if failed else 0


def _print_goals(table: list[dict], backend: str) -> bool:
    """Print issue 11's goal lines (GPU goals: on the cupy backend only); True."""
    from app.bench.vertex_programs_goals import goal_lines

    for line in goal_lines(table) if backend == "cupy" else []:
        print(f"SUMMARY {line}", flush=True)
    return True


def _table(bg, source: int, backend: str, wanted: list[str], args) -> tuple[list[dict], bool]:
    """Timed rows of every wanted program on one graph, each checked against its first."""
    g = bg.graph
    makers = {"mst": lambda: mst_rows(g, backend),
              "pagerank": lambda: pagerank_rows(g, backend, args.iterations),
              "bf": lambda: bf_rows(g, backend, source)}
    skip_oracles = backend == "cupy" and (
        args.cpu_rows == "none" or (args.cpu_rows == "road" and bg.kind != "road"))
    edit_ms, compact_ms = _edit_costs(g, backend, args.edits, args.seed)
    table = []
    failed = False
    for prog in wanted:
        first = None
        for row in makers[prog]():
            if (row.oracle and skip_oracles) or any(x in row.impl for x in args.skip):
                continue
            repeats = args.big_repeats if g.num_arcs > BIG_ARCS and args.big_repeats else \
                args.repeats
            if row.oracle or row.once:
                repeats, row.warm = 1, False
            note = row.note
            if row.prepare is not None:
                row.prepare()
            try:
                med, res, runs = _time(row, repeats, args.time_cap)
            except OverCap as over:  # a lower bound, drawn hatched; not a mismatch
                med, check, runs = over.seconds, OVER_CAP, 1
                note = "; ".join(x for x in (note, f"stopped after {over.seconds:.3g} s, "
                                             f"over the {args.time_cap:g} s cap") if x)
            else:
                value = row.summary(res)
                if first is None:
                    first = value
                ok = _same(first, value)
                failed |= not ok
                check = "ok" if ok else "MISMATCH"
            rec = {"graph": bg.name, "kind": bg.kind, "nodes": g.num_nodes,
                   "arcs": g.num_arcs, "program": prog, "implementation": row.impl,
                   "backend": row.backend, "median_ms": round(med * 1e3, 3),
                   "runs": runs, "check": check,
                   "edit_batch_ms": edit_ms, "compact_ms": compact_ms, "note": note}
            table.append(rec)
            print(f"  {prog:9s} {row.impl:36s} {row.backend:5s} {rec['median_ms']:11.3f} ms  "
                  f"{rec['check']}" + (f"  ({note})" if note else ""), flush=True)
    if edit_ms:
        print(f"  mutable graph: {args.edits:,} edits {edit_ms} ms, compact() {compact_ms} ms")
    return table, failed
