"""The one map representation every loader produces: :class:`RoadNetwork`.

The graph is a directed CSR in the seeds' Va/Ea/Wa form: the arcs leaving node ``u`` are
``indices[indptr[u]:indptr[u+1]]`` (Ea) with weights ``weights[...]`` (Wa), ``indptr`` is
Va with one extra entry. Node and arc indices are int32; weights are int32 integers in
the unit named by ``unit`` (``WEIGHT_UNITS`` says what each unit is), so every distance is
an exact integer (int64). Weights are non-negative except in DIMACS ``.gr`` files that
carry negative arcs (``has_negative``): only the label-correcting strategies search those.

Per-node arrays: projected ``x``/``y`` in metres (a local transverse Mercator about
``origin``), ``lon``/``lat`` in degrees (NaN when the source has no coordinates, e.g. a
DIMACS graph without its .co file), and ``node_ids``, the id in the source file.

Per-arc arrays (same order as ``indices``): ``edge_kind`` (road/rail/transfer),
``edge_class`` (an index into ``class_names``, e.g. "motorway", "rail"), ``edge_length``
(metres, float32), ``edge_source_id`` (the OSM way id, GraphML edge key, or the line
number for DIMACS; -1 when none). Optional drawing geometry for contracted arcs:
``geom_indptr`` (arcs+1) into ``geom_xy`` (k×2, metres), the inner points of each arc.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .profiles import WEIGHT_UNITS  # noqa: F401  (re-exported: RoadNetwork.unit is a key)

# Edge kinds (edge_kind values).
KIND_ROAD = 0
KIND_RAIL = 1
KIND_TRANSFER = 2
KIND_NAMES = ("road", "rail", "transfer")


_CSR_FIELDS = ("indptr", "indices", "weights")
# the per-arc attributes a map may make only when first read (RoadNetwork.defer_arcs)
_ARC_FIELDS = ("edge_kind", "edge_class", "edge_length", "edge_source_id", "geom_indptr",
               "geom_xy")
_DEFER_LOCK = threading.Lock()


def _all_finite(a: np.ndarray) -> bool:
    """True when every value of ``a`` is finite (a scan of the whole array)."""
    return bool(np.isfinite(a).all())


@dataclass
class RoadNetwork:
    """A routable map: CSR arcs with integer weights plus coordinates and attributes."""

    indptr: np.ndarray  # Va, int32, n+1
    indices: np.ndarray  # Ea, int32, m
    weights: np.ndarray  # Wa, int32 >= 0, m
    unit: str  # key of WEIGHT_UNITS
    profile: str  # weight profile that produced the weights ("length", "walk", ..., "file")
    x: np.ndarray  # float64 metres, n
    y: np.ndarray  # float64 metres, n
    lon: np.ndarray  # float64 degrees, n (NaN when unknown)
    lat: np.ndarray  # float64 degrees, n (NaN when unknown)
    node_ids: np.ndarray  # int64, n: ids in the source file
    edge_kind: np.ndarray  # uint8, m
    edge_class: np.ndarray  # uint8, m: index into class_names
    edge_length: np.ndarray  # float32 metres, m
    edge_source_id: np.ndarray  # int64, m
    class_names: list[str] = field(default_factory=lambda: ["road"])
    geom_indptr: np.ndarray | None = None  # int64, m+1 (None: straight arcs)
    geom_xy: np.ndarray | None = None  # float64 (k, 2) metres
    origin: tuple[float, float] = (0.0, 0.0)  # (lon0, lat0) of the projection
    name: str = ""
    source_path: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    _id_index: IdLookup | None = field(default=None, repr=False, compare=False)
    # (the lon array scanned, its answer): has_coordinates scans every node once per lon
    # array, not once per call (reading N points asked it per point: O(N x n), issue 41)
    _coords_seen: tuple[Any, bool] | None = field(
        default=None, init=False, repr=False, compare=False)

    # ---- the CSR released while another form of it serves the searches ---------------
    # (issue 39: app.jobs.turn_search searches a turn-restricted map in a renumbered copy;
    # the map's own indptr/indices/weights are then dropped when nothing else holds them,
    # and made again from that copy the first time they are read)
    def release_csr(self, restore: Callable[[], None], shape: tuple[int, int]) -> None:
        """Drop ``indptr``, ``indices``, ``weights``; reading one of them calls
        ``restore()``, which must give all three back (the same contents) through
        :meth:`put_csr`. ``shape``:
        (nodes, arcs), answered meanwhile by ``num_nodes`` / ``num_arcs``."""
        d = self.__dict__
        d["_csr_restore"], d["_csr_shape"] = restore, shape
        for k in _CSR_FIELDS:
            d.pop(k, None)

    def put_csr(self, arrays: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Set (indptr, indices, weights) back after :meth:`release_csr`."""
        d = self.__dict__
        d.update(zip(_CSR_FIELDS, arrays, strict=True))
        d.pop("_csr_restore", None)
        d.pop("_csr_shape", None)

    # ---- per-arc attributes made when first read -------------------------------------
    # (issue 41: a CLI closure's edited map is searched, never drawn: a matrix reads none
    # of its kinds, classes, lengths or way ids, which took 0.1-0.2 s of fresh memory on NE)
    def defer_arcs(self, make: Callable[[], dict[str, Any]]) -> None:
        """Drop the per-arc attributes (``edge_*``, ``geom_*``); the first read of one
        calls ``make()``, which returns all six by name (the same contents)."""
        d = self.__dict__
        d["_arcs_make"] = make
        for k in _ARC_FIELDS:
            d.pop(k, None)

    def _made_arcs(self) -> None:
        d = self.__dict__
        with _DEFER_LOCK:  # one maker at a time; a second reader finds them made
            make = d.get("_arcs_make")
            if make is not None:
                d.update(make())
                del d["_arcs_make"]

    @property
    def csr_held(self) -> bool:
        """Whether the CSR arrays are held (not released: :meth:`release_csr`)."""
        return "_csr_restore" not in self.__dict__

    def __getattr__(self, name: str) -> Any:
        # reached only when the normal lookup fails: a released CSR array is made again
        d = self.__dict__
        if name in _ARC_FIELDS and "_arcs_make" in d:
            self._made_arcs()
            return d[name]
        restore = d.get("_csr_restore") if name in _CSR_FIELDS else None
        if restore is not None:
            restore()  # which calls put_csr (under its own lock: one restore at a time)
            return d[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __getstate__(self) -> dict[str, Any]:
        if not self.csr_held:  # a pickle or copy carries the arrays, not the way back
            _ = self.indptr
        if "_arcs_make" in self.__dict__:
            self._made_arcs()
        return dict(self.__dict__)

    # ---- sizes -------------------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        shape = self.__dict__.get("_csr_shape")
        return int(self.indptr.shape[0] - 1) if shape is None else shape[0]

    @property
    def num_arcs(self) -> int:
        shape = self.__dict__.get("_csr_shape")
        return int(self.indices.shape[0]) if shape is None else shape[1]

    @property
    def has_coordinates(self) -> bool:
        """Every node has a finite longitude (one scan per ``lon`` array: the answer is
        kept while ``lon`` is the same object; replace the array, not its values)."""
        seen = self._coords_seen
        if seen is not None and seen[0] is self.lon:
            return seen[1]
        ok = self.num_nodes > 0 and _all_finite(self.lon)
        self._coords_seen = (self.lon, ok)
        return ok

    # ---- arcs --------------------------------------------------------------------------
    def arc_sources(self) -> np.ndarray:
        """The tail node of every arc (int32, m): the CSR expanded to COO."""
        deg = np.diff(self.indptr)
        return np.repeat(np.arange(self.num_nodes, dtype=np.int32), deg)

    def arc_between(self, u: int, v: int) -> int:
        """Index of the lightest arc u→v (ties: the first), or -1 when there is none."""
        lo, hi = int(self.indptr[u]), int(self.indptr[u + 1])
        hits = np.nonzero(self.indices[lo:hi] == v)[0]
        if hits.size == 0:
            return -1
        w = self.weights[lo + hits]
        return int(lo + hits[int(np.argmin(w))])

    # ---- ids ---------------------------------------------------------------------------
    def index_of(self, node_id: int) -> int:
        """Internal index of the node whose source-file id is ``node_id``."""
        from ..errors import NodeNotFoundError

        if self._id_index is None:
            self._id_index = IdLookup(self.node_ids)
        i = self._id_index.find(int(node_id))
        if i < 0:
            raise NodeNotFoundError(
                f"node id {node_id} is not in the map", path=self.source_path or None
            )
        return i

    def node_labels(self) -> np.ndarray:
        """Each node's id as written in the source file, for output: ``node_ids``, or the
        names of a GraphML file whose ids are not all integers (``meta["node_names"]``,
        where ``node_ids`` are 1..N in file order), as an object array of str."""
        names = self.meta.get("node_names")
        if not names:
            return self.node_ids
        return np.asarray(names, dtype=object)[self.node_ids - 1]

    def source_ids(self, indices) -> list:
        """The source file's ids of node ``indices`` (a sequence or array), as Python ints
        (or str for a GraphML file with non-integer ids): results keyed the user's way."""
        labels = self.node_labels()
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        got = labels[idx].tolist()
        return got if labels.dtype == object else [int(v) for v in got]

    def by_source_id(self, values) -> dict:
        """A per-node array (distances, ranks, ...) as {source id: value}; -1 / NaN kept."""
        vals = np.asarray(values)
        if vals.shape[0] != self.num_nodes:
            raise ValueError(f"{vals.shape[0]} values for {self.num_nodes} nodes")
        return dict(zip(self.source_ids(np.arange(self.num_nodes)), vals.tolist(), strict=True))

    # ---- the Python GIS stack (maps.model.gis_stack) ---------------------------------
    # Imported by absolute name: exporting a network does not decide what a file loads to,
    # so it stays out of the load cache's key (maps.formats.registry.loader_modules follows the
    # relative imports of the loaders).
    def to_networkx(self):
        """A networkx MultiDiGraph keyed by the source's node ids (``maps.model.gis_stack``)."""
        from maps.model.gis_stack import to_networkx

        return to_networkx(self)

    def to_geodataframes(self):
        """(nodes, edges) GeoDataFrames (geopandas, the ``gis`` extra)."""
        from maps.model.gis_stack import to_geodataframes

        return to_geodataframes(self)

    # ---- derived -----------------------------------------------------------------------
    @property
    def has_negative(self) -> bool:
        """True when some arc weight is negative (a DIMACS .gr may have them)."""
        return bool(self.num_arcs and int(self.weights.min()) < 0)

    def components(self) -> tuple[int, np.ndarray]:
        """Weakly connected components: (count, label per node)."""
        from scipy.sparse.csgraph import connected_components

        return connected_components(self.to_scipy(), directed=True, connection="weak")

    def to_scipy(self, *, weights: bool = True):
        """The graph as a scipy CSR matrix (duplicate arcs: scipy keeps the smallest)."""
        from scipy.sparse import csr_matrix

        n = self.num_nodes
        data = self.weights.astype(np.float64) if weights else np.ones(self.num_arcs)
        return csr_matrix((data, self.indices, self.indptr), shape=(n, n))

    def validate(self) -> None:
        """Check the CSR invariants; raises MapFormatError naming the first violation."""
        from ..errors import MapFormatError

        n, m = self.num_nodes, self.num_arcs
        p = self.source_path or None
        if self.indptr.dtype != np.int32 or self.indices.dtype != np.int32:
            raise MapFormatError("indptr/indices must be int32", path=p)
        if self.weights.dtype != np.int32:
            raise MapFormatError("weights must be int32", path=p)
        if self.indptr[0] != 0 or self.indptr[-1] != m or np.any(np.diff(self.indptr) < 0):
            raise MapFormatError("indptr is not a valid CSR offset array", path=p)
        if m and (self.indices.min() < 0 or self.indices.max() >= n):
            raise MapFormatError("an arc points outside the node range", path=p)
        for name in ("x", "y", "lon", "lat", "node_ids"):
            if getattr(self, name).shape[0] != n:
                raise MapFormatError(f"{name} has the wrong length", path=p)
        for name in ("edge_kind", "edge_class", "edge_length", "edge_source_id"):
            if getattr(self, name).shape[0] != m:
                raise MapFormatError(f"{name} has the wrong length", path=p)


class IdLookup:
    """A map's file ids → node indices, made once per map (``RoadNetwork.index_of``): ids
    that count up by one from the first (DIMACS, PACE and generated maps) by arithmetic;
    others through one stable sort. A Python dict of 1.5M ids took 1.9 s to build under
    load, once per network (the edited map's again): a closure from the CLI paid it
    twice (issue 41); this is ~0.1 s. An id repeated by turn copies (``maps.model.turns``)
    names the original, its first node."""

    def __init__(self, ids: np.ndarray):
        ids = np.asarray(ids, dtype=np.int64)
        self.first = int(ids[0]) if ids.shape[0] else 0
        # how many leading nodes are first, first + 1, ... (turn copies repeat ids after them)
        run = ids - np.arange(self.first, self.first + ids.shape[0], dtype=np.int64)
        bad = np.flatnonzero(run)
        self.run = int(bad[0]) if bad.shape[0] else int(ids.shape[0])
        self.order = self.sorted = None
        if self.run < ids.shape[0]:
            self.order = np.argsort(ids, kind="stable")
            self.sorted = ids[self.order]

    def find(self, node_id: int) -> int:
        """The index of ``node_id``'s (first) node, -1 when the map has none."""
        if 0 <= node_id - self.first < self.run:
            return node_id - self.first
        if self.sorted is None or self.order is None:
            return -1
        k = int(np.searchsorted(self.sorted, node_id, side="left"))
        if k < self.sorted.shape[0] and int(self.sorted[k]) == node_id:
            return int(self.order[k])
        return -1
