"""The graph as the compute core sees it: plain CSR arrays, on the host or the device.

``gpu_core`` takes any object with ``indptr`` (int32, n+1), ``indices`` (int32, m) and
``weights`` (int32 >= 0, m) -- a ``maps.RoadNetwork`` or a :class:`CSRGraph` -- and never
imports ``maps``. The device copy is made in one place, ``gpu_core.device.device_graph``,
so that map editing (disabling or adding an arc) can later change one object instead of
every capability.

One prepared handle per graph (:func:`prepared`): validated once, with one cache for what
derives from it. Every capability and job asks for a graph's handle instead of checking the
CSR arrays again (``check_csr`` is O(m)) or keeping an identity-keyed cache of its own. The
graph holds its handle, so it goes with the graph; a ``maps.RoadNetwork`` and the
:class:`CSRGraph` made of its arrays share one (the window searches the CSRGraph, jobs pass
the map); a graph whose arrays were replaced gets a new one (osmnx#1054:
validate once, not per call in hot loops). Derived data (the key space, the in-arcs, the
key-weighted route index of one-to-all searches) lives in :meth:`PreparedGraph.derived`;
per-device copies stay in ``gpu_core.device.device_graph(g).derived``.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

if TYPE_CHECKING:
    from .keys import KeySpace


class GraphLike(Protocol):
    # read-only: a MutableGraph shows its compaction's arrays as properties
    @property
    def indptr(self) -> np.ndarray: ...

    @property
    def indices(self) -> np.ndarray: ...

    @property
    def weights(self) -> np.ndarray: ...


@dataclass
class CSRGraph:
    """A directed graph in CSR form (Va = indptr, Ea = indices, Wa = weights)."""

    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    # set once check_csr passed (gpu_core.graph): a graph passed again is not re-checked
    _checked: bool = field(default=False, init=False, repr=False, compare=False)

    @property
    def num_nodes(self) -> int:
        return int(self.indptr.shape[0] - 1)

    @property
    def num_arcs(self) -> int:
        return int(self.indices.shape[0])

    @classmethod
    def from_any(cls, g: GraphLike, *, allow_negative: bool = False) -> CSRGraph:
        """The validated CSRGraph of ``g`` (:func:`gpu_core.validate.check_csr`: dtypes,
        shapes, monotone indptr, indices in range, weights fit int32; no copy when already
        int32), checked once per graph: :func:`prepared` keeps it.
        Negative weights are refused (NegativeWeightsError) unless ``allow_negative`` (only
        the label-correcting SSSP strategies take them)."""
        h = prepared(g)
        if not allow_negative and not isinstance(g, CSRGraph):
            h.refuse_negative()  # a CSRGraph's weights' sign is left to the caller
        return h.csr

    @classmethod
    def from_edges(cls, n: int, tails, heads, weights) -> CSRGraph:
        """CSR from arc lists (rows sorted by weight then head, like ``maps.model.build``)."""
        tails = np.asarray(tails, dtype=np.int64)
        heads = np.asarray(heads, dtype=np.int64)
        w = np.asarray(weights, dtype=np.int64)
        if w.size and (w.min() < 0 or w.max() >= 2**31):  # outside the packed key's range
            order = np.lexsort((heads, w, tails))
        else:  # the same order by two stable sorts, (w, head) packed, then tail: faster
            order = np.argsort((w << 31) | heads, kind="stable")
            order = order[np.argsort(tails[order], kind="stable")]
        indptr = np.zeros(n + 1, dtype=np.int64)
        indptr[1:] = np.bincount(tails, minlength=n)
        return cls(
            np.cumsum(indptr).astype(np.int32),
            heads[order].astype(np.int32),
            w[order].astype(np.int32),
        )

    def arc_sources(self) -> np.ndarray:
        return np.repeat(np.arange(self.num_nodes, dtype=np.int32), np.diff(self.indptr))

    def reverse(self) -> CSRGraph:
        """The transposed graph (arcs reversed), rows sorted like ``from_edges``."""
        return CSRGraph.from_edges(self.num_nodes, self.indices, self.arc_sources(), self.weights)


T = TypeVar("T")

_lock = threading.RLock()  # the app's compute and index workers prepare graphs at once
# The graph object holds its handle (the handle holds only weak references to the arrays
# it answers for, and its CSRGraph), so it is freed with the graph: no global registry.
_ATTR = "_prepared_graph"


class PreparedGraph:
    """A validated graph (``csr``) and everything computed from it once."""

    def __init__(self, csr: CSRGraph, *, held_by_csr: bool = False) -> None:
        # No reference cycle: a graph holds its handle, so the handle holds that graph
        # weakly (a CSRGraph, a MutableGraph's compaction); a RoadNetwork's own CSRGraph is
        # held here and holds the handle weakly (_attach). With a cycle every stale
        # compaction's arrays waited for the cyclic GC: bench edits' compact +22% and its
        # fresh search slower under load (docs/perf/house_bench.md)
        self._csr: CSRGraph | None = None if held_by_csr else csr
        self._csr_ref = weakref.ref(csr)
        # the (indptr, indices, weights) sets this handle answers for, weakly: the
        # source's, and the int32 copies check_csr made of them when it had to
        self._sources: list[tuple[weakref.ref, ...]] = []
        self._derived: dict[str, Any] = {}
        # bumped when a derived value is replaced or dropped (put, pop): what was resolved
        # from the handle before (app.jobs.sssp.SsspPlan's route index) is asked anew
        self.version = 0
        self._lock = threading.Lock()
        # the graph whose arrays were released (release_arrays), weakly, until restored
        self._released: weakref.ref | None = None
        w = csr.weights
        self.min_weight = int(w.min()) if w.size else 0

    @property
    def csr(self) -> CSRGraph:
        """The validated CSRGraph (the graph itself when it is one: keep the graph, not
        only its handle)."""
        g = self._csr if self._csr is not None else self._csr_ref()
        owner = None if self._released is None else self._released()
        if g is None and owner is not None:
            _ = owner.indptr  # the graph brings its arrays back (restore_arrays)
            g = self._csr
        if g is None:
            raise RuntimeError("the graph of this prepared handle is gone")
        return g

    def __reduce__(self):
        # a pickled or deep-copied graph (a Dask worker's map, a saved state) is prepared
        # again where it lands: locks, device engines and caches do not travel
        return (_no_handle, ())

    @property
    def negative(self) -> bool:
        """Whether some arc weight is negative (the label-correcting strategies only)."""
        return self.min_weight < 0

    @property
    def indexable(self) -> bool:
        """Whether a route index can serve this graph: the one rule (negative arcs: no)."""
        return not self.negative

    @property
    def key_space(self) -> KeySpace:
        from .keys import key_space_for

        return self.derived("key_space", lambda: key_space_for(self.csr.weights,
                                                               self.csr.num_nodes))

    def refuse_negative(self) -> None:
        """NegativeWeightsError (check_csr's wording) when some arc is negative."""
        if self.negative:
            from .errors import NegativeWeightsError

            raise NegativeWeightsError(
                f"weights must be non-negative (this graph has an arc of weight "
                f"{self.min_weight})")

    def derived(self, name: str, build: Callable[[], T]) -> T:
        """``build()`` once per graph. It runs outside the lock (a build may ask for other
        derived values, and the window's thread must not wait on a worker's build): two
        threads racing may both build, and the first value stored is kept."""
        with self._lock:
            if name in self._derived:
                return self._derived[name]
        value = build()
        with self._lock:
            return self._derived.setdefault(name, value)

    def get(self, name: str, default: Any = None) -> Any:
        with self._lock:
            return self._derived.get(name, default)

    def put(self, name: str, value: Any) -> None:
        """Replace a derived value (a route index built or dropped in this process)."""
        with self._lock:
            self._derived[name] = value
            self.version += 1

    def pop(self, name: str) -> None:
        with self._lock:
            self._derived.pop(name, None)
            self.version += 1

    def holds(self, graph: GraphLike) -> bool:
        """Whether ``graph``'s arrays are the very ones this handle was made from."""
        arrays = (graph.indptr, graph.indices, graph.weights)
        return any(all(r() is a for r, a in zip(refs, arrays, strict=True)) for refs in self._sources)


def prepared(graph: GraphLike) -> PreparedGraph:
    """The handle of ``graph`` (a RoadNetwork, a CSRGraph, a MutableGraph: its current
    compaction), validated by ``check_csr`` the first time its arrays are seen. Raises
    InvalidArgumentError for malformed arrays; negative weights are accepted here (callers
    that refuse them call :meth:`PreparedGraph.refuse_negative`)."""
    as_csr = getattr(graph, "as_csr_graph", None)  # e.g. a MutableGraph: its compaction
    if callable(as_csr) and not isinstance(graph, CSRGraph):
        graph = as_csr()
    with _lock:
        hit = _handle_of(graph)
        if hit is not None and hit._released is not None and hit._released() is graph:
            return hit  # its arrays released (release_arrays): made again when csr is read
        if hit is not None and hit.holds(graph):
            return hit
        if isinstance(graph, CSRGraph):
            csr = graph
            if not graph._checked:
                _check_into(csr)
        else:
            csr = CSRGraph(graph.indptr, graph.indices, graph.weights)
            _check_into(csr)
        h = PreparedGraph(csr, held_by_csr=csr is graph)
        _attach(h, graph)
        if csr is not graph:  # the map's CSRGraph carries the same handle, weakly
            _attach(h, csr, weak=True)
        return h


def forget_prepared(graph: GraphLike) -> None:
    """Drop ``graph``'s handle and what was derived from it (its CSRGraph's too): the next
    call prepares it afresh (tests that reuse one map object)."""
    h = _handle_of(graph)
    if h is not None:
        for g in (graph, h._csr if h._csr is not None else h._csr_ref()):
            try:
                setattr(g, _ATTR, None)
            except (TypeError, AttributeError):
                pass


def _no_handle() -> None:
    return None


def _check_into(csr: CSRGraph) -> None:
    from .validate import check_csr

    csr.indptr, csr.indices, csr.weights = check_csr(csr.indptr, csr.indices, csr.weights,
                                                     allow_negative=True)
    csr._checked = True


class _WeakHandle:
    """A handle held weakly (by the CSRGraph that handle holds); dropped when the graph is
    pickled or copied, as a handle is."""

    def __init__(self, h: PreparedGraph) -> None:
        self.ref = weakref.ref(h)

    def __reduce__(self):
        return (_no_handle, ())


def _handle_of(graph: GraphLike) -> PreparedGraph | None:
    h = getattr(graph, _ATTR, None)
    if isinstance(h, _WeakHandle):
        h = h.ref()
    return h if isinstance(h, PreparedGraph) else None


def _attach(h: PreparedGraph, graph: GraphLike, *, weak: bool = False) -> None:
    """Hand ``h`` to ``graph`` (which then owns it: the handle goes with the graph), or
    only a weak reference to it (``weak``: a CSRGraph the handle itself holds)."""
    try:
        refs = tuple(weakref.ref(a) for a in (graph.indptr, graph.indices, graph.weights))
        setattr(graph, _ATTR, _WeakHandle(h) if weak else h)
    except (TypeError, AttributeError):  # plain lists, a slotted object: never found again
        return
    h._sources.append(refs)


# ---- a graph's host arrays released while another form of it serves the searches ---------
# (issue 39: a turn-restricted map searched in a renumbered copy, app.jobs.turn_search, need
# not hold its own CSR beside that copy.) The graph object brings its arrays back when they
# are read (``maps.RoadNetwork.release_csr``), through :func:`restore_arrays`.

_CSR_NAMES = ("indptr", "indices", "weights")


def _refs_in(d: dict, name: str) -> int:
    return sys.getrefcount(d[name])


def _refs_of(obj: Any) -> int:
    return sys.getrefcount(obj)


class _Probe:
    x: Any = None


def _bases() -> tuple[int, int]:
    """What the two probes above count for an object held exactly once."""
    p = _Probe()
    p.x = np.empty(0)
    return _refs_in({"a": np.empty(0)}, "a") - 1, _refs_of(p.x) - 1


_BASE_IN, _BASE_OF = _bases()


def release_arrays(graph: Any, drop: Callable[[], None]) -> bool:
    """Run ``drop()`` (which removes ``graph``'s indptr, indices and weights) when nothing
    but ``graph`` and its prepared handle's CSRGraph holds those arrays, so that dropping
    them frees them; the handle keeps what it derived (the arrays come back with the same
    contents: :func:`restore_arrays`). False, nothing done, when anything else holds one
    of them or that CSRGraph (a search running, a caller's reference, a numpy view)."""
    d = getattr(graph, "__dict__", None)
    if d is None or any(not isinstance(d.get(k), np.ndarray) for k in _CSR_NAMES):
        return False
    with _lock:
        h = _handle_of(graph)
        csr = None if h is None else h._csr
        for k in _CSR_NAMES:
            held = 1 + int(csr is not None and getattr(csr, k, None) is d[k])
            if _refs_in(d, k) - _BASE_IN != held:
                return False
        if csr is not None and h is not None:
            del csr
            if _refs_of(h._csr) - _BASE_OF != 1:  # the handle's own reference only
                return False
            h._csr = None
            h._released = weakref.ref(graph)
        drop()
        return True


Arrays = tuple[np.ndarray, np.ndarray, np.ndarray]


def restore_arrays(graph: Any, make: Callable[[], Arrays], put: Callable[[Arrays], None]
                   ) -> None:
    """Give ``graph`` back its (indptr, indices, weights): ``put(make())`` (unless another
    thread did first), and its released prepared handle a CSRGraph of them: the handle
    answers for the same contents it was made from, its derived values kept."""
    with _lock:
        d = graph.__dict__
        if all(isinstance(d.get(k), np.ndarray) for k in _CSR_NAMES):
            return
        arrays = make()
        put(arrays)
        h = _handle_of(graph)
        if h is not None and h._released is not None:
            csr = CSRGraph(*arrays)
            csr._checked = True  # the contents check_csr passed, given back
            h._csr, h._csr_ref, h._released = csr, weakref.ref(csr), None
            _attach(h, graph)
            _attach(h, csr, weak=True)
