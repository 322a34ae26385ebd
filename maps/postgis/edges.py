"""pgRouting edges (arrays from ``maps.postgis.read``) → a :class:`RoadNetwork`.

Each edge gives the arc source→target when its direction column (``cost``) is >= 0 and
target→source when ``reverse_cost`` is >= 0, weighted by the cost column's values made
exact integers (``maps.model.weights.scale_values``, one scale for the whole table). Vertex ids
are node ids, edge ids arc source ids. Coordinates come from the line geometry (first
point: the source vertex, last: the target; the inner points draw the arc) or from
``x1, y1, x2, y2``, transformed to lon/lat once (``maps.geo.crs``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import EmptyMapError, MapFormatError
from ..model.weights import WeightSpec, scale_values

_MISSING = np.iinfo(np.int64).min


def _bad(where: str, msg: str) -> MapFormatError:
    return MapFormatError(msg, path=where)


def _check(e: dict[str, np.ndarray], where: str) -> tuple[np.ndarray, np.ndarray]:
    """(forward, backward) passage per edge; MapFormatError naming the first bad edge."""
    ids = e["id"]
    if ids.shape[0] == 0:
        raise EmptyMapError("the edge table has no rows", path=where)
    nulls = e.get("nulls")  # bits of the NULL values (maps.postgis.read); else the sentinels

    def null(col: str, bit: int) -> np.ndarray:
        if nulls is None:
            return e[col] == _MISSING if col != "dir" else (
                np.isnan(e["dir_f"]) | np.isnan(e["dir_b"]))
        return (nulls & bit) != 0

    if np.any(null("id", 1)):
        raise _bad(where, "an edge has no id (NULL)")
    for col, bit in (("source", 2), ("target", 4)):
        bad = np.flatnonzero(null(col, bit))
        if bad.size:
            raise _bad(where, f"edge id {ids[bad[0]]}: {col} is NULL")
    bad = np.flatnonzero(null("dir", 8 | 16))
    if bad.size:
        raise _bad(where, f"edge id {ids[bad[0]]}: cost or reverse_cost is NULL")
    bad = np.flatnonzero(np.isnan(e["dir_f"]) | np.isnan(e["dir_b"]))
    if bad.size:  # PostgreSQL's NaN sorts above every number: no cost, refused
        raise _bad(where, f"edge id {ids[bad[0]]}: cost or reverse_cost is NaN (not a number)")
    fwd, bwd = e["dir_f"] >= 0, e["dir_b"] >= 0
    for name, col, ok in (("cost", "cost", fwd), ("reverse cost", "rev", bwd)):
        vals = e[col]
        bad = np.flatnonzero(ok & ~np.isfinite(vals))
        if bad.size:
            raise _bad(where, f"edge id {ids[bad[0]]}: {name} is NULL or not finite")
    # a negative value of a --weight column also means no passage (pgRouting's rule)
    return fwd & (e["cost"] >= 0), bwd & (e["rev"] >= 0)


def edges_to_network(
    e: dict[str, np.ndarray], *, shown: str, where: str, plan: Any, contract: bool,
    crs: str | None, weight: WeightSpec | None, progress: Callable | None = None,
) -> Any:
    """The network of edges ``e`` (module doc); ``shown`` becomes its source path."""
    from ..model.build import build_network

    fwd, bwd = _check(e, where)
    if not (fwd.any() or bwd.any()):
        raise EmptyMapError("no edge can be passed in either direction (every cost and "
                            "reverse_cost < 0)",
                            path=where)
    if progress:
        progress(0.5, f"{e['id'].shape[0]:,} edges")
    ids, s, t = e["id"], e["source"], e["target"]
    node_ids, inv = np.unique(np.concatenate([s, t]), return_inverse=True)
    si, ti = inv[: s.shape[0]], inv[s.shape[0]:]
    f, b = np.flatnonzero(fwd), np.flatnonzero(bwd)
    factor = weight.factor if weight is not None else 1.0
    values = np.concatenate([e["cost"][f], e["rev"][b]]) * factor
    ints, unit = scale_values(values, weight.dimension if weight else None, where,
                               plan.cost)
    profile = f"weight:{plan.cost}"
    tails, heads = np.concatenate([si[f], ti[b]]), np.concatenate([ti[f], si[b]])
    src_ids = np.concatenate([ids[f], ids[b]])
    meta = {"source": "postgis", "edges": int(ids.shape[0]), "srid": None,
            "weight_column": plan.cost}
    name = shown.rsplit("table=", 1)[-1].split("&")[0] if "table=" in shown else "query"
    if plan.geom is None and not plan.xy:
        return build_network(tails=tails, heads=heads, weights=ints, node_ids=node_ids,
                             unit=unit, profile=profile, edge_source_id=src_ids,
                             name=name, source_path=shown, meta=meta)
    lines, srid = _lines(e, plan, where)
    from ..geo.crs import to_lonlat
    from ..geo.projection import haversine_m
    from ..model.lines import LonLatArcs, assemble

    counts = np.array([ln.shape[0] for ln in lines], dtype=np.int64)
    pts = np.concatenate(lines)
    file_crs = f"EPSG:{srid}" if srid and srid > 0 else None
    lon, lat, label = to_lonlat(pts[:, 0], pts[:, 1], file_crs, override=crs, path=where)
    ends = np.cumsum(counts)
    first, last = ends - counts, ends - 1
    step = haversine_m(lon[:-1], lat[:-1], lon[1:], lat[1:])
    cum = np.concatenate([[0.0], np.cumsum(step)])
    length = cum[last] - cum[first]
    node_lon, node_lat = np.full(node_ids.shape[0], np.nan), np.full(node_ids.shape[0], np.nan)
    node_lon[ti[::-1]], node_lat[ti[::-1]] = lon[last[::-1]], lat[last[::-1]]
    node_lon[si[::-1]], node_lat[si[::-1]] = lon[first[::-1]], lat[first[::-1]]
    ll = np.column_stack([lon, lat])
    inner = [ll[a + 1:z] if z - a > 1 else None for a, z in zip(first.tolist(), last.tolist(),
                                                                  strict=True)]
    geom = [inner[i] for i in f.tolist()]
    geom += [None if (g := inner[i]) is None else g[::-1] for i in b.tolist()]
    m = tails.shape[0]
    arc_len = np.concatenate([length[f], length[b]])
    net = assemble(
        (node_lon, node_lat, node_ids),
        LonLatArcs(tails, heads, arc_len, np.zeros(m), np.zeros(m, np.uint8),
                   np.zeros(m, np.uint8), src_ids, geom),
        path=shown, profile=profile, contract=contract, class_names=["road"],
        meta={**meta, "srid": srid, "crs": label}, weighted=(ints, unit, profile),
    )
    net.name = name
    return net


def _lines(e: dict[str, Any], plan: Any, where: str) -> tuple[list[np.ndarray], int | None]:
    """Per edge its points (k >= 2, the source CRS) and the SRID they share."""
    ids = e["id"]
    if plan.xy:
        xy = np.column_stack([e["x1"], e["y1"], e["x2"], e["y2"]])
        bad = np.flatnonzero(~np.isfinite(xy).all(axis=1))
        if bad.size:
            raise _bad(where, f"edge id {ids[bad[0]]}: x1, y1, x2 or y2 is NULL")
        return list(xy.reshape(-1, 2, 2)), None
    from ..geo.geometry import wkb_lines

    srid = _one_srid(e, where)
    parts = wkb_lines(e["wkb"], path=where, where=lambda i: f"edge id {ids[i]}")
    out = []
    for i, p in enumerate(parts):
        if p is None:
            raise _bad(where, f"edge id {ids[i]}: no line geometry ({plan.geom} is NULL "
                              "or not a line)")
        out.append(p[0] if len(p) == 1 else np.concatenate(p))
    return out, srid


def _one_srid(e: dict[str, Any], where: str) -> int | None:
    """The SRID every geometry has (None: no geometry has one)."""
    srids = np.unique(e["srid"][e["srid"] >= 0])
    if srids.size > 1:
        raise _bad(where, f"geometries in several SRIDs ({', '.join(map(str, srids[:5]))})")
    return int(srids[0]) if srids.size else None


def lines_to_network(
    e: dict[str, Any], *, shown: str, where: str, contract: bool, crs: str | None,
    weight: WeightSpec | None, progress: Callable | None = None,
) -> Any:
    """A table of plain lines (no source/target): noded as a GIS file's lines."""
    from ..geo.geometry import wkb_lines
    from ..model.lines import LineSet

    ids = e["id"]
    srid = _one_srid(e, where)
    lines = LineSet(where, weight, f"EPSG:{srid}" if srid else None)
    costs = e["cost"].tolist()
    for i, parts in enumerate(wkb_lines(e["wkb"], path=where,
                                        where=lambda i: f"row id {ids[i]}")):
        if parts is None:
            lines.skipped += 1
            continue
        props = {weight.column: costs[i]} if weight is not None else None
        lines.add(parts, props, int(ids[i]), f"row id {ids[i]}")
    net = lines.network(profile="length", contract=contract, progress=progress, crs=crs,
                        meta={"source": "postgis", "srid": srid, "lines_table": True})
    net.source_path = shown
    net.name = shown.rsplit("table=", 1)[-1].split("&")[0] if "table=" in shown else "query"
    return net
