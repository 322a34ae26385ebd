"""``signpost pagerank MAP --out F.csv``: PageRank of every node (networkx's definition)."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import resources
from app.cli import CliError
from app.cli._atomic import add_if_exists_argument, check_out, out_formats, write_text_atomic
from app.cli._common import BACKEND_HELP, Timer, add_backend_argument, add_command, map_from_args
from app.jobs.common import json_safe
from app.jobs.pagerank import write_csv

TOP = 10


# argparse help and description: resources/cli_help.json
HELP, DESCRIPTION = resources.cli_help("pagerank")


def register(sub) -> None:
    p = add_command(sub, "pagerank", run, HELP, DESCRIPTION)
    p.add_argument("--out", required=True, metavar="FILE", help="output .csv")
    add_if_exists_argument(p)
    out_formats(p, (".csv",))
    p.add_argument("--damping", type=float, default=0.85, help="damping factor in (0, 1) "
                   "(default 0.85)")
    p.add_argument("--tol", type=float, default=1e-6, metavar="T",
                   help="tolerance, >= 0: stop when the L1 change < T × min(nodes, 1000) "
                   "(default 1e-6)")
    p.add_argument("--max-iter", type=int, default=100, metavar="N",
                   help="most iterations, >= 1 (default 100)")
    add_backend_argument(p, BACKEND_HELP)
    p.add_argument("--method", default="framework", choices=("framework", "direct"),
                   help="framework: the vertex program (default); direct: CSR power iteration")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def check_args(args: argparse.Namespace) -> None:
    """Refuse bad numbers before loading the map, naming the value."""
    if not 0.0 < args.damping < 1.0:
        raise CliError(f"--damping {args.damping!r}: give a value between 0 and 1 (exclusive)")
    if not math.isfinite(args.tol):
        raise CliError(f"--tol {args.tol!r}: the tolerance must be a number (>= 0)")
    if args.tol < 0.0:
        raise CliError(f"--tol {args.tol!r}: the tolerance must not be negative")
    from gpu_core.programs.api import MAX_ITER

    if args.max_iter < 1:
        raise CliError(f"--max-iter {args.max_iter}: give at least 1 iteration")
    if args.max_iter > MAX_ITER:
        raise CliError(f"--max-iter {args.max_iter}: give at most {MAX_ITER:,} iterations")


def summary(net, res, args: argparse.Namespace, time_s: float) -> dict[str, Any]:
    r = res.ranks
    return json_safe({
        "map": args.map,
        "profile": net.profile,
        "nodes": net.num_nodes,
        "arcs": net.num_arcs,
        "iterations": int(r.iterations),
        "delta": float(r.delta),
        "converged": bool(r.converged),
        "damping": args.damping,
        "tol": args.tol,
        "max_iter": args.max_iter,
        "rank_sum": float(math.fsum(r.rank.tolist())),
        "top": [{"node_id": i, "rank": x} for i, x in res.top(TOP)],
        "method": r.method,
        "backend": r.backend,
        "note": r.note or None,
        "supersteps": int(r.supersteps),
        "time_s": round(time_s, 4),
        "out": args.out,
    })


def run(args: argparse.Namespace) -> int:
    from app.jobs.pagerank import PageRankOptions, stop_limit
    from app.jobs.pagerank import run as run_pagerank
    from app.progress import step

    check_args(args)
    check_out(args.out, (".csv",))
    net = map_from_args(args)
    opts = PageRankOptions(damping=args.damping, tol=args.tol, max_iter=args.max_iter,
                           backend=args.backend, method=args.method)
    with Timer() as t, step("pagerank") as p:
        res = run_pagerank(net, opts, progress=p)
    write_text_atomic(args.out, lambda fh: write_csv(fh, res.node_ids, res.ranks.rank))
    out = summary(net, res, args, t.s)
    if args.json:
        print(json.dumps(out))
        return 0
    state = "converged" if out["converged"] else "did NOT converge"
    print(f"PageRank of {out['nodes']:,} nodes: {state} after {out['iterations']} iterations "
          f"(last L1 change {out['delta']:.3g}, stop below {stop_limit(args.tol, net.num_nodes):.3g}); "
          f"{out['method']} on {out['backend']}, {t.s * 1000:.1f} ms")
    if out["top"]:
        best = out["top"][0]
        print(f"top node {best['node_id']} (rank {best['rank']:.6g})")
    if out["note"]:
        print(f"note: {out['note']}")
    print(f"wrote {args.out}")
    return 0
