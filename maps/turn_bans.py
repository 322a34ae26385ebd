"""Generated turn bans on any map (issue 39): restrictions at a share of its junctions, for
``signpost bench turns`` and tests on maps that have no OSM file (the Kanto-sized one).

Each arc is its own "way" (its index in the map's CSR order, ``edge_source_id``), so a ban
names one approach and one exit. A junction is a node with at least 3 arcs in and 3 out.
At ``share`` of them (seeded) one restriction via that node: a random in-arc to a random
out-arc (the reverse arc too: a u-turn ban), ``no_*`` (80 %) or ``only_*`` (20 %). The
restricted map is built from the same arcs by node splitting (``maps.model.turns``), as an
OSM file's restrictions are.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .formats.osm_turns import Restriction, TurnReadReport, turn_meta
from .model.build import build_network
from .model.chains import Arcs
from .model.network import RoadNetwork
from .model.turns import apply_restrictions

ONLY_SHARE = 0.2  # of the restrictions drawn, this share are only_*


def junctions(net: RoadNetwork) -> np.ndarray:
    """Nodes with at least 3 arcs in and 3 arcs out (int64, ascending)."""
    indeg = np.bincount(net.indices, minlength=net.num_nodes)
    outdeg = np.diff(net.indptr)
    return np.flatnonzero((indeg >= 3) & (outdeg >= 3)).astype(np.int64)


def random_bans(net: RoadNetwork, share: float = 0.05, seed: int = 1) -> list[Restriction]:
    """One restriction at ``share`` of the junctions of ``net`` (module doc); ways are arc
    indices of ``net``, via nodes its node ids."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share {share}: give a fraction in 0..1")
    rng = np.random.default_rng(seed)
    js = junctions(net)
    pick = np.sort(rng.choice(js, int(round(share * js.size)), replace=False))
    heads = net.indices.astype(np.int64)
    order = np.argsort(heads, kind="stable")
    hp = np.searchsorted(heads[order], np.arange(net.num_nodes + 1))
    ids = net.node_ids
    rules = []
    for i, v in enumerate(pick.tolist()):
        f = int(rng.choice(order[hp[v]:hp[v + 1]]))
        to = int(rng.integers(net.indptr[v], net.indptr[v + 1]))
        kind = "only" if rng.random() < ONLY_SHARE else "no"
        rules.append(Restriction(i + 1, kind, f"{kind}_turn", (f,), (to,),
                                 via_node=int(ids[v])))
    return rules


def plain_of(net: RoadNetwork) -> RoadNetwork:
    """``net`` with each arc its own way (``edge_source_id`` = arc index): the map the bans
    of :func:`random_bans` name, without them."""
    return replace(net, edge_source_id=np.arange(net.num_arcs, dtype=np.int64), meta=dict(net.meta))


def with_bans(net: RoadNetwork, rules: list[Restriction]) -> RoadNetwork:
    """The map ``plain_of(net)`` with ``rules`` applied by node splitting: copies after the
    map's nodes, ``meta["turn_copies"]`` and ``meta["turn_restrictions"]`` as a loaded OSM
    file's."""
    n, m = net.num_nodes, net.num_arcs
    arcs = Arcs(net.arc_sources().astype(np.int64), net.indices.astype(np.int64),
                net.weights.astype(np.int64), net.edge_length.astype(np.float64),
                net.edge_kind, net.edge_class, np.arange(m, dtype=np.int64), [])
    vias = np.asarray([r.via_node for r in rules if r.via_node is not None], dtype=np.int64)
    index = {int(net.node_ids[v]): v for v in np.flatnonzero(np.isin(net.node_ids, vias)).tolist()}
    report = TurnReadReport(read=len(rules), restrictions=list(rules))
    out, copies, applied = apply_restrictions(n, arcs, index, rules, report.skipped)
    meta = {**net.meta, "turn_restrictions": turn_meta(report, applied, int(copies.size)),
            "turn_copies": copies.tolist()}
    meta.pop("cache_file", None)  # not the file's map any more
    every = np.r_[np.arange(n, dtype=np.int64), copies]
    geo = bool(n) and bool(np.isfinite(net.lon).all())
    where = ({"lon": net.lon[every], "lat": net.lat[every], "origin": net.origin} if geo
             else {"x": net.x[every], "y": net.y[every]})
    return build_network(
        tails=out.tails, heads=out.heads, weights=out.weights, node_ids=net.node_ids[every],
        unit=net.unit, profile=net.profile, **where, edge_kind=out.kinds,
        edge_class=out.classes, class_names=net.class_names, edge_length=out.lengths,
        edge_source_id=out.source_ids, name=net.name, source_path=net.source_path, meta=meta,
    )
