"""A map plus an ordered list of applied edits, kept as a gpu_core MutableGraph, with
undo/redo and the edited map as a RoadNetwork every job runs on unchanged."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from gpu_core.dynamic import (
    ARC_DELETED,
    ARC_DISABLED,
    ARC_LIVE,
    EditBatch,
    EditSummary,
    MutableGraph,
)
from gpu_core.errors import InvalidArgumentError
from maps.geo.projection import to_lonlat
from maps.model.network import RoadNetwork

from .actions import add_link, apply_action
from .model import TURN_ACTIONS, Edit, EditError, check_edit
from .stage import Stage
from .store import ArcStore
from .targets import Targets
from .turn_edits import apply_turn
from .turn_links import copies_last, permute_csr

NEGATIVE = ("this map has negative arc weights; what-if edits need non-negative ones "
            "(the edited graph keeps weights >= 0)")


@dataclass
class AppliedEdit:
    """One batch applied to the graph: the edit, the graph's summary of it (for
    ``gpu_core.repair``), the arc ids it touched (targets and inserted arcs), and what
    undoing it takes."""

    edit: Edit
    summary: EditSummary
    arcs: np.ndarray
    replaced: tuple[int, ...] = ()  # arcs this edit split (their pieces are inserted)
    removed: tuple[int, ...] = ()  # arcs this edit marked removed
    undone: bool = False  # this is the record of an undo
    _inverse: tuple = field(default=(), repr=False)

    def undo_batch(self, graph: MutableGraph) -> EditBatch:
        """The batch that restores every arc this edit changed (state and weight);
        inserted arcs are deleted (vertices cannot be: added vertices stay, isolated)."""
        s = self.summary
        b = graph.batch()
        back_on = s.arcs[(s.old_state == ARC_LIVE) & (s.new_state == ARC_DISABLED)]
        back_off = s.arcs[(s.old_state == ARC_DISABLED) & (s.new_state == ARC_LIVE)]
        w = s.old_weight != s.new_weight
        if w.any():
            b.set_weight(s.arcs[w], s.old_weight[w].astype(np.int64))
        if back_on.size:
            b.enable(back_on)
        if back_off.size:
            b.disable(back_off)
        if s.inserted.size:
            b.delete(s.inserted)
        return b


class Scenario:
    """A map plus an ordered list of applied edits, kept as a MutableGraph (vertex ids
    unchanged; vertices added by splits appended). ``apply`` is atomic: an EditError
    leaves the graph, the edits and every index as they were.

    ``max_snap_m``: how far a point may lie from the road it addresses (the CLI's
    --max-snap). ``snapper``: a maps.points.snap.Snapper of ``net`` to reuse (the GUI has one).
    """

    def __init__(self, net: RoadNetwork, *, backend: str = "auto",
                 max_snap_m: float = 1000.0, snapper=None):
        if net.has_negative:  # the mutable graph keeps int32 weights >= 0
            raise EditError("", NEGATIVE)
        self.base = net
        self.graph = MutableGraph(net, backend=backend)
        self.max_snap_m = float(max_snap_m)
        self.store = ArcStore(net)
        self.targets = Targets(self, snapper)
        self.edits: list[Edit] = []
        self.summaries: list[EditSummary] = []  # every batch applied to the graph, in order
        self._applied: list[AppliedEdit] = []
        self._redo: list[Edit] = []
        self._replaced: dict[int, tuple[int, ...]] = {}
        self._removed: set[int] = set()
        self._net: tuple[int, RoadNetwork] | None = None
        # vertices added by turn edits -> their original (never dropped: undo leaves a
        # vertex, isolated, as it leaves those of added links)
        self.turn_copies: dict[int, int] = {}
        self._order: tuple[int, np.ndarray | None] | None = None  # (version, network_order)

    # ---- editing --------------------------------------------------------------------------
    def apply(self, edit: Edit) -> AppliedEdit:
        """Apply one edit (EditError naming it when it does not fit the map; then nothing
        changed). Clears the redo list."""
        done = self._apply(edit)
        self._redo.clear()
        return done

    def _apply(self, edit: Edit) -> AppliedEdit:
        label = edit.label or f"edit {len(self.edits) + 1} ({edit.action})"
        if not edit.label:
            edit = _relabel(edit, label)
        check_edit(edit)
        stage = Stage(self.store, self.graph)
        if edit.action == "add":
            add_link(self, stage, edit, label)
        elif edit.action in TURN_ACTIONS:
            apply_turn(self, stage, edit, label)
        else:
            apply_action(self, stage, edit, self.targets.resolve(edit, label), label)
        try:
            summary = self.graph.apply(stage.batch)
        except InvalidArgumentError as exc:
            raise EditError(label, f"the graph refused it ({exc})") from None
        stage.commit()
        self.turn_copies.update(stage.copies)
        self._replaced.update(stage.replaced)
        self._removed.update(stage.removed)
        touched = np.unique(np.concatenate([np.asarray(stage.touched, np.int64),
                                            np.asarray(list(stage.replaced), np.int64),
                                            summary.inserted]))
        done = AppliedEdit(edit, summary, touched, tuple(stage.replaced),
                           tuple(stage.removed))
        self.edits.append(edit)
        self.summaries.append(summary)
        self._applied.append(done)
        return done

    def apply_all(self, edits: Sequence[Edit]) -> list[AppliedEdit]:
        """Apply ``edits`` in order, all or nothing: on an EditError the ones applied here
        are undone again (a scenario file loads whole or not at all). An ``add`` followed
        by more edits is tried on a scratch copy first where that copy can replay this
        one exactly (no undo so far), so a failure leaves not even its new vertices."""
        edits = list(edits)
        if (any(e.action == "add" for e in edits[:-1])
                and self.graph.version == len(self.edits)):
            self._dry_run(edits)
        done: list[AppliedEdit] = []
        redo = list(self._redo)
        try:
            for e in edits:
                done.append(self.apply(e))
        except EditError:
            for _ in done:
                self._undo_last()
            del self.summaries[len(self.summaries) - 2 * len(done):]
            self._redo = redo
            raise
        return done

    def _dry_run(self, edits: list[Edit]) -> None:
        """Replay this scenario's edits and then ``edits`` on a scratch Scenario sharing
        the spatial indexes (EditError naming the first that fails)."""
        scratch = Scenario(self.base, backend="cpu", max_snap_m=self.max_snap_m,
                           snapper=self.targets._snapper)
        scratch.targets.share(self.targets)
        for e in self.edits + edits:
            scratch.apply(e)

    def _undo_last(self) -> AppliedEdit:
        last = self._applied.pop()
        self.edits.pop()
        summary = self.graph.apply(last.undo_batch(self.graph))
        self.summaries.append(summary)
        for e in last.replaced:
            self._replaced.pop(e, None)
        self._removed.difference_update(last.removed)
        return AppliedEdit(last.edit, summary, last.arcs, undone=True)

    def undo(self) -> AppliedEdit | None:
        """Undo the last edit (its arcs get their earlier state and weight back; inserted
        arcs are deleted); the record returned carries the undo batch's summary. None
        when there is nothing to undo."""
        if not self._applied:
            return None
        rec = self._undo_last()
        self._redo.append(rec.edit)
        return rec

    def redo(self) -> AppliedEdit | None:
        """Apply the last undone edit again (new ids for what it inserts); None when there
        is nothing to redo."""
        if not self._redo:
            return None
        edit = self._redo[-1]
        done = self._apply(edit)
        self._redo.pop()
        return done

    @property
    def can_undo(self) -> bool:
        return bool(self._applied)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    # ---- state ----------------------------------------------------------------------------
    @property
    def changed_arcs(self) -> int:
        """Arcs whose state or weight differ from the base map, plus the inserted arcs
        still there (closing a two-way road: 2)."""
        h = self.graph.host  # read in place: ``arcs()`` copies 60 MB on NE, twice a closure
        w, s = h.weight[:h.total], h.state[:h.total]
        m = self.base.num_arcs
        base = int(((s[:m] != ARC_LIVE) | (w[:m] != self.base.weights)).sum())
        return base + int((s[m:] != ARC_DELETED).sum())

    def closed_arcs(self) -> np.ndarray:
        """Base arc indices now closed or removed (the GUI draws them struck through): a
        base arc split by an added link counts when all its pieces are."""
        state = self.graph.host.state
        m = self.base.num_arcs
        out = []
        for e in np.flatnonzero(state[:m] == ARC_DISABLED).tolist():
            if e not in self._replaced or all(state[p] != ARC_LIVE
                                              for p in self.targets.current([e])):
                out.append(e)
        return np.asarray(out, dtype=np.int64)

    def base_topology_key(self) -> str:
        """The unedited map's ``gpu_core.hierarchy.topology_key`` (hashed once)."""
        if getattr(self, "_tkey", None) is None:
            from gpu_core.graph import CSRGraph
            from gpu_core.hierarchy import topology_key

            self._tkey = str(self.base.meta.get("index_topology") or
                             topology_key(CSRGraph.from_any(self.base)))
        return self._tkey

    def network_order(self) -> np.ndarray | None:
        """How :meth:`network` numbers the graph's vertices: its vertex ``i`` is the graph's
        vertex ``order[i]``; None where both number them alike. They differ on a
        turn-restricted map once a mid-road link added a node (network() keeps the turn
        copies last, the graph appends it): the app searches the graph and reads routes
        from network() (``app.session``). Kept until the next edit."""
        v = self.graph.version
        if self._order is None or self._order[0] != v:
            restricted = bool(self.turn_copies or self.base.meta.get("turn_copies"))
            self._order = (v, copies_last(self)[0] if restricted else None)
        return self._order[1]

    def network(self, *, lazy_arcs: bool = False) -> RoadNetwork:
        """The edited map as a RoadNetwork: the live arcs in CSR rows as the loaders sort
        them, each keeping its attributes (kind, class, length, way id, geometry); vertex
        ids unchanged, added vertices appended (ids -1, -2, ... in the source-id column,
        "-1", ... on maps of named nodes); on a turn-restricted map the turn copies come
        last (``turn_links.copies_last``: a split road's new node goes before them). ``meta["edits"]`` holds ``changed_arcs``.
        Cached until the next edit. ``lazy_arcs``: the per-arc attributes are gathered
        when first read (``RoadNetwork.defer_arcs``; the CLI, whose searches read none)."""
        if self._net is not None and self._net[0] == self.graph.version:
            return self._net[1]
        net = self.base
        st = self.store
        g, ids = self.graph.compact()
        ids = np.asarray(ids, dtype=np.int64)
        k = len(st.vx)
        vx, vy = np.asarray(st.vx, dtype=np.float64), np.asarray(st.vy, dtype=np.float64)
        if k and net.has_coordinates:
            vlon, vlat = to_lonlat(vx, vy, net.origin)
        else:
            vlon = vlat = np.full(k, np.nan)
        meta = dict(net.meta)
        # the cached file holds the unedited map: Dask workers must be shipped this one
        meta.pop("cache_file", None)
        names = meta.get("node_names")
        if names:
            meta["node_names"] = list(names) + [str(-(j + 1)) for j in range(k)]
            new_ids = np.arange(len(names) + 1, len(names) + 1 + k, dtype=np.int64)
        else:
            new_ids = -np.arange(1, k + 1, dtype=np.int64)
        meta["edits"] = self.changed_arcs
        order = None
        restricted = bool(self.turn_copies or net.meta.get("turn_copies"))
        # no node added and none moved: the unedited map's node arrays, shared (read only)
        lon, lat, node_ids, x, y = (net.lon, net.lat, net.node_ids, net.x, net.y) \
            if k == 0 and not restricted else (
                np.concatenate([net.lon, vlon]), np.concatenate([net.lat, vlat]),
                np.concatenate([net.node_ids, new_ids]), np.concatenate([net.x, vx]),
                np.concatenate([net.y, vy]))
        if restricted:  # copies: their original's id, last
            order, meta["turn_copies"] = copies_last(self)
            for c, o in self.turn_copies.items():
                node_ids[c], lon[c], lat[c] = node_ids[o], lon[o], lat[o]
            meta["turn_edits"] = sum(e.action in TURN_ACTIONS for e in self.edits)
        # the unedited map's route index topology: closures and new weights re-customize it
        meta["index_topology"] = self.base_topology_key()
        indptr, indices, weights = g.indptr, g.indices, g.weights
        if order is not None:  # added vertices that are no copy go before the copies
            indptr, indices, weights, ids = permute_csr(order, indptr, indices, weights, ids)
            x, y, lon, lat, node_ids = (a[order] for a in (x, y, lon, lat, node_ids))
        class_names = list(st.class_names)

        def arcs() -> dict:
            gi, gxy = st.gather_geometry(ids)
            kind, cls, length, src = st.gather_all(ids, [
                ("kind", net.edge_kind), ("cls", net.edge_class),
                ("length", net.edge_length), ("src", net.edge_source_id)])
            return dict(edge_kind=kind, edge_class=cls, edge_length=length,
                        edge_source_id=src, geom_indptr=gi, geom_xy=gxy)

        none = np.empty(0, np.uint8)  # stand-ins until defer_arcs drops them
        got = dict(edge_kind=none, edge_class=none, edge_length=none,
                   edge_source_id=none, geom_indptr=None, geom_xy=None) if lazy_arcs \
            else arcs()
        out = RoadNetwork(
            indptr=np.asarray(indptr, dtype=np.int32),
            indices=np.asarray(indices, dtype=np.int32),
            weights=np.asarray(weights, dtype=np.int32),
            unit=net.unit, profile=net.profile, x=x, y=y, lon=lon, lat=lat,
            node_ids=node_ids, class_names=class_names, origin=net.origin, name=net.name,
            source_path=net.source_path, meta=meta, **got,
            # the same node ids: the same lookup of them (made once per map)
            _id_index=net._id_index if node_ids is net.node_ids else None,
        )
        if lazy_arcs:
            out.defer_arcs(arcs)
        self._net = (self.graph.version, out)
        return out


def _relabel(edit: Edit, label: str) -> Edit:
    from dataclasses import replace

    return replace(edit, label=label)


def apply_edits(net: RoadNetwork, edits: Sequence[Edit], *, backend: str = "auto",
                max_snap_m: float = 1000.0) -> tuple[RoadNetwork, int]:
    """The CLI's path: (the edited network, arcs changed). All or nothing (EditError)."""
    if net.has_negative and edits:
        raise EditError(edits[0].label or edits[0].describe(), NEGATIVE)
    sc = Scenario(net, backend=backend, max_snap_m=max_snap_m)
    sc.apply_all(edits)
    return sc.network(lazy_arcs=True), sc.changed_arcs
