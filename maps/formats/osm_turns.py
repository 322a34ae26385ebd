"""OSM turn restrictions: ``type=restriction`` relations read from an OSM file (issue 39).

Only the ``drive`` profile applies them (``walk``, ``length`` and ``multimodal`` ignore car
restrictions, as OSRM's foot profile does). What is read, per relation:

* the value: ``restriction:motorcar``, else ``restriction:motor_vehicle``, else
  ``restriction`` (another mode's variant alone, e.g. ``restriction:hgv``: counted as
  ``other_mode``, not applied); ``no_*`` bans the from→to turn, ``only_*`` bans every
  other turn from the from-way; another value is skipped (``unknown_value``);
* ``except=*`` naming ``motorcar`` or ``motor_vehicle``: not applied (``excepted``);
* ``restriction:conditional`` (time-dependent) is counted (``conditional``) and **not
  applied**: routes are computed for a time-free graph; a relation that only carries a
  conditional value is not applied at all, one that has a plain value too gets it;
* members: one ``from`` way, one ``to`` way (a ``no_*`` may name several of each: every
  pair is banned), and ``via`` one node or one or more ways in order.

A relation whose members are missing or of the wrong kind is skipped with a reason
(``maps.model.turns`` then skips those that do not fit the graph: a from-way that does not
reach the via, a member outside the extract). Nothing here raises on a bad relation.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

CAR_KEYS = ("restriction:motorcar", "restriction:motor_vehicle", "restriction")
CAR_MODES = {"motorcar", "motor_vehicle", "vehicle"}


@dataclass(frozen=True)
class Restriction:
    """One readable restriction: ``kind`` is "no" or "only"; ``via_node`` (an OSM node id)
    or ``via_ways`` (OSM way ids, in relation order) is set."""

    rel_id: int
    kind: str
    value: str
    from_ways: tuple[int, ...]
    to_ways: tuple[int, ...]
    via_node: int | None = None
    via_ways: tuple[int, ...] = ()


@dataclass
class TurnReadReport:
    """What reading found: ``read`` relations of ``type=restriction``, the usable ones in
    ``restrictions`` and, per reason, the ids of those skipped (``skipped``)."""

    read: int = 0
    conditional: int = 0
    restrictions: list[Restriction] = field(default_factory=list)
    skipped: dict[str, list[int]] = field(default_factory=dict)

    def skip(self, reason: str, rel_id: int) -> None:
        self.skipped.setdefault(reason, []).append(rel_id)


def _value(tags: dict[str, str]) -> str | None:
    for key in CAR_KEYS:
        v = tags.get(key)
        if v:
            return v.strip()
    return None


def parse_relation(rel_id: int, tags: dict[str, str], members: list[tuple[str, int, str]],
                   report: TurnReadReport) -> None:
    """Add one ``type=restriction`` relation (``members``: (type "n"/"w"/"r", ref, role))
    to ``report``: a Restriction, or a skip reason."""
    report.read += 1
    conditional = any(k.startswith("restriction") and k.endswith(":conditional") for k in tags)
    report.conditional += conditional
    value = _value(tags)
    if value is None:
        other = [k for k in tags if k.startswith("restriction:") and not k.endswith("conditional")]
        if other:
            report.skip("other_mode", rel_id)
        elif conditional:
            report.skip("conditional_only", rel_id)
        else:
            report.skip("no_value", rel_id)
        return
    excepted = {m.strip() for m in tags.get("except", "").split(";")}
    if excepted & CAR_MODES:
        report.skip("excepted", rel_id)
        return
    kind = value.split("_", 1)[0]
    if kind not in ("no", "only") or "_" not in value:
        report.skip("unknown_value", rel_id)
        return
    froms = tuple(ref for t, ref, role in members if role == "from" and t == "w")
    tos = tuple(ref for t, ref, role in members if role == "to" and t == "w")
    via_n = [ref for t, ref, role in members if role == "via" and t == "n"]
    via_w = tuple(ref for t, ref, role in members if role == "via" and t == "w")
    if not froms or not tos:
        report.skip("missing_from_or_to", rel_id)
        return
    if (via_n and via_w) or len(via_n) > 1 or not (via_n or via_w):
        report.skip("bad_via", rel_id)
        return
    if kind == "only" and (len(froms) > 1 or len(tos) > 1):
        report.skip("only_with_several_from_or_to", rel_id)
        return
    report.restrictions.append(Restriction(
        rel_id=rel_id, kind=kind, value=value, from_ways=froms, to_ways=tos,
        via_node=via_n[0] if via_n else None, via_ways=via_w,
    ))


def read_restrictions(path: str) -> TurnReadReport:
    """Every ``type=restriction`` relation of the OSM file ``path`` (module doc)."""
    import osmium  # lazy: the GPU machine has no osmium

    report = TurnReadReport()
    fp = osmium.FileProcessor(path, osmium.osm.RELATION).with_filter(
        osmium.filter.TagFilter(("type", "restriction"))
    )
    for rel in fp:
        if not rel.is_relation():
            continue
        members = [(m.type, int(m.ref), m.role) for m in rel.members]
        parse_relation(int(rel.id), dict(rel.tags), members, report)
    return report


def turn_meta(report: TurnReadReport, applied: int, copies: int) -> dict:
    """``meta["turn_restrictions"]``: counts, and the skipped relation ids by reason."""
    skipped = {k: sorted(v) for k, v in sorted(report.skipped.items())}
    return {
        "read": report.read,
        "applied": applied,
        "skipped": sum(len(v) for v in skipped.values()),
        "conditional": report.conditional,
        "conditional_applied": 0,
        "node_copies": copies,
        "skipped_by_reason": {k: len(v) for k, v in skipped.items()},
        "skipped_ids": skipped,
    }


def member_ways(report: TurnReadReport) -> set[int]:
    """Every way a usable restriction names (their nodes stay unmerged under --contract)."""
    return {w for r in report.restrictions for w in (*r.from_ways, *r.to_ways, *r.via_ways)}


def with_restrictions(path: str, n: int, arcs, ids, report: TurnReadReport | None = None):
    """Apply the file's restrictions to ``arcs`` over ``n`` nodes whose OSM ids are ``ids``.
    Returns (arcs, original of each copy, meta dict)."""
    import numpy as np

    from ..model.turns import apply_restrictions

    if report is None:
        report = read_restrictions(path)
    index = {int(v): i for i, v in enumerate(np.asarray(ids).tolist())}
    out, copies, applied = apply_restrictions(n, arcs, index, report.restrictions,
                                              report.skipped)
    meta = turn_meta(report, applied, int(copies.shape[0]))
    for reason, rels in meta["skipped_ids"].items():
        log.info("%s: %d turn restrictions skipped (%s): %s", path, len(rels), reason,
                 ", ".join(f"r{i}" for i in rels))
    return out, copies, meta


def turn_nodes(arcs, report: TurnReadReport):
    """Nodes on the ways restrictions name, kept by ``--contract`` so that an arc there stays
    one way's (its ``edge_source_id`` names the way at both ends)."""
    import numpy as np

    ways = member_ways(report)
    on = np.isin(arcs.source_ids, np.fromiter(ways, dtype=np.int64, count=len(ways)))
    return np.unique(np.r_[arcs.tails[on], arcs.heads[on]]).astype(np.int64)
