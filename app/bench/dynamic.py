"""Timings of the mutable graph: one batch of arc edits and compact() on a large graph.

    python -m app.bench.dynamic [--nodes 1500000] [--edits 10000] [--backend auto]

Prints a small table (milliseconds, medians over ``--repeats`` batches). The graph is a
road-like grid (4-neighbour, both directions, weights 1..1000) of about ``--nodes``
vertices; a batch mixes weight changes, closures, reopenings and insertions. Device
times include a device synchronize, so they are wall times of finished work; on the
device, "apply" ends when the batch is validated and applied there, the host mirror
taking it meanwhile in a worker thread (the next row: until the mirror has it too).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from gpu_core.backend import describe_backend, resolve_backend
from gpu_core.dynamic.api import MutableGraph
from gpu_core.graph import CSRGraph


def grid_graph(nodes: int, seed: int = 0) -> CSRGraph:
    """A side x side 4-neighbour grid, arcs both ways, weights 1..1000."""
    side = max(2, int(round(nodes**0.5)))
    idx = np.arange(side * side, dtype=np.int64).reshape(side, side)
    right = np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()])
    down = np.stack([idx[:-1, :].ravel(), idx[1:, :].ravel()])
    pairs = np.concatenate([right, down], axis=1)
    t = np.concatenate([pairs[0], pairs[1]])
    h = np.concatenate([pairs[1], pairs[0]])
    w = np.random.default_rng(seed).integers(1, 1001, t.size)
    return CSRGraph.from_edges(side * side, t, h, w)


def edit_batch(mg: MutableGraph, edits: int, rng: np.random.Generator):
    """``edits`` arc edits: 40% weight changes, 30% closures, 20% reopenings of arcs
    closed by earlier batches (or of live ones: a no-op edit), 10% insertions."""
    b = mg.batch()
    n, total = mg.num_nodes, mg.next_arc_id
    k_w, k_d, k_e = int(edits * 0.4), int(edits * 0.3), int(edits * 0.2)
    k_i = edits - k_w - k_d - k_e
    alive = np.flatnonzero(mg.host.state[:total] != 0)  # not deleted
    b.set_weight(rng.choice(alive, k_w), rng.integers(1, 1001, k_w))
    b.disable(rng.choice(alive, k_d))
    b.enable(rng.choice(alive, k_e))
    b.insert(rng.integers(0, n, k_i), rng.integers(0, n, k_i), rng.integers(1, 1001, k_i))
    return b


def _sync(mg: MutableGraph) -> None:
    if mg.device is not None:
        mg.device.cp.cuda.Device().synchronize()


def run(nodes: int, edits: int, repeats: int, backend: str) -> list[tuple[str, float]]:
    """[(measure, milliseconds)]."""
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    g = grid_graph(nodes)
    build = time.perf_counter() - t0
    mg = MutableGraph(g, backend=backend, reserve_arcs=(repeats + 2) * edits)
    mg.apply(edit_batch(mg, 100, rng))  # warm-up: numba load, kernel compile
    mg.compact()
    apply_ms, mirror_ms, compact_ms, device_ms = [], [], [], []
    for _ in range(repeats):
        b = edit_batch(mg, edits, rng)
        _sync(mg)
        t0 = time.perf_counter()
        mg.apply(b)
        _sync(mg)
        apply_ms.append((time.perf_counter() - t0) * 1e3)
        mg.host  # noqa: B018 -- waits for the host mirror (cupy: it takes the batch meanwhile)
        mirror_ms.append((time.perf_counter() - t0) * 1e3)
        if mg.device is not None:
            t0 = time.perf_counter()  # compact() on CUDA: a DeviceCSRGraph, no host copy
            mg.graph()
            _sync(mg)
            device_ms.append((time.perf_counter() - t0) * 1e3)
            t0 = time.perf_counter()
            mg.device.compact_host()
        else:
            t0 = time.perf_counter()  # a fresh compaction: the batch made the cached one stale
            mg.compact()
        compact_ms.append((time.perf_counter() - t0) * 1e3)
    rows = [("graph nodes", float(g.num_nodes)), ("graph arcs", float(g.num_arcs)),
            ("edits per batch", float(edits)), ("CSR build from arc list (host)", build * 1e3),
            ("apply one batch", statistics.median(apply_ms))]
    if device_ms:
        rows.append(("apply, host mirror up to date", statistics.median(mirror_ms)))
        rows.append(("compact, device arrays", statistics.median(device_ms)))  # compact()
    rows.append(("compact to a host CSRGraph", statistics.median(compact_ms)))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app.bench.dynamic", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=1_500_000)
    ap.add_argument("--edits", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"))
    args = ap.parse_args(argv)
    be = resolve_backend(args.backend)
    rows = run(args.nodes, args.edits, args.repeats, be)
    print(f"mutable graph, backend {be} ({describe_backend(be)})")
    print(f"{'measure':<34}{'value':>14}")
    for name, v in rows:
        unit = "" if name.startswith(("graph", "edits")) else " ms"
        text = f"{int(v)}" if not unit else f"{v:.3f}{unit}"
        print(f"{name:<34}{text:>14}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
