"""A partial re-customization on the GPU (issue 26; ``partial.cu``, the twin of
``partial.update``): the kept metric has a device copy (``DeviceMetric``: the input and
customized weights per edge, made ahead by ``partial.prepare``), the changed inputs are
scattered into it and one cooperative launch recomputes the edges they reach, height by
height. What changed comes back to the host (edges, old and new values), which patches
its Hierarchy as after the host's update. NE, 10 closures: the host's update took 3-29
ms on the H100 host's 16 cores, more when the closures reach the top separators.

The copy mirrors the host's arrays while ``version`` equals ``Metric.version``: every
host-side change of the kept metric bumps that (``partial._partial``), so a stale copy
is made again, never trusted. Imported only when CuPy is usable."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cupy as cp
import numpy as np

from ..device import get_kernel, memory

_SRC = Path(__file__).resolve().with_name("partial.cu")
BLOCK = 256
# Resident blocks a multiprocessor (the grid barrier needs every block resident).
BLOCKS_PER_SM = 4
# Changes recorded per launch at most (edge, old up, old down); beyond it the whole
# metric comes back and the host finds them by comparison.
CHANGES_CAP = 1 << 20


def _topology(t) -> dict:
    """The topology's arrays the update reads beyond ``metric_cuda._device``'s (kept on
    ``t``): lower neighbours, each edge's lower end, each vertex's height and the
    heights' bucket offsets."""
    from .metric_cuda import _device

    base = _device(t)
    dev = getattr(t, "_partial_device", None)
    if dev is not None and dev["id"] == base["id"]:
        return dev
    tails = t.tails()
    height = np.empty(t.n, np.int32)
    lp = t.lvl_ptr.astype(np.int64)
    height[t.lvl_vert] = np.repeat(np.arange(lp.shape[0] - 1, dtype=np.int32), np.diff(lp))
    cum = np.zeros(t.n + 1, np.int64)
    np.cumsum(np.diff(t.up_ptr)[t.lvl_vert], out=cum[1:])
    per_h = cum[lp[1:]] - cum[lp[:-1]]  # edges of each height's vertices: a list's most
    need = (t.dn_ptr.nbytes + t.dn_src.nbytes + t.dn_edge.nbytes + tails.nbytes
            + height.nbytes + lp.nbytes)
    memory.ensure_free(need, "the route index topology")
    with memory.oom_as_typed("the route index topology", need):
        dev = {"id": base["id"], "dn_ptr": cp.asarray(t.dn_ptr.astype(np.int64)),
               "dn_src": cp.asarray(t.dn_src.astype(np.int32)),
               "dn_edge": cp.asarray(t.dn_edge.astype(np.int64)),
               "tails": cp.asarray(tails), "height": cp.asarray(height),
               "lp": cp.asarray(lp), "heights": int(lp.shape[0] - 1),
               "list_cap": int(per_h.max()) if per_h.size else 0}
    t._partial_device = dev
    return dev


@dataclass
class DeviceMetric:
    """The device copy of a kept metric and the update's work buffers."""

    id: int
    version: int
    base_up: cp.ndarray
    base_down: cp.ndarray
    up: cp.ndarray
    down: cp.ndarray
    work: dict


def device_metric(t, m) -> DeviceMetric:
    """``m``'s device copy, made (uploaded) when missing or stale."""
    dm: DeviceMetric | None = getattr(m, "device", None)
    dev = memory.current_device_id()
    if dm is not None and dm.id == dev and dm.version == m.version:
        return dm
    m.device = None  # freed before the new one is made
    top = _topology(t)
    e, n, hs = t.edges, t.n, top["heights"]
    cap = min(CHANGES_CAP, max(e, 1))
    need = 32 * e + e + 8 * n + 8 * hs + 8 * max(top["list_cap"], 1) + 24 * cap
    memory.ensure_free(need, "re-customizing the route index on the device")
    with memory.oom_as_typed("re-customizing the route index on the device", need):
        work = {"dirty": cp.zeros(max(e, 1), dtype=cp.uint8),
                "queued": cp.zeros(max(n, 1), dtype=cp.int32),
                "bucket": cp.empty(max(n, 1), dtype=cp.int32),
                "counts": cp.zeros(2 * hs + 1, dtype=cp.int32),  # bcount, lcount, ccount
                "list": cp.empty(max(top["list_cap"], 1), dtype=cp.int64),
                "changed": cp.empty(cap, dtype=cp.int64),
                "old_up": cp.empty(cap, dtype=cp.int64),
                "old_down": cp.empty(cap, dtype=cp.int64),
                "bar": cp.zeros(2, dtype=cp.uint32), "cap": cap}
        dm = DeviceMetric(dev, m.version, cp.asarray(m.base_up), cp.asarray(m.base_down),
                          cp.asarray(m.up), cp.asarray(m.down), work)
    m.device = dm
    return dm


def kernel():
    """The update's cooperative kernel (compiled, or read from CuPy's cache, on first use)."""
    return get_kernel(_SRC, "cch_partial", cooperative=True)


def warm(t, m) -> None:
    """One launch without seeds and the gathers the update makes, before a closure waits
    (their first call in a process loads CuPy's kernels: NE's first closure spent ~25 ms
    more in the update than the next ones on the H100)."""
    update_device(t, m, np.empty(0, np.int64))
    dm = device_metric(t, m)
    cp.take(dm.up, cp.zeros(1, dtype=cp.int64)).get()


def _grid(kern) -> int:
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    regs = max(1, int(kern.num_regs))
    return sms * max(1, min(BLOCKS_PER_SM, 2048 // BLOCK, 65536 // (regs * BLOCK)))


def update_device(t, m, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``partial.update`` on the device: ``m.base_up``/``m.base_down`` (host) are the new
    inputs, differing from the device copy's only on the edges ``seeds``; the device copy
    and ``m.up``/``m.down`` (host) are brought to them. Returns (the edges whose value
    changed, ascending; their old up; their old down), as ``update`` does."""
    from .metric_cuda import _device

    dm = device_metric(t, m)
    dm.version = -1  # not a mirror until this returns
    top, wk, base = _topology(t), dm.work, _device(t)
    hs = top["heights"]
    kern = kernel()
    counts = wk["counts"]
    counts.fill(0)
    args = (cp.asarray(seeds.astype(np.int64)), cp.asarray(m.base_up[seeds]),
            cp.asarray(m.base_down[seeds]), np.int64(seeds.shape[0]), np.int32(hs),
            top["lp"], top["height"], top["tails"], base["up_ptr"], base["up_nb"],
            top["dn_ptr"], top["dn_src"], top["dn_edge"], dm.base_up, dm.base_down, dm.up,
            dm.down, wk["dirty"], wk["queued"], wk["bucket"], counts[:hs], wk["list"],
            counts[hs:2 * hs], wk["changed"], wk["old_up"], wk["old_down"], counts[2 * hs:],
            np.int64(wk["cap"]), wk["bar"])
    grid = _grid(kern)
    while True:
        try:
            kern((grid,), (BLOCK,), args)
            break
        except cp.cuda.driver.CUDADriverError as exc:
            if "TOO_LARGE" in str(exc) and grid > 1:
                grid = max(1, grid // 2)
                continue
            raise
    c = int(counts[2 * hs])
    if c <= wk["cap"]:  # sorted on the host: a few thousand entries at most, as a rule
        ch = wk["changed"][:c]
        changed, ou, od = (cp.asnumpy(a) for a in (ch, wk["old_up"][:c], wk["old_down"][:c]))
        nu, nd = cp.asnumpy(cp.take(dm.up, ch)), cp.asnumpy(cp.take(dm.down, ch))
        order = np.argsort(changed)
        changed, ou, od = changed[order], ou[order], od[order]
        m.up[changed], m.down[changed] = nu[order], nd[order]
    else:  # more changes than recorded: the whole metric back, compared on the host
        nu, nd = cp.asnumpy(dm.up), cp.asnumpy(dm.down)
        changed = np.flatnonzero((nu != m.up) | (nd != m.down)).astype(np.int64)
        ou, od = m.up[changed], m.down[changed]
        m.up[:], m.down[:] = nu, nd
    dm.version = m.version
    return changed, ou, od
