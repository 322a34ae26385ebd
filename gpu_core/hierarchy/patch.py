"""The unpruned Hierarchy a partial re-customization patches (``partial``): only the sweep
lists of the lower ends of changed edges are rewritten, runs of unchanged vertices copied
as blocks, and ``rank_of``/``level_ptr`` (and the arcs too when no arc appears or
vanishes) shared with the previous Hierarchy, whose arrays are never written.

Where the copies go: fresh arrays cost more than the copy itself. On NE (5.75M arcs per
direction) writing the new lists into new memory took 60-90 ms per direction on the
2-core machine, into memory written before 3-4 ms: the page faults of ~70 MB. So the
lists go into buffers of the topology's size (``Spares``), recycled once no Hierarchy,
view or caller holds them any more, and made (and touched) ahead by ``Spares.ready``
(``partial.prepare``), while no closure waits.
"""

from __future__ import annotations

import mmap
import sys
from contextlib import contextmanager
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from .contract import INF
from .model import of_topology
from .plan import run_of

# Clean runs of the sweep lists are copied in pieces of this many arcs, side by side (the
# dirty vertices of a closure sit near the top: one run after them holds most arcs).
COPY_PIECE = 1 << 16
# Threads of the copy passes: memory-bound, they gain nothing past a few, and on the H100
# host's 16 cores the copies of a closure's patch took 30-44 ms on 16 threads, 9-11 ms on 4
# (NE, the same draws; docs/perf/route_index_h100.md).
COPY_THREADS = 4
# Buffers kept per kind (dtype, size): both directions of the Hierarchy in use, of the one
# before it (a caller may still hold it) and of the next one.
SPARES_PER_KIND = 6


@njit(cache=True, parallel=True, nogil=True)
def _touch(a):
    """Write every page of ``a`` (its first use then costs no page faults)."""
    step = 512
    for i in prange((a.shape[0] + step - 1) // step):
        a[i * step] = 0


def small_pages(dtype, size: int) -> np.ndarray:
    """``np.empty(size, dtype)`` in memory the kernel backs with small pages: numpy asks
    for huge pages on large arrays (madvise), and on the 2-core (virtual) machine, whose
    transparent huge pages follow that advice, the first writes of a closure's patch in a
    new process cost 0.26-0.39 s for NE's 140 MB against 0.05-0.06 s in small pages
    (``NUMPY_MADVISE_HUGEPAGE=0`` gave the same). An anonymous private map (never advised
    for huge pages), else numpy's."""
    nbytes = max(int(size) * np.dtype(dtype).itemsize, 1)
    try:
        kw = {"flags": mmap.MAP_PRIVATE} if hasattr(mmap, "MAP_PRIVATE") else {}
        buf = mmap.mmap(-1, nbytes, **kw)
    except (OSError, ValueError, OverflowError):
        return np.empty(int(size), dtype)
    return np.frombuffer(buf, dtype, count=int(size))


class Spares:
    """Buffers for patched Hierarchy arrays, per (dtype, size): a buffer is handed out
    again only when nothing but this pool refers to it (``sys.getrefcount``: a Hierarchy
    or a view of it holding the buffer counts), else a new one is made (up to
    ``SPARES_PER_KIND`` kept; beyond that plain arrays)."""

    def __init__(self) -> None:
        self.bufs: dict[tuple, list[np.ndarray]] = {}

    def _free(self, lst: list) -> np.ndarray | None:
        for i in range(len(lst)):
            # the list's slot and getrefcount's argument: nothing else holds it
            if sys.getrefcount(lst[i]) <= 2:
                return lst[i]
        return None

    def take(self, dtype, cap: int, size: int) -> np.ndarray:
        """A writable int array of ``size`` (a view of a buffer of ``cap`` elements)."""
        lst = self.bufs.setdefault((np.dtype(dtype).str, int(cap)), [])
        b = self._free(lst)
        if b is None:
            b = small_pages(dtype, max(int(cap), int(size)))
            if len(lst) < SPARES_PER_KIND and b.shape[0] == cap:
                lst.append(b)
        return b[:size]

    def ready(self, n: int, edges: int, sets: int = 2) -> None:
        """Make (and touch) buffers for ``sets`` patched Hierarchies beyond those in use."""
        for dtype, cap, per in ((np.int64, n + 1, 2), (np.int32, edges, 2),
                                (np.int64, edges, 2)):
            self.stock(dtype, cap, per * sets)

    def stock(self, dtype, cap: int, count: int) -> None:
        """At least ``count`` free buffers of (``dtype``, ``cap``), made and touched now
        (within ``SPARES_PER_KIND``)."""
        lst = self.bufs.setdefault((np.dtype(dtype).str, int(cap)), [])
        free = sum(1 for i in range(len(lst)) if sys.getrefcount(lst[i]) <= 2)
        for _ in range(max(0, min(count - free, SPARES_PER_KIND - len(lst)))):
            b = small_pages(dtype, cap)
            _touch(b)
            lst.append(b)

    @staticmethod
    def capacity(size: int) -> int:
        """The buffer size ``copy_of`` takes for ``size`` elements: the next power of two
        (arrays whose sizes change by a few, as edited graphs' do, share buffers)."""
        return 1 << max(int(size) - 1, 0).bit_length()

    def copy_of(self, a: np.ndarray) -> np.ndarray:
        """A copy of the 1-d array ``a`` in a recycled buffer (``capacity``), copied on
        ``COPY_THREADS``."""
        out = self.take(a.dtype, self.capacity(a.shape[0]), a.shape[0])
        with copy_threads():
            _copy(a, out)
        return out


@contextmanager
def copy_threads():
    """numba's threads capped at ``COPY_THREADS`` in this thread while inside."""
    was = numba.get_num_threads()
    numba.set_num_threads(max(1, min(was, COPY_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(was)


def spares_of(t) -> Spares:
    sp = getattr(t, "_spares", None)
    if sp is None:
        sp = t._spares = Spares()
    return sp


@njit(cache=True, parallel=True, nogil=True)
def _copy(src, dst):
    for i in prange(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, parallel=True, nogil=True)
def _shift(ptr, dirty, delta, out):
    """out = ptr + the running sum of ``delta`` (one value per ``dirty`` sweep id, sorted:
    it shifts every pointer after that vertex), in pieces side by side."""
    nd = dirty.shape[0]
    cum = np.zeros(nd + 1, np.int64)
    for j in range(nd):
        cum[j + 1] = cum[j] + delta[j]
    N = ptr.shape[0]
    for q in prange((N + COPY_PIECE - 1) // COPY_PIECE):
        i0 = q * COPY_PIECE
        k = np.searchsorted(dirty, i0)  # dirty ids below i0 shift it already
        for i in range(i0, min(N, i0 + COPY_PIECE)):
            while k < nd and dirty[k] < i:
                k += 1
            out[i] = ptr[i] + cum[k]


@njit(cache=True, parallel=True, nogil=True)
def _rewrite(dirty_s, by_sweep, up_ptr, up_nb, up, down, sweep, optr, odst, ow, nptr, ndst,
             nw, upward, structural):
    """New sweep lists (one direction): every vertex's segment copied from the old lists
    except the ``dirty_s`` ones (sweep ids, ascending), which are written from the
    topology. Not ``structural`` (the same arcs): only the weights ``nw`` (a copy of the
    old ones) are rewritten."""
    w_of = up if upward else down
    nd = dirty_s.shape[0]
    for i in prange(nd):
        x = by_sweep[dirty_s[i]]
        j = nptr[dirty_s[i]]
        for e in range(up_ptr[x], up_ptr[x + 1]):
            if w_of[e] < INF:
                if structural:
                    ndst[j] = sweep[up_nb[e]]
                nw[j] = w_of[e]
                j += 1
    if not structural:
        return
    # clean run r: sweep ids dirty_s[r - 1] + 1 .. dirty_s[r] - 1, moved as one block
    pieces = np.zeros(nd + 2, np.int64)
    for r in range(nd + 1):
        a0 = optr[dirty_s[r - 1] + 1] if r > 0 else 0
        a1 = optr[dirty_s[r]] if r < nd else optr[optr.shape[0] - 1]
        pieces[r + 1] = pieces[r] + (a1 - a0 + COPY_PIECE - 1) // COPY_PIECE
    for q in prange(pieces[nd + 1]):
        lo = run_of(pieces, 0, nd + 1, q)
        prev = dirty_s[lo - 1] + 1 if lo > 0 else 0
        a0 = optr[prev] + (q - pieces[lo]) * COPY_PIECE
        a1 = min(a0 + COPY_PIECE, optr[dirty_s[lo]] if lo < nd else optr[optr.shape[0] - 1])
        b0 = nptr[prev] + a0 - optr[prev]
        ndst[b0:b0 + a1 - a0] = odst[a0:a1]
        nw[b0:b0 + a1 - a0] = ow[a0:a1]


@dataclass
class Patched:
    """What changed in one direction's sweep lists (what a device copy needs to follow):
    ``dirty`` sweep ids (ascending) whose segments were rewritten; ``structural``: arcs
    appeared or vanished (new pointers), else only weights changed in place."""

    dirty: np.ndarray
    structural: bool


def patch_hierarchy(t, h, changed: np.ndarray, old_up: np.ndarray, old_down: np.ndarray,
                    up: np.ndarray, down: np.ndarray):
    """(new Hierarchy, {"up"/"down": Patched or None}) for the customized (up, down) from
    the old one ``h``, which showed the old values of the ``changed`` edges: the arrays
    no change touches are shared (the Hierarchy's arrays are never written once built),
    the others copied into recycled buffers (``Spares``) and patched."""

    sweep, _ = t._sweep
    by_sweep = getattr(t, "_by_sweep", None)
    if by_sweep is None:
        by_sweep = t._by_sweep = np.argsort(sweep).astype(np.int32)
    tails = t.tails()
    sp = spares_of(t)
    parts: list = []
    info: dict[str, Patched | None] = {}
    for name, new, old, ptr, nb, w in (("up", up, old_up, h.up_ptr, h.up_dst, h.up_w),
                                       ("down", down, old_down, h.down_ptr, h.down_src,
                                        h.down_w)):
        moved = new[changed] != old
        info[name] = None
        if not moved.any():
            parts.append((ptr, nb, w))
            continue
        e = changed[moved]
        owner = sweep[tails[e]].astype(np.int64)
        dirty, inv = np.unique(owner, return_inverse=True)
        delta = np.zeros(dirty.shape[0], np.int64)
        np.add.at(delta, inv, (new[e] < INF).astype(np.int64) - (old[moved] < INF))
        structural = bool(((new[e] < INF) != (old[moved] < INF)).any())
        if structural:
            nptr = sp.take(np.int64, t.n + 1, t.n + 1)
            _shift(ptr, dirty, delta, nptr)
            size = int(nptr[-1])
            nnb = sp.take(np.int32, t.edges, size)
            nw = sp.take(np.int64, t.edges, size)
        else:  # the same arcs: only weights change
            nptr, nnb = ptr, nb
            nw = sp.take(np.int64, t.edges, w.shape[0])
            with copy_threads():
                _copy(w, nw)
        with copy_threads():
            _rewrite(dirty, by_sweep, t.up_ptr, t.up_nb, up, down, sweep, ptr, nb, w, nptr,
                     nnb, nw, name == "up", structural)
        parts.append((nptr, nnb, nw))
        info[name] = Patched(dirty, structural)
    (uptr, udst, uw), (dptr, dsrc, dw) = parts
    return of_topology(t, h.rank_of, uptr, udst, uw, dptr, dsrc, dw, h.level_ptr), info


def unpruned(t, up: np.ndarray, down: np.ndarray):
    """The unpruned Hierarchy of the customized (up, down): what partial updates patch."""
    from .metric import hierarchy_arrays

    return of_topology(t, *hierarchy_arrays(t, up, down))
