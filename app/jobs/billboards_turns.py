"""Billboards on a turn-restricted map (issue 39): paths counted on legal routes, one site
per junction.

On the node-split graph (``maps.model.turns``) a legal route is a path, but a junction is
several vertices (its node and the node's turn copies), and a route to a node ends at
whichever of them it reaches cheapest. So the greedy runs on that graph plus one **sink**
per node with copies: an arc of weight 1 from the node and from each copy into it, every
other arc's weight doubled (``weighted``; ``hops`` counts arcs, so the sink adds one arc to
every route alike). The shortest routes to the sink are exactly the least-cost legal
routes to the node, over all its copies; origins are the file's nodes, destinations the
nodes without copies and the sinks.

A site is a junction: the node, its copies and its sink join the placed set together (a
route passing any of them is covered, once, however often it passes). The greedy gain of
a junction is at most the sum of its vertices' gains (a route through two of them counts
twice there), and equal to it unless a route passes the junction twice (around the block
to make a banned turn), so the greedy is lazy: the best junction by that sum is evaluated
exactly (SB of the placed set with it, on the same engine, ``GainRounds``: the CPU replays
the searches it kept) and taken when it still beats every other junction's sum (on a
900-node grid with 424 bans, K=5: 0.8-1.1x the time of the plain greedy on the split
graph; 2-core CPU, shared, under load). Pairs (s, s's sink) are no trips: the pair counts leave them
out. Sites, fixed sites and candidates are the file's nodes.

The sampled method (``--method sampled``, or ``auto`` beyond the exact method's work) draws
its random shortest routes on the same graph (pairs from the file's nodes to the sinks or
plain nodes) and folds each route's interior onto junctions (a copy counts as its node,
once per route) before the greedy max coverage: the same estimate and bound as on any map,
over junctions. Both plans: ``sampling="progressive"`` (the default) folds each round's
paths the same way (``gpu_core.betweenness.progressive``: the draw's ``fold``), so a seed
draws the same paths as the fixed plan's prefix. A sample (s, s's sink) is a route with no
interior: it counts among the reached pairs (about one in n), never as covered.

On a Dask cluster the workers draw on the junction graph (shipped as arrays, as any
CSRGraph is) and the paths come here, where they are folded (the progressive rounds:
``dask_draws.RoundsDraw`` with the junctions as its fold; the fixed plan:
:class:`FoldedDraw`; the kept-paths mode would sum per-vertex counts on the workers, where
a route through two copies of a junction would count twice).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from maps.errors import MapError
from maps.model.turns import copies_of, original_count

from .common import CancelCheck, Progress, follow_placement, report

if TYPE_CHECKING:
    from .dask_draws import SampledDraw

MAX_DOUBLED = (1 << 31) - 1


def junction_graph(net, mode: str):
    """(CSRGraph of the map plus sinks, original of every vertex (sinks included), sink of
    each file node or -1, file node count)."""
    from gpu_core.graph import CSRGraph

    c = copies_of(net)
    assert c is not None  # called for maps with turn copies only
    n = net.num_nodes
    n0 = n - c.shape[0]
    tails = net.arc_sources().astype(np.int64)
    heads = np.asarray(net.indices, dtype=np.int64)
    w = np.asarray(net.weights, dtype=np.int64)
    if mode == "weighted":
        if w.size and int(w.max()) > MAX_DOUBLED // 2 - 1:
            raise MapError("billboards on a turn-restricted map double the arc weights: "
                             f"an arc weight of {int(w.max())} is too large")
        w = 2 * w
    with_copies = np.unique(c)
    sink = np.full(n0, -1, dtype=np.int64)
    sink[with_copies] = n + np.arange(with_copies.size)
    orig = np.r_[np.arange(n0), c, with_copies]
    members = np.r_[with_copies, n0 + np.arange(c.shape[0])]  # vertices with a sink arc
    st = np.r_[tails, members]
    sh = np.r_[heads, sink[orig[members]]]
    sw = np.r_[w, np.ones(members.size, dtype=np.int64)]
    g = CSRGraph.from_edges(n + with_copies.size, st, sh, sw)
    return g, orig, sink, n0


def exact_here(net, opts) -> bool:
    """Whether the junction greedy runs (method exact, or auto within the exact method's
    work limit); else the sampled method runs on the split graph (module doc)."""
    if opts.method != "auto":
        return opts.method == "exact"
    from gpu_core.backend import resolve_backend
    from gpu_core.betweenness.api import EXACT_WORK_LIMIT

    be = resolve_backend(opts.backend)
    n0 = original_count(net)
    return float(opts.k) * n0 * net.num_arcs <= EXACT_WORK_LIMIT.get(be, EXACT_WORK_LIMIT["cpu"])


class JunctionDraw:
    """The sampled method's paths (``gpu_core.betweenness.sampling.DrawPaths``) drawn on
    the junction graph, each path's interior folded onto the file's nodes (module doc)."""

    def __init__(self, g, orig: np.ndarray, mode: str, backend: str):
        from gpu_core.betweenness.api import path_sampler

        self.sampler = path_sampler(g, mode, backend)
        self.kernel = self.sampler.kernel
        self.orig = self.fold = orig  # fold: the progressive rounds fold with it too
        self.n = g.num_nodes

    def __call__(self, plan):
        L = plan.size
        step = self.sampler.chunk_size(L)
        for lo in range(0, L, step):
            hi = min(L, lo + step)
            es, ev, rr = self.sampler.run(plan.srcs[lo:hi], plan.tgts[lo:hi], plan.hash_seed, lo)
            es, ev = _fold_entries(_host(es), _host(ev), self.orig, self.n)
            yield hi, es, ev, int(_host(rr).sum())
        rest = self.sampler.flush(plan.hash_seed)
        if rest is not None:
            es, ev = _fold_entries(_host(rest[0]), _host(rest[1]), self.orig, self.n)
            yield 0, es, ev, 0


class FoldedDraw:
    """A Dask draw (``app.jobs.dask_draws.SampledDraw`` on the junction graph) whose
    paths are folded onto junctions here (module doc)."""

    def __init__(self, inner, orig: np.ndarray, n: int):
        self.inner, self.orig, self.n = inner, orig, n

    @property
    def kernel(self) -> str:
        return self.inner.kernel

    def __call__(self, plan):
        for hi, es, ev, reached in self.inner(plan):
            es, ev = _fold_entries(_host(es), _host(ev), self.orig, self.n)
            yield hi, es, ev, reached


def _host(x) -> np.ndarray:
    return np.asarray(x.get() if hasattr(x, "get") else x)


def _fold_entries(es: np.ndarray, ev: np.ndarray, orig: np.ndarray, n: int):
    """(sample, vertex) entries with each vertex replaced by its node, repeats dropped."""
    if not es.size:
        return es, ev.astype(np.int32)
    key = np.unique(es.astype(np.int64) * n + orig[ev.astype(np.int64)])
    return key // n, (key % n).astype(np.int32)


def run_sampled(net, opts, *, progress: Progress | None = None,
                cancel: CancelCheck | None = None, client=None, on_partial=None):
    """The sampled greedy over junctions (module doc); a ``BillboardResult`` whose sites
    are file nodes. ``client``: a Dask client whose workers draw the paths (either
    plan); ``on_partial``: as ``app.jobs.billboards.run``'s. Returns (result, the Dask
    draw or None)."""
    from gpu_core.backend import resolve_backend
    from gpu_core.betweenness import billboards

    g, orig, sink, n0 = junction_graph(net, opts.mode)
    N = g.num_nodes
    a, b = _demand(opts.sources, n0, N, None), _demand(opts.targets, n0, N, sink)
    cand = np.zeros(N, dtype=bool)
    cand[:n0] = True if opts.candidates is None else np.asarray(opts.candidates, bool)[:n0]
    sampling = opts.sampling
    dask: SampledDraw | None = None  # RoundsDraw is one
    if client is not None:
        from .dask_draws import RoundsDraw, SampledDraw
        from .distributed import worker_backend

        backend = worker_backend(client, opts.backend)
        draw: JunctionDraw | FoldedDraw | RoundsDraw
        if sampling == "progressive":  # the rounds' blocks on the workers, folded here
            draw = dask = RoundsDraw(client, g, backend=backend, mode=opts.mode, fold=orig)
        else:
            dask = SampledDraw(client, g, backend=backend, mode=opts.mode)
            draw = FoldedDraw(dask, orig, N)
    else:
        draw = JunctionDraw(g, orig, opts.mode, resolve_backend(opts.backend))
        backend = draw.sampler.backend
    result = follow_placement(
        billboards(g, opts.k, mode=opts.mode, backend=backend, method="sampled",
                   epsilon=opts.epsilon, delta=opts.delta, seed=opts.seed, candidates=cand,
                   fixed=sorted({int(orig[v]) for v in opts.fixed}) or None, sources=a,
                   targets=b, cancel=cancel, draw=draw, sampling=sampling,
                   preview=opts.preview),
        opts.epsilon, progress, on_partial,
        lambda ev: f"{ev.sources_done:,} of {ev.sources_total:,} samples")
    plan = f"the {result.sampling or sampling} plan" + (" on Dask" if dask else "")
    result.notes = f"turn restrictions: legal routes, one site per junction ({plan}); " + \
        result.notes
    return result, dask


def run_junctions(net, opts, *, progress: Progress | None = None,
                  cancel: CancelCheck | None = None):
    """The exact greedy of ``app.jobs.billboards.run`` on a turn-restricted map (module
    doc); a ``gpu_core.betweenness.BillboardResult`` whose sites are file nodes."""
    from gpu_core.betweenness import BillboardResult
    from gpu_core.betweenness.api import GainRounds
    from gpu_core.errors import CancelledError

    g, orig, sink, n0 = junction_graph(net, opts.mode)
    N = g.num_nodes
    a, b = _demand(opts.sources, n0, N, None), _demand(opts.targets, n0, N, sink)
    mine = [np.flatnonzero(orig == v) for v in range(n0)] if n0 <= 4096 else None
    members = (lambda v: mine[v]) if mine is not None else (lambda v: np.flatnonzero(orig == v))
    in_r = np.zeros(N, dtype=bool)
    fixed = sorted({int(orig[v]) for v in opts.fixed})  # a copy stands for its node
    for v in fixed:
        in_r[members(v)] = True
    elig = np.ones(n0, dtype=bool) if opts.candidates is None else \
        np.asarray(opts.candidates, dtype=bool)[:n0].copy()
    elig &= ~in_r[:n0]
    if opts.k > int(elig.sum()):
        raise MapError(f"K={opts.k} is larger than the {int(elig.sum())} candidate "
                       "junctions available")
    rounds = GainRounds(g, mode=opts.mode, sources=a, targets=b, backend=opts.backend,
                        kernel=opts.kernel)
    self_pairs = np.zeros(N)  # (s, s's sink): in the augmented pairs, no trip
    has = np.flatnonzero(sink >= 0)
    self_pairs[has] = a[has] * b[sink[has]]
    t0 = time.perf_counter()
    sites, gains, sbs, pairs, times = [], [], [], [], []
    sb_r = base_sb = None
    for rnd in range(opts.k):
        if cancel is not None and cancel():
            raise CancelledError("billboard placement cancelled")
        report(progress, rnd / opts.k, f"round {rnd + 1} of {opts.k}")
        t1 = time.perf_counter()
        per, lost, sb_r, pp = rounds.run(in_r)
        if base_sb is None:
            base_sb = sb_r
        ub = np.bincount(orig, weights=per, minlength=n0)
        ub[~elig] = -np.inf
        exact: set[int] = set()
        while True:
            v = int(np.argmax(ub))
            if sink[v] < 0 or v in exact:
                break
            trial = in_r.copy()
            trial[members(v)] = True
            ub[v] = rounds.run(trial)[2] - sb_r  # SB(R + junction), exactly
            exact.add(v)
        group = members(v)
        in_r[group] = True
        elig[v] = False
        sites.append(v)
        gains.append(float(ub[v]))
        sbs.append(sb_r + float(ub[v]))
        # pairs leaving P: those with an endpoint in the junction, (v, v's sink) once
        p_aug = pp - float(lost[group].sum()) + float(self_pairs[v])
        pairs.append(p_aug - float(self_pairs[~in_r].sum()))
        times.append(time.perf_counter() - t1)
    sba, pa = np.asarray(sbs), np.asarray(pairs)
    report(progress, 1.0, "done")
    return BillboardResult(
        sites=np.asarray(sites, dtype=np.int32), gains=np.asarray(gains),
        group_betweenness=sba,
        coverage=np.divide(sba, pa, out=np.zeros_like(sba), where=pa > 0), pairs=pa,
        base_group_betweenness=float(base_sb or 0.0), method="exact", mode=opts.mode,
        backend=str(opts.backend), kernel=str(opts.kernel),
        fixed=np.asarray(fixed, dtype=np.int32),
        rounds_time_s=times,
        notes=f"legal routes, one site per junction ({n0:,} nodes, {N - n0:,} turn copies "
              f"and sinks); {time.perf_counter() - t0:.3g} s",
    )


def _demand(w, n0: int, N: int, sink) -> np.ndarray:
    """Per vertex of the augmented graph: a file node's demand on the node (origins,
    ``sink`` None) or, for destinations, on its sink where it has one."""
    out = np.zeros(N)
    base = np.ones(n0) if w is None else np.asarray(w, dtype=np.float64)[:n0]
    if sink is None:
        out[:n0] = base
        return out
    has = sink >= 0
    out[np.flatnonzero(~has)] = base[~has]
    out[sink[has]] = base[has]
    return out
