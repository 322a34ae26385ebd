"""Public face of the mutable graph: :class:`MutableGraph`, :class:`EditBatch`, the
summary of an applied batch, and the messages of invalid edits.

Arc ids are stable: the arcs of the starting graph keep their CSR index as id, an
inserted arc gets the next id (``next_arc_id``) and keeps it, and a deleted id is never
handed out again. Vertex ids work the same way (added vertices get ``num_nodes``, ...).
An arc is live, disabled (closed: skipped by every search, can be enabled again) or
deleted (gone for good). A batch is applied atomically: an invalid edit raises
InvalidArgumentError naming it and leaves the graph as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backend import BACKENDS, resolve_backend
from ..errors import InvalidArgumentError
from ..graph import CSRGraph, GraphLike
from .cpu import HostArcs, forced
from .layout import (
    ARC_LIVE,
    OP_ADD_VERTEX,
    OP_INSERT,
    OP_NAMES,
    OPS,
    STATE_NAMES,
    describe_error,
)
from .mirror import Replay


def _ints(values, what: str = "ids") -> np.ndarray:
    a = np.atleast_1d(np.asarray(values))
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise InvalidArgumentError(f"{what} must be integers, got {a.ravel()[0]!r}")
    return a.astype(np.int64).ravel()


class EditBatch:
    """An ordered list of edits; made by :meth:`MutableGraph.batch`, which knows the ids
    that inserted arcs and added vertices will get (so later edits of the same batch can
    address them). Methods return the new ids where there are any; the others return the
    batch, so calls chain."""

    def __init__(self, next_arc_id: int, next_node_id: int, lookup=None):
        self.first_arc_id = self.next_arc_id = int(next_arc_id)
        self.first_node_id = self.next_node_id = int(next_node_id)
        self._lookup = lookup  # arc id -> (tail, head) of arcs before this batch
        self._chunks: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
        self._pending: dict[int, tuple[int, int]] = {}  # split needs inserted arcs' ends

    def _add(self, op: int, a, b=0, c=0) -> None:
        a, b, c = _ints(a), _ints(b, "vertices"), _ints(c, "weights")
        try:
            b = np.broadcast_to(b, a.shape).astype(np.int64)
            c = np.broadcast_to(c, a.shape).astype(np.int64)
        except ValueError as exc:
            raise InvalidArgumentError(
                f"{OP_NAMES[op]}: {a.size} items but a value list of another length") from exc
        self._chunks.append((op, a, b, c))

    def disable(self, arcs) -> EditBatch:
        """Close arcs (kept, skipped by searches until enabled)."""
        self._add(OPS["disable"], arcs)
        return self

    def enable(self, arcs) -> EditBatch:
        """Reopen disabled arcs (live arcs stay live)."""
        self._add(OPS["enable"], arcs)
        return self

    def set_weight(self, arcs, weights) -> EditBatch:
        """New weights (int32 >= 0), one per arc or one for all."""
        self._add(OPS["set_weight"], arcs, 0, weights)
        return self

    def delete(self, arcs) -> EditBatch:
        """Delete arcs for good: their ids are never reused."""
        self._add(OPS["delete"], arcs)
        return self

    def insert(self, tails, heads, weights) -> np.ndarray:
        """New arcs tail -> head; returns their ids (int64, in order)."""
        t, h = _ints(tails, "tails"), _ints(heads, "heads")
        if t.shape != h.shape:
            raise InvalidArgumentError(f"{t.size} tails but {h.size} heads")
        self._add(OPS["insert"], t, h, weights)
        ids = np.arange(self.next_arc_id, self.next_arc_id + t.size, dtype=np.int64)
        self.next_arc_id += t.size
        if t.size <= 16:  # small inserts may be split later in the batch
            self._pending.update(zip(ids.tolist(), zip(t.tolist(), h.tolist(), strict=True),
                                     strict=True))
        return ids

    def add_vertices(self, count: int = 1) -> np.ndarray:
        """New vertices without arcs; returns their ids."""
        count = int(count)
        if count < 0:
            raise InvalidArgumentError(f"vertex count {count} is negative")
        self._add(OPS["add_vertex"], np.zeros(count, np.int64))
        ids = np.arange(self.next_node_id, self.next_node_id + count, dtype=np.int64)
        self.next_node_id += count
        return ids

    def split(self, arc: int, first_weight: int, second_weight: int) -> tuple[int, int, int]:
        """Split ``arc`` (tail -> head) at a point: a new vertex x, arcs tail -> x and
        x -> head with the given weights, the original disabled. Returns (x, arc to x,
        arc from x)."""
        arc = int(arc)
        ends = self._pending.get(arc)
        if ends is None:
            if self._lookup is None:
                raise InvalidArgumentError("split needs a batch made by MutableGraph.batch()")
            ends = self._lookup(arc)
        t, h = ends
        (x,) = self.add_vertices(1)
        a1, a2 = self.insert([t, int(x)], [int(x), h], [first_weight, second_weight])
        self.disable(arc)
        return int(x), int(a1), int(a2)

    def __len__(self) -> int:
        return sum(int(ch[1].size) for ch in self._chunks)

    def counts(self) -> tuple[int, int, int]:
        """(edits, inserts, added vertices)."""
        k = ji = jv = 0
        for op, x, _, _ in self._chunks:
            k += x.size
            ji += x.size if op == OP_INSERT else 0
            jv += x.size if op == OP_ADD_VERTEX else 0
        return k, ji, jv

    def write(self, ops: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
        """Fill preallocated arrays (``counts()[0]`` items) with :meth:`arrays`' content
        (the device backend writes its pinned staging buffer so, without a copy)."""
        if not self._chunks:
            return
        for k, out in ((1, a), (2, b), (3, c)):
            np.concatenate([ch[k] for ch in self._chunks], out=out)
        ops[:] = np.repeat(np.array([ch[0] for ch in self._chunks], np.uint8),
                           [ch[1].size for ch in self._chunks])

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(op uint8, a, b, c int64): arc id (or tail), head, weight of every edit in order."""
        k = len(self)
        ops, a, b, c = np.empty(k, np.uint8), *(np.empty(k, np.int64) for _ in range(3))
        self.write(ops, a, b, c)
        return ops, a, b, c


_LAZY = ("arcs", "old_state", "new_state", "old_weight", "new_weight")


@dataclass
class EditSummary:
    """What an applied batch changed: for issue 15's incremental repair and undo.

    On the cupy backend the five arrays of touched arcs come from the host mirror, which
    takes the batch in the background (``mirror``): reading one waits for it."""

    arcs: np.ndarray  # int64 ids of pre-existing arcs the batch touched (first-edit order)
    old_state: np.ndarray  # uint8 ARC_* before the batch
    new_state: np.ndarray
    old_weight: np.ndarray  # int32
    new_weight: np.ndarray
    inserted: np.ndarray  # int64 ids of the inserted arcs
    added_vertices: np.ndarray  # int64 ids of the new vertices
    elapsed_s: float = 0.0

    @classmethod
    def pending(cls, inserted: np.ndarray, added_vertices: np.ndarray) -> EditSummary:
        """A summary whose touched-arc arrays are set later by :meth:`fill`; reading one
        before calls ``self._wait`` (set by the caller)."""
        s = cls.__new__(cls)
        s.inserted, s.added_vertices, s.elapsed_s = inserted, added_vertices, 0.0
        s.__dict__["_wait"] = None  # not a field: __getattr__ and __getstate__ read it there
        return s

    def fill(self, h: HostArcs, log: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Set the touched arcs from the host loop's log, right after the batch."""
        arcs, st, w = log  # each pre-existing arc once, with its values before the batch
        self.arcs, self.old_state, self.old_weight = arcs, st, w
        self.new_state, self.new_weight = h.state[arcs], h.weight[arcs]

    def __getattr__(self, name: str):
        wait = self.__dict__.get("_wait")
        if name not in _LAZY or wait is None:
            raise AttributeError(name)
        wait()
        return self.__dict__[name]

    def __getstate__(self) -> dict:
        for name in _LAZY:
            getattr(self, name)
        return {k: v for k, v in self.__dict__.items() if k != "_wait"}

    @property
    def changed(self) -> int:
        """Arcs whose state or weight differs now, plus the inserted ones."""
        diff = (self.old_state != self.new_state) | (self.old_weight != self.new_weight)
        return int(diff.sum()) + int(self.inserted.size)


class MutableGraph:
    """A graph taking batches of edits by stable ids, on the CPU or the GPU.

    ``backend``: ``cpu`` keeps the arcs in host arrays; ``cupy`` keeps a device copy that
    each batch validates and applies in place (one upload, three launches, one wait: no
    host-side rebuild), while a worker thread applies it to the host mirror (``mirror``;
    reading ``host`` or the summary's arrays waits for that). Errors are typed and atomic
    on both: an invalid edit leaves the graph as it was, and the message (that of the CPU
    backend, from the host loop) names the first one. ``compact()`` gives a CSRGraph for
    every existing capability (``sssp``, ``multi_source``, betweenness); the graph itself
    is GraphLike too (``indptr``/``indices``/``weights`` of that compaction), so
    ``sssp(mg, source)`` works as is.
    """

    def __init__(self, graph: GraphLike, *, backend: str = "auto",
                 reserve_arcs: int | None = None, reserve_nodes: int | None = None):
        if backend not in BACKENDS:
            raise InvalidArgumentError(
                f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
        g = CSRGraph.from_any(graph)
        self.backend = resolve_backend(backend)
        m = g.num_arcs
        self._host = HostArcs(g, reserve_arcs if reserve_arcs is not None else max(1024, m // 8),
                             reserve_nodes if reserve_nodes is not None
                             else max(256, g.num_nodes // 64))
        self.device = None
        if self.backend == "cupy":
            from .cuda import DeviceArcs

            self.device = DeviceArcs(self._host)
        self._replay: Replay | None = None  # the batch the host mirror is still taking
        self._csr: tuple[CSRGraph, np.ndarray] | None = None
        self._csr_version = -1  # the version self._csr was compacted at
        self.version = 0  # batches applied

    # ---- sizes and lookups -------------------------------------------------------------
    @property
    def host(self) -> HostArcs:
        """The host arrays (CPU backend: the graph; cupy: its mirror, once up to date)."""
        if self._replay is not None:
            replay, self._replay = self._replay, None
            replay.wait()
        return self._host

    @property
    def num_nodes(self) -> int:
        return self.host.n

    @property
    def next_arc_id(self) -> int:
        """Ids handed out so far (live, disabled and deleted arcs)."""
        return self.host.total

    @property
    def num_live_arcs(self) -> int:
        return int((self.host.state[: self.host.total] == ARC_LIVE).sum())

    def _check_arc(self, arc: int) -> int:
        arc = int(arc)
        if not 0 <= arc < self.host.total:
            raise InvalidArgumentError(
                f"arc id {arc} does not exist (ids 0..{self.host.total - 1})")
        return arc

    def arc(self, arc: int) -> tuple[int, int, int, str]:
        """(tail, head, weight, state name) of an arc id."""
        e = self._check_arc(arc)
        h = self.host
        return (int(h.tail[e]), int(h.head[e]), int(h.weight[e]),
                STATE_NAMES[int(h.state[e])])

    def arcs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(tail, head, weight, state) by arc id, copies of the host mirror."""
        h = self.host
        k = h.total
        return h.tail[:k].copy(), h.head[:k].copy(), h.weight[:k].copy(), h.state[:k].copy()

    def out_arcs(self, v: int) -> np.ndarray:
        """Ids of the live out-arcs of ``v`` (base row, then inserted arcs newest first)."""
        v = int(v)
        if not 0 <= v < self.host.n:
            raise InvalidArgumentError(f"vertex {v} is outside 0..{self.host.n - 1}")
        return self.host.out_arcs(v)

    # ---- edits -------------------------------------------------------------------------
    def batch(self) -> EditBatch:
        """An empty batch whose inserted arcs / added vertices get this graph's next ids."""
        h = self.host
        return EditBatch(h.total, h.n, lookup=lambda e: self.arc(e)[:2])

    def apply(self, batch: EditBatch) -> EditSummary:
        """Apply a batch atomically (InvalidArgumentError naming the first bad edit)."""
        import time

        h = self.host
        if not isinstance(batch, EditBatch):
            raise InvalidArgumentError(f"apply takes an EditBatch, not {type(batch).__name__}")
        if (batch.first_arc_id, batch.first_node_id) != (h.total, h.n):
            raise InvalidArgumentError(
                f"batch made for arc id {batch.first_arc_id} / vertex {batch.first_node_id}, "
                f"but the graph is at {h.total} / {h.n}: apply batches in the order made")
        t0 = time.perf_counter()
        summary = self._apply_device(batch) if self.device is not None else \
            self._apply_host(batch)
        # the stale compaction is dropped by the next compact(), not here: freeing ~100 MB
        # of arrays costs milliseconds, more than the batch itself
        self.version += 1
        summary.elapsed_s = time.perf_counter() - t0
        return summary

    def _apply_host(self, batch: EditBatch) -> EditSummary:
        h = self.host
        ops, a, b, c = batch.arrays()
        total0, n0 = h.total, h.n
        code, i, log, total, n = h.apply(ops, a, b, c)
        if code:
            raise InvalidArgumentError(describe_error(code, i, ops, a, b, c, total, n))
        summary = EditSummary.pending(np.arange(total0, h.total, dtype=np.int64),
                                      np.arange(n0, h.n, dtype=np.int64))
        summary.fill(h, log)
        return summary

    def _apply_device(self, batch: EditBatch) -> EditSummary:
        """Pack the batch into the pinned staging buffer, validate and apply it on the
        device, then start the host mirror's replay of it."""
        from .cuda import batch_words

        h, dev = self.host, self.device  # self.host: the previous replay has finished
        assert dev is not None  # called on the cupy backend only
        k, ji, jv = batch.counts()
        total0, n0 = h.total, h.n
        summary = EditSummary.pending(np.arange(total0, total0 + ji, dtype=np.int64),
                                      np.arange(n0, n0 + jv, dtype=np.int64))
        if ji == 0 and k == jv:  # new vertices only (or nothing): no arc to check
            h.apply(*batch.arrays())
            summary.fill(h, (np.zeros(0, np.int64), np.zeros(0, np.uint8),
                             np.zeros(0, np.int32)))
            dev.grow(h.arc_capacity, h.node_capacity)
            dev.add_vertices(jv)
            return summary
        h.reserve(total0 + ji, n0 + jv)
        dev.grow(h.arc_capacity, h.node_capacity)
        words, _ = dev.staging(batch_words(k, ji, jv))
        a, b, c = words[:k], words[k:2 * k], words[2 * k:3 * k]
        ops = words[3 * k + ji + jv:].view(np.uint8)[:k]
        batch.write(ops, a, b, c)
        # the edit index of each insert / added vertex (new ids in order)
        words[3 * k:3 * k + ji] = np.flatnonzero(ops == OP_INSERT)
        words[3 * k + ji:3 * k + ji + jv] = np.flatnonzero(ops == OP_ADD_VERTEX)
        bad = dev.apply_packed(k, ji, jv)
        if bad >= 0:  # rare: the host loop finds the same edit, undoes itself, names it
            code, i, _, total, n = h.apply(ops, a, b, c)
            if not code or i != bad:
                raise RuntimeError(f"the device found edit {bad} invalid, the host loop "
                                   f"{'none' if not code else f'edit {i}'}")
            raise InvalidArgumentError(describe_error(code, i, ops, a, b, c, total, n))
        # started only now: a host loop running beside the launches would compete with
        # them for the GIL, and apply does not wait for it anyway
        replay = Replay(h, ops, a, b, c, lambda log: summary.fill(h, log))
        self._replay = replay
        summary.__dict__["_wait"] = replay.wait
        return summary

    # ---- back to CSR -------------------------------------------------------------------
    def _compaction(self):
        if self._csr is None or self._csr_version != self.version:
            self._csr = None  # free the stale one first
            if self.device is not None:
                from ..device.csr import DeviceCSRGraph

                indptr, indices, weights, ids = self.device.compact_device()
                # sorted_csr orders each row by weight: the seed-004 layout as is
                self._csr = (DeviceCSRGraph(indptr, indices, weights, rows_weight_sorted=True),
                             ids)
            else:
                self._csr = self.host.compact()
            self._csr_version = self.version
        return self._csr

    def compact(self) -> tuple[CSRGraph, np.ndarray]:
        """(CSRGraph of the live arcs, rows sorted like ``CSRGraph.from_edges``: tail,
        weight, head, then arc id; int64 arc id of each CSR arc). Cached until the next
        batch. On the cupy backend it is computed and kept on the device: the graph is a
        ``DeviceCSRGraph`` (GPU capabilities use its device arrays, host arrays are
        fetched only when read); the arc ids come to the host here (``graph()`` does
        not fetch them)."""
        g, ids = self._compaction()
        if not isinstance(ids, np.ndarray):
            ids = ids.get()
            self._csr = (g, ids)
        return g, ids

    def graph(self) -> CSRGraph:
        """The compacted CSRGraph alone (what ``sssp`` & co. take): on the cupy backend
        it stays on the device."""
        return self._compaction()[0]

    def cached_graph(self) -> CSRGraph | None:
        """``graph()`` when this version's compaction is already made (no work), else None
        (the app's GUI thread asks, and leaves the compaction to a worker)."""
        if self._csr is not None and self._csr_version == self.version:
            return self._csr[0]
        return None

    def as_csr_graph(self) -> CSRGraph:
        """``CSRGraph.from_any(mg)``: the compaction itself, so no copy is made."""
        return self.graph()

    # GraphLike: every capability takes the MutableGraph itself (its current compaction;
    # the arrays stay the same objects until the next batch, so device copies are reused)
    @property
    def indptr(self) -> np.ndarray:
        return self.graph().indptr

    @property
    def indices(self) -> np.ndarray:
        return self.graph().indices

    @property
    def weights(self) -> np.ndarray:
        return self.graph().weights


def compile_kernels() -> None:
    """Compile (or load from numba's cache) apply, link and compact with a closure, a new
    arc and a compaction on a 3-vertex graph: a warm-up's (while they are not compiled,
    small batches and compactions run their Python / numpy twins, and nothing else
    would compile them)."""
    with forced():
        mg = MutableGraph(CSRGraph.from_edges(3, [0, 1], [1, 2], [1, 1]), backend="cpu")
        batch = mg.batch().disable([0])
        batch.insert([2], [0], [1])
        mg.apply(batch)
        mg.compact()
