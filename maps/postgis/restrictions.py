"""A pgRouting restrictions table (``pgr_trsp``'s form, pgRouting 3.4+) as turn bans
(issue 39): ``postgresql://...?table=EDGES&restrictions=NAME``.

Columns: ``id``, ``path`` (an array of edge ids: the sequence of edges not to be driven
one after the other) and ``cost``. A path of two edges [A, B] bans driving A then B at
every vertex where A leads into B (a via node); a longer one [A, V1, ..., B] bans A, then
the via edges in order, then B (a via-way restriction, with edges as ways). Signpost has
no turn penalties: every row is applied as a **ban**, whatever its ``cost`` (pgr_trsp
lets a path be taken at that cost; a cost far above any route, as restrictions tables
usually hold, gives the same routes). One difference stays: ``pgr_trsp`` never turns back
on an edge (its edge-based graph has no A→A step), while here a u-turn is legal unless a
ban forbids it (as OSRM has it), so a route may be cheaper here by a u-turn that gets
around a ban (never dearer; ``tests/postgis/test_restrictions.py``). The bans go through ``maps.model.turns`` as OSM's
restrictions do (node splitting; ``meta["turn_restrictions"]`` counts read / applied /
skipped, ``info`` shows them). Rows that do not fit are counted by reason and named under
``-v``, never a crash: an empty or NULL path (pgRouting ignores those too: ``empty_path``),
a path of one edge (``one_edge``), a NULL element (``null_edge``), edges that never meet
(``edges_do_not_meet``), an edge not in the map (``edge_not_in_map``), and the reasons of
``maps.model.turns``.

Read in the edge table's transaction (one snapshot); not cached with the map: the bans
are applied on every load (the edge network itself still comes from the cache).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from ..formats.osm_turns import Restriction, TurnReadReport, turn_meta
from .conn import DatabaseError, DbUri, describe

log = logging.getLogger(__name__)


def read_restrictions_table(uri: DbUri, conn: Any) -> list[tuple[int, list | None, Any]]:
    """(id, path, cost) of every row of the table ``uri.restrictions``; DatabaseError
    naming the table and the missing column."""
    from psycopg import sql as q

    name = uri.restrictions or ""
    ident = q.Identifier(*name.split(".", 1))
    where = f"{describe(uri, conn)}, restrictions table {name}"
    try:
        cur = conn.execute(q.SQL("SELECT * FROM {} LIMIT 0").format(ident))
        cols = {c.name for c in cur.description}
    except Exception as exc:  # an undefined table: one line, the transaction stays usable
        raise DatabaseError(f"{where}: cannot read it ({str(exc).splitlines()[0]})") from None
    missing = [c for c in ("id", "path") if c not in cols]
    if missing:
        raise DatabaseError(f"{where}: no column {', '.join(missing)} (pgr_trsp's form: id, "
                            "path (an array of edge ids), cost)")
    cost = q.Identifier("cost") if "cost" in cols else q.SQL("NULL")
    rows = conn.execute(q.SQL("SELECT id, path, {} FROM {} ORDER BY id").format(cost, ident))
    return [(int(r[0]) if r[0] is not None else -1, r[1], r[2]) for r in rows.fetchall()]


def parse_rows(net, rows, report: TurnReadReport) -> None:
    """Rows as Restrictions (module doc) in ``report``; edges are arcs' source ids."""
    src = np.asarray(net.edge_source_id, dtype=np.int64)
    tails = net.arc_sources().astype(np.int64)
    heads = np.asarray(net.indices, dtype=np.int64)
    for rid, path, _cost in rows:
        report.read += 1
        if not path:
            report.skip("empty_path", rid)
            continue
        if any(e is None for e in path):
            report.skip("null_edge", rid)
            continue
        path = [int(e) for e in path]
        if len(path) == 1:
            report.skip("one_edge", rid)
            continue
        if not np.isin(path, src).all():
            report.skip("edge_not_in_map", rid)
            continue
        first, last = path[0], path[-1]
        if len(path) > 2:
            report.restrictions.append(Restriction(
                rel_id=rid, kind="no", value="pgr_trsp", from_ways=(first,), to_ways=(last,),
                via_ways=tuple(path[1:-1])))
            continue
        via = np.intersect1d(heads[src == first], tails[src == last])
        if via.size == 0:
            report.skip("edges_do_not_meet", rid)
            continue
        for v in via.tolist():  # every vertex where A leads into B
            report.restrictions.append(Restriction(
                rel_id=rid, kind="no", value="pgr_trsp", from_ways=(first,), to_ways=(last,),
                via_node=int(net.node_ids[v])))


def with_restrictions(net, uri: DbUri, conn: Any):
    """``net`` with the bans of the table ``uri.restrictions`` applied (module doc)."""
    from ..model.build import build_network
    from ..model.chains import Arcs
    from ..model.turns import apply_restrictions

    report = TurnReadReport()
    parse_rows(net, read_restrictions_table(uri, conn), report)
    m = net.num_arcs
    gi, gxy = net.geom_indptr, net.geom_xy
    geometry: list[np.ndarray | None] = [None] * m
    if gi is not None and gxy is not None:
        geometry = [gxy[int(gi[e]):int(gi[e + 1])] if gi[e + 1] > gi[e] else None
                    for e in range(m)]
    arcs = Arcs(net.arc_sources().astype(np.int64), np.asarray(net.indices, np.int64),
                np.asarray(net.weights, np.int64), np.asarray(net.edge_length),
                np.asarray(net.edge_kind), np.asarray(net.edge_class),
                np.asarray(net.edge_source_id, np.int64), geometry)
    index = {int(v): i for i, v in enumerate(net.node_ids.tolist())}
    skipped: dict[str, list[int]] = report.skipped
    out, copies, applied = apply_restrictions(net.num_nodes, arcs, index, report.restrictions,
                                              skipped)
    # a row of two edges meeting twice is two restrictions: count rows, not bans
    rows_applied = len({r.rel_id for r in report.restrictions}
                       - {i for ids in skipped.values() for i in ids})
    meta = dict(net.meta)
    meta.pop("cache_file", None)  # the cached file holds the map without the bans
    tmeta = turn_meta(report, rows_applied, int(copies.shape[0]))
    tmeta["read"] = report.read
    tmeta["skipped"] = tmeta["read"] - rows_applied
    tmeta["table"] = uri.restrictions
    meta.update(turn_restrictions=tmeta, turn_copies=copies.tolist())
    for reason, ids in tmeta["skipped_ids"].items():
        log.info("%s: %d restrictions skipped (%s): %s", uri.restrictions, len(ids), reason,
                 ", ".join(str(i) for i in ids))
    coords = ({"lon": np.r_[net.lon, net.lon[copies]], "lat": np.r_[net.lat, net.lat[copies]],
               "origin": net.origin} if net.has_coordinates else
              {"x": np.r_[net.x, net.x[copies]], "y": np.r_[net.y, net.y[copies]]})
    return build_network(
        tails=out.tails, heads=out.heads, weights=out.weights,
        node_ids=np.r_[net.node_ids, net.node_ids[copies]], unit=net.unit, profile=net.profile,
        edge_kind=out.kinds, edge_class=out.classes, class_names=list(net.class_names),
        edge_length=out.lengths, edge_source_id=out.source_ids,
        geometry=out.geometry if gi is not None else None, name=net.name,
        source_path=net.source_path, meta=meta, **coords)
