"""Customization of a CCH topology on the GPU (``metric.cu``): arc slots, initial weights,
the basic customization (bottom-up) and the perfect one with the arc removal's keep
flags (top-down), one launch per elimination-tree height, a warp per tile of a vertex's
pairs of upward edges. The topology's arrays are copied to the device once per topology
object (kept on it). Imported only when CuPy is usable."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cupy as cp
import numpy as np

from ..device import get_module, memory
from ..errors import CancelledError, InvalidArgumentError
from ..graph import CSRGraph
from .metric import INF

_SRC = Path(__file__).resolve().with_name("metric.cu")
BLOCK = 256


def _device(t) -> dict:
    """The topology's arrays the kernels read, on the current device (kept on ``t``), and
    each height's range of tiles (``metric.cu``)."""
    dev = getattr(t, "_device", None)
    if dev is None or dev["id"] != memory.current_device_id():
        need = (t.up_ptr.nbytes + t.up_nb.nbytes + t.lvl_vert.nbytes + t.rank.nbytes
                + 8 * (t.n + 1))
        memory.ensure_free(need, "the route index topology")
        with memory.oom_as_typed("the route index topology", need):
            up_ptr = cp.asarray(t.up_ptr)
            lvl_vert = cp.asarray(t.lvl_vert)
            d = (up_ptr[1:] - up_ptr[:-1])[lvl_vert]
            k = (d + 31) // 32
            tiles = cp.where(d >= 2, k * (k + 1) // 2, 0)
            tile_ptr = cp.zeros(t.n + 1, dtype=cp.int64)
            cp.cumsum(tiles, out=tile_ptr[1:])
            del d, k, tiles
            dev = {"id": memory.current_device_id(), "rank": cp.asarray(t.rank),
                   "up_ptr": up_ptr, "up_nb": cp.asarray(t.up_nb), "lvl_vert": lvl_vert,
                   "tile_ptr": tile_ptr, "lp": [int(x) for x in t.lvl_ptr],
                   "tp": [int(x) for x in cp.asnumpy(tile_ptr[cp.asarray(t.lvl_ptr)])]}
        t._device = dev
    return dev


def _slots_initial(t, g):
    """(up, down) uint64 device arrays: the least input arc per edge and direction."""
    mod = get_module(_SRC)
    dev = _device(t)
    n, m = t.n, g.num_arcs
    if g.num_nodes != n:
        raise InvalidArgumentError(f"the graph has {g.num_nodes} vertices, the index "
                                   f"topology {n} (a new road)")
    need = m * 16 + 16 * t.edges
    memory.ensure_free(need, "customizing the route index")
    with memory.oom_as_typed("customizing the route index", need):
        indptr = cp.asarray(g.indptr.astype(np.int32))
        indices = cp.asarray(g.indices.astype(np.int32))
        weights = cp.asarray(g.weights.astype(np.int32))
        slots = cp.empty(m, dtype=cp.int64)
        up = cp.full(t.edges, INF, dtype=cp.uint64)
        down = cp.full(t.edges, INF, dtype=cp.uint64)
    f = mod.get_function
    if n:
        f("cch_slots")(((n + BLOCK - 1) // BLOCK,), (BLOCK,),
                       (indptr, indices, dev["rank"], dev["up_ptr"], dev["up_nb"], np.int32(n),
                        slots))
    if m:
        if bool((slots == -2).any()):
            raise InvalidArgumentError("an arc lies on no edge of the index topology "
                                       "(a new road)")
        f("cch_initial")(((m + BLOCK - 1) // BLOCK,), (BLOCK,),
                         (slots, weights, np.int64(m), up, down))
    return up, down


def _per_height(kernel, dev: dict, args: tuple, *, top_down: bool = False,
                cancel: Callable[[], bool] | None = None, progress=None) -> None:
    """One launch per elimination-tree height (bottom-up, or ``top_down``), a warp per
    tile of the height's vertices' pairs of upward edges; ``progress(fraction of the
    tiles)`` and ``cancel()`` between launches (every 256th)."""
    lp, tp = dev["lp"], dev["tp"]
    done, total = 0, max(tp[-1], 1)
    heights = range(len(lp) - 2, -1, -1) if top_down else range(len(lp) - 1)
    for k, h in enumerate(heights):
        q0, q1 = tp[h], tp[h + 1]
        if q1 > q0:
            warps = BLOCK // 32
            kernel((((q1 - q0) + warps - 1) // warps,), (BLOCK,),
                   (dev["lvl_vert"], dev["tile_ptr"], np.int64(lp[h]), np.int64(lp[h + 1]),
                    np.int64(q0), np.int64(q1), dev["up_ptr"], dev["up_nb"], *args))
        done += q1 - q0
        if (k & 255) == 255:
            if cancel is not None and cancel():
                raise CancelledError("building the route index was cancelled")
            if progress is not None:
                progress(done / total)


def _basic(t, up, down, cancel=None, progress=None) -> None:
    """The basic customization of the initial weights (up, down), in place."""
    _per_height(get_module(_SRC).get_function("cch_push"), _device(t), (up, down),
                cancel=cancel, progress=progress)


def _perfect(t, up, down, cancel=None, progress=None):
    """(perfect up, perfect down, keep up, keep down) device arrays from the basic metric
    (left as it is): ``perfect.perfect_and_kept``'s Q on the device."""
    mod = get_module(_SRC)
    need = 18 * t.edges
    memory.ensure_free(need, "pruning the route index")
    with memory.oom_as_typed("pruning the route index", need):
        qu = cp.full(t.edges, INF, dtype=cp.uint64)
        qd = cp.full(t.edges, INF, dtype=cp.uint64)
        ku = cp.empty(t.edges, dtype=cp.bool_)
        kd = cp.empty(t.edges, dtype=cp.bool_)
    _per_height(mod.get_function("cch_q"), _device(t), (up, down, qu, qd), top_down=True,
                cancel=cancel, progress=progress)
    if t.edges:
        mod.get_function("cch_settle")(((t.edges + BLOCK - 1) // BLOCK,), (BLOCK,),
                                       (up, down, qu, qd, ku, kd, np.int64(t.edges)))
    return qu, qd, ku, kd


def _host(*arrays) -> tuple[np.ndarray, ...]:
    """Host copies of device arrays (uint64 read back as int64), into pages first
    touched on every core (``patch._touch``): a 24M-node map's 16 GB came down at
    2.1 GB/s into untouched memory, faulted in page by page inside the copy."""
    from .patch import _touch

    out = []
    for a in arrays:
        dst = np.empty(a.shape, np.int64 if a.dtype == cp.uint64 else a.dtype)
        if dst.nbytes:
            _touch(dst.reshape(-1))
            a.get(out=dst.view(a.dtype))
        out.append(dst)
    return tuple(out)


def customize_device(t, g) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) int64 host arrays: ``g``'s weights customized over topology ``t``."""
    up, down = _slots_initial(t, CSRGraph.from_any(g))
    _basic(t, up, down)
    hu, hd = _host(up, down)
    return hu, hd


def customize_perfect_device(t, g) -> tuple[np.ndarray, ...]:
    """(up, down, perfect_up, perfect_down) int64 host arrays: the basic customization
    (kept for partial updates) and the perfect one (``perfect.perfect_metric``)."""
    up, down = _slots_initial(t, CSRGraph.from_any(g))
    _basic(t, up, down)
    qu, qd, _, _ = _perfect(t, up, down)
    return _host(up, down, qu, qd)


def customize_full_device(t, g, *, prune: bool, cancel: Callable[[], bool] | None = None,
                          progress: Callable[[float, str], None] | None = None,
                          ) -> tuple:
    """A full customization of ``g``'s weights over ``t`` on the device: (up, down) of the
    basic customization and, with ``prune``, (perfect up, perfect down, keep up, keep
    down) as ``perfect.perfect_and_kept`` gives them when no edge weighs 0, and whether
    one does (then the caller decides the keep flags with ``perfect.removable``). Host
    arrays; GpuOutOfMemoryError when they do not fit. ``progress(fraction, what)``."""
    need = 16 * t.edges + (18 * t.edges if prune else 0)
    memory.ensure_free(need + t.up_nb.nbytes + t.up_ptr.nbytes, "customizing the route index")
    up, down = _slots_initial(t, CSRGraph.from_any(g))
    what = "customizing the route index on the GPU"
    half = 0.5 if prune else 1.0

    def step(base: float):
        return None if progress is None else (lambda f: progress(base + half * f, what))

    _basic(t, up, down, cancel, step(0.0))
    if not prune:
        return _host(up, down)
    qu, qd, ku, kd = _perfect(t, up, down, cancel, step(0.5))
    zero = bool(((qu == 0) | (qd == 0)).any()) if t.edges else False
    return (*_host(up, down, qu, qd, ku, kd), zero)
