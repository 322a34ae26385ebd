"""The route index's upward searches on the GPU (``upward.cu``): a block per source walks
its elimination-tree path (``etree``) and writes its costs straight into the GPHAST block,
instead of the host's Dijkstra searches, their upload and the scatter.

On the Kanto-sized index (1.43M vertices, tree depth <= 2,318, ~240k upward arcs on a
path) the host's 16 threads took 172-183 ms for 1,000 sources (docs/perf). The walk needs
the path's costs in one block's shared memory: a tree deeper than the device allows keeps
the host searches (``walker`` returns None). Imported only when CuPy is usable.
"""

from __future__ import annotations

import weakref
from pathlib import Path

import cupy as cp
import numpy as np

from ..device import get_module, memory
from .etree import elimination_tree

_SRC = Path(__file__).resolve().with_name("upward.cu")
THREADS = 128  # lanes per source: the top separators' vertices have hundreds of arcs
DEFAULT_SHARED = 48 * 1024  # bytes a block gets without opting in
ENABLED = True  # False: the host's searches (tests compare the two)
BIG32 = 1 << 30
_OPTED: dict[tuple, int] = {}  # (device, narrow) -> the kernel's shared-memory limit set
# sources from which a job after a closure uploads the walk's device lists for the new
# Hierarchy (NE: ~10 ms; the host's 16 threads search ~500 sources in that time)
BUILD_MIN_SOURCES = 512


class Walker:
    """The device arrays of one Hierarchy's upward graph for the walk: CSR pointers, each
    arc's head depth and weight (32-bit when every weight allows), parents, depths."""

    def __init__(self, h, parent: np.ndarray, depth: np.ndarray):
        self.id = memory.current_device_id()
        self.host = tuple(weakref.ref(a) for a in (h.up_ptr, h.up_dst, h.up_w))
        self.mod = get_module(_SRC)
        self.ptr = cp.asarray(h.up_ptr)
        self.depth = cp.asarray(depth)
        self.parent = cp.asarray(parent)
        self.dep = cp.asarray(depth[h.up_dst])  # on the host: no CuPy gather to compile
        self._w = h.up_w
        fits = h.up_w.size == 0 or int(h.up_w.max()) < BIG32
        self.w32 = cp.asarray(h.up_w.astype(np.int32)) if fits else None
        self.w64 = None  # uploaded when a sweep first needs 64 bits
        self.slots = int(depth.max(initial=0)) + 1  # path positions

    def valid(self, h) -> bool:
        return self.id == memory.current_device_id() and all(
            r() is a for r, a in zip(self.host, (h.up_ptr, h.up_dst, h.up_w), strict=True))

    def run(self, d, narrow: bool, seeds, K: int, big, loc=None) -> None:
        """Columns 0..len(seeds)-1 of ``d`` (filled with INF) get the upward costs from
        ``seeds`` (device int32 sweep ids); ``narrow``: d is the 32-bit block, whose
        overflow raises ``big``; ``loc``: the restricted sweep's local ids."""
        S = int(seeds.shape[0])
        if S == 0:
            return
        size = 4 if narrow else 8
        f = self.mod.get_function("upward_walk32" if narrow else "upward_walk")
        smem = self.slots * size
        key = (self.id, narrow)
        if smem > _OPTED.get(key, DEFAULT_SHARED):  # the attribute only ever grows
            f.max_dynamic_shared_size_bytes = smem
            _OPTED[key] = smem
        if not narrow and self.w64 is None:
            self.w64 = cp.asarray(self._w)
        w = self.w32 if narrow else self.w64
        f((S,), (THREADS,), (self.ptr, self.dep, w, self.parent, self.depth,
                             0 if loc is None else loc, seeds, np.int32(S), d, np.int32(K),
                             big), shared_mem=smem)


def _shared_limit() -> int:
    dev = cp.cuda.Device()
    return int(dev.attributes.get("MaxSharedMemoryPerBlockOptin", DEFAULT_SHARED))


def walker(h, build: bool = True) -> Walker | None:
    """The walk for ``h`` on the current device (kept with ``h``, shared by its copies),
    or None: disabled, a tree too deep for one block's shared memory, or none made yet and
    ``build`` false (a small job after a closure: the host's searches cost less than the
    upload of the new upward lists)."""
    if not ENABLED:
        return None
    w = getattr(h, "_walk", None)
    box = getattr(h, "_device_box", None)
    if (w is None or not w.valid(h)) and box is not None:
        w = box.get("walk")
    if w is None or not w.valid(h):
        if not build:
            return None
        parent, depth = elimination_tree(h)
        if (int(depth.max(initial=0)) + 1) * 8 > _shared_limit():
            return None
        w = Walker(h, parent, depth)
        if box is not None:
            box["walk"] = w
    h._walk = w
    return w
