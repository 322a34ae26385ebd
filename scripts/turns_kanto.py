"""Turn restrictions on the Kanto-sized generated map (issue 39): a restriction at 5 % of its
junctions (80 % no_*, 20 % only_*), split into node copies (maps.model.turns), then one-to-all
on the CPU with and without them. CPU only: no GPU figure comes from this script.
Run: PYTHONPATH=. python scripts/turns_kanto.py [SOURCES]"""

from __future__ import annotations

import sys
import time

import numpy as np

from gpu_core.graph import CSRGraph
from gpu_core.sssp import sssp
from maps.formats.osm_turns import Restriction
from maps.generate import generate
from maps.model.chains import Arcs
from maps.model.turns import apply_restrictions


def csr(tails: np.ndarray, heads: np.ndarray, w: np.ndarray, nn: int) -> CSRGraph:
    o = np.argsort(tails, kind="stable")
    ptr = np.searchsorted(tails[o], np.arange(nn + 1)).astype(np.int32)
    return CSRGraph(ptr, heads[o].astype(np.int32), w[o].astype(np.int32))


def nbytes(g: CSRGraph) -> int:
    return int(g.indptr.nbytes + g.indices.nbytes + g.weights.nbytes)


def main(sources: int = 5) -> None:
    net = generate("kanto")
    n, m = net.num_nodes, net.num_arcs
    t = net.arc_sources().astype(np.int64)
    h = net.indices.astype(np.int64)
    arcs = Arcs(t, h, net.weights.astype(np.int64), net.edge_length.astype(np.float64),
                net.edge_kind, net.edge_class, np.arange(m, dtype=np.int64), [])
    rng = np.random.default_rng(1)
    indeg, outdeg = np.bincount(h, minlength=n), np.diff(net.indptr)
    junctions = np.flatnonzero((indeg >= 3) & (outdeg >= 3))
    pick = rng.choice(junctions, int(0.05 * junctions.size), replace=False)
    order = np.argsort(h, kind="stable")
    hp = np.searchsorted(h[order], np.arange(n + 1))
    rules = []
    for i, v in enumerate(pick.tolist()):  # each arc its own "way"
        f = int(rng.choice(order[hp[v]:hp[v + 1]]))
        to = int(rng.choice(np.arange(net.indptr[v], net.indptr[v + 1])))
        kind = "no" if rng.random() < 0.8 else "only"
        rules.append(Restriction(i, kind, kind, (f,), (to,), via_node=v))
    print(f"kanto: {n:,} nodes, {m:,} arcs, {junctions.size:,} junctions, "
          f"{len(rules):,} restrictions")
    t0 = time.perf_counter()
    out, copies, applied = apply_restrictions(n, arcs, {v: v for v in pick.tolist()}, rules, {})
    print(f"split: {time.perf_counter() - t0:.2f} s, applied {applied:,}, copies "
          f"{copies.size:,} (+{100 * copies.size / n:.2f} % nodes), arcs "
          f"+{100 * (out.tails.size / m - 1):.2f} %")
    g0 = csr(t, h, net.weights, n)
    g1 = csr(out.tails, out.heads, out.weights, n + copies.size)
    for g in (g0, g1):
        sssp(g, 0, backend="cpu")  # compile and warm
    times: dict[int, list[float]] = {0: [], 1: []}
    for s in rng.integers(0, n, sources).tolist():
        for k, g in ((0, g0), (1, g1)):
            t1 = time.perf_counter()
            sssp(g, s, backend="cpu")
            times[k].append(time.perf_counter() - t1)
    a, b = float(np.median(times[0])), float(np.median(times[1]))
    print(f"one-to-all CPU (strategy auto), median of {sources} (alternating): plain "
          f"{a * 1000:.0f} ms, restricted {b * 1000:.0f} ms, ratio {b / a:.3f}")
    print(f"CSR bytes ratio {nbytes(g1) / nbytes(g0):.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
