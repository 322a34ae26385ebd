"""``signpost billboards MAP -k K``: greedy group-betweenness billboard sites (seed 002)."""

from __future__ import annotations

import argparse
import json
import math
import os

from app.cli import CliError
from app.cli._atomic import out_formats


def register(sub) -> None:
    from app.cli._common import (
        add_backend_argument,
        add_command,
        add_edit_arguments,
        add_index_argument,
    )
    from app.cli._dask import add_dask_argument
    from app.jobs.billboards import CANDIDATES, DEFAULT_MODE
    from gpu_core.betweenness import KERNELS, METHODS, MODES

    p = add_command(
        sub, "billboards", run,
        "K billboard sites that the most shortest routes pass (greedy group betweenness)",
        "Greedy maximisation of group betweenness (seed 002): K rounds, each "
        "adding the vertex whose site covers the most shortest paths not yet covered. "
        "Pairs (s, t) with s or t a site are not counted (networkx endpoints=False).",
    )
    p.add_argument("-k", "--k", type=int, required=True, metavar="K", help="number of sites")
    p.add_argument("--mode", default=DEFAULT_MODE, choices=MODES,
                   help="shortest paths by arc count (hops) or by the profile's weights "
                   "(weighted, default)")
    add_backend_argument(p)
    p.add_argument("--kernel", default="auto", choices=KERNELS,
                   help="GPU kernel: edge-based, vertex-based or work-efficient (auto: by shape)")
    p.add_argument("--method", default="auto", choices=METHODS,
                   help="exact greedy, or sampled paths for large maps (auto: by size)")
    p.add_argument("--epsilon", type=float, default=0.1, help="sampled: error (default 0.1)")
    p.add_argument("--delta", type=float, default=0.1, help="sampled: failure prob. (0.1)")
    p.add_argument("--seed", type=int, default=0, help="sampled: random seed")
    p.add_argument("--sampling", default="progressive", choices=("progressive", "fixed"),
                   help="sampled: progressive (grow the samples 1.5x until a data-dependent "
                   "bound reaches epsilon; default) or fixed (the worst-case bound's count)")
    p.add_argument("--candidates", default="all", choices=CANDIDATES,
                   help="where sites may go: all nodes, road nodes only (roadside), or nodes "
                   "not on rail (default all)")
    p.add_argument("--within", default=None, metavar="AREA.geojson",
                   help="candidate sites only inside these polygons (GeoJSON or GeoPackage, "
                   "lon/lat)")
    p.add_argument("--fixed", default=None, metavar="ID[,ID...]",
                   help="sites already placed (node ids as in the file): counted in the "
                   "group from the start, not among the K returned")
    p.add_argument("--demand", default=None, metavar="D.csv",
                   help="OD demand weights: a points file (CSV with a 'node' or lon,lat "
                   "columns, GeoJSON or GeoPackage points) with 'weight' (or 'origin' and "
                   "'destination') columns; pair (s, t) counts a_s * b_t, nodes not listed "
                   "weigh 0")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--out", default=None, metavar="F.csv",
                   help="also write the sites (rank, node_id, lon, lat, gain, "
                   "group_betweenness, coverage) as CSV or to postgresql://.../db?table=NAME")
    add_index_argument(p)
    add_edit_arguments(p)
    add_dask_argument(p)
    from app.cli import db_out

    db_out.add_arguments(p)
    out_formats(p, (".csv",))


def _num(x: float):
    return None if x is None or not math.isfinite(float(x)) else float(x)


def _check_out(args: argparse.Namespace) -> None:
    from app.cli import db_out

    if not args.out:
        return
    if db_out.wanted(args):
        db_out.check(args)
    else:
        from app.cli._atomic import check_out

        check_out(args.out, (".csv",))


def _write_sites(args: argparse.Namespace, net, out: dict) -> None:
    """--out: one row per site, in the order chosen (a point geometry in a database)."""
    from shapely.geometry import Point

    from app.cli import db_out

    rows = [{"rank": i + 1, "node_id": out["sites"][i], "lon": lo, "lat": la,
             "gain": out["gains"][i], "group_betweenness": out["group_betweenness"][i],
             "coverage": out["coverage"][i]} for i, (lo, la) in enumerate(out["lonlat"])]
    geoms = [None if lo is None or la is None else Point(lo, la) for lo, la in out["lonlat"]]
    db_out.write_rows(args, net, rows, geoms, "Point")


def _builds_index(net, g, opts) -> bool:
    """Whether the placement builds the route index of a big map and draws through it on
    the CPU (what the compile-ahead child compiles for)."""
    from app.jobs.billboards import draws_through_index
    from app.jobs.common import small_work
    from app.jobs.index import index_path
    from gpu_core.hierarchy import graph_key

    if small_work(g) or bool(net.meta.get("turn_copies")) or not draws_through_index(g, opts):
        return False
    return not os.path.exists(index_path(g, graph_key(g)))


def run(args: argparse.Namespace) -> int:
    from app.cli._dask import cluster

    if args.dask and args.method != "sampled":
        raise CliError("--dask draws the sampled method's paths on the workers: give "
                       "--method sampled")
    if args.k < 1:
        raise CliError(f"-k {args.k}: K must be at least 1")
    # the cluster first: an unreachable scheduler fails before the map is read
    with cluster(args) as cl:
        return _run(args, cl)


def _run(args: argparse.Namespace, cl) -> int:
    _check_out(args)
    ahead = _kernels_ahead(args, cl)  # compiling while the map is read and ordered
    try:
        return _placed(args, cl, ahead)
    finally:
        from app.jobs.compile_ahead import stop

        stop(ahead)  # (done by then, unless the command failed or was interrupted)


def _kernels_ahead(args: argparse.Namespace, cl):
    """A fresh install's big-map sampled billboards on the CPU: the child compiling the
    kernels the command runs after ordering the map (``app.jobs.compile_ahead``), started
    before the map is read; None where nothing is to compile or it would not be used."""
    from gpu_core.backend import resolve_backend

    if cl is not None or args.mode == "hops" or args.index == "off" or (
            args.method not in ("sampled", "auto")):
        return None
    try:
        if resolve_backend(args.backend) != "cpu":
            return None
    except Exception:  # an unavailable backend: the command itself says so
        return None
    from app.jobs.compile_ahead import start_index_kernels

    return start_index_kernels()


def _placed(args: argparse.Namespace, cl, ahead) -> int:
    from app.cli._common import edits_note, map_from_args, timings, timings_json
    from app.jobs import billboards
    from app.progress import step
    from gpu_core.graph import CSRGraph
    from maps.points.resolve import node_index, read_demand

    net = map_from_args(args)
    t_load = timings(args)["load_s"]
    billboards.refuse_negative(net, "billboard placement")
    g = CSRGraph.from_any(net)
    if args.k > g.num_nodes:
        raise CliError(f"-k {args.k} is larger than the {g.num_nodes} vertices of {args.map}")
    cand = billboards.candidate_mask(net, args.candidates)
    if args.within:
        from maps.points.areas import nodes_within, read_area

        inside = nodes_within(net, read_area(args.within), path=args.within)
        cand = inside if cand is None else cand & inside
        if not cand.any():
            raise CliError(f"--within {args.within}: no candidate node lies inside the area")
    fixed = [node_index(net, t, "--fixed")
             for t in (args.fixed.split(",") if args.fixed else []) if t.strip()]
    a = b = None
    if args.demand:
        a, b = read_demand(args.demand, net)
    opts = billboards.BillboardsOptions(
        args.k, mode=args.mode, backend=args.backend, kernel=args.kernel, method=args.method,
        epsilon=args.epsilon, delta=args.delta, seed=args.seed, candidates=cand,
        fixed=tuple(fixed), sources=a, targets=b, index=args.index, sampling=args.sampling)
    later = ""
    if cl is None:  # a fresh install's sampled paths: without the index while a background
        # process builds it (app.jobs.index_later: the same sites and values)
        from dataclasses import replace

        from app.jobs.index_later import billboards_policy

        policy, later = billboards_policy(net, opts, getattr(args, "unedited", None))
        opts = replace(opts, index=policy)
    if ahead is not None and not _builds_index(net, g, opts):
        from app.jobs.compile_ahead import stop

        stop(ahead)  # not this map's: a small one, another method, a cached index
        ahead = None
    warm = 0.0
    if cl is None:  # on a cluster the workers load their own kernels
        with step("warming up") as p:
            p(None, f"{args.mode} kernels")
            warm = billboards.warm_up(opts, g, first_only=True)
    with step("billboards") as p:
        # on a cluster: the map as loaded (its cache file is what the workers read); with
        # turn copies too (the junction greedy reads them, app.jobs.billboards_turns)
        whole = cl is not None or bool(net.meta.get("turn_copies"))
        done = billboards.run(net if whole else g, opts, progress=p,
                              client=None if cl is None else cl.client, kernels_ahead=ahead)
    result, t_run = done.billboards, done.time_s
    ids = billboards.site_ids(net, result.sites)
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
        "fixed": billboards.site_ids(net, result.fixed),
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
        "timings": timings_json(args, warmup_s=warm, search_s=t_run - min(done.compile_s, t_run),
                                compile_s=min(done.compile_s, t_run)),
    }
    out.update(done.index)  # index, index_s, ... when a route index was used
    if later:
        out.update(index="background", index_note=later)
    if getattr(args, "edits", None) is not None:
        out["edits"] = args.edits  # arcs changed by --close / --scenario
    if cl is not None:
        out["dask"] = {**done.dask, "cluster": cl.kind, "start_s": round(cl.start_s, 3)}
    if result.method == "sampled":
        out.update(samples=result.samples, error_bound=result.error_bound,
                   epsilon=result.epsilon, delta=result.delta, sampling=result.sampling,
                   sample_bound=result.sample_bound, epsilon_at_stop=result.epsilon_at_stop,
                   stopped_by=result.stopped_by, guarantee=result.guarantee,
                   phase_s={k: round(v, 4) for k, v in result.phase_s.items()},
                   notes=result.notes)
    if args.out:
        _write_sites(args, net, out)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{args.map}: {g.num_nodes} nodes, {g.num_arcs} arcs; {result.method} greedy, "
          f"{result.mode} paths, backend {result.backend} ({result.kernel}), {t_run:.2f} s"
          f"{edits_note(args)}")
    print(f"{'k':>3} {'node id':>14} {'lon':>11} {'lat':>10} {'gain':>14} {'SB':>14} {'cover':>7}")
    for i in range(len(result.sites)):
        lo, la = out["lonlat"][i]
        print(f"{i + 1:>3} {ids[i]:>14} {lo if lo is not None else float('nan'):>11.6f} "
              f"{la if la is not None else float('nan'):>10.6f} {result.gains[i]:>14.6g} "
              f"{result.group_betweenness[i]:>14.6g} {100 * result.coverage[i]:>6.2f}%")
    if cl is not None:
        from app.cli._dask import describe

        print(f"{describe(cl, done.dask['map'])}; {done.dask['blocks']} blocks, "
              f"{done.dask['paths']}; not counted")
    if result.method == "sampled":
        print(f"sampled {result.samples} pairs ({result.sampling}; fixed bound "
              f"{result.sample_bound}, stopped by {result.stopped_by}, error at stop "
              f"{result.epsilon_at_stop:.4g}); |SB estimate - SB| <= {result.error_bound:.6g}")
        print(f"guarantee: {result.guarantee}")
    if later:
        print(f"route index: {later}")
    return 0
