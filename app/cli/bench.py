"""``signpost bench NAME ...``: the benchmark commands (see ``app/bench/``)."""

from __future__ import annotations

import importlib

from app.cli._atomic import out_folder

BENCHES = {
    "load": "map loading, first and cached, and CPU route time",
    "sssp": "SSSP strategies per source vs scipy's Dijkstra; seed 001 Figures 6 and 8",
    "billboards": "greedy group betweenness: seed 002 Figure 4",
    "apsp": "many-source / all-pairs: seed 000 Tables 1 and 2",
    "gui": "click-to-route latency and a full redraw (needs PySide6)",
    "vertex-programs": "seed 003's MST, PageRank, Bellman-Ford: framework vs direct",
    "matrix": "OD matrices K x K: ours (each variant) vs scipy on all cores vs RoutingKit CCH",
    "edits": "what-if edits: incremental repair after road closures vs a fresh search",
    "dask": "matrix and sampled billboards: one process vs Dask clusters of W workers",
    "seed004": "seed 004 Table 5-2 (plain vs flag/queue Bellman-Ford), Figure 5-1 (DIMACS)",
    "postgis": "a pgRouting table: load, one-to-all, K x K matrices, Signpost vs pgRouting",
    "first": "a fresh install per command: cold (numba cache and map cache empty) and warm",
    "turns": "turn restrictions at 5%% of the junctions vs none: one-to-all, index, OD, drag, memory",
}


def register(sub) -> None:
    from app.cli import add_output_arguments

    p = sub.add_parser("bench", help="run a benchmark and print its table")
    bsub = p.add_subparsers(dest="bench", metavar="NAME")
    for name, helptext in BENCHES.items():
        module = f"app.bench.{name.replace('-', '_')}"
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name == module:
                continue  # not built yet
            raise
        bp = bsub.add_parser(name, help=helptext)
        add_output_arguments(bp)
        mod.add_arguments(bp)
        bp.set_defaults(func=_checked(mod.run))
        out_folder(bp)  # --out: a folder of result tables (app.cli._atomic's policy)
    p.set_defaults(func=lambda args: p.print_help() or 2)


def _checked(run):
    """``run`` after the checks every benchmark shares: a --seed numpy accepts (>= 0)."""

    def checked(args) -> int:
        from app.cli import CliError

        seed = getattr(args, "seed", None)
        if isinstance(seed, int) and seed < 0:
            raise CliError(f"--seed {seed}: give an integer >= 0")
        return run(args)

    return checked
