"""What each action does to the target arcs, as edits of a Stage's batch: close, open,
remove, set_cost, set_speed_kmh, and add (a new link, splitting the roads its ends snap
to mid-arc). Costs follow the map's profile (``maps.model.profiles``) and unit."""

from __future__ import annotations

import math

import numpy as np

from gpu_core.dynamic import ARC_DISABLED, ARC_LIVE
from maps.errors import ProfileError
from maps.geo.projection import to_xy
from maps.model.network import KIND_ROAD, WEIGHT_UNITS
from maps.model.profiles import PROFILES, arc_weight, to_weight
from maps.model.weights import unit_scale

from .model import Edit, EditError
from .stage import Stage
from .store import cut, locate, polyline_length
from .turn_links import base_of, link_arcs, restricted, split_road

MAX_WEIGHT = 2**31 - 1
# An end of an added link this close to a node (metres along the arc) joins that node
# instead of splitting the arc.
END_TOLERANCE_M = 1.0


def exact_cost(net, value: float, label: str) -> int:
    """A cost in the map's unit as given: an integer 0..2^31-1, else EditError."""
    unit = WEIGHT_UNITS.get(net.unit, net.unit)
    if isinstance(value, float) and not value.is_integer():
        raise EditError(label, f"cost {value} is not a whole number of {unit} (the map's "
                               f"unit is {net.unit})")
    v = int(value)
    if not 0 <= v <= MAX_WEIGHT:
        raise EditError(label, f"cost {v} is outside 0..{MAX_WEIGHT} (int32 weights)")
    return v


def speed_weights(net, lengths_m: np.ndarray, speed_kmh: float, label: str) -> np.ndarray:
    """Weights of arcs of these lengths at ``speed_kmh``, in the map's time unit, rounded
    as every profile rounds (max(1, round)); EditError on maps whose costs are not times."""
    sc = unit_scale(net.unit)
    if sc is None or sc[0] != "time":
        why = ("its costs are lengths" if sc is not None and sc[0] == "length" else
               "its costs are the file's own numbers")
        raise EditError(label, f"a speed has no meaning on this map: {why} "
                               f"({WEIGHT_UNITS.get(net.unit, net.unit)}, profile {net.profile}); "
                               "use set_cost")
    if not net.has_coordinates:
        raise EditError(label, "a speed has no meaning on this map: it has no coordinates, "
                               "so no lengths; use set_cost")
    seconds = np.asarray(lengths_m, dtype=np.float64) * 3.6 / float(speed_kmh)
    w = np.asarray(to_weight(seconds * 10 ** sc[1]), dtype=np.int64).reshape(-1)
    if w.size and int(w.max()) > MAX_WEIGHT:
        raise EditError(label, f"at {speed_kmh} km/h a cost exceeds {MAX_WEIGHT} (int32)")
    return w


def apply_action(sc, stage: Stage, edit: Edit, arcs: list[int], label: str) -> None:
    """Put the edits of ``edit`` on ``arcs`` (current arc ids) into the stage's batch."""
    state = sc.graph.host.state  # host mirror: the state byte per arc id
    ids = np.asarray(arcs, dtype=np.int64)
    b = stage.batch
    if edit.action == "close":
        b.disable(ids[state[ids] == ARC_LIVE])
    elif edit.action == "remove":
        b.disable(ids[state[ids] == ARC_LIVE])
        stage.removed.update(e for e in arcs if e not in sc._removed)
    elif edit.action == "open":
        back = [e for e in arcs if state[e] == ARC_DISABLED and e not in sc._removed]
        b.enable(np.asarray(back, dtype=np.int64))
    elif edit.action == "set_cost":
        assert edit.value is not None  # check_edit: set_cost needs a value
        b.set_weight(ids, exact_cost(sc.base, edit.value, label))
    elif edit.action == "set_speed_kmh":
        assert edit.value is not None  # check_edit: set_speed_kmh needs a value
        lengths = np.array([sc.store.attrs(e)[2] for e in arcs])
        b.set_weight(ids, speed_weights(sc.base, lengths, edit.value, label))
    stage.touched.extend(arcs)


# ---- add --------------------------------------------------------------------------------
def link_weight(net, edit: Edit, length_m: float, label: str) -> int:
    """The cost of an added link: ``value`` as given, else ``speed_kmh``, else the
    profile's rule for ``road_class`` (default "road")."""
    if edit.value is not None:
        return exact_cost(net, edit.value, label)
    if edit.speed_kmh is not None:
        return int(speed_weights(net, np.array([length_m]), edit.speed_kmh, label)[0])
    if net.profile not in PROFILES:
        raise EditError(label, f"this map's costs do not come from a profile ({net.profile}, "
                               f"{WEIGHT_UNITS.get(net.unit, net.unit)}): give the link's "
                               "cost as value" + (", or speed_kmh" if
                                                  (unit_scale(net.unit) or ("",))[0] == "time"
                                                  else ""))
    cls = edit.road_class or "road"
    try:
        w = arc_weight(net.profile, cls, length_m)
    except ProfileError as exc:
        raise EditError(label, exc.detail) from None
    if w > MAX_WEIGHT:
        raise EditError(label, f"the link's cost {w} exceeds {MAX_WEIGHT} (int32)")
    return w


def _end(sc, lonlat, label: str):
    """(node or None, hit, road arcs) of one end of an added link."""
    hit = sc.targets.snap(lonlat[0], lonlat[1], label)
    st = sc.store
    along, total, _ = locate(st.polyline(hit.arc), hit.x, hit.y)
    t, h = st.ends(hit.arc)
    if along <= END_TOLERANCE_M:
        return t, hit, []
    if total - along <= END_TOLERANCE_M:
        return h, hit, []
    state = sc.graph.host.state
    road = [e for e in sc.targets.road(hit.arc) if state[e] == ARC_LIVE]
    if not road:
        raise EditError(label, f"the road at {lonlat[0]},{lonlat[1]} is closed: open it before "
                               "joining a link to it")
    return None, hit, road


def _split(sc, stage: Stage, arc: int, points: list[tuple[float, float, int]]) -> None:
    """Split ``arc`` at ``points`` (x, y, new vertex): a chain of pieces keeping its kind,
    class, way id, its weight (shared by length, the sum exact) and its geometry."""
    st = sc.store
    poly = st.polyline(arc)
    t, h = st.ends(arc)
    kind, cls, length, src = st.attrs(arc)
    w = int(sc.graph.host.weight[arc])
    total = polyline_length(poly)
    at = sorted((locate(poly, x, y)[0], v) for x, y, v in points)
    cuts = [0.0] + [a for a, _ in at] + [total]
    verts = [t] + [v for _, v in at] + [h]
    frac = [c / total if total > 0 else 0.0 for c in cuts]
    upto = [int(np.rint(w * f)) for f in frac]
    upto[-1] = w
    pieces = []
    for k in range(len(verts) - 1):
        pieces.append(stage.insert(verts[k], verts[k + 1], upto[k + 1] - upto[k], kind, cls,
                                   length * (frac[k + 1] - frac[k]), src,
                                   cut(poly, cuts[k], cuts[k + 1])))
    stage.batch.disable([arc])
    stage.replaced[arc] = tuple(pieces)


def add_link(sc, stage: Stage, edit: Edit, label: str) -> None:
    """A new link between the snapped ends of ``edit.line`` (both ways unless oneway);
    an end that lands mid-arc splits that road at a new vertex."""
    line = edit.line
    assert line is not None  # check_edit: add needs a line
    ends = [_end(sc, line[0], label), _end(sc, line[-1], label)]
    nodes: list[int] = []
    splits: dict[int, list[tuple[float, float, int]]] = {}
    made: list[tuple[float, float, int]] = []
    for node, hit, road in ends:
        if node is None:
            same = [v for x, y, v in made if math.hypot(x - hit.x, y - hit.y) <= END_TOLERANCE_M]
            node = same[0] if same else stage.vertex(hit.x, hit.y)
            if not same:
                made.append((hit.x, hit.y, node))
                for e in road:
                    splits.setdefault(e, []).append((hit.x, hit.y, node))
        nodes.append(node)
    turns = restricted(sc)
    if turns:  # a copy's end is its node: the link leaves every copy, lands on the node
        nodes = [base_of(sc, v) for v in nodes]
    a, b = nodes
    if a == b:
        raise EditError(label, "both ends of the link snap to the same place of the network")
    if turns:
        for road in _roads(splits):
            split_road(sc, stage, road, splits)
    else:
        for e, pts in splits.items():
            _split(sc, stage, e, pts)
    ring = np.asarray(line[1:-1], dtype=np.float64).reshape(-1, 2)
    ix, iy = to_xy(ring[:, 0], ring[:, 1], sc.base.origin)
    inner = np.column_stack([ix, iy])
    poly = np.vstack([stage.vertex_xy(a), inner, stage.vertex_xy(b)])
    length = polyline_length(poly)
    w = link_weight(sc.base, edit, length, label)
    try:
        cls = stage.class_index(edit.road_class or "road")
    except ValueError as exc:
        raise EditError(label, str(exc)) from None
    if turns:
        link_arcs(sc, stage, a, b, w, cls, length, inner, KIND_ROAD)
        if not edit.oneway:
            link_arcs(sc, stage, b, a, w, cls, length, inner[::-1], KIND_ROAD)
        return
    stage.insert(a, b, w, KIND_ROAD, cls, length, -1, inner)
    if not edit.oneway:
        stage.insert(b, a, w, KIND_ROAD, cls, length, -1, inner[::-1])


def _roads(splits: dict[int, list]) -> list[list[int]]:
    """The split arcs grouped by road: arcs of one end's road split together (both ends
    on one road: one group, cut at both points)."""
    groups: list[set[int]] = []
    for e, pts in splits.items():
        # arcs split at the same vertex belong to one road (targets.road of one hit)
        key = {v for _, _, v in pts}
        joined = [g for g in groups if any(key & {v for _, _, v in splits[f]} for f in g)]
        merged = {e}.union(*joined) if joined else {e}
        groups = [g for g in groups if g not in joined] + [merged]
    return [sorted(g) for g in groups]
