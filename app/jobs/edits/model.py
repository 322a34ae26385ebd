"""What an edit is (:class:`Edit`), the ``--close`` forms (:func:`parse_close`) and the
error every bad edit raises (:class:`EditError`)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from maps.errors import MapError

# The actions of a scenario feature, in the order the docs list them.
ACTIONS = ("close", "open", "set_speed_kmh", "set_cost", "add", "remove", "ban_turn",
           "lift_turn")
# Actions on a turn (from-way, via node, to-way) rather than on roads (issue 39).
TURN_ACTIONS = ("ban_turn", "lift_turn")
# Actions whose ``value`` is required.
VALUE_ACTIONS = ("set_speed_kmh", "set_cost")


class EditError(MapError, ValueError):
    """A bad edit: the message names the edit (its label) and the bad value. A MapError,
    so the CLI prints it in one line and exits with status 2."""

    def __init__(self, label: str, why: str):
        super().__init__(f"{label}: {why}" if label else why)
        self.label = label
        self.why = why


@dataclass(frozen=True)
class Edit:
    """One edit of a map, addressed the way users think (module docs of ``app.jobs.edits``).

    Exactly one target: ``nodes`` (source-file node ids; both directions unless
    ``oneway``), ``way``, ``point`` (lon, lat), ``polygon`` (exterior ring, lon/lat) or,
    for ``add``, ``line``; for ``ban_turn`` / ``lift_turn``, ``turn`` (from-way id, via
    node id, to-way id: the turn banned or made legal again). ``value``: km/h for set_speed_kmh, the cost in the map's unit
    for set_cost (and for add: the new link's cost). ``road_class`` or ``speed_kmh``
    price an added link by the map's profile instead."""

    action: str
    nodes: tuple | None = None
    oneway: bool = False
    way: str | None = None
    point: tuple[float, float] | None = None
    polygon: tuple[tuple[float, float], ...] | None = None
    line: tuple[tuple[float, float], ...] | None = None
    value: float | None = None
    road_class: str | None = None
    label: str = field(default="", compare=False)
    speed_kmh: float | None = None  # add: price the link at this speed (time-unit maps)
    turn: tuple | None = None  # ban_turn / lift_turn: (from-way, via node, to-way) ids

    def target(self) -> str:
        """The target in words, for messages and the GUI's list ("nodes 1,2", "way 7")."""
        if self.turn is not None:
            f, v, t = self.turn
            return f"turn way {f} -> node {v} -> way {t}"
        if self.nodes is not None:
            a, b = self.nodes
            return f"arc {a}->{b}" if self.oneway else f"nodes {a},{b}"
        if self.way is not None:
            return f"way {self.way}"
        if self.point is not None:
            return f"point {_num(self.point[0])},{_num(self.point[1])}"
        if self.polygon is not None:
            return f"polygon of {len(self.polygon)} points"
        if self.line is not None:
            return f"line of {len(self.line)} points"
        return "no target"

    def describe(self) -> str:
        """One line: action, target and value."""
        v = "" if self.value is None else f" = {_num(self.value)}"
        return f"{self.action} {self.target()}{v}"


def _num(v: float) -> str:
    return f"{v:.7f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v)


def node_key(text: str) -> int | str:
    """A node id as typed: an int when it reads as one, else the text (GraphML names)."""
    t = text.strip()
    if re.fullmatch(r"[-+]?[0-9]{1,19}", t):  # ASCII digits only: int() reads any script
        return int(t)
    return t


_FLOAT = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"  # ASCII, as float() is not
_LONLAT = re.compile(rf"^\s*({_FLOAT})\s*,\s*({_FLOAT})\s*$")
FORMS = "nodes:A,B, arc:A,B, way:ID or LON,LAT"


def parse_close(spec: str) -> Edit:
    """A ``--close`` value as a close Edit: ``nodes:A,B`` (both directions), ``arc:A,B``
    (A->B only), ``way:ID`` or ``LON,LAT`` (the road the point snaps to). EditError naming
    the spec when it is none of these."""
    label = f"--close {spec}"
    text = spec.strip()
    kind, sep, rest = text.partition(":")
    kind = kind.strip().lower()
    if sep and kind in ("nodes", "arc"):
        parts = [p.strip() for p in rest.split(",")]
        if len(parts) != 2 or not all(parts):
            raise EditError(label, f"{kind}: needs two node ids, {kind}:A,B")
        a, b = (node_key(p) for p in parts)
        if a == b:
            raise EditError(label, f"{kind}: both ends are node {a}")
        return Edit("close", nodes=(a, b), oneway=kind == "arc", label=label)
    if sep and kind == "way":
        way = rest.strip()
        if not way:
            raise EditError(label, "way: needs an id, way:ID")
        return Edit("close", way=way, label=label)
    m = _LONLAT.match(text)
    if m:
        lon, lat = float(m.group(1)), float(m.group(2))
        check_lonlat(label, lon, lat)
        return Edit("close", point=(lon, lat), label=label)
    raise EditError(label, f"not one of {FORMS}")


def parse_turn(spec: str, action: str = "ban_turn") -> Edit:
    """A ``--ban-turn`` / ``--lift-turn`` value ``FROM_WAY,VIA_NODE,TO_WAY`` (the way ids
    and the node id as the file has them) as a ban_turn / lift_turn Edit; EditError naming
    the spec otherwise."""
    label = f"--{action.replace('_', '-')} {spec}"
    parts = [p.strip() for p in spec.split(",")]
    if len(parts) != 3 or not all(parts):
        raise EditError(label, "needs FROM_WAY,VIA_NODE,TO_WAY (two way ids and a node id)")
    f, v, t = (node_key(p) for p in parts)
    for name, w in (("from-way", f), ("to-way", t)):
        if not isinstance(w, int):
            raise EditError(label, f"{name} {w!r} is not a way id (way ids are integers)")
    return Edit(action, turn=(f, v, t), label=label)


def check_lonlat(label: str, lon: float, lat: float) -> None:
    """EditError unless (lon, lat) are finite degrees in range (LAT,LON typed the other
    way round shows up here as a latitude beyond 90)."""
    if not (math.isfinite(lon) and math.isfinite(lat)):
        raise EditError(label, f"coordinates {lon},{lat} are not finite numbers")
    if not -180.0 <= lon <= 180.0:
        raise EditError(label, f"longitude {lon} is outside -180..180")
    if not -90.0 <= lat <= 90.0:
        raise EditError(label, f"latitude {lat} is outside -90..90 (points are LON,LAT)")


def check_edit(edit: Edit) -> Edit:
    """``edit`` itself, or EditError naming what is wrong with its shape (action, target,
    value), before any map is looked at."""
    label = edit.label or edit.describe()
    if edit.action not in ACTIONS:
        raise EditError(label, f"unknown action {edit.action!r}; choose one of "
                               f"{', '.join(ACTIONS)}")
    targets = [t for t in ("nodes", "way", "point", "polygon", "line", "turn")
               if getattr(edit, t) is not None]
    if edit.action in TURN_ACTIONS or "turn" in targets:
        _check_turn(edit, label, targets)
    elif edit.action == "add":
        _check_new_link(edit, label, targets)
    else:
        _check_target(edit, label, targets)
    _check_values(edit, label)
    return edit


def _check_turn(edit: Edit, label: str, targets: list[str]) -> None:
    if edit.action not in TURN_ACTIONS:
        raise EditError(label, f"a turn is the target of ban_turn and lift_turn, not of "
                               f"{edit.action}")
    if targets != ["turn"] or edit.turn is None:
        raise EditError(label, f"{edit.action} needs one target: turn [FROM_WAY, VIA_NODE, "
                               "TO_WAY]" + (f" (got {', '.join(targets)})" if targets else ""))
    if len(edit.turn) != 3:
        raise EditError(label, f"turn must be [FROM_WAY, VIA_NODE, TO_WAY], got "
                               f"{list(edit.turn)}")


def _check_new_link(edit: Edit, label: str, targets: list[str]) -> None:
    if targets != ["line"] or edit.line is None:
        raise EditError(label, "add needs a LineString geometry (the new link) and no "
                               "other target")
    if len(edit.line) < 2:
        raise EditError(label, "add: the line needs at least two points")
    for lon, lat in edit.line:
        check_lonlat(label, lon, lat)


def _check_target(edit: Edit, label: str, targets: list[str]) -> None:
    """The one target of an edit of existing roads (nodes, way, point or polygon)."""
    if len(targets) != 1 or targets == ["line"]:
        raise EditError(label, f"{edit.action} needs one target: nodes [A, B], way ID, a "
                               "Point or a Polygon" + (f" (got {', '.join(targets)})"
                                                      if targets else ""))
    if edit.point is not None:
        check_lonlat(label, *edit.point)
    if edit.polygon is not None:
        if len(edit.polygon) < 3:
            raise EditError(label, "the polygon needs at least three corners")
        for lon, lat in edit.polygon:
            check_lonlat(label, lon, lat)
    if edit.nodes is not None and (len(edit.nodes) != 2 or edit.nodes[0] == edit.nodes[1]):
        raise EditError(label, f"nodes must be two different node ids, got {list(edit.nodes)}")


def _check_values(edit: Edit, label: str) -> None:
    """value / speed_kmh / road_class: present where the action needs them, numbers."""
    if edit.action in VALUE_ACTIONS:
        if edit.value is None:
            raise EditError(label, f"{edit.action} needs a value")
    elif edit.value is not None and edit.action != "add":
        raise EditError(label, f"{edit.action} takes no value (got {edit.value})")
    for name in ("value", "speed_kmh"):
        v = getattr(edit, name)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                              or not math.isfinite(v)):
            raise EditError(label, f"{name} {v!r} is not a finite number")
    if edit.action == "set_speed_kmh" and edit.value is not None and not edit.value > 0:
        raise EditError(label, f"speed {edit.value} km/h: give a speed above 0")
    if edit.speed_kmh is not None and (edit.action != "add" or not edit.speed_kmh > 0):
        raise EditError(label, "speed_kmh is for add, a speed above 0")
    if edit.road_class is not None and edit.action != "add":
        raise EditError(label, "road_class is for add")
    if edit.action == "add" and edit.value is not None and edit.speed_kmh is not None:
        raise EditError(label, "add: give value (the link's cost) or speed_kmh, not both")
