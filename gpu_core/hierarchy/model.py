"""What the route index's modules share: the :class:`Hierarchy` every consumer reads, its
checksummed files, the graph fingerprint, the density bound and the polled build thread
(``api`` and ``cch`` both import this module, never each other's internals)."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields

import numpy as np

from ..errors import CancelledError, GpuCoreError, InvalidArgumentError
from ..graph import CSRGraph, GraphLike, prepared

# bump when the saved layout changes (2: cch fields, checksum; 3: full customizations are
# pruned, perfect.py: an older cached index is rebuilt rather than served with more arcs;
# 4: the elimination tree saved with it, checksums by pieces: ``content_hash``)
FORMAT = 4
ProgressCallback = Callable[[float, str], None]


class _Key:
    """``Hierarchy.graph_key``: a string, or a callable that makes it when first read (a
    re-customization after closures hashes no graph unless someone asks: NE's 36 MB of
    arrays took 40-80 ms, more than the update itself)."""

    def __get__(self, obj, owner=None) -> str:
        if obj is None:
            return ""  # the dataclass's default
        v = obj.__dict__.get("_graph_key", "")
        if callable(v):
            v = obj.__dict__["_graph_key"] = v()
        return v

    def __set__(self, obj, value) -> None:
        obj.__dict__["_graph_key"] = value


@dataclass
class Hierarchy:
    n: int
    rank_of: np.ndarray  # int32 [n]: graph vertex -> sweep id
    up_ptr: np.ndarray  # int64 [n+1], upward arcs by sweep id (to higher-ranked vertices)
    up_dst: np.ndarray  # int32
    up_w: np.ndarray  # int64
    down_ptr: np.ndarray  # int64 [n+1], downward in-arcs by sweep id (from smaller ids)
    down_src: np.ndarray  # int32
    down_w: np.ndarray  # int64
    level_ptr: np.ndarray  # int64 [levels+1]: level l is sweep ids level_ptr[l]..[l+1)
    # fingerprint of the graph it was built from (``_Key``: a string, or made when read)
    graph_key: str = _Key()  # type: ignore[assignment]
    shortcuts: int = 0
    build_s: float = 0.0
    method: str = "ch"  # "ch" (witness searches) or "cch" (customizable, cch.py)
    cch_edges: int = 0  # edges of the CCH topology (each up to two arcs here)
    order_s: float = 0.0  # cch: nested dissection
    topology_s: float = 0.0  # cch: chordal supergraph
    customize_s: float = 0.0  # cch: the metric (the whole build_s after a closure)
    # the upward graph's elimination tree (``etree``; sweep ids), written with the file
    # (empty until saved or read): an index read back, as a Dask worker's is, has no
    # topology, and Liu's algorithm over the 24M-node map's 317M arcs cost its warm-up
    # seconds
    tree_parent: np.ndarray = field(default_factory=lambda: np.empty(0, np.int32))
    tree_depth: np.ndarray = field(default_factory=lambda: np.empty(0, np.int32))

    @property
    def levels(self) -> int:
        return int(self.level_ptr.shape[0] - 1)

    def __copy__(self) -> Hierarchy:
        """A shallow copy sharing everything, caches included (``copy.copy``: the kept
        index hands out copies that share one device copy, ``cuda._device``)."""
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        return out

    def __getstate__(self) -> dict:
        """What pickling ships (Dask scatters an index that has no file): the fields, the
        graph key made, and public attributes; never a process's caches (device copies,
        search state, a lazy key's closure), which start empty on the other side."""
        state = {f.name: getattr(self, f.name) for f in fields(self)}
        state.update({k: v for k, v in self.__dict__.items() if not k.startswith("_")})
        return state

    def __setstate__(self, state: dict) -> None:
        for k, v in state.items():
            setattr(self, k, v)

    def summary(self) -> dict:
        out: dict = {"nodes": self.n, "levels": self.levels, "shortcuts": self.shortcuts,
               "up_arcs": int(self.up_dst.shape[0]), "down_arcs": int(self.down_src.shape[0]),
               "build_s": round(self.build_s, 3)}
        if self.method == "cch":
            out.update(method="cch", cch_edges=self.cch_edges, order_s=round(self.order_s, 3),
                       topology_s=round(self.topology_s, 3),
                       customize_s=round(self.customize_s, 3))
        return out

    def save(self, path: str | os.PathLike) -> None:
        """Write to ``path`` (.npz, with a checksum of every array) through a temporary
        file renamed into place, with the elimination tree when it is known without a
        search (a CCH's topology's, or one already made: ``etree.known_tree``)."""
        if self.tree_parent.shape[0] != self.n:
            from .etree import known_tree

            got = known_tree(self)
            if got is not None:
                self.tree_parent, self.tree_depth = got
        save_npz(path, self, FORMAT)

    @classmethod
    def load(cls, path: str | os.PathLike, graph: GraphLike | None = None, *,
             key: str | None = None) -> Hierarchy:
        """Read a saved hierarchy; with ``graph`` (or its :func:`graph_key` ``key``, when the
        caller has it already), refuse one built from another graph. A damaged file
        (truncated, flipped bytes: its checksum differs) raises ValueError."""
        h = load_npz(cls, path, FORMAT)
        h.n, h.graph_key = int(h.n), str(h.graph_key)
        _check_hierarchy(h, path)
        if key is None and graph is not None:
            key = graph_key(CSRGraph.from_any(graph))
        if key is not None and h.graph_key != key:
            raise InvalidArgumentError(f"{path}: hierarchy was built from another graph")
        return h


def of_topology(t, rank_of, up_ptr, up_dst, up_w, down_ptr, down_src, down_w,
                level_ptr) -> Hierarchy:
    """The Hierarchy of a CCH topology ``t``'s customization from its arrays (rank_of,
    up and down lists, level_ptr). It remembers ``t`` (weakly): every Hierarchy of ``t``
    climbs ``t``'s elimination tree (``etree``), whatever arcs its metric keeps."""
    import weakref

    h = Hierarchy(t.n, rank_of, up_ptr, up_dst, up_w, down_ptr, down_src, down_w, level_ptr)
    h.method, h.shortcuts, h.cch_edges = "cch", t.fill, t.edges
    # not fields (never saved): the device copy shared by its copies (``cuda._device``),
    # and its topology
    h.__dict__["_device_box"] = {}
    h.__dict__["_topology"] = weakref.ref(t)
    return h


def _check_hierarchy(h: Hierarchy, path) -> None:
    n = h.n
    ok = (h.rank_of.shape == (n,) and h.up_ptr.shape == (n + 1,) and h.down_ptr.shape == (n + 1,)
          and int(h.up_ptr[-1]) == h.up_dst.shape[0] == h.up_w.shape[0]
          and int(h.down_ptr[-1]) == h.down_src.shape[0] == h.down_w.shape[0]
          and h.level_ptr.shape[0] >= 1 and int(h.level_ptr[-1]) == n
          and h.tree_parent.shape in ((0,), (n,)) and h.tree_depth.shape == h.tree_parent.shape)
    if not ok:
        raise ValueError(f"{path}: inconsistent hierarchy arrays")


def graph_key(g: CSRGraph) -> str:
    """A fingerprint of the CSR arrays (a saved hierarchy is only valid for its graph),
    hashed once per plain graph (kept on its prepared handle)."""
    if type(g) is CSRGraph:
        return prepared(g).derived("graph_key", lambda: _hash_arrays(g))
    return _hash_arrays(g)


def _hash_arrays(g: CSRGraph) -> str:
    h = hashlib.blake2b(digest_size=16)
    for a in (g.indptr, g.indices, g.weights):
        h.update(np.ascontiguousarray(a).view(np.uint8).data)
    return h.hexdigest()


# Road maps need about one shortcut per arc; far more means a graph with no hierarchy to
# find (random, social): the build stops instead of running for hours.
MAX_SHORTCUTS_PER_ARC = 6


class HierarchyTooDenseError(GpuCoreError):
    """The graph does not contract into a sparse hierarchy (not road-shaped)."""


def density_limit(arcs: int, n: int) -> tuple[int, int]:
    """(the most shortcuts or CCH edges a build may make, the bound per arc) as set now."""
    return MAX_SHORTCUTS_PER_ARC * max(arcs, n), MAX_SHORTCUTS_PER_ARC


def polled(work: Callable[[], None], result: dict, counter: np.ndarray,
           progress: Callable[[float], object], cancel: Callable[[], bool] | None,
           dense: str, cancelled: str) -> None:
    """Run ``work`` (a nogil numba loop storing ``result["v"]`` or ``result["e"]``) in a
    thread while this one reports ``counter[0]`` (the fraction done, as given to
    ``progress``) and sets ``counter[1] = 1`` on cancel; the loop's ``counter[1] = 2``
    means too dense (HierarchyTooDenseError starting with ``dense``)."""
    th = threading.Thread(target=work, daemon=True)
    th.start()
    while th.is_alive():
        th.join(0.25)
        progress(float(counter[0]))
        if cancel is not None and counter[1] == 0 and cancel():
            counter[1] = 1
    if "e" in result:
        raise result["e"]
    if counter[1] == 2:
        raise HierarchyTooDenseError(
            f"{dense} (it is not road-shaped); use a search variant without an index")
    if counter[1]:
        raise CancelledError(cancelled)


# ---- files: every array checksummed, so damage is found instead of trusted -------------
# Arrays are hashed in pieces of this many bytes, each piece's digest on a thread of its
# own (blake2b lets go of the GIL while it hashes), the pieces' digests then hashed in
# order: one thread hashed 1.4 GB/s, and a worker reading the 24M-node map's index (GBs)
# spent seconds on it. Small pieces also keep the app's window responsive (issue 27: one
# update over a whole array had held the GIL 40-50 ms on the 1.43M-node map's index).
HASH_PIECE = 1 << 24
HASH_THREADS = 16


def _piece_digest(piece: memoryview) -> bytes:
    return hashlib.blake2b(piece, digest_size=16).digest()


def content_hash(obj) -> str:
    """blake2b of every field of a dataclass: its name, and for an array its dtype, shape
    and the digests of its ``HASH_PIECE``-byte pieces (hashed side by side), for anything
    else its repr. The digest does not depend on the threads."""
    from concurrent.futures import ThreadPoolExecutor

    pieces: list[memoryview] = []
    parts: list = []  # per field: bytes to feed, or (first piece, end) of its pieces
    for f in fields(obj):
        v = getattr(obj, f.name)
        parts.append(f.name.encode())
        if isinstance(v, np.ndarray):
            parts.append(str(v.dtype).encode() + str(v.shape).encode())
            data = np.ascontiguousarray(v).reshape(-1).view(np.uint8)
            first = len(pieces)
            pieces.extend(data[at:at + HASH_PIECE].data
                          for at in range(0, data.size, HASH_PIECE))
            parts.append((first, len(pieces)))
        else:
            parts.append(repr(v).encode())
    ways = min(HASH_THREADS, os.cpu_count() or 1, len(pieces))
    if ways > 1:
        with ThreadPoolExecutor(ways, thread_name_prefix="signpost-hash") as ex:
            digests = list(ex.map(_piece_digest, pieces))
    else:
        digests = [_piece_digest(p) for p in pieces]
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(b"".join(digests[part[0]:part[1]]) if isinstance(part, tuple) else part)
    return h.hexdigest()


def save_npz(path, obj, fmt: int) -> None:
    """Write dataclass ``obj`` with a checksum through a temporary file renamed into place."""
    path = os.fspath(path)
    tmp = f"{path}.{os.getpid()}.tmp.npz"
    try:
        np.savez(tmp, format=np.int64(fmt), checksum=content_hash(obj),
                 **{f.name: getattr(obj, f.name) for f in fields(obj)})
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def load_npz(cls, path, fmt: int):
    """The dataclass ``cls`` saved at ``path``; ValueError for anything unreadable."""
    from osutil.regular import open_regular

    try:  # a FIFO or device in the cache folder is refused, never waited on (issue 40)
        with open_regular(path) as fh, np.load(fh, allow_pickle=False) as z:
            if int(z["format"]) != fmt:
                raise ValueError(f"{path}: format {int(z['format'])}, expected {fmt}")
            kw = {}
            for f in fields(cls):
                v = z[f.name]
                kw[f.name] = v.item() if v.ndim == 0 else v
            want = str(z["checksum"])
    except ValueError:
        raise
    except Exception as exc:  # zip CRC, truncation, missing members: all damage
        raise ValueError(f"{path}: unreadable ({type(exc).__name__}: {exc})") from None
    obj = cls(**kw)
    if content_hash(obj) != want:
        raise ValueError(f"{path}: checksum mismatch (damaged file)")
    return obj


