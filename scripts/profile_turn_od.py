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
    from maps.model.turns import with_copy_targets

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
    hc = None
    if a.backend == "cupy":
        from gpu_core.hierarchy import cuda as hc
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
            fold = None if turns is None else (len(tgt), turns[1])
            for _r0, block in iter_distance_rows(net, src, targets=cols, backend=a.backend,
                                                 variant="phast", hierarchy=hs[k], stats=st,
                                                 fold=fold):
                blocks.append(np.asarray(block))
            _sync(a.backend)
            t2 = time.perf_counter()
            t3 = time.perf_counter()  # (the fold: in the rows, on the device on the GPU)
            od_matrix(net, hs[k], src, tgt, a.backend)
            _sync(a.backend)
            t4 = time.perf_counter()
            if hc is not None:  # the same with the sweep launched level by level
                hc.SWEEP_GRAPH = False
                od_matrix(net, hs[k], src, tgt, a.backend)
                _sync(a.backend)
                hc.SWEEP_GRAPH = True
            t5 = time.perf_counter()
            for name, v in (("columns", t1 - t), ("rows", t2 - t1), ("fold", t3 - t2),
                            ("od_matrix", t4 - t3), ("od_no_graph", t5 - t4)):
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
    if a.backend == "cupy":
        for k, net in nets.items():
            _level_times(net, hs[k], src, tgt, k)
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


def _level_times(net, h, src, tgt, label: str) -> None:
    """The GPU's time per level of one restricted sweep (a CUDA event after each level's
    launch), summed by the level's vertex count and by its most arcs on one vertex."""
    import cupy as cp

    from gpu_core.hierarchy import cuda as hc
    from gpu_core.hierarchy.few import restrict
    from maps.model.turns import with_copy_targets

    turns = with_copy_targets(net, tgt)
    cols = np.asarray(tgt if turns is None else turns[0], dtype=np.int64)
    r = restrict(h, cols)
    K = hc.resident_width(r, cols.shape[0], src.shape[0], True, full=h)
    sw = hc.RestrictedSweeper(h, r, K, True)
    sw.sweep(src[:K])  # warm
    lp = sw.lp
    ptr = np.asarray(r.down_ptr)
    f = sw.mod.get_function("phast_level32" if sw.d.dtype == cp.int32 else "phast_level")
    w = sw.dev["w32"] if sw.d.dtype == cp.int32 else sw.dev["w"]
    d = sw.d
    ev = [cp.cuda.Event() for _ in range(len(lp))]
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    ev[0].record()
    for lv in range(len(lp) - 1):
        v0, v1 = lp[lv], lp[lv + 1]
        if v1 > v0:
            work = (v1 - v0) * K
            f(((work + hc.BLOCK - 1) // hc.BLOCK,), (hc.BLOCK,),
              (sw.dev["ptr"], sw.dev["src"], w, d, np.int64(v0), np.int64(v1), np.int32(K),
               sw.big))
        ev[lv + 1].record()
    ev[-1].synchronize()
    wall = (time.perf_counter() - t0) * 1e3
    ms = np.array([cp.cuda.get_elapsed_time(ev[i], ev[i + 1]) for i in range(len(lp) - 1)])
    width = np.diff(np.asarray(lp))
    most = np.array([int(np.diff(ptr[lp[i]:lp[i + 1] + 1]).max(initial=0))
                     for i in range(len(lp) - 1)])
    print(f"\n== levels {label}: K={K}, {int((width > 0).sum())} levels, {r.n:,} vertices, "
          f"{int(ptr[-1]):,} arcs; GPU {ms.sum():.2f} ms (wall {wall:.2f} ms with an event "
          "a level)")
    for lo, hi in ((1, 2), (2, 8), (8, 64), (64, 512), (512, 1 << 30)):
        m = (width >= lo) & (width < hi)
        print(f"  width {lo:>4}-{hi if hi < 1 << 30 else 'max':>4}: {int(m.sum()):>5} levels "
              f"{ms[m].sum():8.2f} ms ({ms[m].mean() if m.any() else 0:.4f} a level)")
    for lo, hi in ((0, 16), (16, 64), (64, 256), (256, 1 << 30)):
        m = (most >= lo) & (most < hi) & (width > 0)
        print(f"  most arcs {lo:>4}-{hi if hi < 1 << 30 else 'max':>4}: {int(m.sum()):>5} levels"
              f" {ms[m].sum():8.2f} ms")


if __name__ == "__main__":
    main()
