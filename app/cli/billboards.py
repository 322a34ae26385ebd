"""``signpost billboards MAP -k K``: greedy group-betweenness billboard sites (seed 002)."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

from app.cli import CliError


def register(sub) -> None:
    from app.cli._common import add_map_arguments
    from gpu_core.backend import BACKENDS
    from gpu_core.betweenness import KERNELS, METHODS, MODES

    p = sub.add_parser(
        "billboards",
        help="K billboard sites that the most shortest routes pass (greedy group betweenness)",
        description="Greedy maximisation of group betweenness (seed 002): K rounds, each "
        "adding the vertex whose site covers the most shortest paths not yet covered. "
        "Pairs (s, t) with s or t a site are not counted (networkx endpoints=False).",
    )
    add_map_arguments(p)
    p.add_argument("-k", "--k", type=int, required=True, metavar="K", help="number of sites")
    p.add_argument("--mode", default="weighted", choices=MODES,
                   help="shortest paths by arc count (hops) or by the profile's weights "
                   "(weighted, default)")
    p.add_argument("--backend", default="auto", choices=BACKENDS, help="compute backend")
    p.add_argument("--kernel", default="auto", choices=KERNELS,
                   help="GPU kernel: edge-based, vertex-based or work-efficient (auto: by shape)")
    p.add_argument("--method", default="auto", choices=METHODS,
                   help="exact greedy, or sampled paths for large maps (auto: by size)")
    p.add_argument("--epsilon", type=float, default=0.1, help="sampled: error (default 0.1)")
    p.add_argument("--delta", type=float, default=0.1, help="sampled: failure prob. (0.1)")
    p.add_argument("--seed", type=int, default=0, help="sampled: random seed")
    p.add_argument("--candidates", default="all", choices=CANDIDATES,
                   help="where sites may go: all nodes, road nodes only (roadside), or nodes "
                   "not on rail (default all)")
    p.add_argument("--within", default=None, metavar="AREA.geojson",
                   help="candidate sites only inside these polygons (GeoJSON, lon/lat)")
    p.add_argument("--fixed", default=None, metavar="ID[,ID...]",
                   help="sites already placed (node ids as in the file): counted in the "
                   "group from the start, not among the K returned")
    p.add_argument("--demand", default=None, metavar="D.csv",
                   help="OD demand weights: CSV with a 'node' column and 'weight' (or "
                   "'origin' and 'destination') columns; pair (s, t) counts a_s * b_t, "
                   "nodes not listed weigh 0")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=run)


CANDIDATES = ("all", "road", "no-rail")


def candidate_mask(net, which: str):
    """Bool mask of the nodes a site may use (None: all). ``road``: nodes at a road arc;
    ``no-rail``: nodes at no rail arc (stations joined by transfer links stay allowed)."""
    from maps.network import KIND_RAIL, KIND_ROAD

    if which == "all":
        return None
    kind = getattr(net, "edge_kind", None)
    if kind is None:
        raise CliError(f"--candidates {which}: this map has no arc kinds (road/rail)")
    tails = net.arc_sources()
    heads = np.asarray(net.indices)
    n = net.num_nodes
    sel = kind == (KIND_ROAD if which == "road" else KIND_RAIL)
    touched = np.zeros(n, dtype=bool)
    touched[tails[sel]] = True
    touched[heads[sel]] = True
    return touched if which == "road" else ~touched


def _node_index(net, text: str, what: str) -> int:
    from maps.points import resolve_point

    t = text.strip()
    try:
        return int(resolve_point(net, t if t.startswith("node:") else f"node:{t}").node)
    except Exception as exc:  # MapError: not in the map, not an id
        raise CliError(f"{what} {t!r}: {getattr(exc, 'detail', exc)}") from None


def read_demand(path: str, net) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) per-node origin / destination weights from a CSV (see --demand)."""
    import csv

    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = [r for r in csv.reader(fh) if any(c.strip() for c in r)]
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not rows:
        raise CliError(f"{path}: empty file: expected a 'node,weight' header")
    head = [c.strip().lower() for c in rows[0]]

    def col(*names):
        return next((head.index(x) for x in names if x in head), None)

    cn, cw, co, cd = col("node", "node_id"), col("weight"), col("origin"), col("destination")
    if cn is None or (cw is None and co is None and cd is None):
        raise CliError(f"{path}:1: header is {','.join(rows[0])!r}: expected a 'node' column "
                       "and 'weight' (or 'origin'/'destination') columns")
    n = net.num_nodes
    a, b = np.zeros(n), np.zeros(n)
    for line, r in enumerate(rows[1:], start=2):
        try:
            v = _node_index(net, r[cn], "node")
            wa = float(r[co if co is not None else cw]) if (co is not None or cw is not None) else 0.0
            wb = float(r[cd if cd is not None else cw]) if (cd is not None or cw is not None) else 0.0
        except (IndexError, ValueError):
            raise CliError(f"{path}:{line}: expected a node id and numbers, got "
                           f"{','.join(r)!r}") from None
        except CliError as exc:
            raise CliError(f"{path}:{line}: {exc}") from None
        if not (np.isfinite(wa) and np.isfinite(wb)) or wa < 0 or wb < 0:
            raise CliError(f"{path}:{line}: weights must be finite numbers >= 0")
        a[v] += wa
        b[v] += wb
    if a.sum() <= 0 or b.sum() <= 0:
        raise CliError(f"{path}: no demand: origin and destination weights are all 0")
    return a, b


def _num(x: float):
    return None if x is None or not math.isfinite(float(x)) else float(x)


def run(args: argparse.Namespace) -> int:
    from app.cli._common import open_map
    from gpu_core.betweenness import BillboardResult, billboards
    from gpu_core.graph import CSRGraph

    if args.k < 1:
        raise CliError(f"-k {args.k}: K must be at least 1")
    t0 = time.perf_counter()
    net = open_map(args)
    t_load = time.perf_counter() - t0
    g = CSRGraph.from_any(net)
    if args.k > g.num_nodes:
        raise CliError(f"-k {args.k} is larger than the {g.num_nodes} vertices of {args.map}")
    cand = candidate_mask(net, args.candidates)
    if args.within:
        from maps.areas import nodes_within, read_area

        inside = nodes_within(net, read_area(args.within), path=args.within)
        cand = inside if cand is None else cand & inside
        if not cand.any():
            raise CliError(f"--within {args.within}: no candidate node lies inside the area")
    fixed = [_node_index(net, t, "--fixed")
             for t in (args.fixed.split(",") if args.fixed else []) if t.strip()]
    a = b = None
    if args.demand:
        a, b = read_demand(args.demand, net)
    t1 = time.perf_counter()
    result = None
    last = -1.0
    for ev in billboards(g, args.k, mode=args.mode, backend=args.backend, kernel=args.kernel,
                         method=args.method, epsilon=args.epsilon, delta=args.delta,
                         seed=args.seed, candidates=cand, fixed=fixed or None,
                         sources=a, targets=b):
        if isinstance(ev, BillboardResult):
            result = ev
        elif not args.quiet and ev.fraction - last >= 0.05 and sys.stderr.isatty():
            last = ev.fraction
            print(f"\r{ev.phase} round {ev.round}/{ev.rounds}: {100 * ev.fraction:.0f}%",
                  end="", file=sys.stderr)
    if not args.quiet and sys.stderr.isatty():
        print(file=sys.stderr)
    assert result is not None
    t_run = time.perf_counter() - t1
    labels = net.node_labels()
    ids = [labels[v].item() if hasattr(labels[v], 'item') else labels[v] for v in result.sites]
    lon = getattr(net, "lon", None)
    lat = getattr(net, "lat", None)
    out = {
        "map": args.map,
        "k": args.k,
        "sites": ids,
        "site_index": [int(v) for v in result.sites],
        "lonlat": [[_num(lon[v]) if lon is not None else None,
                    _num(lat[v]) if lat is not None else None] for v in result.sites],
        "gains": [float(x) for x in result.gains],
        "group_betweenness": [float(x) for x in result.group_betweenness],
        "coverage": [float(x) for x in result.coverage],
        "pairs": [float(x) for x in result.pairs],
        "fixed": [labels[v].item() if hasattr(labels[v], 'item') else labels[v]
                  for v in result.fixed],
        "candidates": args.candidates,
        "within": args.within,
        "demand": args.demand,
        "method": result.method,
        "mode": result.mode,
        "backend": result.backend,
        "kernel": result.kernel,
        "unit": getattr(net, "unit", None),
        "nodes": g.num_nodes,
        "arcs": g.num_arcs,
        "load_s": round(t_load, 4),
        "time_s": round(t_run, 4),
    }
    if result.method == "sampled":
        out.update(samples=result.samples, error_bound=result.error_bound,
                   epsilon=result.epsilon, delta=result.delta)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{args.map}: {g.num_nodes} nodes, {g.num_arcs} arcs; {result.method} greedy, "
          f"{result.mode} paths, backend {result.backend} ({result.kernel}), {t_run:.2f} s")
    print(f"{'k':>3} {'node id':>14} {'lon':>11} {'lat':>10} {'gain':>14} {'SB':>14} {'cover':>7}")
    for i in range(len(result.sites)):
        lo, la = out["lonlat"][i]
        print(f"{i + 1:>3} {ids[i]:>14} {lo if lo is not None else float('nan'):>11.6f} "
              f"{la if la is not None else float('nan'):>10.6f} {result.gains[i]:>14.6g} "
              f"{result.group_betweenness[i]:>14.6g} {100 * result.coverage[i]:>6.2f}%")
    if result.method == "sampled":
        print(f"sampled {result.samples} pairs; |SB estimate - SB| <= {result.error_bound:.6g} "
              f"with probability >= {1 - result.delta:g}")
    return 0
