"""The billboards job: K sites that the most shortest routes pass (seed 002's greedy group
betweenness), through ``gpu_core.betweenness.billboards`` and its progress events."""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from maps.errors import MapError
from maps.model.network import RoadNetwork

from .common import (
    CancelCheck,
    Progress,
    compile_clock,
    follow_placement,
    refuse_negative,
)

if TYPE_CHECKING:
    from gpu_core.betweenness import BillboardResult

# Where sites may go: all nodes, nodes at a road arc, or nodes at no rail arc.
CANDIDATES = ("all", "road", "no-rail")
# The one default of the CLI's --mode and the window's: routes by the profile's weights
# (what a traveller takes), not by arc count.
DEFAULT_MODE = "weighted"


@dataclass(frozen=True)
class BillboardsOptions:
    k: int
    mode: str = DEFAULT_MODE  # shortest paths by weight (weighted) or by arc count (hops)
    backend: str = "auto"
    kernel: str = "auto"
    method: str = "auto"  # exact or sampled
    epsilon: float = 0.1  # sampled: error
    delta: float = 0.1  # sampled: failure probability
    seed: int = 0
    candidates: np.ndarray | None = None  # bool mask of allowed sites (None: all)
    fixed: tuple[int, ...] = ()  # sites already placed (node indices)
    sources: np.ndarray | None = None  # per-node origin demand (None: uniform)
    targets: np.ndarray | None = None  # per-node destination demand
    index: str = "auto"  # route index policy (app.jobs.index) for the sampled method
    # sampled: progressive (rounds growing 1.5x until a data-dependent bound reaches epsilon)
    # or fixed (the worst-case bound's samples); on a Dask client either (progressive: each
    # round's blocks on the workers, the greedy here; fixed: the paths kept there)
    sampling: str = "progressive"
    # progressive: a first answer from this many samples, before the first round ends (the
    # window's, on big maps: sites on screen in seconds; 0 none)
    preview: int = 0


@dataclass
class BillboardsResult:
    billboards: BillboardResult
    time_s: float  # the greedy's time (an index load or build is in ``index``)
    index: dict = field(default_factory=dict)  # IndexInfo.as_dict() when one was used
    dask: dict = field(default_factory=dict)  # with a client: workers, blocks, map loads
    compile_s: float = 0.0  # numba's compilations inside ``time_s`` (a first run's)


def run(net, opts: BillboardsOptions, *, progress: Progress | None = None,
        cancel: CancelCheck | None = None, client=None,
        keep_paths: bool = True, on_partial=None, kernels_ahead=None) -> BillboardsResult:
    """Greedy placement (``net``: a RoadNetwork or a CSRGraph); progress says the round
    and the sources done. ``client`` (a ``distributed.Client``; the sampled method only):
    its workers draw the sampled paths in blocks of sample numbers and keep them, each
    greedy round summing their per-vertex counts here (``keep_paths=False``: the paths
    come here and the greedy runs here); the same sites and gains as without it
    (``app.jobs.distributed``). ``on_partial(result)`` (progressive sampling; called on
    this thread): the best sites so far after each sampling round and their bound.
    ``kernels_ahead``: the child compiling the index's and sampler's kernels
    (``compile_ahead.start_index_kernels``, started by the caller before it read the
    map): waited for before the first draw (its seconds count in ``compile_s``)."""
    from gpu_core.betweenness import billboards

    refuse_negative(net, "billboard placement")
    from maps.model.turns import copies_of

    if copies_of(net) is not None:  # legal routes, one site per junction (issue 39; app.jobs.billboards_turns)
        from .billboards_turns import exact_here, run_junctions, run_sampled

        if client is not None and opts.method != "sampled":
            raise ValueError("billboards on a Dask cluster need the sampled method")
        t0 = time.perf_counter()
        dask = None
        with compile_clock() as compiled:
            if client is None and exact_here(net, opts):
                res = run_junctions(net, opts, progress=progress, cancel=cancel)
            else:
                res, dask = run_sampled(net, opts, progress=progress, cancel=cancel,
                                        client=client, on_partial=on_partial)
        out = BillboardsResult(res, time.perf_counter() - t0, compile_s=compiled[0])
        if dask is not None:  # the paths come here to be folded (billboards_turns)
            out.dask = {"workers": len(dask.ship.workers), "blocks": dask.blocks,
                        "map": dask.ship.summary(), "ship_s": round(dask.ship.ship_s, 3),
                        "paths": dask.mode_name, "busy": dask.busy}
        return out
    draw = None
    if client is not None:
        from .dask_draws import KeptDraw, RoundsDraw, SampledDraw
        from .distributed import worker_backend

        if opts.method != "sampled":
            raise ValueError("billboards on a Dask cluster need the sampled method")
        opts = replace(opts, backend=worker_backend(client, opts.backend))
    if client is None:
        with _WARMING:  # a warm-up in flight (the window's): wait, then use what it made
            pass
    ahead = _ahead(net, opts) if client is None else None
    try:
        h, info = _index(net, opts, progress, cancel, local=client is None)
    finally:
        if ahead is not None:
            ahead.join()
    if client is not None:  # progressive: few samples a round, shipped here (RoundsDraw)
        kind = (RoundsDraw if opts.sampling == "progressive"
                else KeptDraw if keep_paths else SampledDraw)
        draw = kind(client, net, backend=opts.backend, mode=opts.mode, hierarchy=h,
                    index_path=info.path)
    t0 = time.perf_counter()
    waited = _wait_for_kernels(kernels_ahead, cancel)
    with compile_clock() as compiled:  # a first run's compilations, apart (issue 42)
        try:
            result = follow_placement(
                billboards(net, opts.k, mode=opts.mode, backend=opts.backend,
                           kernel=opts.kernel, method=opts.method, epsilon=opts.epsilon,
                           delta=opts.delta, seed=opts.seed, candidates=opts.candidates,
                           fixed=list(opts.fixed) or None, sources=opts.sources,
                           targets=opts.targets, cancel=cancel, hierarchy=h, draw=draw,
                           sampling=opts.sampling, preview=opts.preview),
                opts.epsilon, progress, on_partial,
                lambda ev: f"round {ev.round} of {ev.rounds}: "
                           f"{ev.sources_done:,}/{ev.sources_total:,} sources")
        finally:
            if draw is not None and hasattr(draw, "close"):  # the workers' kept paths
                draw.close()
    done = BillboardsResult(result, time.perf_counter() - t0,
                            info.as_dict() if h is not None else {},
                            compile_s=compiled[0] + waited)
    if draw is not None:
        done.dask = {"workers": len(draw.ship.workers), "blocks": draw.blocks,
                     "map": draw.ship.summary(), "ship_s": round(draw.ship.ship_s, 3),
                     "paths": draw.mode_name}
        if isinstance(draw, KeptDraw):  # keep_paths
            done.dask.update(rounds_s=[round(x, 4) for x in draw.round_s],
                             redrawn=draw.redrawn, moved=draw.moved)
        done.dask["busy"] = draw.busy
    return done


def _wait_for_kernels(child, cancel) -> float:
    """Wait for the child compiling the kernels the draws run (``compile_ahead``): they
    then load from numba's cache instead of being compiled here beside it (seconds)."""
    if child is None:
        return 0.0
    from osutil.children import wait_child

    return wait_child(child, cancel)


def sampled_with_index(net, opts: BillboardsOptions) -> str:
    """The backend ("cpu" or "cupy") on which ``run(net, opts)`` would draw through the
    route index (weighted paths, the sampled method, asked or chosen by size), or ""
    where it would not."""
    from maps.model.turns import copies_of

    if opts.index == "off" or opts.mode == "hops" or copies_of(net) is not None:
        return ""  # (a map with turn copies runs the junction greedy, no index)
    try:
        return _sampled_on(net, opts)
    except Exception:  # an unavailable backend: the job itself says so
        return ""


def draws_through_index(net, opts: BillboardsOptions, *, gpu: bool = False) -> bool:
    """Whether ``run(net, opts)`` draws its sampled paths through the route index on the
    CPU (with ``gpu``: or on the GPU, where the method sampled was asked for: method auto
    uses only a cached index there), building the index when it is not cached (a big,
    road-shaped map, or ``--index on``). A cached index is drawn through without the
    shape test: its BFS sweeps cost 1.3 s on NE where numba's BFS is not compiled (a GPU
    machine that never ran the CPU's background child), each command (issue 43)."""
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import graph_key, road_shaped

    from .index import index_path

    be = sampled_with_index(net, opts)
    if be != "cpu" and not (gpu and be == "cupy" and opts.method == "sampled"):
        return False
    if opts.index == "on":
        return True
    cached = os.path.exists(index_path(net, graph_key(CSRGraph.from_any(net))))
    return cached or road_shaped(net)


def _sampled_here(net, opts: BillboardsOptions, be: str) -> bool:
    """Whether the placement takes the sampled method (method auto: on big maps)."""
    return opts.method == "sampled" or (
        opts.method == "auto"
        and estimate(net.num_nodes, net.num_arcs, replace(opts, backend=be))["method"] == "sampled")


def _sampled_on(net, opts: BillboardsOptions) -> str:
    """The backend the sampled method will run on, or "" when the placement is exact."""
    from gpu_core.backend import resolve_backend

    # "cpu" needs no look at the device; "cupy" raises its clear error here where CuPy is
    # missing (the GPU set-up below would meet it as a bare ModuleNotFoundError)
    be = "cpu" if opts.backend == "cpu" else resolve_backend(opts.backend)
    return be if _sampled_here(net, opts, be) else ""


def _ahead(net, opts: BillboardsOptions) -> threading.Thread | None:
    """What the sampled method's set-up can do while the route index is read or built.
    On the CPU: its transposed graph (``reverse_topology``: sorted once per map, ~0.3 s of
    CPU on the 1.43M-node map, 1 s under load) on a thread (reading and checking the index
    lets go of the GIL too): the window's first answer on a big map waited for both in
    turn (issue 43); returned to be joined. On the GPU: its CUDA modules compiled on
    threads (``compile_sampling_ahead``): a fresh machine's NVRTC compilations side by
    side instead of in turn (issue 41)."""
    from gpu_core.betweenness.cuda import compile_sampling_ahead, reverse_topology
    from gpu_core.graph import CSRGraph

    be = _sampled_on(net, opts)
    if be == "cupy":
        from gpu_core.betweenness.progressive import warm_host_ahead

        indexed = opts.mode != "hops" and opts.index != "off"
        compile_sampling_ahead(indexed=indexed)
        warm_host_ahead(indexed)  # the host's numba kernels: the rounds, the tied pairs
    if be != "cpu":
        return None
    th = threading.Thread(target=reverse_topology, args=(CSRGraph.from_any(net),),
                          name="signpost-reverse", daemon=True)
    th.start()
    return th


def _index(net, opts: BillboardsOptions, progress, cancel, *, local: bool = True):
    """The route index speeds up the sampled method's paths in weighted mode, on either
    backend: a PHAST sweep per block of sampled sources instead of a search per source.
    ``local`` (no Dask workers, which read the index's file) on the CPU: the one read off
    the key-weighted index this process holds for the map's clicks, when it holds one."""
    from gpu_core.backend import resolve_backend

    from .index import IndexInfo, hierarchy_for, plain_from_key_index

    be = opts.backend if opts.backend in ("cpu", "cupy") else resolve_backend(opts.backend)
    if opts.mode == "hops" or opts.method == "exact" or opts.index == "off":
        return None, IndexInfo()
    # Method auto picks "sampled" only on big maps. On the GPU an index is used there when
    # one is cached; on the CPU it is built too: its build (about a minute on a 1.4M-node
    # map) is worth fewer than 200 of the per-source sampler's searches (issue 43).
    sampled = opts.method == "sampled" or (be == "cpu" and _sampled_here(net, opts, be))
    if sampled and local and be == "cpu":  # the window's: its clicks' index holds this one
        got = plain_from_key_index(net)
        if got is not None:
            return got
    sources = 1 << 30 if sampled else 0
    return hierarchy_for(net, policy=opts.index, sources=sources, progress=progress,
                         cancel=cancel, backend=be)


def sampled_by_default(net, backend: str) -> bool:
    """Whether the window's placement with its defaults (K = 5, method auto) samples on the
    CPU on ``net`` (big maps)."""
    from gpu_core.backend import resolve_backend

    if resolve_backend(backend) != "cpu":
        return False
    return _sampled_here(net, BillboardsOptions(5, backend="cpu"), "cpu")


# Held while ``warm_sampled`` runs: a placement starting meanwhile waits for it (at most
# about a second) instead of sorting the same arcs and loading the same kernels beside it
# (clicked at "route index ready": 3.4-4.3 s to the first answer, against 2.1-2.6 s after it).
_WARMING = threading.Lock()


def warm_sampled(net) -> float:
    """Do ahead what a first sampled placement on ``net`` does once per map and process,
    for the window, once its route index is ready (issue 43: the first click's first answer
    on the 1.43M-node map took 1-3 s longer than the second): the transposed graph's sort,
    the graph's fingerprint, numba's cache loads of the sampler's kernels (one pair drawn
    through the index read off the key-weighted one: ``plain_from_key_index``) and of the
    rounds' greedy (``cover_cpu``). Returns the seconds taken; 0 when the process holds no
    key index of ``net``."""
    from gpu_core.betweenness import round_entries
    from gpu_core.betweenness.api import path_sampler
    from gpu_core.graph import CSRGraph

    from .index import plain_from_key_index

    t0 = time.perf_counter()
    with _WARMING:
        got = plain_from_key_index(net)
        if got is None:
            return 0.0
        g = CSRGraph.from_any(net)
        sampler = path_sampler(g, DEFAULT_MODE, "cpu", hierarchy=got[0])
        if sampler.kernel != "indexed":
            return 0.0
        pair = np.zeros(1, np.int32)
        sampler.run(pair, np.full((1, 1), g.num_nodes - 1, np.int32), 0, 0)
        round_entries.warm()  # and the rounds' greedy
    return time.perf_counter() - t0


def warm_up(opts: BillboardsOptions, net=None, *, first_only: bool = False) -> float:
    """Load (or compile) the kernels ``run(net, opts)`` uses with a 1-site run on a 4-node
    path (the exact method's when ``opts.method`` is auto); returns the seconds taken, so
    that callers can report the search apart from numba cache loads / CUDA module loads.
    ``net`` (optional): the map, so that the CPU greedy's queue (Dial's buckets or a heap,
    one compiled per map) is the one its run takes. ``first_only`` (with ``net``): where
    the run is an exact CPU greedy that searches round 1 ahead (K > 1 on a small map), only
    its search kernel: the run compiles its replay kernel while round 1's searches run
    (``gpu_core.betweenness.cpu_lanes``; a fresh install's CLI, issue 41)."""
    from gpu_core.betweenness import place_billboards
    from gpu_core.graph import CSRGraph

    t0 = time.perf_counter()
    if first_only and net is not None and draws_through_index(net, opts, gpu=True):
        # the tiny run would draw by the per-source sampler, whose kernels the draws
        # through the index never run (a fresh install: 1.7-3.5 s of NE's first command
        # on the CPU, issue 43; on a fresh H100 host 11.8 s of NVRTC compiling
        # betweenness.cu); the draws' own load in the run (``compile_s``)
        return 0.0
    if first_only and net is not None:
        eng = _ahead_engine(net, opts)
        if eng is not None:
            eng.compile_search()
            return time.perf_counter() - t0
    u = [0, 1, 1, 2, 2, 3]
    v = [1, 0, 2, 1, 3, 2]
    weight = 1  # a queue of buckets
    if net is not None and opts.mode != "hops" and not _dial_queue(net, opts):
        weight = 1 << 16  # arcs too long for buckets: a heap, as the map's run
    tiny = CSRGraph.from_edges(4, u, v, [weight] * len(u))
    quiet = logging.getLogger("gpu_core.betweenness.estimate")  # the 4-node run's projection
    was, quiet.disabled = quiet.disabled, True
    try:
        place_billboards(tiny, 1, mode=opts.mode, backend=opts.backend, kernel=opts.kernel,
                         method="exact" if opts.method == "auto" else opts.method)
    finally:
        quiet.disabled = was
    return time.perf_counter() - t0


def _ahead_engine(net, opts: BillboardsOptions):
    """The CPU engine ``run(net, opts)``'s exact greedy takes when it searches round 1
    ahead of its sums, else None (another backend or method, K = 1, a large map)."""
    from gpu_core.backend import resolve_backend
    from gpu_core.betweenness.api import cpu_engine
    from gpu_core.betweenness.common import search_weights
    from gpu_core.graph import CSRGraph

    if opts.k < 2 or opts.method == "sampled" or resolve_backend(opts.backend) != "cpu":
        return None
    g = CSRGraph.from_any(net)
    if opts.method == "auto" and _sampled_here(net, opts, "cpu"):
        return None
    ones = np.ones(g.num_nodes)
    eng = cpu_engine(g, search_weights(g, opts.mode), opts.mode == "hops", ones, ones,
                    keep=True)
    return eng if eng.searches_ahead() else None


def _dial_queue(net, opts: BillboardsOptions) -> bool:
    """Whether the CPU greedy on ``net`` searches with Dial's buckets."""
    from gpu_core.backend import resolve_backend
    from gpu_core.betweenness.api import _dial_buckets
    from gpu_core.betweenness.common import search_weights
    from gpu_core.graph import CSRGraph

    if resolve_backend(opts.backend) != "cpu":
        return True  # the GPU's kernels: the tiny run's weights do not matter
    g = CSRGraph.from_any(net)
    return _dial_buckets(g, search_weights(g, opts.mode)) > 0


def candidate_mask(net: RoadNetwork, which: str) -> np.ndarray | None:
    """Bool mask of the nodes a site may use (None: all). ``road``: nodes at a road arc;
    ``no-rail``: nodes at no rail arc (stations joined by transfer links stay allowed)."""
    from maps.model.network import KIND_RAIL, KIND_ROAD

    if which == "all":
        return None
    kind = getattr(net, "edge_kind", None)
    if kind is None:
        raise MapError(f"--candidates {which}: this map has no arc kinds (road/rail)")
    tails = net.arc_sources()
    heads = np.asarray(net.indices)
    sel = kind == (KIND_ROAD if which == "road" else KIND_RAIL)
    touched = np.zeros(net.num_nodes, dtype=bool)
    touched[tails[sel]] = True
    touched[heads[sel]] = True
    return touched if which == "road" else ~touched


def site_ids(net: RoadNetwork, nodes) -> list:
    """Ids as written in the map file of the given node indices (JSON-ready)."""
    labels = net.node_labels()
    return [labels[v].item() if hasattr(labels[v], "item") else labels[v] for v in nodes]


# The CPU's sampled paths through the route index against this estimate's own rate for a
# search: ~14 ms CPU a pair on NE, ~25 ms on the Kanto-sized map, where the rate below
# makes one search 0.19-0.23 s (8-14x; docs/perf/billboards_cpu.md); the estimate takes
# the lower end.
CPU_INDEX_SPEEDUP = 8.0


# Arc visits per second of one full search, as method "auto" assumes them (its limit is about
# 30 s of work: gpu_core.betweenness.api.EXACT_WORK_LIMIT).
def estimate(num_nodes: int, num_arcs: int, opts: BillboardsOptions) -> dict:
    """A rough size of a placement before it starts (issue 42: the 1.43M map's defaults ran
    1.5-3.6 hours on the CPU without a word): ``method`` it will use, ``searches`` (full
    searches), ``seconds`` (rough, from the auto limit's arc-visit rate), ``backend``."""
    from gpu_core.backend import resolve_backend
    from gpu_core.betweenness import sample_size
    from gpu_core.betweenness.api import EXACT_WORK_LIMIT

    be = resolve_backend(opts.backend)
    be = be if be in EXACT_WORK_LIMIT else "cpu"
    sources = num_nodes  # every node is an origin (uniform demand)
    exact_work = float(opts.k) * sources * max(num_arcs, 1)
    method = opts.method
    if method == "auto":
        method = "exact" if exact_work <= EXACT_WORK_LIMIT[be] else "sampled"
    if method == "sampled":
        searches = sample_size(opts.k, max(num_nodes, 2), opts.epsilon, opts.delta)
        work = float(searches) * max(num_arcs, 1)
    else:
        searches, work = sources * opts.k, exact_work
    rate = EXACT_WORK_LIMIT[be] / 30.0
    if method == "sampled" and be == "cpu" and opts.mode != "hops" and opts.index != "off":
        work /= CPU_INDEX_SPEEDUP  # the paths go through the route index (``_index``)
    return {"method": method, "searches": int(searches), "seconds": work / rate, "backend": be}
