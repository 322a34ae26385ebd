"""Opening a map and turning typed points into nodes: what every job's caller does first."""

from __future__ import annotations

from typing import Any

from maps.formats.registry import kinds_where
from maps.model.network import RoadNetwork
from maps.points.resolve import ResolvedPoint

from .common import CancelCheck, Progress

# Formats whose weights come from the file: a weight profile does not apply to them.
FILE_WEIGHT_FORMATS = kinds_where("own_weights")
# How to read a GIS file: load_map's options behind --layer, --crs, --weight, ...
GIS_OPTIONS = ("layer", "crs", "weight", "weight_unit", "split_crossings", "sql")


def gis_options(ns: Any) -> dict[str, Any]:
    """The :data:`GIS_OPTIONS` an argparse namespace sets (unset ones left out)."""
    return {k: getattr(ns, k) for k in GIS_OPTIONS if getattr(ns, k, None) not in (None, False)}


def open_map(
    path: str,
    *,
    profile: str | None = None,
    contract: bool = False,
    use_cache: bool = True,
    progress: Progress | None = None,
    cancel: CancelCheck | None = None,
    **gis: Any,
) -> RoadNetwork:
    """Load ``path`` with ``profile`` (None: the format's default); ``gis`` are
    ``maps.load.load_map``'s layer, crs, weight, weight_unit and split_crossings."""
    from maps.load import load_map

    return load_map(path, profile=profile, contract=contract, use_cache=use_cache,
                    progress=progress, cancel=cancel, **gis)


def profile_for(path: str, profile: str | None) -> str | None:
    """``profile``, or None for a graph whose weights come from the file (DIMACS, PACE,
    the cache); UnknownFormatError for a file no reader knows."""
    from maps.formats.registry import detect_format

    return None if detect_format(path) in FILE_WEIGHT_FORMATS else profile


def check_texts(path: str, *texts: str) -> None:
    """Typed points checked before the map is loaded (``node:1.7``, a 30-digit id, LON,LAT
    off the globe): PointError naming the first bad one. Named nodes (``node:NAME``) only
    for formats that can have them (GraphML, or the cache of one)."""
    from maps.formats.registry import find_format
    from maps.points.resolve import check_points

    spec = find_format(path)
    check_points(spec is None or spec.kind in ("graphml", "cache"), *texts)


def make_snapper(net: RoadNetwork):
    """A snapping index (``snap_index.GridSnapper``: a maps.points.snap.Snapper's answers, built
    in a fraction of the STRtree's time), or None when the map cannot be snapped to (no
    coordinates, no road arcs): then only typed node:ID points work."""
    from maps.errors import PointError

    from .snap_index import GridSnapper

    try:
        return GridSnapper(net)
    except PointError:
        return None


def resolve_texts(net: RoadNetwork, *texts: str, max_distance_m: float = 1000.0,
                  snapper=None) -> list[ResolvedPoint]:
    """Typed points (LON,LAT or node:ID) → ResolvedPoints, sharing one Snapper (built only
    when a LON,LAT point needs it and none was given)."""
    from maps.errors import PointError
    from maps.points.resolve import parse_point, resolve_point
    from maps.points.snap import Snapper

    def lonlat(t: str) -> bool:
        try:
            return not parse_point(t).is_node
        except PointError:
            return False  # resolve_point reports it (with a hint when LON,LAT look swapped)

    if snapper is None and any(lonlat(t) for t in texts) and net.has_coordinates:
        snapper = Snapper(net)
    return [resolve_point(net, t, snapper=snapper, max_distance_m=max_distance_m) for t in texts]
