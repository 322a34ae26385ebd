"""``signpost info MAP``: size, components, weight statistics and arc kinds of a map."""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from app.cli._common import Timer, add_command, map_from_args
from app.jobs.common import json_safe, unit_info


def register(sub) -> None:
    p = add_command(
        sub, "info", run, "nodes, arcs, components, weights and arc kinds of a map",
        "Load a map and describe it: nodes, arcs, weakly connected components "
        "(count and largest), arc weights (min/max/mean in the profile's unit), arcs per "
        "kind (road/rail/transfer) and per class (highway/railway value).",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def describe(net) -> dict[str, Any]:
    """The facts ``info`` prints, as a JSON-ready dict."""
    from maps.model.network import KIND_NAMES

    n, m = net.num_nodes, net.num_arcs
    count, label = net.components()
    sizes = np.bincount(label) if n else np.zeros(0, dtype=np.int64)
    w = net.weights.astype(np.int64)
    kinds = np.bincount(net.edge_kind, minlength=len(KIND_NAMES)) if m else np.zeros(3, int)
    classes: np.ndarray | list[int] = np.bincount(net.edge_class, minlength=len(net.class_names)) if m else []
    out: dict[str, Any] = {
        "map": net.source_path,
        "profile": net.profile,
        **unit_info(net),
        "nodes": n,
        "arcs": m,
        "components": int(count),
        "largest_component": int(sizes.max()) if n else 0,
        "weights": {
            "min": int(w.min()) if m else None,
            "max": int(w.max()) if m else None,
            "mean": round(float(w.mean()), 3) if m else None,
            "unit": net.unit,
        },
        "kinds": {KIND_NAMES[k]: int(c) for k, c in enumerate(kinds) if k < len(KIND_NAMES)},
        "classes": {
            net.class_names[k]: int(c)
            for k, c in enumerate(classes)
            if c and k < len(net.class_names)
        },
        # null without coordinates (DIMACS without .co, PACE): no lengths to sum
        "length_km": (round(float(np.asarray(net.edge_length, np.float64).sum()) / 1000, 3)
                      if net.has_coordinates else None),
        "has_coordinates": bool(net.has_coordinates),
    }
    if net.has_coordinates:
        out["bbox"] = [
            float(net.lon.min()),
            float(net.lat.min()),
            float(net.lon.max()),
            float(net.lat.max()),
        ]
    # The CRS the source's coordinates came in (they are WGS84 lon/lat from loading on).
    out["crs"] = net.meta.get("crs") or ("EPSG:4326" if net.has_coordinates else None)
    if net.meta.get("attribution"):
        out["attribution"] = net.meta["attribution"]
    if net.meta.get("turn_restrictions"):  # read / applied / skipped (maps.model.turns)
        out["turn_restrictions"] = {k: v for k, v in net.meta["turn_restrictions"].items()
                                    if k != "skipped_ids"}
    return out


def run(args: argparse.Namespace) -> int:
    with Timer() as t:
        net = map_from_args(args)
    info = describe(net)
    info["load_s"] = round(t.s, 3)
    info = json_safe(info)
    if args.json:
        print(json.dumps(info))
        return 0
    wt = info["weights"]
    print(f"map          {args.map}")
    print(f"profile      {info['profile']} (unit: {info['unit_name']})")
    print(f"nodes        {info['nodes']:,}")
    print(f"arcs         {info['arcs']:,}")
    print(
        f"components   {info['components']:,} (largest {info['largest_component']:,} nodes)"
    )
    if wt["min"] is not None:
        print(
            f"weights      min {wt['min']:,}  max {wt['max']:,}  "
            f"mean {wt['mean']:,.1f} {wt['unit']}"
        )
    if info.get("weights_generated"):
        print(f"             generated: {info['weights_generated']}")
    print("kinds        " + ", ".join(f"{k} {v:,}" for k, v in info["kinds"].items()))
    top = sorted(info["classes"].items(), key=lambda kv: -kv[1])
    print("classes      " + ", ".join(f"{k} {v:,}" for k, v in top))
    if info["length_km"] is None:
        print("length       no geometry (the map has no coordinates)")
    else:
        print(f"length       {info['length_km']:,.1f} km of arcs")
    if "bbox" in info:
        b = info["bbox"]
        print(f"bbox         {b[0]:.5f},{b[1]:.5f} .. {b[2]:.5f},{b[3]:.5f}")
    if info["crs"] not in (None, "EPSG:4326"):
        print(f"crs          {info['crs']}")
    if "attribution" in info:
        print(f"data         {info['attribution']}")
    if "turn_restrictions" in info:
        _print_turns(info["turn_restrictions"], net.meta["turn_restrictions"], args)
    print(f"loaded in    {info['load_s']:.2f} s")
    return 0


def _print_turns(tr: dict, full: dict, args: argparse.Namespace) -> None:
    """The turn restriction line; under -v every skipped relation id by reason."""
    print(f"turns        {tr['read']:,} restrictions read, {tr['applied']:,} applied, "
          f"{tr['skipped']:,} skipped ({tr['conditional']:,} conditional, not applied); "
          f"{tr['node_copies']:,} node copies")
    for reason, ids in full.get("skipped_ids", {}).items():
        if getattr(args, "verbose", 0):
            print(f"             skipped ({reason}): " + ", ".join(f"r{i}" for i in ids))
        else:
            print(f"             skipped ({reason}): {len(ids):,}")
