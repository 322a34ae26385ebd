"""OpenStreetMap loader: .osm.pbf / .osm / .osm.bz2 / .osm.gz → :class:`RoadNetwork`.
(Over 500 lines: one pass of pyosmium's handlers and the road/rail rules they apply.)

Reads the file once with pyosmium's ``FileProcessor`` (node locations cached, only objects
with a ``highway``, ``railway`` or ``public_transport`` tag reach Python) and builds the
graph of one weight profile (``maps.model.profiles``). Choices, in the order they apply:

* **Ways.** Roads are ``highway=*`` ways the profile may use, in the directions it may use
  them (``maps.model.profiles.directions``: access/foot/motor_vehicle/vehicle = no/private,
  ``oneway`` yes/1/true/-1, reversible ways left out of ``drive``, roundabouts and
  motorways one-way for cars). Railways (``railway`` = rail, light_rail, subway, tram,
  monorail; lifecycle-tagged, yard/siding/spur and tourist lines left out) only in
  ``multimodal``, both directions.
* **Graph nodes** are every OSM node of a used way (so any node id of the file can be
  routed from exactly); with ``contract=True`` only way endpoints, nodes shared by two or
  more ways (or met twice by one way), station anchors and transfer anchors, and then
  degree-2 chains are merged. Node ids are the OSM node ids. A node
  shared by a road and a railway (a level crossing, street-running tram) gets a separate
  rail copy with id ``RAIL_COPY_OFFSET + osm_id``, so nobody boards a train at a level
  crossing: road and rail meet only through transfer arcs. Every other point of a way
  becomes inner geometry of the arc it lies on (``geom_indptr``/``geom_xy``).
* **Missing nodes.** Extracts clipped at a boundary contain ways whose nodes lie outside
  the file; a way is cut at every node without a location and its pieces kept.
* **Stations** (multimodal): nodes with ``railway`` = station, halt, stop, tram_stop, or
  ``public_transport`` = stop_position/station on a rail way (or tagged train/subway/
  tram/light_rail/monorail=yes). A station on a rail way is its own rail anchor; one off
  the track is anchored at the nearest rail point within ``station_radius_m`` (300 m).
  Each anchor is joined to the nearest walkable road point within the same radius by
  two transfer arcs (kind ``transfer``, class "transfer", weight = 120 s + the walk,
  ``edge_source_id`` = the station's OSM node id). Stations with no road or track that
  near get no transfer.
* **Lengths** are haversine sums along the geometry (metres); weights follow the profile
  (``maps.model.profiles``: max(1, round(cost)) in dm or ds).
* ``contract=True`` then merges degree-2 chains (``maps.model.chains``), costs unchanged.
* **Turn restrictions** (``drive`` only; ``maps.formats.osm_turns``, ``maps.model.turns``):
  via nodes split into copies, numbered after the file's nodes (``meta["turn_copies"]``).
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable

import numpy as np

from ..errors import EmptyMapError, LoadCancelled, MapError, MapFormatError, ProfileError
from ..geo.projection import centre_of, haversine_m, to_xy
from ..model import profiles as P
from ..model.build import network_from_arcs
from ..model.chains import Arcs, contract_chains
from ..model.lines import class_table, orient, split_pieces
from ..model.network import KIND_RAIL, KIND_ROAD, KIND_TRANSFER, RoadNetwork
from ..model.weights import WeightSpec, apportion, scale_values
from ..source import check_memory, iter_chunks
from .osm_turns import read_restrictions, turn_nodes, with_restrictions

Progress = Callable[[float, str], None]
Cancel = Callable[[], bool]

RAIL_COPY_OFFSET = 10**15  # id of the rail copy of a node shared with a road (module doc)
STATION_RADIUS_M = 300.0
_READ_SHARE = 0.6  # share of the progress bar given to reading the file
_CHECK_EVERY = 2048  # objects between cancel checks / progress reports


class _Raw:
    """What one pass over the file collects."""

    def __init__(self) -> None:
        self.seg_way: list[int] = []  # per segment: way id
        self.seg_kind: list[int] = []  # KIND_ROAD / KIND_RAIL
        self.seg_cls: list[str] = []
        self.seg_fwd: list[bool] = []
        self.seg_bwd: list[bool] = []
        self.seg_speed: list[float] = []
        self.seg_cost: list[float] = []  # per segment: its way's --weight value
        self.seg_start: list[int] = [0]  # offsets into the point lists
        self.refs: list[int] = []
        self.lon: list[float] = []
        self.lat: list[float] = []
        self.station_cand: dict[int, tuple[float, float, dict[str, str]]] = {}
        self.ways_seen = 0  # highway/railway ways read, usable or not
        # Negative ids (files saved by JOSM) are not kept by osmium's location cache:
        # their locations, when a second pass collected them, and whether one was missed.
        self.neg_locs: dict[int, tuple[float, float]] | None = None
        self.neg_missing = False


def _osm_path_error(path: str, exc: BaseException) -> MapFormatError:
    msg = str(exc).strip() or type(exc).__name__
    return MapFormatError(
        f"cannot read OSM data ({msg}); is the file truncated or not OSM?", path=path
    )


def _read(
    path: str,
    profile: str,
    progress: Progress | None,
    cancel: Cancel | None,
    neg_locs: dict[int, tuple[float, float]] | None = None,
    weight: WeightSpec | None = None,
) -> _Raw:
    import osmium  # lazy: the GPU machine has no osmium

    raw = _Raw()
    raw.neg_locs = neg_locs
    want_rail = profile == "multimodal"
    low = path.lower()
    size = max(os.path.getsize(path), 1)
    # Expected filtered objects from the file size (rough; only drives the progress bar).
    per_obj = 330.0 if low.endswith(".pbf") else 450.0 if low.endswith((".bz2", ".gz")) else 2500.0
    expected = max(size / per_obj, 100.0)
    keys = ("highway", "railway", "public_transport")
    fp = osmium.FileProcessor(path).with_locations().with_filter(osmium.filter.KeyFilter(*keys))
    count = 0
    next_check = _CHECK_EVERY
    try:
        for obj in fp:
            count += 1
            if count >= next_check:
                next_check += _CHECK_EVERY
                if cancel is not None and cancel():
                    raise LoadCancelled("loading cancelled", path=path)
                if progress is not None:
                    frac = _READ_SHARE * (1.0 - np.exp(-count / expected))
                    name = os.path.basename(path)
                    progress(float(frac), f"reading {name}: {raw.ways_seen:,} ways")
            if obj.is_node():
                if want_rail:
                    tags = obj.tags
                    if tags.get("railway") in P.STATION_RAILWAY or tags.get(
                        "public_transport"
                    ) in P.STATION_PUBLIC_TRANSPORT:
                        loc = obj.location
                        if loc.valid():
                            raw.station_cand[obj.id] = (loc.lon, loc.lat, dict(tags))
                continue
            if not obj.is_way():
                continue
            wtags = obj.tags
            if "highway" not in wtags and "railway" not in wtags:
                continue
            raw.ways_seen += 1
            tags = dict(wtags)
            kind = P.way_kind(tags)
            if kind is None:
                continue
            by_profile = weight is None or weight.by_profile
            fwd, bwd = P.directions(profile, tags) if by_profile else P.oneway_directions(tags)
            if not (fwd or bwd):
                continue
            cls = tags["highway"] if kind == "road" else tags["railway"]
            speed = P.speed_kmh(profile, cls, tags.get("maxspeed")) if by_profile else 0.0
            before = len(raw.seg_way)
            _add_way(raw, obj, KIND_ROAD if kind == "road" else KIND_RAIL, cls, fwd, bwd, speed)
            if weight is not None and len(raw.seg_way) > before:
                cost = weight.value(tags, path, f"way {obj.id}")
                raw.seg_cost += [cost] * (len(raw.seg_way) - before)
    except MapError:
        raise
    except Exception as exc:  # osmium reports bad input as RuntimeError, ValueError, ...
        raise _osm_path_error(path, exc) from exc
    return raw


def _negative_locations(path: str) -> dict[int, tuple[float, float]]:
    import osmium

    out: dict[int, tuple[float, float]] = {}
    try:
        for n in osmium.FileProcessor(path, osmium.osm.NODE):
            if n.id < 0 and n.location.valid():
                out[n.id] = (n.location.lon, n.location.lat)
    except Exception as exc:
        raise _osm_path_error(path, exc) from exc
    return out


def _add_way(raw: _Raw, way, kind: int, cls: str, fwd: bool, bwd: bool, speed: float) -> None:
    """Append the way's pieces with known locations as segments (>= 2 distinct points)."""
    refs, lons, lats = raw.refs, raw.lon, raw.lat
    start = len(refs)
    last = None

    def close() -> None:
        nonlocal start
        if len(refs) - start >= 2:
            raw.seg_way.append(way.id)
            raw.seg_kind.append(kind)
            raw.seg_cls.append(cls)
            raw.seg_fwd.append(fwd)
            raw.seg_bwd.append(bwd)
            raw.seg_speed.append(speed)
            raw.seg_start.append(len(refs))
        else:
            del refs[start:], lons[start:], lats[start:]
        start = len(refs)

    neg = raw.neg_locs
    for nd in way.nodes:
        loc = nd.location
        ref = nd.ref
        if loc.valid():
            x, y = loc.lon, loc.lat
        elif ref < 0 and neg is not None and ref in neg:
            x, y = neg[ref]
        else:
            if ref < 0:
                raw.neg_missing = True
            close()
            last = None
            continue
        if ref == last:
            continue  # a node repeated in a row adds nothing
        refs.append(ref)
        lons.append(x)
        lats.append(y)
        last = ref
    close()


# Peak memory of an OSM XML load per byte of XML (issue 40: 12.6x measured on a country).
XML_MEMORY_PER_BYTE = 12.6


def _read_ways(path: str, profile: str, progress, cancel, weight):
    """The file's usable ways (``_read``), XML checked first, read again with the
    locations of negative ids where it has them; EmptyMapError when none is usable."""
    if not path.lower().endswith(".pbf"):
        check_memory(path, XML_MEMORY_PER_BYTE, "OSM XML", "convert it to .osm.pbf (osmium cat)")
        check_xml_coordinates(path)
    raw = _read(path, profile, progress, cancel, weight=weight)
    if raw.neg_missing:
        # A file with negative ids: collect their locations, then read the ways again.
        raw = _read(path, profile, progress, cancel, neg_locs=_negative_locations(path),
                    weight=weight)
    if len(raw.seg_way) == 0:
        what = (
            f"{raw.ways_seen:,} highway/railway ways read"
            if raw.ways_seen
            else "the file has no highway/railway ways"
        )
        raise EmptyMapError(f"no way is usable by the {profile!r} profile ({what})", path=path)
    return raw


def load_osm(
    path: str | os.PathLike,
    *,
    profile: str,
    contract: bool = False,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    station_radius_m: float = STATION_RADIUS_M,
    nodes: str = "all",
    weight: WeightSpec | None = None,
    turn_restrictions: bool = True,
) -> RoadNetwork:
    """Load an OSM file as the graph of ``profile`` (see the module doc for every choice).
    ``turn_restrictions=False`` leaves the file's turn restrictions out (tests' oracle).

    Raises ProfileError (unknown profile), MapFormatError (missing, truncated or
    malformed file, naming it), EmptyMapError (no way usable by the profile),
    LoadCancelled (``cancel()`` returned True). ``progress(fraction, message)`` is
    called now and then from the calling thread. ``nodes="all"`` (the default) makes
    every OSM node of a used way a graph node; ``"junctions"`` only way ends, shared
    nodes and anchors (the others become arc geometry); ``contract=True`` implies it.
    ``weight``: a way tag as the cost (``maps.model.weights``; not with ``multimodal``, whose
    transfer arcs cost time).
    """
    path = os.fspath(path)
    P.check_profile(profile)
    if nodes not in ("all", "junctions"):
        raise ValueError(f"nodes must be 'all' or 'junctions', not {nodes!r}")
    if not os.path.isfile(path):
        raise MapFormatError("no such file", path=path)
    t0 = time.perf_counter()

    def step(frac: float, msg: str) -> None:
        if cancel is not None and cancel():
            raise LoadCancelled("loading cancelled", path=path)
        if progress is not None:
            progress(frac, msg)

    if weight is not None and weight.by_profile and profile == "multimodal":
        raise ProfileError("--weight does not combine with the multimodal profile", path=path)
    step(0.0, f"reading {os.path.basename(path)}")
    raw = _read_ways(path, profile, progress, cancel, weight)
    nseg = len(raw.seg_way)
    t_read = time.perf_counter() - t0
    step(_READ_SHARE, "building the graph")

    refs = np.asarray(raw.refs, dtype=np.int64)
    lon = np.asarray(raw.lon, dtype=np.float64)
    lat = np.asarray(raw.lat, dtype=np.float64)
    starts = np.asarray(raw.seg_start, dtype=np.int64)
    seg_of = np.repeat(np.arange(nseg), np.diff(starts))
    seg_kind = np.asarray(raw.seg_kind, dtype=np.uint8)
    ns = seg_kind[seg_of].astype(np.int64)  # namespace: 0 road point, 1 rail point
    origin = centre_of(lon, lat)
    px, py = to_xy(lon, lat, origin)

    # Graph nodes: segment ends, OSM nodes met twice or more (by any ways, road or rail:
    # a level crossing becomes a node on both sides), station and transfer anchors.
    # Road and rail points of one OSM node are different graph nodes (key namespace).
    pair_ref, pair_ns, key = _pair_keys(refs, ns)
    inv = key
    _, ref_inv, ref_counts = np.unique(refs, return_inverse=True, return_counts=True)
    is_node = ref_counts[ref_inv] >= 2
    is_node[starts[:-1]] = True
    if nodes == "all" and not contract:
        # Every OSM node of a used way is a graph node (as OSMnx with simplify=False), so
        # `node:ID` of any node in the file routes exactly from that node; contract=True
        # keeps only junctions, way ends and anchors, then merges degree-2 chains.
        is_node[:] = True
    is_node[starts[1:] - 1] = True

    transfers: list[tuple[int, int, int]] = []  # (rail point, road point, station osm id)
    if profile == "multimodal" and raw.station_cand:
        transfers = _station_transfers(raw, refs, ns, px, py, origin, station_radius_m)
        if transfers:
            # Every point of an anchor node is marked, so all ways through it split there.
            anchors = np.array([inv[p] for t in transfers for p in t[:2]], dtype=np.int64)
            is_node |= np.isin(inv, anchors)
    step(0.7, "splitting ways at junctions")

    # Node index per graph point; arcs between consecutive graph points of a segment.
    ukeys, pc = split_pieces(key, seg_of, is_node, lon, lat)
    n = ukeys.shape[0]
    node_ref = pair_ref[ukeys]
    node_ns = pair_ns[ukeys]
    road_refs = set(node_ref[node_ns == 0].tolist())
    node_ids = node_ref.copy()
    if (node_ns == 1).any():
        dup = np.array(
            [r in road_refs for r in node_ref.tolist()], dtype=bool
        ) & (node_ns == 1)
        if dup.any() and node_ids[dup].max() > np.iinfo(np.int64).max - RAIL_COPY_OFFSET:
            raise MapFormatError(f"node id {node_ids[dup].max()} is too large for the id of "
                                 "its rail copy (id + 10^15)", path=path)
        node_ids[dup] += RAIL_COPY_OFFSET

    xy = np.column_stack([px, py])
    step(0.8, "weighting arcs")

    class_names, seg_cls_idx = class_table(raw.seg_cls, ("transfer",) if transfers else ())
    unit = None
    if weight is None and nodes == "all" and not contract:
        w = P.arc_weights(profile, pc.length, pc.per_piece(raw.seg_speed, np.float64))
    elif weight is None:  # pieces of several OSM segments: the sum of their rounded weights
        w = _piece_weights(profile, lon, lat, seg_of, np.asarray(raw.seg_speed), pc)
    else:  # each way's value shared out over its pieces by length
        ways = np.asarray(raw.seg_way, dtype=np.int64)
        group = np.cumsum(np.r_[0, ways[1:] != ways[:-1]])  # a way's segments are consecutive
        first = np.flatnonzero(np.r_[True, ways[1:] != ways[:-1]])
        totals, unit = scale_values(np.asarray(raw.seg_cost)[first], weight.dimension, path,
                                    weight.column)
        w = apportion(totals, group[pc.seg], pc.length)
        profile = weight.profile_name
    sel, tails, heads, geometry = orient(
        pc.per_piece(raw.seg_fwd, bool), pc.per_piece(raw.seg_bwd, bool), pc, pc.inner(xy)
    )
    arcs = Arcs(
        tails=tails,
        heads=heads,
        weights=w[sel],
        lengths=pc.length[sel],
        kinds=seg_kind[pc.seg][sel],
        classes=seg_cls_idx[pc.seg][sel],
        source_ids=pc.per_piece(raw.seg_way, np.int64)[sel],
        geometry=geometry,
    )
    if transfers:
        transfer_cls = len(class_names) - 1
        arcs = _append_transfers(arcs, transfers, pc.node_of, pc.node_pts, lon, lat, transfer_cls)

    kept, turns = None, read_restrictions(path) if (
        profile == "drive" and turn_restrictions) else None
    if contract:
        step(0.9, "merging degree-2 chains")
        node_xy = xy[pc.first_pt]
        keep = None if turns is None else turn_nodes(arcs, turns)
        kept, arcs = contract_chains(n, arcs, node_xy, protected=keep)
    step(0.95, "sorting arcs")
    pts_of_nodes = pc.first_pt if kept is None else pc.first_pt[kept]
    ids = node_ids if kept is None else node_ids[kept]
    if turns is not None:  # split the via nodes (maps.model.turns)
        arcs, copies, tmeta = with_restrictions(path, ids.shape[0], arcs, ids, turns)
        ids, pts_of_nodes = np.r_[ids, ids[copies]], np.r_[pts_of_nodes, pts_of_nodes[copies]]
    meta = {
        "format": "osm",
        "contracted": bool(contract),
        "station_radius_m": float(station_radius_m),
        "transfers": len(transfers),
        "ways_read": raw.ways_seen,
        "ways_used": len(set(raw.seg_way)),
        "read_s": round(t_read, 3),
        "attribution": "© OpenStreetMap contributors (ODbL)",
    }
    if turns is not None:
        meta.update(turn_restrictions=tmeta, turn_copies=copies.tolist())
    net = network_from_arcs(
        arcs, node_ids=ids, lon=lon[pts_of_nodes], lat=lat[pts_of_nodes], origin=origin,
        profile=profile, class_names=class_names, path=path, meta=meta, unit=unit,
    )  # fmt: skip
    net.meta["load_s"] = round(time.perf_counter() - t0, 3)
    if progress is not None:
        progress(1.0, f"{net.num_nodes:,} nodes, {net.num_arcs:,} arcs")
    return net


# A coordinate with an exponent: osmium reads lon="1e308" as 0 (its exponent overflows).
_EXP_COORD = re.compile(rb"""\b(lat|lon)\s*=\s*["']([^"'<>]{0,64}?[eE][^"'<>]{0,64}?)["']""")


def check_xml_coordinates(path: str) -> None:
    """MapFormatError naming the first lat/lon written with an exponent that is not a finite
    coordinate in range (osmium would read it as 0 and put the node in the wrong place)."""
    tail = b""
    for chunk in iter_chunks(path):
        buf = tail + chunk
        for m in _EXP_COORD.finditer(buf):
            attr, text = m.group(1).decode(), m.group(2).decode("ascii", "replace")
            try:
                v = float(text)
            except ValueError:
                continue  # osmium reports malformed numbers itself
            if not (math.isfinite(v) and abs(v) <= (180.0 if attr == "lon" else 90.0)):
                raise MapFormatError(f"node coordinate {attr}={text!r} is outside "
                                     f"{'-180..180' if attr == 'lon' else '-90..90'}", path=path)
        tail = buf[-200:]


def _piece_weights(profile: str, lon, lat, seg_of, seg_speed, pc) -> np.ndarray:
    """Each piece's weight as the sum of its OSM segments' rounded weights, so a route's
    cost is the same whether its inner nodes are graph nodes or geometry (--contract)."""
    step = np.zeros(lon.shape[0], dtype=np.float64)
    if lon.shape[0] > 1:
        step[1:] = haversine_m(lon[:-1], lat[:-1], lon[1:], lat[1:])
    sw = P.arc_weights(profile, step, seg_speed[seg_of])
    first = np.ones(lon.shape[0], dtype=bool)
    first[1:] = seg_of[1:] != seg_of[:-1]
    sw[first] = 0  # no segment from the previous way's last point
    cw = np.cumsum(sw)
    return cw[pc.b_pt] - cw[pc.a_pt]


def _pair_keys(refs: np.ndarray, ns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dense keys of (OSM id, namespace) pairs in their sorted order, and each key's pair.
    (``id * 2 + namespace`` overflowed for ids >= 2^62: two nodes became one.)"""
    order = np.lexsort((ns, refs))
    r, s = refs[order], ns[order]
    new = np.ones(r.shape[0], dtype=bool)
    new[1:] = (r[1:] != r[:-1]) | (s[1:] != s[:-1])
    key = np.empty(r.shape[0], dtype=np.int64)
    key[order] = np.cumsum(new) - 1
    return r[new], s[new], key


def _station_transfers(
    raw: _Raw, refs, ns, px, py, origin: tuple[float, float], radius: float
) -> list[tuple[int, int, int]]:
    """(rail point, road point, station id) for every station joined to the streets."""
    from scipy.spatial import cKDTree

    rail_pts = np.flatnonzero(ns == 1)
    road_pts = np.flatnonzero(ns == 0)
    if rail_pts.size == 0 or road_pts.size == 0:
        return []
    # First point of each OSM node on a rail way.
    rail_first: dict[int, int] = {}
    for p, r in zip(rail_pts.tolist(), refs[rail_pts].tolist(), strict=True):
        rail_first.setdefault(r, p)
    rail_tree = cKDTree(np.column_stack([px[rail_pts], py[rail_pts]]))
    road_tree = cKDTree(np.column_stack([px[road_pts], py[road_pts]]))
    out: list[tuple[int, int, int]] = []
    seen: set[tuple[int, int]] = set()
    for sid, (slon, slat, tags) in sorted(raw.station_cand.items()):
        on_rail = sid in rail_first
        if not P.is_station(tags, on_rail=on_rail):
            continue
        if on_rail:
            rp = rail_first[sid]
        else:
            sx, sy = to_xy(np.array([slon]), np.array([slat]), origin)
            d, i = rail_tree.query([sx[0], sy[0]], distance_upper_bound=radius)
            if not np.isfinite(d):
                continue
            rp = int(rail_pts[i])
        d, j = road_tree.query([px[rp], py[rp]], distance_upper_bound=radius)
        if not np.isfinite(d):
            continue
        dp = int(road_pts[j])
        pair = (int(refs[rp]), int(refs[dp]))
        if pair in seen:
            continue
        seen.add(pair)
        out.append((rp, dp, int(sid)))
    return out


def _append_transfers(arcs: Arcs, transfers, node_of_pt, node_pts, lon, lat, cls_idx: int) -> Arcs:
    """Both directions of every transfer arc added to ``arcs``."""
    pos = {int(p): int(k) for k, p in enumerate(node_pts.tolist())}
    r_nodes, d_nodes, lens, sids = [], [], [], []
    for rp, dp, sid in transfers:
        r_nodes.append(int(node_of_pt[pos[rp]]))
        d_nodes.append(int(node_of_pt[pos[dp]]))
        lens.append(float(haversine_m(lon[rp], lat[rp], lon[dp], lat[dp])))
        sids.append(sid)
    r = np.array(r_nodes, dtype=np.int64)
    d = np.array(d_nodes, dtype=np.int64)
    ln = np.array(lens, dtype=np.float64)
    w = np.asarray(P.transfer_weight("multimodal", ln), dtype=np.int64)
    k = len(transfers)
    return Arcs(
        tails=np.concatenate([arcs.tails, r, d]),
        heads=np.concatenate([arcs.heads, d, r]),
        weights=np.concatenate([arcs.weights, w, w]),
        lengths=np.concatenate([arcs.lengths, ln, ln]),
        kinds=np.concatenate([arcs.kinds, np.full(2 * k, KIND_TRANSFER, dtype=np.uint8)]),
        classes=np.concatenate([arcs.classes, np.full(2 * k, cls_idx, dtype=np.uint8)]),
        source_ids=np.concatenate([arcs.source_ids, np.array(sids + sids, dtype=np.int64)]),
        geometry=list(arcs.geometry) + [None] * (2 * k),
    )


def node_location(path: str, node_id: int) -> tuple[float, float] | None:
    """(lon, lat) of OSM node ``node_id`` in the file, None when the file has no such node
    (or it has no location). Used to resolve ``node:ID`` of a node that is not a graph node
    (an inner point of a way: graph nodes are only junctions and way ends)."""
    import osmium  # lazy: the GPU machine has no osmium

    if not 0 <= node_id < _ID_FILTER_MAX:
        # osmium's IdFilter keeps a bitmap as long as the id: a huge or negative id is
        # looked for by a plain pass over the nodes instead (memory stays flat).
        return _scan_node(path, node_id)
    try:
        fp = osmium.FileProcessor(path, osmium.osm.NODE).with_filter(
            osmium.filter.IdFilter([int(node_id)])
        )
        for obj in fp:
            if obj.id == node_id and obj.location.valid():
                return float(obj.location.lon), float(obj.location.lat)
    except (RuntimeError, OSError, ValueError, OverflowError, MemoryError):
        return None
    return None


_ID_FILTER_MAX = 1 << 40  # OSM node ids are ~1.3e10 today; the filter's bitmap stays small


def _scan_node(path: str, node_id: int) -> tuple[float, float] | None:
    import osmium

    try:
        for obj in osmium.FileProcessor(path, osmium.osm.NODE):
            if obj.id == node_id:
                loc = obj.location
                return (float(loc.lon), float(loc.lat)) if loc.valid() else None
    except (RuntimeError, OSError, ValueError, OverflowError, MemoryError):
        return None
    return None
