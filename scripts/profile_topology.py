"""Where a CCH topology build goes (``cch.build_topology``'s steps one by one) on a
generated Kanto-sized map or a map file, with a hash of each step's output, so that two
checkouts (or thread counts) can be compared: the same hashes, other seconds. Figures for
docs/perf/index_build.md (issue 26's 24M-node build).

    python scripts/profile_topology.py --nodes 3200000         # generate kanto, seed 1
    python scripts/profile_topology.py --map NE.gr.xz

A generated map of ``--warm-up`` nodes is built first, so numba's compilation (seconds
on a machine without its cache, e.g. a fresh device machine) stays out of the figures.
"""

from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np


def digest(*arrays: np.ndarray) -> str:
    h = hashlib.blake2b(digest_size=8)
    for a in arrays:
        h.update(np.ascontiguousarray(a).view(np.uint8).data)
    return h.hexdigest()


def main() -> None:
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy.chordal import downward, eliminate, heights
    from gpu_core.hierarchy.model import density_limit
    from gpu_core.hierarchy.order import nested_dissection_order, undirected

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=3_200_000, help="generated kanto size")
    ap.add_argument("--map", help="a map file instead of a generated map")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--warm-up", type=int, default=100000,
                    help="first build a generated map of this many nodes (numba compiles "
                         "every path, the threads' bins too; 0: off)")
    a = ap.parse_args()
    if a.warm_up:
        from gpu_core.hierarchy.cch import build_topology
        from maps.generate import generate

        t = time.perf_counter()
        build_topology(generate("kanto", a.warm_up, seed=a.seed))
        print(f"warm-up ({a.warm_up:,} nodes): {time.perf_counter() - t:.1f} s", flush=True)
    t = time.perf_counter()
    if a.map:
        from maps.load import load_map

        g = CSRGraph.from_any(load_map(a.map))
    else:
        from maps.generate import generate

        g = CSRGraph.from_any(generate("kanto", a.nodes, seed=a.seed))
    n = g.num_nodes
    print(f"map: {n:,} nodes, {g.indices.shape[0]:,} arcs ({time.perf_counter() - t:.1f} s)",
          flush=True)
    steps: list[tuple[str, float, str]] = []

    def step(name: str, fn, *args, **kw):
        t0 = time.perf_counter()
        out = fn(*args, **kw)
        secs = time.perf_counter() - t0
        arrays = out if isinstance(out, tuple) else (out,)
        steps.append((name, secs, digest(*arrays)))
        print(f"{name:<12} {secs:8.2f} s  {digest(*arrays)}", flush=True)
        return out

    st: dict = {}
    ptr, adj = step("undirected", undirected, n, g.indptr, g.indices)
    rank = step("order", nested_dissection_order, n, ptr, adj, seed=a.seed, stats=st)
    limit, _ = density_limit(int(adj.shape[0]), n)
    up_ptr, up_nb = step("eliminate", eliminate, n, ptr, adj, rank, limit,
                         np.zeros(2, np.int64))
    dn = step("downward", downward, n, up_ptr, up_nb)
    lvl = step("heights", heights, n, up_ptr, up_nb)
    order_s = sum(s for name, s, _ in steps[:2])
    chordal_s = sum(s for name, s, _ in steps[2:])
    print(f"order_s {order_s:.2f} (undirected + order), topology_s {chordal_s:.2f}; "
          f"{up_nb.shape[0]:,} CCH edges, {lvl[0].shape[0] - 1:,} heights, "
          f"{dn[1].shape[0]:,} downward; order stats {st}")


if __name__ == "__main__":
    main()
