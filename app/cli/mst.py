"""``signpost mst MAP``: minimum spanning forest of the map's undirected graph."""

from __future__ import annotations

import argparse
import json
from typing import Any

import resources
from app.cli import CliError
from app.cli._atomic import add_if_exists_argument, check_out, out_formats, write_text_atomic
from app.cli._common import BACKEND_HELP, Timer, add_backend_argument, add_command, map_from_args
from app.jobs.common import json_safe, unit_info
from app.jobs.mst import write_csv, write_geojson

OUT_EXT = (".csv", ".geojson")


# argparse help and description: resources/cli_help.json
HELP, DESCRIPTION = resources.cli_help("mst")


def register(sub) -> None:
    p = add_command(sub, "mst", run, HELP, DESCRIPTION)
    add_backend_argument(p, BACKEND_HELP)
    p.add_argument("--method", default="direct", choices=("framework", "direct"),
                   help="direct: the direct Borůvka kernels on the GPU, Kruskal on the CPU "
                        "(default; the same forest, faster); framework: the Borůvka vertex "
                        "program")
    p.add_argument("--out", metavar="FILE", help="write the forest as .csv or .geojson")
    add_if_exists_argument(p, what="rows under a .csv's same header; a .geojson cannot grow")
    out_formats(p, OUT_EXT)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def summary(net, res, map_path: str, time_s: float, out: str | None) -> dict[str, Any]:
    f = res.forest
    return json_safe({
        "map": map_path,
        "profile": net.profile,
        **unit_info(net),
        "nodes": net.num_nodes,
        "arcs": net.num_arcs,
        "edges": f.num_edges,
        "total_weight": int(f.total_weight),
        "components": int(f.components),
        "method": f.method,
        "backend": f.backend,
        "note": f.note or None,
        "supersteps": int(f.supersteps),
        "rounds": int(f.rounds),
        "time_s": round(time_s, 4),
        "out": out,
    })


def run(args: argparse.Namespace) -> int:
    from app.jobs.mst import MSTOptions
    from app.jobs.mst import run as run_mst
    from app.progress import step

    ext = check_out(args.out, OUT_EXT) if args.out else None
    net = map_from_args(args)
    if ext == ".geojson" and not net.has_coordinates:
        raise CliError(f"--out {args.out!r}: this map has no coordinates; write .csv instead")
    with Timer() as t, step("mst") as p:
        res = run_mst(net, MSTOptions(backend=args.backend, method=args.method), progress=p)
    if ext == ".csv":
        write_text_atomic(args.out, lambda fh: write_csv(fh, res))
    elif ext == ".geojson":
        write_text_atomic(args.out, lambda fh: write_geojson(fh, net, res))
    out = summary(net, res, args.map, t.s, args.out)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"map          {args.map} (profile {out['profile']}, unit {out['unit_name']})")
    print(f"forest       {out['edges']:,} edges, total weight {out['total_weight']:,} "
          f"{out['unit']}, {out['components']:,} components ({out['nodes']:,} nodes)")
    how = (f"{out['supersteps']} supersteps, " if out["method"] == "framework" else "") + \
        (f"{out['rounds']} rounds, " if out["rounds"] else "")
    print(f"ran          {out['method']} on {out['backend']}: {how}{t.s * 1000:.1f} ms")
    if out["note"]:
        print(f"note         {out['note']}")
    if args.out:
        print(f"wrote        {args.out}")
    return 0
