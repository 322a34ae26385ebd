"""The upward searches of 1,000 sources: on the CPU, one thread, the Dijkstra against the
climb of the elimination tree (the same entries); with CuPy and a GPU, where a GPHAST batch
goes (the walk on the device per block width, against the host's searches; the fill; the
sweep; equal rows). Timings for docs/perf/route_index_h100.md (the bench's row is
`bench matrix`).

    python scripts/profile_upward.py kanto.spn        # a map file
"""

from __future__ import annotations

import sys
import time

import numpy as np


def cpu_part(h, src: np.ndarray) -> None:
    from gpu_core.hierarchy.cpu import search_spaces, up_tree

    seeds = h.rank_of[src].astype(np.int32)
    tree = up_tree(h)
    if tree is None:
        print("a witness-search CH: no climb on the CPU")
        return
    for name, tr in (("Dijkstra", None), ("climb", tree)) * 2:
        search_spaces(seeds[:4], h.up_ptr, h.up_dst, h.up_w, h.n, 1, tr)  # compiled
        t0 = time.perf_counter()
        counts = search_spaces(seeds, h.up_ptr, h.up_dst, h.up_w, h.n, 1, tr)[0]
        print(f"CPU, one thread, {name}: {1e3 * (time.perf_counter() - t0):.0f} ms, "
              f"{int(counts.sum()):,} entries", flush=True)


def main() -> None:
    from app.jobs.index import hierarchy_for
    from gpu_core.hierarchy.etree import elimination_tree
    from maps.load import load_map

    try:
        import cupy as cp
    except ImportError:
        cp = None
    h, info = hierarchy_for(load_map(sys.argv[1]), policy="on",
                            backend="cpu" if cp is None else "cupy")
    t0 = time.perf_counter()
    _, depth = elimination_tree(h)
    print(f"index {info.source} ({info.seconds:.1f} s), levels {h.levels}, tree "
          f"{1e3 * (time.perf_counter() - t0):.0f} ms, depth max {depth.max()}", flush=True)
    rng = np.random.default_rng(1)
    src = rng.choice(h.n, 1000, replace=False).astype(np.int64)
    tgt = rng.choice(h.n, 1000, replace=False).astype(np.int64)
    cpu_part(h, src)
    if cp is None:
        return
    from gpu_core.hierarchy import cuda as hc
    from gpu_core.hierarchy import upward_cuda as uc
    K = hc.batch_width(h.n, 1000, 1000)
    sync = cp.cuda.runtime.deviceSynchronize

    def timed(f, reps: int = 5) -> str:
        ts = []
        for _ in range(reps):
            sync()
            t = time.perf_counter()
            f()
            sync()
            ts.append(1e3 * (time.perf_counter() - t))
        return f"min {min(ts):.2f} / median {float(np.median(ts)):.2f} ms"

    sw = hc.Sweeper(h, K)
    if sw.walk is None or sw.d32 is None:
        sys.exit("no walk here (tree too deep) or no 32-bit block: nothing to compare")
    seeds = cp.asarray(h.rank_of[src].astype(np.int32))
    print(f"fill of the block: {timed(lambda: sw.d32.fill(0x7FFFFFFF))}")
    for lanes in (32, 64, 128, 256, 512):
        uc.THREADS = lanes
        print(f"walk, {lanes} lanes a source (with the fill): "
              f"{timed(lambda: sw.walk.run(sw.d32, True, seeds, K, sw.big))}", flush=True)
    uc.THREADS = 128
    rows = cp.asarray(h.rank_of[tgt].astype(np.int32))
    out = cp.empty((K, 1000), dtype=cp.int64)
    print(f"batch with the walk: {timed(lambda: sw.sweep(src))}")
    sw.extract(rows, 1000, out)
    walked = cp.asnumpy(out[:1000])
    uc.ENABLED = False
    host = hc.Sweeper(h, K)
    print(f"batch with the host's searches: {timed(lambda: host.sweep(src), 3)}")
    host.extract(rows, 1000, out)
    print("equal rows:", bool((cp.asnumpy(out[:1000]) == walked).all()))


if __name__ == "__main__":
    main()
