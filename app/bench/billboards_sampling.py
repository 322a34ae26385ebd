"""``signpost bench billboards --sampling progressive,fixed,networkit`` (issue 43): the
sampled greedy with progressive sampling against the fixed worst-case bound and against
NetworKit's ``ApproxGroupBetweenness`` (hop counts, undirected, its own fixed bound; run
in a child process on a hop-count undirected copy), side by side: samples, time, value.

Value: on maps up to ``EXACT_VALUE_NODES`` the exact group betweenness of each method's
sites (``group_betweenness``); above, each set's share of an independent evaluation sample
(``EVAL_SAMPLES`` random shortest paths from another seed), the same sample for every row.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

EXACT_VALUE_NODES = 20_000
EVAL_SAMPLES = 20_000
EVAL_SEED = 20_261_206

_NK_CHILD = r"""
import json, sys, time
import numpy as np
try:
    import networkit as nk
except ImportError:
    print(json.dumps({"error": "not installed"})); sys.exit(0)
d = np.load(sys.argv[1]); k = int(sys.argv[2]); eps = float(sys.argv[3])
G = nk.Graph(int(d["n"]), weighted=False, directed=False)
for u, v in zip(d["u"].tolist(), d["v"].tolist()):
    G.addEdge(u, v)
t = time.perf_counter()
a = nk.centrality.ApproxGroupBetweenness(G, k, eps)
a.run()
print(json.dumps({"sites": [int(x) for x in a.groupMaxBetweenness()],
                  "time_s": time.perf_counter() - t}))
"""


def networkit_row(g, k: int, eps: float, timeout_s: float = 3600) -> dict:
    """NetworKit's ApproxGroupBetweenness on the hop-count undirected copy of ``g``, in a
    child process: {"sites", "time_s"} or {"error": ...} ("not installed" without it)."""
    src = np.repeat(np.arange(g.num_nodes, dtype=np.int64), np.diff(g.indptr))
    dst = g.indices.astype(np.int64)
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    pairs = np.unique(np.stack([lo[src != dst], hi[src != dst]], 1), axis=0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "g.npz")
        np.savez(path, n=g.num_nodes, u=pairs[:, 0], v=pairs[:, 1])
        try:
            out = subprocess.run([sys.executable, "-c", _NK_CHILD, path, str(k), str(eps)],
                                 capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return {"error": f"over {timeout_s:g} s"}
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(lines[-1])


class Evaluator:
    """Each site set's value: exact SB on small maps, else its share of one independent
    sample of random shortest paths times A·B (module doc)."""

    def __init__(self, g, mode: str):
        from gpu_core.betweenness.common import search_weights
        from gpu_core.betweenness.sampling import Cover, PathSampler, draw_plan

        self.g, self.mode, self.n = g, mode, g.num_nodes
        self.exact = g.num_nodes <= EXACT_VALUE_NODES
        if self.exact:
            return
        ones = np.ones(self.n)
        plan = draw_plan(self.n, EVAL_SAMPLES, ones, ones, EVAL_SEED)
        sampler = PathSampler(g, search_weights(g, mode), mode == "hops", "cpu")
        es, ev, _ = sampler.run(plan.srcs, plan.tgts, plan.hash_seed, 0)
        self._cover = lambda: Cover(np, es, ev, EVAL_SAMPLES)

    def value(self, sites) -> float:
        from gpu_core.betweenness import group_betweenness

        if self.exact:
            return group_betweenness(self.g, sites, mode=self.mode, backend="cpu")[0]
        mask = np.zeros(self.n, dtype=bool)
        mask[np.asarray(sites, dtype=np.int64)] = True
        return self._cover().mark_set(mask) / EVAL_SAMPLES * float(self.n) ** 2


def sampling_bench(args: argparse.Namespace, load, say) -> int:
    """One table per map and epsilon: a row per method of ``--sampling``."""
    from gpu_core.backend import describe_backend, resolve_backend
    from gpu_core.betweenness import place_billboards

    methods = [m for m in args.sampling.split(",") if m]
    bad = [m for m in methods if m not in ("progressive", "fixed", "networkit")]
    if bad:
        say(f"--sampling {args.sampling}: unknown {bad[0]!r} (progressive, fixed, networkit)")
        return 2
    backend = resolve_backend(args.backend)
    k = args.k_max
    for spec in args.map or ["maps/samples/helsinki.osm.pbf"]:
        g, name = load(spec)
        ev = Evaluator(g, args.mode)
        for eps in (float(e) for e in str(args.epsilon).split(",") if e):
            say(f"{name}: {g.num_nodes:,} nodes, K={k}, epsilon={eps:g}, delta={args.delta:g}, "
                f"{args.mode}, {describe_backend(args.backend)}; value: "
                f"{'exact SB' if ev.exact else f'share of {EVAL_SAMPLES:,} paths'} / n^2")
            say(f"{'method':<12} {'samples':>9} {'bound':>9} {'stopped':>9} {'eps@stop':>8} "
                f"{'time s':>8} {'value':>8}")
            for m in methods:
                say(_row(g, m, k, eps, args, backend, ev, place_billboards))
    return 0


def _row(g, m: str, k: int, eps: float, args, backend: str, ev, place_billboards) -> str:
    n2 = float(g.num_nodes) ** 2
    if m == "networkit":
        res = networkit_row(g, k, eps)
        if "error" in res:
            return f"{'networkit':<12} {res['error']} (hops, undirected)"
        return (f"{'networkit':<12} {'':>9} {'':>9} {'':>9} {'':>8} {res['time_s']:>8.2f} "
                f"{ev.value(res['sites']) / n2:>8.4f} (chosen on hops, undirected)")
    t = time.perf_counter()
    r = place_billboards(g, k, mode=args.mode, backend=backend, method="sampled",
                         epsilon=eps, delta=args.delta, seed=0, sampling=m)
    dt = time.perf_counter() - t
    return (f"{m:<12} {r.samples:>9,} {r.sample_bound:>9,} {r.stopped_by:>9} "
            f"{r.epsilon_at_stop:>8.4f} {dt:>8.2f} {ev.value(r.sites) / n2:>8.4f}")
