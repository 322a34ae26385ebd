"""Where ``bench turns``' OD row goes on each map (issue 39: the H100's 1.23-1.30x).

Builds the two maps of ``signpost bench turns`` (the same map with and without bans at
``--share`` of its junctions), each map's route index once, then times the OD matrix of
``app.bench.turns.od_matrix`` alternating the maps, split into its parts: the target
columns (``with_copy_targets``), the rows (``iter_distance_rows``, synchronised) and the
fold; the query's own counters (``stats``); then one cProfile run per map (top functions
by own time). Usage (device machine): python scripts/profile_turn_od.py --backend cupy
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import time

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--map", default="gen:kanto")
    p.add_argument("--share", type=float, default=0.05)
    p.add_argument("--backend", default="cupy")
    p.add_argument("--od", type=int, default=1000)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()

    from app.bench.turns import _sync, build_index, file_nodes, od_matrix, prepare
    from gpu_core.multi_source import iter_distance_rows
    from maps.model.turns import fold_columns, with_copy_targets

    t0 = time.perf_counter()
    plain, restricted, _rules, label = prepare(a.map, a.share, a.seed)
    print(f"maps {label}: {plain.num_nodes:,} / {restricted.num_nodes:,} nodes "
          f"({time.perf_counter() - t0:.1f} s)", flush=True)
    nets = {"without": plain, "with": restricted}
    hs = {}
    for k, net in nets.items():
        h, s = build_index(net, a.backend)
        hs[k] = h
        print(f"index {k}: {s:.2f} s {h.summary()}", flush=True)
    src = file_nodes(plain, a.od, a.seed + 1)
    tgt = file_nodes(plain, a.od, a.seed + 2)
    for k, net in nets.items():  # kernels, device index, the restricted cone
        od_matrix(net, hs[k], src[:8], tgt, a.backend)
        od_matrix(net, hs[k], src, tgt, a.backend)
    parts: dict[str, dict[str, list[float]]] = {k: {} for k in nets}
    stats_of = {}
    for _ in range(a.reps):
        for k, net in nets.items():
            d = parts[k]
            t = time.perf_counter()
            turns = with_copy_targets(net, tgt)
            cols = np.asarray(tgt if turns is None else turns[0], dtype=np.int64)
            t1 = time.perf_counter()
            st: dict = {}
            blocks = []
            for _r0, block in iter_distance_rows(net, src, targets=cols, backend=a.backend,
                                                 variant="phast", hierarchy=hs[k], stats=st):
                blocks.append(np.asarray(block))
            _sync(a.backend)
            t2 = time.perf_counter()
            if turns is not None:
                blocks = [fold_columns(b, len(tgt), turns[1]) for b in blocks]
            t3 = time.perf_counter()
            od_matrix(net, hs[k], src, tgt, a.backend)
            _sync(a.backend)
            t4 = time.perf_counter()
            for name, v in (("columns", t1 - t), ("rows", t2 - t1), ("fold", t3 - t2),
                            ("od_matrix", t4 - t3)):
                d.setdefault(name, []).append(v * 1e3)
            stats_of[k] = st
    print("\nmedian ms over", a.reps, "alternated runs")
    names = list(parts["without"])
    print(f"{'part':<12}" + "".join(f"{k:>12}" for k in nets) + "       ratio")
    for name in names:
        w, r = (statistics.median(parts[k][name]) for k in nets)
        print(f"{name:<12}{w:>12.2f}{r:>12.2f}{(r / w if w else float('nan')):>12.3f}")
    for k in nets:
        print(f"stats {k}: { {x: y for x, y in stats_of[k].items() if not hasattr(y, 'shape')} }")
    for k, net in nets.items():
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(3):
            od_matrix(net, hs[k], src, tgt, a.backend)
            _sync(a.backend)
        pr.disable()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(18)
        print(f"\n== cProfile {k} (3 runs), by own time")
        print("\n".join(s.getvalue().splitlines()[4:34]))


if __name__ == "__main__":
    main()
