"""A partial re-customization's device side (issue 26): the GPHAST sweep's copy of the
downward lists (``cuda._device``) follows the patched Hierarchy (``patch.patch_hierarchy``)
with only the dirty vertices' segments uploaded, instead of the whole lists (NE: ~100 MB
per closure). Same arcs: the weights are copied on the device and the new ones scattered
into the copy. Arcs appeared or vanished: new device lists, every clean segment moved on
the device (``patch.cu``). The old Hierarchy's device lists are never written, so a sweep
of it still running elsewhere stays right. Imported only when CuPy is usable."""

from __future__ import annotations

from pathlib import Path

import cupy as cp
import numpy as np

from ..device import get_module, memory
from .cuda import BIG32, _device, _valid, host_refs

_SRC = Path(__file__).resolve().with_name("patch.cu")
BLOCK = 256


def _segments(ptr: np.ndarray, dirty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(segment pointers, positions): the arcs of the ``dirty`` sweep ids, in order."""
    lens = ptr[dirty + 1] - ptr[dirty]
    seg_ptr = np.zeros(dirty.shape[0] + 1, np.int64)
    np.cumsum(lens, out=seg_ptr[1:])
    pos = np.repeat(ptr[dirty] - seg_ptr[:-1], lens) + np.arange(int(seg_ptr[-1]))
    return seg_ptr, pos


def follow(old, new, info: dict) -> None:
    """Bring the device copy of ``old``'s downward lists to ``new`` (``info``: what
    ``patch_hierarchy`` changed per direction), or upload ``new``'s when ``old`` had
    none: after this the next sweep of ``new`` reads the device copy as it is."""
    box = getattr(old, "_device_box", None)
    dev = None if box is None else box.get("dev")
    new._device_box = nbox = {}
    if dev is None or not _valid(dev, old):
        _device(new)
        return
    d = info.get("down")
    if d is None:  # the downward lists are shared: so is their device copy
        nbox["dev"] = dev
        return
    f = get_module(_SRC).get_function
    seg_ptr, pos = _segments(new.down_ptr, d.dirty)
    seg_w = new.down_w[pos]
    w32 = dev["w32"] if dev["w32"] is not None and (
        seg_w.size == 0 or int(seg_w.max()) < BIG32) else None
    if not d.structural:  # the same arcs: the weights copied on the device, then patched
        m = int(new.down_w.shape[0])
        need = m * (8 + (4 if w32 is not None else 0))
        memory.ensure_free(need, "patching the route index on the device")
        with memory.oom_as_typed("patching the route index on the device", need):
            w = dev["w"].copy()  # ~50 us for NE's 46 MB: a sweep of the old one stays right
            nw32 = w32.copy() if w32 is not None else None
        cnt = int(pos.shape[0])
        if cnt:
            f("cch_patch_weights")(((cnt + BLOCK - 1) // BLOCK,), (BLOCK,),
                                   (np.int64(cnt), cp.asarray(pos), cp.asarray(seg_w), w,
                                    nw32 if nw32 is not None else dev["src"],
                                    np.int32(nw32 is not None)))
        ndev = {**dev, "w": w, "w32": nw32}
    else:
        n, m = new.n, int(new.down_src.shape[0])
        need = m * (12 + (4 if w32 is not None else 0)) + n * 12
        memory.ensure_free(need, "patching the route index on the device")
        with memory.oom_as_typed("patching the route index on the device", need):
            ptr = cp.asarray(new.down_ptr)
            src = cp.empty(m, dtype=cp.int32)
            w = cp.empty(m, dtype=cp.int64)
            nw32 = cp.empty(m, dtype=cp.int32) if w32 is not None else None
            mp = cp.full(n, -1, dtype=cp.int32)
            mp[cp.asarray(d.dirty)] = cp.arange(d.dirty.shape[0], dtype=cp.int32)
        if n:
            f("cch_patch_rows")(((n * 32 + BLOCK - 1) // BLOCK,), (BLOCK,),
                                (np.int64(n), dev["ptr"], dev["src"], dev["w"], ptr, mp,
                                 cp.asarray(seg_ptr), cp.asarray(new.down_src[pos]),
                                 cp.asarray(seg_w), src, w,
                                 nw32 if nw32 is not None else src,
                                 np.int32(nw32 is not None)))
        ndev = {**dev, "ptr": ptr, "src": src, "w": w, "w32": nw32}
    ndev["host"] = host_refs(new)
    nbox["dev"] = ndev
    new._device = ndev
