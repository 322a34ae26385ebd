"""Scenario files: a GeoJSON FeatureCollection, one feature per edit, applied in order.

Properties: ``action`` (close, open, set_speed_kmh, set_cost, add, remove); the target
``nodes: [A, B]`` (source-file node ids; both directions unless ``oneway: true``) or
``way: ID``, with ``geometry`` null; else the geometry: a Point (the road it snaps to), a
Polygon (every arc with a part inside; no holes) or, for ``add``, a LineString (a new link
between its snapped ends); ``value`` for the ``set_`` actions (km/h, or the cost in the
map's unit); ``add`` may give ``road_class``, ``speed_kmh`` or ``value`` (its cost);
``ban_turn`` / ``lift_turn`` take ``turn: [FROM_WAY, VIA_NODE, TO_WAY]`` (ids as in the
file), with ``geometry`` null.
Features are numbered from 1 in messages.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from .model import ACTIONS, Edit, EditError, check_edit

_KNOWN = {"action", "nodes", "oneway", "way", "value", "road_class", "speed_kmh", "turn"}


def read_scenario(path: str | os.PathLike) -> list[Edit]:
    """The edits of a scenario file, in order (EditError / MapFormatError naming the file
    and the feature)."""
    from maps.source import load_json, read_bounded

    path = os.fspath(path)
    try:
        data = read_bounded(path, text="GeoJSON")
    except OSError as exc:
        raise EditError(path, f"cannot read the scenario: {exc.strerror or exc}") from None
    doc = load_json(data, path, "GeoJSON")
    if not isinstance(doc, dict) or doc.get("type") != "FeatureCollection":
        raise EditError(path, "a scenario is a GeoJSON FeatureCollection")
    feats = doc.get("features")
    if not isinstance(feats, list):
        raise EditError(path, "the FeatureCollection has no features list")
    return [_edit_of(f, i + 1, path) for i, f in enumerate(feats)]


def _edit_of(feat: Any, k: int, path: str) -> Edit:
    props = feat.get("properties") if isinstance(feat, dict) else None
    action = props.get("action") if isinstance(props, dict) else None
    label = f"{path}: feature {k}" + (f" (action {action})" if isinstance(action, str) else "")
    if not isinstance(feat, dict) or feat.get("type") != "Feature":
        raise EditError(label, "not a GeoJSON Feature")
    if not isinstance(props, dict):
        raise EditError(label, "has no properties (an action is needed)")
    if not isinstance(action, str) or action not in ACTIONS:
        raise EditError(label, f"action {action!r} is not one of {', '.join(ACTIONS)}")
    kw: dict[str, Any] = {"action": action, "label": label}
    nodes = props.get("nodes")
    if nodes is not None:
        if (not isinstance(nodes, list) or len(nodes) != 2
                or not all(_is_id(v) for v in nodes)):
            raise EditError(label, f"nodes must be [A, B], two node ids, got {_short(nodes)}")
        kw["nodes"] = tuple(nodes)
    turn = props.get("turn")
    if turn is not None:
        if (not isinstance(turn, list) or len(turn) != 3 or not all(_is_id(v) for v in turn)
                or not all(isinstance(turn[i], int) for i in (0, 2))):
            raise EditError(label, f"turn must be [FROM_WAY, VIA_NODE, TO_WAY] (way ids are "
                                   f"integers), got {_short(turn)}")
        kw["turn"] = tuple(turn)
    oneway = props.get("oneway", False)
    if not isinstance(oneway, bool):
        raise EditError(label, f"oneway must be true or false, got {_short(oneway)}")
    kw["oneway"] = oneway
    if props.get("way") is not None:
        if not _is_id(props["way"]):
            raise EditError(label, f"way must be an id, got {_short(props['way'])}")
        kw["way"] = str(props["way"])
    for name in ("value", "speed_kmh"):
        if props.get(name) is not None:
            v = props[name]
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise EditError(label, f"{name} must be a number, got {_short(v)}")
            kw[name] = float(v) if isinstance(v, float) else v
    if props.get("road_class") is not None:
        if not isinstance(props["road_class"], str) or not props["road_class"]:
            raise EditError(label, f"road_class must be a name, got {_short(props['road_class'])}")
        kw["road_class"] = props["road_class"]
    kw.update(_geometry(feat.get("geometry"), action, label))
    try:
        return check_edit(Edit(**kw))
    except OverflowError:
        raise EditError(label, "a number is out of range") from None


def _is_id(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, str) and v != "")


def _short(v: Any) -> str:
    s = json.dumps(v) if not isinstance(v, str) else repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _positions(coords: Any, label: str, what: str) -> tuple[tuple[float, float], ...]:
    if not isinstance(coords, list):
        raise EditError(label, f"{what}: coordinates must be a list of positions")
    out = []
    for p in coords:
        if (not isinstance(p, list) or len(p) < 2
                or not all(isinstance(c, (int, float)) and not isinstance(c, bool)
                           for c in p[:2])):
            raise EditError(label, f"{what}: bad position {_short(p)}")
        out.append((float(p[0]), float(p[1])))
    return tuple(out)


def _geometry(geom: Any, action: str, label: str) -> dict[str, Any]:
    if geom is None:
        return {}
    if not isinstance(geom, dict):
        raise EditError(label, "geometry must be a GeoJSON geometry or null")
    kind = geom.get("type")
    coords = geom.get("coordinates")
    if kind == "Point":
        pt = _positions([coords], label, "Point")
        return {"point": pt[0]}
    if kind == "LineString":
        return {"line": _positions(coords, label, "LineString")}
    if kind == "Polygon":
        if not isinstance(coords, list) or not coords:
            raise EditError(label, "Polygon: no rings")
        if len(coords) > 1:
            raise EditError(label, "Polygon: holes are not supported (give the outer ring only)")
        ring = _positions(coords[0], label, "Polygon")
        if len(ring) > 1 and ring[0] == ring[-1]:
            ring = ring[:-1]  # GeoJSON repeats the first position; kept open here
        return {"polygon": ring}
    raise EditError(label, f"geometry type {kind!r} is not Point, Polygon or LineString "
                           f"(action {action})")


def feature_of(edit: Edit) -> dict[str, Any]:
    """The GeoJSON Feature of one edit (what :func:`read_scenario` reads back)."""
    props: dict[str, Any] = {"action": edit.action}
    if edit.nodes is not None:
        props["nodes"] = list(edit.nodes)
    if edit.turn is not None:
        props["turn"] = list(edit.turn)
    if edit.oneway:
        props["oneway"] = True
    if edit.way is not None:
        w = str(edit.way)
        props["way"] = int(w) if w.lstrip("-").isdigit() and len(w) < 19 else w
    for name in ("value", "road_class", "speed_kmh"):
        if getattr(edit, name) is not None:
            props[name] = getattr(edit, name)
    geom: dict[str, Any] | None = None
    if edit.point is not None:
        geom = {"type": "Point", "coordinates": list(edit.point)}
    elif edit.polygon is not None:
        ring = [list(p) for p in edit.polygon]
        geom = {"type": "Polygon", "coordinates": [ring + [ring[0]]]}
    elif edit.line is not None:
        geom = {"type": "LineString", "coordinates": [list(p) for p in edit.line]}
    return {"type": "Feature", "properties": props, "geometry": geom}


def write_scenario(path: str | os.PathLike, edits: Sequence[Edit]) -> None:
    """Write ``edits`` as a scenario file (whole or not at all: osutil.atomic)."""
    from osutil.atomic import write_atomic

    doc = {"type": "FeatureCollection", "features": [feature_of(e) for e in edits]}
    text = json.dumps(doc, indent=1, allow_nan=False) + "\n"
    write_atomic(path, lambda fh: fh.write(text))
