"""Direct GPU PageRank and Borůvka (``direct.cu``), outside the vertex-program framework,
and the per-graph structures every GPU path of this package reuses.

The structures a program derives from a map (its simple digraph, the transposed CSR, the
undirected edges in Kruskal's order) are built once per graph and device and kept on the
graph's :class:`~gpu_core.device.csr.DeviceGraph` (``derived``), so a repeated call on
the same map does no host sorting and no upload. Results equal the CPU oracles
(``direct.pagerank_csr``: the flow of each rank summed in scipy's order, the same
stopping rule, ``tests/gpu/test_direct_gpu.py``; ``direct.kruskal_mask``: the same edge
set).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..device import get_kernel as _device_kernel
from ..device.csr import device_graph
from ..device.memory import ensure_free, oom_as_typed
from ..graph import CSRGraph
from .direct import undirected_edges

HERE = Path(__file__).resolve().parent
BLOCK = 256
CHECK_EVERY = 8  # PageRank iterations between two reads of the device's converged flag
# (the launch-per-iteration fallback)


def get_kernel(name: str):
    return _device_kernel(HERE / "direct.cu", name)


def simple_arcs(g: CSRGraph) -> tuple[np.ndarray, np.ndarray]:
    """(tails, heads) int64 of the map's simple digraph, sorted by (tail, head); cached per
    graph on the device graph (the GPU paths only)."""
    def build():
        n = g.num_nodes
        pairs = np.unique(g.arc_sources().astype(np.int64) * n + g.indices)
        return pairs // n, pairs % n

    return device_graph(g).derived("simple_arcs", build)


def cached_undirected_edges(g: CSRGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`direct.undirected_edges`, computed once per graph (the GPU paths only)."""
    return device_graph(g).derived("undirected_edges", lambda: undirected_edges(g))


class _PageRankGraph:
    """The transposed simple digraph on the device: row v lists v's sources ascending;
    out-degrees (the persistent kernel) and their inverses (the launch fallback)."""

    def __init__(self, g: CSRGraph):
        import cupy as cp

        n = g.num_nodes
        tails, heads = simple_arcs(g)
        out = np.bincount(tails, minlength=n)
        dangling = out == 0
        order = np.argsort(heads * n + tails)
        indptr = np.zeros(n + 1, np.int32)
        indptr[1:] = np.cumsum(np.bincount(heads, minlength=n))
        inv = np.divide(1.0, out, out=np.zeros(n), where=~dangling)
        nbytes = 4 * (n + 1) + 4 * tails.size + 13 * n
        ensure_free(nbytes, "the direct PageRank graph")
        with oom_as_typed("the direct PageRank graph", nbytes):
            self.indptr = cp.asarray(indptr)
            self.src = cp.asarray(tails[order].astype(np.int32)) if tails.size else \
                cp.zeros(1, cp.int32)
            self.inv = cp.asarray(inv)
            self.outdeg = cp.asarray(out.astype(np.int32))
            self.dangling = cp.asarray(dangling.astype(np.uint8))
        # networkx's first dangling sum, x0[dangling].sum() with numpy's own summation
        self.dsum0 = float(np.full(int(dangling.sum()), 1.0 / n).sum())
        self.indeg = np.diff(indptr)
        self.max_indeg = int(self.indeg.max()) if n else 0  # read on every call
        self._hubs: dict[tuple, tuple] = {}

    def has_hubs(self, hub_min: int) -> bool:
        return self.max_indeg > hub_min

    def hubs(self, hub_min: int, blocks: int, chunk: int):
        """(hubs, hub_off) on the device: the vertices of more than ``hub_min`` in-arcs,
        ascending, and where each block's (``chunk`` vertices a block) start in that list."""
        import cupy as cp

        key = (hub_min, blocks, chunk)
        if key not in self._hubs:
            ids = np.flatnonzero(self.indeg > hub_min).astype(np.int32)
            off = np.searchsorted(ids, np.arange(blocks + 1, dtype=np.int64) * chunk)
            self._hubs = {key: (cp.asarray(ids if ids.size else np.zeros(1, np.int32)),
                                cp.asarray(off.astype(np.int32)))}
        return self._hubs[key]


def pagerank_direct_cuda(g: CSRGraph, damping: float, tol: float, max_iter: int):
    """``direct.pagerank_csr`` on the device: (rank numpy, iterations, delta, converged).
    One persistent cooperative launch runs every iteration (``prd_persistent``: each
    block keeps its vertices in shared memory, one last-block-done barrier per iteration,
    the stopping test on the device, nothing read back until the end); where cooperative
    launches are refused, two launches per iteration and one flag read every CHECK_EVERY
    iterations (``prd_pull`` + ``prd_finish``)."""
    n = g.num_nodes
    if n == 0:  # as the API answers an empty map
        return np.zeros(0), 0, 0.0, True
    pg = device_graph(g).derived("pagerank_transpose", lambda: _PageRankGraph(g))
    try:
        return _pagerank_persistent(pg, n, float(damping), float(n * tol), int(max_iter))
    except _NoCooperativeLaunch:
        return _pagerank_launches(pg, n, float(damping), float(n * tol), int(max_iter))


class _NoCooperativeLaunch(Exception):
    pass


# shared memory per vertex of the persistent kernel's modes (direct.cu): rank, row bound
# and out-degree (PRD_SMEM_ALL = 2), the rank only (PRD_SMEM_X = 1), nothing (0)
SMEM_PER_VERTEX = {2: 16, 1: 8, 0: 0}
PERSISTENT_BLOCKS = (1024, 512, 256)  # block sizes tried, largest first
SMEM_OPTIN_ATTR = 97  # cudaDevAttrMaxSharedMemoryPerBlockOptin
# direct.cu's PRD_* switches of the default path (y read through L1: faster than L2). Mode 0
# (nothing in shared memory) is always built with PRD_X2 as well (two global rank buffers:
# far faster than one updated in place); not in the other modes' build, where it costs
# registers (a few bytes spilled at 32). Figures: docs/perf/tuning_defaults.md.
PERSISTENT_DEFINES: tuple[str, ...] = ("PRD_Y_CACHED",)
# rows of more in-arcs are summed by a warp, not one thread (one thread on a skewed graph's
# hub of 10^5 in-arcs dominated the iteration: docs/perf/tuning_defaults.md); the kernel has that path (PRD_HUBS)
# only where the graph has such rows
HUB_MIN = 256


def _smem_bytes(mode: int, chunk: int) -> int:
    return SMEM_PER_VERTEX[mode] * chunk + (4 if mode == 2 else 0)


_plans: dict[tuple, tuple[int, int, int, int, int]] = {}


def persistent_plan(kern, n: int, override: tuple[int, int, int] | None = None):
    """(block, blocks, chunk, mode, dynamic shared bytes) of the persistent launch: the
    most vertex state in shared memory (mode), then the most resident threads per SM,
    then the fewest blocks (the barrier's cost grows with them). Every block must be
    resident at once (the kernel's barrier): the occupancy API checks each candidate
    with its dynamic shared memory. ``override`` = (block, blocks per SM, mode), for
    measurements and tests. Memoised per kernel, device and size."""
    import cupy as cp

    dev = cp.cuda.Device()
    key = (id(kern), dev.id, n, override)
    plan = _plans.get(key)
    if plan is None:
        try:
            plan = _plans.setdefault(key, _plan(kern, n, override, dev))
        except (AttributeError, cp.cuda.driver.CUDADriverError,
                cp.cuda.runtime.CUDARuntimeError) as exc:  # no occupancy query here
            raise _NoCooperativeLaunch(str(exc)) from exc
    return plan


def _plan(kern, n: int, override, dev):
    import cupy as cp

    sms = int(dev.attributes["MultiProcessorCount"])
    optin = int(cp.cuda.runtime.deviceGetAttribute(SMEM_OPTIN_ATTR, dev.id))
    best = None
    for mode in (2, 1, 0) if override is None else (override[2],):
        for block in PERSISTENT_BLOCKS if override is None else (override[0],):
            top = 2048 // block if override is None else override[1]
            for bps in range(top, 0, -1):
                nb = max(1, min(sms * bps, -(-n // block)))
                chunk = max(1, -(-n // nb))
                nb = max(1, -(-n // chunk))  # no empty blocks
                smem = _smem_bytes(mode, chunk)
                if smem > optin:
                    break  # fewer blocks only need more
                if _resident(kern, block, smem) * sms >= nb:
                    key = (block * min(bps, -(-nb // sms)), -nb)
                    if best is None or key > best[0]:
                        best = (key, (block, nb, chunk, mode, smem))
                    break
        if best is not None:
            return best[1]
    raise _NoCooperativeLaunch("no resident grid for the persistent PageRank")


def _resident(kern, block: int, smem: int) -> int:
    """Blocks of ``block`` threads and ``smem`` dynamic shared bytes resident per SM."""
    import cupy as cp

    kern.max_dynamic_shared_size_bytes = smem
    return int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
        kern.kernel.ptr, block, smem))


def _pagerank_persistent(pg, n: int, damping: float, limit: float, max_iter: int,
                         override: tuple[int, int, int] | None = None,
                         defines: tuple[str, ...] = PERSISTENT_DEFINES,
                         hub_min: int = HUB_MIN):
    """The persistent launch; ``override`` (see :func:`persistent_plan`), ``defines``
    (direct.cu's PRD_* switches) and ``hub_min`` are for measurements and tests."""
    import cupy as cp

    if pg.has_hubs(hub_min):
        defines = (*defines, "PRD_HUBS")
    kern = _device_kernel(HERE / "direct.cu", "prd_persistent", defines=defines,
                          cooperative=True)
    block, nb, chunk, mode, smem = persistent_plan(kern, n, override)
    if mode == 0 and "PRD_X2" not in defines:
        defines = (*defines, "PRD_X2")
        kern = _device_kernel(HERE / "direct.cu", "prd_persistent", defines=defines,
                              cooperative=True)
        block, nb, chunk, mode, smem = persistent_plan(kern, n, override)
    two_x = mode == 0 and "PRD_X2" in defines
    ensure_free((32 if two_x else 24) * n + 16 * nb + 64, "the direct PageRank")
    x = cp.empty(n)
    x2 = cp.empty(n) if two_x else x
    ys = cp.empty((2, n))
    dbuf = cp.empty(2 * nb + 5)  # partials, the published sums, (delta, converged, its)
    sync = cp.zeros(2, cp.uint32)  # arrivals, generation
    hubs, hub_off = pg.hubs(hub_min, nb, chunk)
    kern.max_dynamic_shared_size_bytes = smem
    try:
        kern((nb,), (block,), (pg.indptr, pg.src, pg.outdeg, hubs, hub_off,
                               np.int32(hub_min), x, x2, ys[0], ys[1], dbuf,
                               sync, np.int32(n), np.int32(chunk), np.int32(mode),
                               np.float64(damping), np.float64(limit), np.int32(max_iter),
                               np.float64(pg.dsum0)), shared_mem=smem)
    except cp.cuda.driver.CUDADriverError as exc:
        if any(k in str(exc) for k in ("COOPERATIVE", "NOT_SUPPORTED", "TOO_LARGE")):
            raise _NoCooperativeLaunch(str(exc)) from exc
        raise
    delta, done, iters = dbuf[2 * nb + 2:].get()
    return _to_host(cp, x), int(iters), float(delta), bool(done)


def _to_host(cp, arr) -> np.ndarray:
    """Device -> host through pinned memory (about four times the pageable copy rate)."""
    out = np.frombuffer(cp.cuda.alloc_pinned_memory(arr.nbytes), arr.dtype, arr.size)
    arr.get(out=out)
    return out


def _pagerank_launches(pg, n: int, damping: float, limit: float, max_iter: int):
    import cupy as cp

    nb = max(-(-n // BLOCK), 1)
    ensure_free(16 * n + 16 * nb, "the direct PageRank")
    x = cp.full(n, 1.0 / n)
    xn = cp.empty_like(x)
    parts = cp.empty((2, nb))
    dsum = cp.asarray([pg.dsum0])
    info = cp.zeros(2, cp.int32)
    res = cp.full(1, np.nan)
    pull, finish = get_kernel("prd_pull"), get_kernel("prd_finish")
    for it in range(1, max_iter + 1):
        pull((nb,), (BLOCK,), (pg.indptr, pg.src, pg.inv, pg.dangling, x, xn, dsum, info,
                               parts[0], parts[1], np.int32(n), np.float64(damping)))
        finish((1,), (BLOCK,), (parts[0], parts[1], np.int32(nb), dsum, info, res,
                                np.int32(it), np.float64(limit)))
        x, xn = xn, x
        if it % CHECK_EVERY == 0 and int(info[0].get()):
            break
    done, iters = (int(v) for v in info.get())
    return x.get(), iters, float(res.get()[0]), bool(done)


class _BoruvkaGraph:
    def __init__(self, g: CSRGraph):
        import cupy as cp

        a, b, w = cached_undirected_edges(g)
        self.k = int(a.shape[0])
        nbytes = 8 * max(self.k, 1)
        ensure_free(nbytes, "the direct Borůvka edges")
        with oom_as_typed("the direct Borůvka edges", nbytes):
            self.a = cp.asarray(a.astype(np.int32)) if self.k else cp.zeros(1, cp.int32)
            self.b = cp.asarray(b.astype(np.int32)) if self.k else cp.zeros(1, cp.int32)


def boruvka_direct_cuda(g: CSRGraph) -> tuple[np.ndarray, int]:
    """Kruskal's forest (a bool mask over ``cached_undirected_edges(g)``) by the direct
    Borůvka kernels, and the number of rounds. One counter read per round."""
    import cupy as cp

    n = g.num_nodes
    bg = device_graph(g).derived("boruvka_edges", lambda: _BoruvkaGraph(g))
    k = bg.k
    if n == 0 or k == 0:
        return np.zeros(k, bool), 0
    ensure_free(13 * n + k, "the direct Borůvka")
    root = cp.arange(n, dtype=cp.int32)
    best = cp.full(n, np.iinfo(np.int32).max, cp.int32)
    nxt = cp.empty(n, cp.int32)
    in_forest = cp.zeros(k, cp.uint8)
    hooks = cp.zeros(1, cp.int32)
    pick, hook = get_kernel("bor_pick"), get_kernel("bor_hook")
    jump, relabel = get_kernel("bor_jump"), get_kernel("bor_relabel")
    ge, gv = (-(-k // BLOCK),), (-(-n // BLOCK),)
    n32, k32 = np.int32(n), np.int32(k)
    rounds = 0
    while True:
        hooks.fill(0)
        pick(ge, (BLOCK,), (bg.a, bg.b, k32, root, best))
        hook(gv, (BLOCK,), (bg.a, bg.b, root, best, nxt, in_forest, hooks, n32))
        jump(gv, (BLOCK,), (root, nxt, n32))
        relabel(gv, (BLOCK,), (root, nxt, best, n32))
        if int(hooks.get()[0]) == 0:
            break
        rounds += 1
    return in_forest.get().astype(bool), rounds
