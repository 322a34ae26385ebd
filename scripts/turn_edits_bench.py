"""Turn bans as edits and billboards per junction (issue 39), on the CPU: lifting the
Andorra extract's via-node restrictions one by one as edits (apply, repair of a one-to-all
search, the edited network), and the junction billboards greedy against the plain greedy on
the split graph (a generated 30×30 grid, bans at half the junctions). docs/perf/turn_edits.md.
Run: PYTHONPATH=. python scripts/turn_edits_bench.py [ANDORRA.osm.pbf]"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np

from app.jobs import billboards, whatif
from app.jobs.edits import Edit, EditError, Scenario
from gpu_core.betweenness import place_billboards
from gpu_core.sssp import sssp
from maps.formats.osm import load_osm
from maps.formats.osm_turns import read_restrictions


def edits(path: str, source: int = 100, count: int = 10) -> None:
    net = load_osm(path, profile="drive")
    rules = [r for r in read_restrictions(path).restrictions if r.via_node is not None]
    sc = Scenario(net, backend="cpu")
    before = sssp(sc.graph, source, backend="cpu")
    times = []
    for r in rules[:count]:
        t0 = time.perf_counter()
        try:
            done = sc.apply(Edit("lift_turn", turn=(r.from_ways[0], r.via_node, r.to_ways[0])))
        except EditError:  # legal already (e.g. the only_* turn itself)
            continue
        t1 = time.perf_counter()
        out = whatif.run(sc.graph, before, [done.summary],
                         whatif.WhatIfOptions(source, backend="cpu"))
        times.append((t1 - t0, time.perf_counter() - t1))
        before = out.result
    t0 = time.perf_counter()
    sc.network()
    a, b = np.array(times).T * 1000
    print(f"{path}: {net.num_nodes:,} vertices, {len(times)} lifts; apply median {np.median(a):.1f} "
          f"max {a.max():.1f} ms; repair median {np.median(b):.1f} max {b.max():.1f} ms; "
          f"network() {1000 * (time.perf_counter() - t0):.0f} ms")


def junction_billboards(k: int = 5) -> None:
    from tests.maps.test_turns import grid_osm

    p = os.path.join(tempfile.mkdtemp(), "grid.osm")
    grid_osm(p, k=30, seed=2, share=0.5)
    net = load_osm(p, profile="drive")
    plain = load_osm(p, profile="drive", turn_restrictions=False)
    billboards.run(net, billboards.BillboardsOptions(1, backend="cpu", method="exact"))  # warm
    for _ in range(2):
        t0 = time.perf_counter()
        place_billboards(plain, k, mode="weighted", backend="cpu", method="exact")
        t1 = time.perf_counter()
        place_billboards(net, k, mode="weighted", backend="cpu", method="exact")
        t2 = time.perf_counter()
        billboards.run(net, billboards.BillboardsOptions(k, backend="cpu", method="exact"))
        t3 = time.perf_counter()
        print(f"K={k}: without bans {t1 - t0:.2f} s, split graph {t2 - t1:.2f} s, "
              f"junctions {t3 - t2:.2f} s ({(t3 - t2) / (t2 - t1):.2f}x)")


if __name__ == "__main__":
    andorra = sys.argv[1] if len(sys.argv) > 1 else "../shared/maps/andorra.osm.pbf"
    if os.path.exists(andorra):
        edits(andorra)
    junction_billboards()
