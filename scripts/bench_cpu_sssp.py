"""Median ms per source of every CPU SSSP strategy vs scipy's Dijkstra (one process).

    .venv/bin/python scripts/bench_cpu_sssp.py --map kanto --sources 5
    .venv/bin/python scripts/bench_cpu_sssp.py --map fla --strategies auto,delta
    .venv/bin/python scripts/bench_cpu_sssp.py --map grid:1000x1000 --delta-factors 0.25,1,4

Maps: ``kanto`` (maps.generate, 1.43M nodes), ``fla``/``ne`` (../shared/maps PACE files,
weights uniform 1..1000, seed 1), ``gen:KIND:N`` (maps.generate, e.g. gen:rmat:1048576),
``grid:RxC`` (tests.core.families.road_grid), or a path
for maps.load.load_map. Every strategy's dist is checked against scipy's for each source.
Each source runs scipy then each strategy in turn (interleaved, so machine load hits all
alike); times are the whole ``sssp()`` call (keys, pred pass included), scipy's is
``dijkstra(indices=s)`` on a prebuilt matrix (distances only, no pred). Both wall time and
process CPU time are kept: everything here is single-threaded, so on a shared machine the
CPU time is the steadier figure (the table's ratios use it).
"""

from __future__ import annotations

import argparse
import csv
import platform
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from gpu_core.graph import CSRGraph  # noqa: E402
from gpu_core.params import default_delta  # noqa: E402
from gpu_core.sssp import STRATEGIES, SSSPOptions, sssp  # noqa: E402


def load(spec: str) -> CSRGraph:
    if spec == "kanto":
        from maps.generate import generate

        return CSRGraph.from_any(generate("kanto"))
    if spec in ("fla", "ne"):
        from maps.formats.dimacs import load_pace

        path = REPO.parent / "shared" / "maps" / f"{spec.upper()}.gr.xz"
        return CSRGraph.from_any(load_pace(path))
    if spec.startswith("gen:"):  # gen:KIND:N, any maps.generate kind
        from maps.generate import generate

        _, kind, n = spec.split(":")
        return CSRGraph.from_any(generate(kind, n=int(n)))
    if spec.startswith("grid:"):
        from tests.core.families import road_grid

        r, c = (int(x) for x in spec[5:].split("x"))
        return road_grid(r, c, seed=1)
    from maps.load import load_map

    return CSRGraph.from_any(load_map(spec))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", default="kanto")
    ap.add_argument("--sources", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--delta-factors", default="", help="extra delta runs: factors x mean weight")
    ap.add_argument("--csv", default="", help="write per-source rows here")
    a = ap.parse_args(argv)

    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    t0 = time.perf_counter()
    g = load(a.map)
    n = g.num_nodes
    print(f"map {a.map}: {n} nodes, {g.num_arcs} arcs, mean weight {g.weights.mean():.1f}, "
          f"default delta {default_delta(g)} (loaded in {time.perf_counter() - t0:.1f} s)")
    print(f"machine: {platform.processor() or platform.machine()}, {platform.python_version()}")
    mat = csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr), shape=(n, n))
    runs: list[tuple[str, str, SSSPOptions]] = [
        (s, s, SSSPOptions()) for s in a.strategies.split(",") if s
    ]
    for f in [float(x) for x in a.delta_factors.split(",") if x]:
        d = max(1, int(round(f * float(g.weights.mean()))))
        runs.append((f"delta x{f:g}", "delta", SSSPOptions(delta=d)))
    # warm-up: numba loads/compiles every kernel once
    small = np.array([0])
    for _, strat, opts in runs:
        sssp(g, small, strategy=strat, backend="cpu", options=opts, target=int(g.indices[0])
             if g.num_arcs else None)
    rng = np.random.default_rng(a.seed)
    sources = rng.integers(0, n, a.sources)
    times: dict[str, list[float]] = {"scipy": []}
    walls: dict[str, list[float]] = {"scipy": []}
    phases: dict[str, list[int]] = {}
    rows = []
    for s in sources.tolist():
        w, t = time.perf_counter(), time.process_time()
        d = dijkstra(mat, directed=True, indices=s)
        times["scipy"].append(time.process_time() - t)
        walls["scipy"].append(time.perf_counter() - w)
        ref = np.where(np.isfinite(d), d, -1).astype(np.int64)
        rows.append((s, "scipy", times["scipy"][-1], walls["scipy"][-1], 0, 0))
        for label, strat, opts in runs:
            w, t = time.perf_counter(), time.process_time()
            r = sssp(g, s, strategy=strat, backend="cpu", options=opts)
            dt = time.process_time() - t
            walls.setdefault(label, []).append(time.perf_counter() - w)
            if not np.array_equal(r.dist, ref):
                print(f"MISMATCH {label} source {s}")
                return 1
            times.setdefault(label, []).append(dt)
            phases.setdefault(label, []).append(len(r.phases))
            rows.append((s, label, dt, walls[label][-1], len(r.phases), r.phases.total_edges))
        print(f"source {s}: " + ", ".join(f"{k} {v[-1] * 1e3:.0f}" for k, v in times.items()),
              flush=True)
    base = float(np.median(times["scipy"]))
    print(f"\n{'method':<22}{'CPU ms':>10}{'wall ms':>10}{'vs scipy':>10}{'phases':>9}")
    for k, v in times.items():
        med = float(np.median(v))
        ph = int(np.median(phases[k])) if k in phases else 0
        wall = float(np.median(walls[k]))
        print(f"{k:<22}{med * 1e3:>10.1f}{wall * 1e3:>10.1f}{base / med:>9.2f}x{ph:>9}")
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["source", "method", "cpu_s", "wall_s", "phases", "edges"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
