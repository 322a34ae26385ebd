"""``signpost route MAP --from P --to P``: one least-cost route, as text or JSON."""

from __future__ import annotations

import argparse
import json
import sys

import resources
from app.cli import db_out
from app.cli._atomic import out_formats
from app.cli._common import (
    add_command,
    add_edit_arguments,
    add_search_arguments,
    add_search_index_argument,
    add_turn_penalty_argument,
    compile_clock,
    fmt_duration,
    map_from_args,
    timings,
    timings_json,
    warm_up_search,
)
from app.jobs.common import small_work

# argparse help and description: resources/cli_help.json
HELP, DESCRIPTION = resources.cli_help("route")


def register(sub) -> None:
    p = add_command(sub, "route", run, HELP, DESCRIPTION)
    p.add_argument("--from", dest="source", required=True, metavar="P", help="start point")
    p.add_argument("--to", dest="target", required=True, metavar="P", help="end point")
    add_search_arguments(p)
    add_search_index_argument(p)
    add_edit_arguments(p)
    add_turn_penalty_argument(p)
    p.add_argument("--json", action="store_true", help="print the route as one JSON object")
    p.add_argument("--out", default=None, metavar="F.csv",
                   help="also write the route as rows seq, node_id, edge_id, cost, agg_cost "
                   "(as pgr_dijkstra) to CSV or postgresql://.../db?table=NAME (+ each "
                   "edge's line)")
    db_out.add_arguments(p)
    out_formats(p, (".csv",))


def _write_route(args: argparse.Namespace, net, r) -> None:
    """--out: pgr_dijkstra's rows (seq, node, the edge leaving it, its cost, the cost so
    far; the last row's edge is -1), with each edge's line in a database."""
    import numpy as np

    from app.jobs.route import route_lonlat

    w = net.weights[r.arcs].astype(np.int64)
    agg = np.concatenate([[0], np.cumsum(w)]).tolist()
    ids = net.node_labels()[r.nodes].tolist()
    edges = net.edge_source_id[r.arcs].tolist() + [-1]
    costs = w.tolist() + [0]
    rows = [{"seq": i + 1, "node_id": ids[i], "edge_id": edges[i], "cost": costs[i],
             "agg_cost": agg[i]} for i in range(len(ids))]
    geoms = None
    if net.has_coordinates and db_out.wanted(args):
        geoms = _arc_lines(net, r, route_lonlat(net, r))
    db_out.write_rows(args, net, rows, geoms, "LineString")


def _arc_lines(net, r, path: list) -> list:
    """Each route arc's line (lon/lat, inner points included), then None for the end."""
    from shapely.geometry import LineString

    inner = [0] * len(r.arcs)
    if net.geom_indptr is not None and len(path) > len(r.nodes):
        inner = (net.geom_indptr[r.arcs + 1] - net.geom_indptr[r.arcs]).tolist()
    out, at = [], 0
    for k in inner:
        out.append(LineString(path[at:at + k + 2]))
        at += k + 1
    return out + [None]


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from app.jobs import index_later, route
    from app.jobs.maps import check_texts
    from app.progress import step

    opts = route.RouteOptions(args.source, args.target, strategy=args.strategy,
                              backend=args.backend, max_distance_m=args.max_snap,
                              map_path=args.map, index=args.index)
    check_texts(args.map, args.source, args.target)
    if args.out and db_out.wanted(args):
        db_out.check(args)
    elif args.out:
        from app.cli._atomic import check_out

        check_out(args.out, (".csv",))
    net = map_from_args(args)
    # a fresh install's --index on: the small-work search answers while a background
    # process builds the index (app.jobs.index_later: the same route)
    policy, later = index_later.search_policy(net, args.strategy, args.index, args.backend,
                                              getattr(args, "unedited", None))
    opts = replace(opts, index=policy)
    warm_up_search(args, target=True, small=small_work(net))
    with step("route") as p, compile_clock() as compiled:
        found = route.run(net, opts, progress=p)
    out = found.json
    if later:
        out.update(index="background", index_note=later)
    for line in route.far_snap_warnings(found.source, found.target):
        print(f"signpost route: warning: {line}", file=sys.stderr)
    if args.out:
        _write_route(args, net, found.route)
    # the search alone: a first run's compilation inside it is told apart (issue 42)
    timings(args)["compile_s"] = min(compiled[0], out["search_ms"] / 1000.0)
    timings(args)["search_s"] = out["search_ms"] / 1000.0 - timings(args)["compile_s"]
    out["timings"] = timings_json(args)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"map       {args.map} (profile {out['profile']}, unit {out['unit_name']})")
    for key in ("from", "to"):
        pt = out[key]
        line = f"{key:<9} {pt['input']} -> node {pt['node_id']}"
        if pt["snap"] is not None:
            line += f" (snapped {pt['snap']['distance_m']:.1f} m to arc {pt['snap']['arc']})"
        print(line)
    print(f"cost      {out['cost']} {out['unit']}")
    if out["time_s"] is not None:
        print(f"time      {fmt_duration(out['time_s'])} ({out['time_s']:.1f} s)")
    if out["length_m"] is not None:
        print(f"length    {out['length_m'] / 1000:.3f} km")
    else:
        print("length    no geometry (the map has no coordinates)")
    print(f"nodes     {out['nodes']} ({out['arcs']} arcs)")
    if "edits" in out:
        print(f"edits     {out['edits']} arc{'s' * (out['edits'] != 1)} changed")
    tr = out.get("turn_restrictions")
    if tr and tr["detour"]:
        print(f"turns     detours around a turn ban: +{tr['extra_cost']} {out['unit']} "
              f"(without the map's {tr['applied']} turn restrictions: {tr['cost_without']})")
    if "turn_penalty" in out:
        tp = out["turn_penalty"]
        print("turns     penalties " + ", ".join(f"{k} +{tp[k]} {out['unit']}" for k in
                                                 ("left", "right", "u") if k in tp))
    print(
        f"search    {out['strategy']} on {out['backend']} ({out['device']}), "
        f"{out['search_ms']:.1f} ms, {out['phases']} phases (stopped once the end was settled)"
    )
    if later:
        print(f"index     search index: {later}")
    t = out["timings"]
    print(f"timings   load {t['load_s']:.2f} s, warm-up {t['warmup_s'] * 1000:.1f} ms, "
          f"search {t['search_s'] * 1000:.1f} ms")
    return 0
