"""``signpost route MAP --from P --to P``: one least-cost route, as text or JSON."""

from __future__ import annotations

import argparse
import json

import resources
from app.cli._common import (
    add_command,
    add_edit_arguments,
    add_search_arguments,
    fmt_duration,
    open_map,
    timings,
    timings_json,
    warm_up_search,
)

# argparse help and description: resources/cli_help.json
HELP, DESCRIPTION = resources.cli_help("route")


def register(sub) -> None:
    p = add_command(sub, "route", run, HELP, DESCRIPTION)
    p.add_argument("--from", dest="source", required=True, metavar="P", help="start point")
    p.add_argument("--to", dest="target", required=True, metavar="P", help="end point")
    add_search_arguments(p)
    add_edit_arguments(p)
    p.add_argument("--json", action="store_true", help="print the route as one JSON object")


def run(args: argparse.Namespace) -> int:
    from app.jobs import route
    from app.jobs.maps import check_texts
    from app.progress import step

    opts = route.RouteOptions(args.source, args.target, strategy=args.strategy,
                              backend=args.backend, max_distance_m=args.max_snap,
                              map_path=args.map)
    check_texts(args.map, args.source, args.target)
    net = open_map(args)
    warm_up_search(args, target=True)
    with step("route") as p:
        out = route.run(net, opts, progress=p).json
    timings(args)["search_s"] = out["search_ms"] / 1000.0
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
    print(
        f"search    {out['strategy']} on {out['backend']} ({out['device']}), "
        f"{out['search_ms']:.1f} ms, {out['phases']} phases"
    )
    t = out["timings"]
    print(f"timings   load {t['load_s']:.2f} s, warm-up {t['warmup_s'] * 1000:.1f} ms, "
          f"search {t['search_s'] * 1000:.1f} ms")
    return 0
