"""Customization of a CCH topology on the GPU (``metric.cu``): arc slots, initial weights
and one launch per elimination-tree height. The topology's arrays are copied to the
device once per topology object (kept on it), so a re-customization after closures moves
only the graph's arcs and weights. Imported only when CuPy is usable."""

from __future__ import annotations

from pathlib import Path

import cupy as cp
import numpy as np

from ..device import get_module, memory
from ..errors import InvalidArgumentError
from .metric import INF

_SRC = Path(__file__).resolve().with_name("metric.cu")
BLOCK = 256


def _device(t) -> dict:
    dev = getattr(t, "_device", None)
    if dev is None or dev["id"] != memory.current_device_id():
        need = (t.up_ptr.nbytes + t.up_nb.nbytes + t.dn_ptr.nbytes + t.dn_src.nbytes
                + t.dn_edge.nbytes + t.lvl_vert.nbytes + t.rank.nbytes + 16 * t.edges)
        memory.ensure_free(need, "the route index topology")
        with memory.oom_as_typed("the route index topology", need):
            dev = {"id": memory.current_device_id(), "rank": cp.asarray(t.rank),
                   "up_ptr": cp.asarray(t.up_ptr), "up_nb": cp.asarray(t.up_nb),
                   "dn_ptr": cp.asarray(t.dn_ptr), "dn_src": cp.asarray(t.dn_src),
                   "dn_edge": cp.asarray(t.dn_edge), "lvl_vert": cp.asarray(t.lvl_vert),
                   "lp": [int(x) for x in t.lvl_ptr]}
        t._device = dev
    return dev


def _basic(t, g):
    """(up, down) uint64 device arrays: the basic customization of ``g`` over ``t``."""
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
    _per_level(f("cch_height"), dev["lp"], dev["lvl_vert"],
               (dev["up_ptr"], dev["up_nb"], dev["dn_ptr"], dev["dn_src"], dev["dn_edge"], up,
                down))
    return up, down


def _per_level(kernel, lp: list, verts, args: tuple) -> None:
    """One launch per level (vertex range lp[l]..lp[l+1) of ``verts``), a warp per vertex."""
    for lv in range(len(lp) - 1):
        s, e = lp[lv], lp[lv + 1]
        if e > s:
            threads = (e - s) * 32
            kernel(((threads + BLOCK - 1) // BLOCK,), (BLOCK,),
                   (verts, np.int64(s), np.int64(e), *args))


def customize_device(t, g) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) int64 host arrays: ``g``'s weights customized over topology ``t``."""
    up, down = _basic(t, g)
    return cp.asnumpy(up).view(np.int64), cp.asnumpy(down).view(np.int64)


def customize_perfect_device(t, g) -> tuple[np.ndarray, ...]:
    """(up, down, perfect_up, perfect_down) int64 host arrays: the basic customization
    (kept for partial updates) and the perfect one (``perfect.perfect_metric``), both on
    the device; the arc removal runs on the host (``perfect.pruned_hierarchy``)."""
    from .perfect import topology_layout

    up, down = _basic(t, g)
    dev = _device(t)
    if "by_sweep" not in dev:
        sweep, lp = topology_layout(t)
        by_sweep = np.empty(t.n, np.int64)
        by_sweep[sweep] = np.arange(t.n)
        dev["by_sweep"] = cp.asarray(by_sweep)
        dev["sweep_lp"] = [int(x) for x in lp]
    with memory.oom_as_typed("pruning the route index", 16 * t.edges):
        u2, d2 = up.copy(), down.copy()
    # cch_upper lowers each edge through its upper and intermediate triangles, top-down:
    # values read within a launch may be stale, but each is the length of a real path at
    # most the basic one, and the edges of the triangles' far sides are final, so the
    # minimum reached is the distance, the same as the host's pass
    _per_level(get_module(_SRC).get_function("cch_upper"), dev["sweep_lp"], dev["by_sweep"],
               (dev["up_ptr"], dev["up_nb"], u2, d2))
    return tuple(cp.asnumpy(a).view(np.int64) for a in (up, down, u2, d2))
