"""``signpost generate KIND --out FILE``: write a benchmark map (DIMACS .gr + .co, or .spn)."""

from __future__ import annotations

import argparse
import os
import time

from app.cli import CliError
from app.cli._atomic import add_if_exists_argument, file_mode, out_formats
from app.cli._common import add_command


def register(sub) -> None:
    from maps.generate import DEFAULT_NODES, KINDS

    p = add_command(
        sub, "generate", run, "write a benchmark map: kanto, random, rmat, ring, complete, grid",
        "Generate a benchmark map and write it as DIMACS .gr (+ .co when it has "
        "coordinates; .gr.gz compresses) or as Signpost's .spn cache format. Defaults: "
        + ", ".join(f"{k} {v:,} nodes" for k, v in DEFAULT_NODES.items()),
        map_file=False,
    )
    p.add_argument("kind", choices=KINDS, help="which generator")
    p.add_argument("--out", required=True, help="output file: .gr, .gr.gz or .spn")
    add_if_exists_argument(p, default="fail", what="a map cannot grow: refused")
    out_formats(p, (".gr", ".gr.gz", ".spn"))  # the extension and folder: checked by _atomic
    p.add_argument("--nodes", "-n", type=int, default=None, help="number of nodes")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument(
        "--arcs-per-node", type=int, default=None, help="random/rmat: arcs = this x nodes (4)"
    )
    p.add_argument("--json", action="store_true", help="print a JSON summary")


def _check_companions(args: argparse.Namespace, out: str) -> None:
    """``--if-exists fail`` (the default) also keeps a ``.co`` beside a ``.gr`` output,
    which the write would replace or remove (the ``.gr`` itself: ``_atomic``)."""
    if file_mode(args) != "fail" or out.lower().endswith(".spn"):
        return
    from maps.outputs.dimacs import co_files

    for co in co_files(out):
        if os.path.lexists(co):
            raise CliError(f"--out {out!r}: its coordinates file {co!r} exists (--if-exists "
                           "fail); choose replace or another file")


def run(args: argparse.Namespace) -> int:
    import json

    from maps.generate import generate

    out = args.out
    low = out.lower()
    _check_companions(args, out)
    opts = {}
    if args.arcs_per_node is not None:
        if args.kind not in ("random", "rmat"):
            raise CliError("--arcs-per-node applies to random and rmat only")
        opts["arcs_per_node"] = args.arcs_per_node
    t0 = time.perf_counter()
    net = generate(args.kind, n=args.nodes, seed=args.seed, **opts)
    t1 = time.perf_counter()
    try:  # both writers go through osutil.atomic: whole files or none
        if low.endswith(".spn"):
            from maps.cache import write_cache

            write_cache(net, out)
            written = [out]
        else:
            from maps.outputs.dimacs import write_dimacs

            note = f"signpost generate {args.kind} --seed {args.seed}"
            written = write_dimacs(net, out, comment=note)
    except OSError as exc:
        raise CliError(f"cannot write {out}: {exc.strerror or exc}") from None
    t2 = time.perf_counter()
    summary = {
        "kind": args.kind,
        "seed": args.seed,
        "nodes": net.num_nodes,
        "arcs": net.num_arcs,
        "weight_min": int(net.weights.min()) if net.num_arcs else None,
        "weight_max": int(net.weights.max()) if net.num_arcs else None,
        "weight_mean": float(net.weights.mean()) if net.num_arcs else None,
        "files": written,
        "generate_s": round(t1 - t0, 3),
        "write_s": round(t2 - t1, 3),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        wmin, wmax, wmean = summary["weight_min"], summary["weight_max"], summary["weight_mean"]
        print(
            f"{args.kind}: {net.num_nodes:,} nodes, {net.num_arcs:,} arcs, weights "
            f"{wmin}..{wmax} (mean {wmean or 0:.1f}); "
            f"generated in {t1 - t0:.2f} s, wrote {', '.join(written)} in {t2 - t1:.2f} s"
        )
    return 0
