"""Time isochrone polygons after the search (app.jobs.isochrones' own timings).

    python scripts/bench_isochrones.py MAP [--profile P] [--quantiles 0.002,0.01,0.05]

The source is the node nearest the map's centre; the search is scipy's Dijkstra (timed
apart, then handed to the job); the cutoffs are quantiles of the reached costs, so a map
of any unit gets three nested polygons of growing size. Prints one line per repetition:
cut (arcs cut at the cutoffs), buffer (buffer + union), project (to lon/lat, nested on the
output grid) and polygons_s (all of it), in seconds. docs/perf/isochrones.md has results.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    from scipy.sparse.csgraph import dijkstra

    from app.jobs import isochrones as iso
    from app.jobs.maps import open_map

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("map")
    ap.add_argument("--profile", default=None)
    ap.add_argument("--quantiles", default="0.002,0.01,0.05")
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    t = time.perf_counter()
    net = open_map(a.map, profile=a.profile)
    print(f"{a.map}: {net.num_nodes:,} nodes, {net.num_arcs:,} arcs, unit {net.unit}; "
          f"load {time.perf_counter() - t:.1f} s")
    src = int(np.argmin(np.hypot(net.x - np.median(net.x), net.y - np.median(net.y))))
    t = time.perf_counter()
    d = dijkstra(net.to_scipy(), indices=src)
    print(f"search (scipy) {time.perf_counter() - t:.2f} s")
    d = np.where(np.isinf(d), -1, d).astype(np.int64)
    cuts = tuple(int(np.quantile(d[d >= 0], float(q))) for q in a.quantiles.split(","))
    within = [int(((d >= 0) & (d <= c)).sum()) for c in cuts]
    print(f"cutoffs {cuts} ({net.unit}); nodes within: {within}")
    for _ in range(a.repeat):
        res = iso.run(net, iso.IsochroneOptions(src, cuts, backend="cpu"), dist=d)
        tm = res.timings
        print(f"cut {tm['cut_s']:.3f}  buffer {tm['buffer_s']:.3f}  project "
              f"{tm['project_s']:.3f}  polygons_s {tm['polygons_s']:.3f}  areas km2 "
              f"{[round(p.area / 1e6, 2) for p in res.polygons_xy]}")


if __name__ == "__main__":
    main()
