"""``signpost sssp MAP --source P --out FILE``: costs from one point to every node."""

from __future__ import annotations

import argparse
import os

import numpy as np

import resources
from app.cli import CliError
from app.cli._atomic import out_paths
from app.cli._common import (
    add_command,
    add_edit_arguments,
    add_search_arguments,
    edits_note,
    open_map,
    timings,
    warm_up_search,
)

OUT_EXT = (".csv", ".npy")
NPY_DTYPE = np.dtype([("node_id", "<i8"), ("cost", "<i8")])


# argparse help and description: resources/cli_help.json
HELP, DESCRIPTION = resources.cli_help("sssp")


def register(sub) -> None:
    p = add_command(sub, "sssp", run, HELP, DESCRIPTION)
    p.add_argument("--source", required=True, metavar="P", help="LON,LAT or node:ID")
    p.add_argument("--out", required=True, metavar="FILE", help="output .csv or .npy")
    add_search_arguments(p)
    add_edit_arguments(p)


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
        f.write("node_id,cost\n")
        ids = node_ids.tolist()
        ds = dist.tolist()
        rows = (f"{i},{d}\n" if d != unreachable else f"{i},\n"
                for i, d in zip(ids, ds, strict=True))
        f.write("".join(rows))


def run(args: argparse.Namespace) -> int:
    from app.jobs import sssp
    from app.jobs.maps import check_texts, resolve_texts
    from app.progress import step

    out = args.out
    if not out.lower().endswith(OUT_EXT):
        raise CliError(f"--out {out!r}: unknown extension; write .csv or .npy")
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise CliError(f"--out {out!r}: folder {parent} does not exist")
    check_texts(args.map, args.source)
    net = open_map(args)
    (src,) = resolve_texts(net, args.source, max_distance_m=args.max_snap)
    warm_up_search(args, target=False)
    with step("sssp") as p:
        p(None, f"{args.strategy} from node {src.node_id}")
        res = sssp.run(net, sssp.SsspOptions(src.node, args.strategy, args.backend), progress=p)
    write_costs(out, net.node_labels(), res.dist, res.unreachable)
    reached = int(res.reached.sum())
    t = timings(args)
    print(
        f"{reached:,} of {net.num_nodes:,} nodes reached from node {src.node_id}; "
        f"max cost {int(res.dist[res.reached].max()):,} {net.unit}; {res.strategy} on {res.backend}, "
        f"{res.elapsed_s * 1000:.1f} ms (load {t['load_s']:.2f} s, warm-up "
        f"{t['warmup_s'] * 1000:.1f} ms){edits_note(args)}; wrote {out}"
    )
    return 0
