"""``signpost isochrones MAP --from P --minutes 5,10,15 --out F.geojson|F.gpkg``: polygons of
what is reachable within each cutoff (``app.jobs.isochrones`` says how they are made)."""

from __future__ import annotations

import argparse
import json

import resources
from app.cli import CliError, db_out
from app.cli._atomic import out_formats
from app.cli._common import (
    add_command,
    add_search_arguments,
    add_search_index_argument,
    map_from_args,
)

LAYER = "isochrones"  # the GeoPackage layer written (other layers are kept)
HELP, DESCRIPTION = resources.cli_help("isochrones")
OUT_EXT = (".geojson", ".json", ".gpkg")
MAX_CUTOFF = 1e9  # 25 times round the Earth in metres; 1,900 years in minutes


def register(sub) -> None:
    from app.jobs.isochrones import DEFAULT_BUFFER_M

    p = add_command(sub, "isochrones", run, HELP, DESCRIPTION)
    p.add_argument("--from", dest="source", required=True, metavar="P",
                   help="start point: LON,LAT or node:ID")
    by = p.add_mutually_exclusive_group(required=True)
    by.add_argument("--minutes", metavar="T1,T2,...", help="travel-time cutoffs (a time profile, or --weight in a time unit)")
    by.add_argument("--metres", "--meters", dest="metres", metavar="L1,L2,...",
                    help="road-length cutoffs in metres (any map)")
    by.add_argument("--cost", metavar="C1,C2,...", help="cutoffs in the map's own weight unit")
    p.add_argument("--out", required=True, metavar="F.geojson|F.gpkg",
                   help="output file, or postgresql://.../db?table=NAME")
    p.add_argument("--buffer", type=float, default=DEFAULT_BUFFER_M, metavar="M",
                   help=f"band around each reachable road, metres each side (default "
                        f"{DEFAULT_BUFFER_M:g})")
    add_search_arguments(p)
    add_search_index_argument(p)
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    db_out.add_arguments(p)
    out_formats(p, OUT_EXT)


def parse_cutoffs(text: str, option: str) -> list[float]:
    """``5,10,15`` → [5.0, 10.0, 15.0] (distinct, ascending); CliError for anything else."""
    vals = []
    for part in text.split(","):
        try:
            v = float(part)
        except ValueError:
            raise CliError(f"{option} {text!r}: {part.strip()!r} is not a number") from None
        if not v > 0:
            raise CliError(f"{option} {text!r}: cutoffs must be numbers > 0")
        if not v < MAX_CUTOFF:
            raise CliError(f"{option} {text!r}: {part.strip()} is too large (cutoffs are "
                           f"below {MAX_CUTOFF:g})")
        vals.append(v)
    from app.jobs.isochrones import MAX_BANDS

    if len(set(vals)) > MAX_BANDS:  # each band is a polygon of its whole area (issue 40)
        raise CliError(f"{option}: {len(set(vals)):,} cutoffs; at most {MAX_BANDS:,} in one "
                       "run (each is a polygon of all it reaches)")
    return sorted(set(vals))


def _label(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


def run(args: argparse.Namespace) -> int:
    from app.cli._atomic import check_out, out_mode, write_file_atomic
    from app.jobs import isochrones as iso
    from app.jobs.common import unit_info
    from app.jobs.maps import resolve_texts
    from maps.outputs.vector import write_features

    if db_out.wanted(args):
        db_out.check(args)
    else:
        check_out(args.out, OUT_EXT, layer=LAYER)
    if not args.buffer > 0 or args.buffer > 100_000:
        raise CliError(f"--buffer {args.buffer:g}: give a width in metres, > 0 and at most "
                       "100,000 (100 km each side)")
    net = map_from_args(args)
    if not net.has_coordinates:
        raise CliError(f"{args.map}: this map has no coordinates, so it has no polygons")
    if args.minutes is not None:
        name, labels = "minutes", parse_cutoffs(args.minutes, "--minutes")
        try:
            costs = [iso.minutes_to_cost(net.unit, v) for v in labels]
        except ValueError as exc:
            raise CliError(f"--minutes: {exc}; use --metres or --cost") from None
        by = "cost"
    elif args.metres is not None:
        name, labels = "metres", parse_cutoffs(args.metres, "--metres")
        costs, by = [int(round(v * 10)) for v in labels], "length"  # decimetres
    else:
        name, labels = "cost", parse_cutoffs(args.cost, "--cost")
        costs, by = [int(round(v)) for v in labels], "cost"
    (src,) = resolve_texts(net, args.source, max_distance_m=args.max_snap)
    policy, later = args.index, ""
    if by == "cost":  # by length the weights are another graph's: no index
        from app.jobs import index_later

        # a fresh install's --index on: the small-work search answers while a background
        # process builds the index (app.jobs.index_later: the same polygons)
        policy, later = index_later.search_policy(net, args.strategy, args.index,
                                                  args.backend, getattr(args, "unedited", None))
    res = iso.run(net, iso.IsochroneOptions(src.node, tuple(costs), by=by,
                                            buffer_m=args.buffer, backend=args.backend,
                                            strategy=args.strategy, index=policy))
    by_cost = dict(zip(costs, labels, strict=True))
    props = [{name: _label(by_cost[c]), "cost": c, "unit": res.unit} for c in res.cutoffs]
    if db_out.wanted(args):  # the features' properties as columns, polygons as geom
        db_out.write_rows(args, net, props, res.polygons, "MultiPolygon")
    else:
        mode = out_mode(args.out)
        write_file_atomic(args.out, lambda tmp: write_features(tmp, res.polygons, props,
                                                               layer=LAYER, if_exists=mode))
    rows = [{**p, "area_km2": round(g.area / 1e6, 6), "parts": len(getattr(g, "geoms", [g]))
             if not g.is_empty else 0} for p, g in zip(props, res.polygons_xy, strict=True)]
    if args.json:
        later_keys = {"index": "background", "index_note": later} if later else {}
        print(json.dumps({"out": args.out, "source": src.as_dict(), "by": name,
                          "buffer_m": args.buffer, **unit_info(net), "isochrones": rows,
                          "timings": {k: round(v, 4) for k, v in res.timings.items()},
                          **later_keys}))
        return 0
    for r in rows:
        print(f"{r[name]:>8g} {name:<7} {r['area_km2']:10.3f} km2 in {r['parts']} part(s)")
    t = res.timings
    print(f"wrote {args.out}: {len(rows)} polygon(s) from node {src.node_id}; search "
          f"{t['search_s'] * 1000:.0f} ms, polygons {t['polygons_s'] * 1000:.0f} ms")
    if later:
        print(f"search index: {later}")
    return 0
