"""``signpost sssp MAP --source P --out FILE``: costs from one point to every node."""

from __future__ import annotations

import argparse

import numpy as np

import resources
from app.cli import CliError, db_out
from app.cli._atomic import out_formats, out_paths
from app.cli._common import (
    add_command,
    add_edit_arguments,
    add_search_arguments,
    add_search_index_argument,
    add_turn_penalty_argument,
    edits_note,
    map_from_args,
    timings,
    warm_up_search,
)
from app.jobs.common import small_work
from maps.model.turns import fold

OUT_EXT = (".csv", ".npy")
NPY_DTYPE = np.dtype([("node_id", "<i8"), ("cost", "<i8")])


# argparse help and description: resources/cli_help.json
HELP, DESCRIPTION = resources.cli_help("sssp")


def register(sub) -> None:
    p = add_command(sub, "sssp", run, HELP, DESCRIPTION)
    p.add_argument("--source", required=True, metavar="P", help="LON,LAT or node:ID")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="output .csv or .npy, or postgresql://.../db?table=NAME")
    add_search_arguments(p)
    add_search_index_argument(p)
    add_edit_arguments(p)
    add_turn_penalty_argument(p)
    db_out.add_arguments(p)
    out_formats(p, OUT_EXT)


def write_costs(path: str, node_ids: np.ndarray, dist: np.ndarray, unreachable: int = -1) -> None:
    """Write costs as CSV or NPY (see the command's help), atomically; CliError for other
    extensions or a failed write. Unreached nodes (``dist == unreachable``: -1, or int64
    min on a map with negative arcs, where -1 is a real cost) get an empty CSV cost and
    keep that value in the NPY."""
    low = path.lower()
    if not low.endswith(OUT_EXT):
        raise CliError(f"--out {path!r}: unknown extension; write .csv or .npy")
    with out_paths([path]) as (tmp,):
        _write_costs(tmp, low, node_ids, dist, unreachable)


def _write_costs(path: str, low: str, node_ids: np.ndarray, dist: np.ndarray,
                 unreachable: int) -> None:
    if low.endswith(".npy"):
        dtype = NPY_DTYPE
        if node_ids.dtype == object:  # GraphML names: a string field of the needed width
            width = max((len(str(v)) for v in node_ids.tolist()), default=1)
            dtype = np.dtype([("node_id", f"U{width}"), ("cost", np.int64)])
        arr = np.empty(node_ids.shape[0], dtype=dtype)
        arr["node_id"] = node_ids
        arr["cost"] = dist
        with open(path, "wb") as fh:  # np.save(name) would append .npy to the temp name
            np.save(fh, arr, allow_pickle=False)
        return
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(cost_csv(node_ids, dist, unreachable))


def cost_csv(node_ids: np.ndarray, dist: np.ndarray, unreachable: int,
             lonlat: tuple[np.ndarray, np.ndarray] | None = None) -> str:
    """The CSV ``node_id,cost`` (cost empty when unreached), header first; ``lonlat``
    adds the nodes' ``lon,lat`` (the database table's geometry is made of them)."""
    ids = node_ids.tolist()
    ds = dist.tolist()
    rows = (f"{i},{d}" if d != unreachable else f"{i}," for i, d in zip(ids, ds, strict=True))
    if lonlat is None:
        return "node_id,cost\n" + "".join(r + "\n" for r in rows)
    xs, ys = (v.tolist() for v in lonlat)
    return "node_id,cost,lon,lat\n" + "".join(
        f"{r},{x!r},{y!r}\n" for r, x, y in zip(rows, xs, ys, strict=True))


def write_table(args: argparse.Namespace, net, dist: np.ndarray, unreachable: int) -> None:
    """``--out postgresql://...``: the CSV's rows, plus each node's point when the map
    has coordinates."""
    from app.cli import db_out
    from maps.postgis.write import Geometry

    labels = net.node_labels()[: dist.shape[0]]  # the file's nodes (turn copies folded)
    cols = [("node_id", db_out.id_type(labels)), ("cost", "bigint")]
    geom = lonlat = None
    if net.has_coordinates:
        cols += [("lon", "double precision"), ("lat", "double precision")]
        geom = Geometry("point", ("lon", "lat"), "Point")
        lonlat = (net.lon[: dist.shape[0]], net.lat[: dist.shape[0]])
    with db_out.table(args, net, cols, geom) as sink:
        sink.write(cost_csv(labels, dist, unreachable, lonlat))


def run(args: argparse.Namespace) -> int:
    from app.jobs import index_later, sssp
    from app.jobs.maps import check_texts, resolve_texts
    from app.progress import step

    out = args.out
    if db_out.wanted(args):  # a file's extension and folder: the --out policy (_atomic)
        db_out.check(args)
    check_texts(args.map, args.source)
    net = map_from_args(args)
    (src,) = resolve_texts(net, args.source, max_distance_m=args.max_snap)
    # a fresh install's --index on: the small-work search answers while a background
    # process builds the index (app.jobs.index_later: the same costs)
    policy, later = index_later.search_policy(net, args.strategy, args.index, args.backend,
                                              getattr(args, "unedited", None))
    warm_up_search(args, target=False, small=small_work(net))
    with step("sssp") as p:
        p(None, f"{args.strategy} from node {src.node_id}")
        res = sssp.run(net, sssp.SsspJobOptions(src.node, args.strategy, args.backend,
                                                index=policy), progress=p)
    # a turn-restricted map's copies folded into the file's nodes (maps.model.turns)
    dist = fold(net, res.dist, res.unreachable)
    n0 = dist.shape[0]
    if db_out.wanted(args):
        write_table(args, net, dist, res.unreachable)
    else:
        write_costs(out, net.node_labels()[:n0], dist, res.unreachable)
    reached = int((dist != res.unreachable).sum())
    t = timings(args)
    print(
        f"{reached:,} of {n0:,} nodes reached from node {src.node_id}; "
        f"max cost {int(dist[dist != res.unreachable].max()):,} {net.unit}; {res.strategy}"
        f"{' through the search index' if res.extra.get('index') else ''} on {res.backend}, "
        f"{res.elapsed_s * 1000:.1f} ms (load {t['load_s']:.2f} s, warm-up "
        f"{t['warmup_s'] * 1000:.1f} ms){edits_note(args)}; wrote {out}"
        f"{f'; search index: {later}' if later else ''}"
    )
    return 0
