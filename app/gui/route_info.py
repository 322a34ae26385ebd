"""What the route panel tells about its two points besides the route: how far each click
snapped, whether a point sits on a small fragment cut off from the rest of the network
(the usual reason for "unreachable"), and a hint when typed coordinates look like
LAT,LON instead of LON,LAT."""

from __future__ import annotations

import numpy as np

from app.jobs.route import FAR_SNAP_M  # the one threshold: `signpost route` warns too
from maps.errors import MapError
from maps.model.network import RoadNetwork
from maps.points.resolve import parse_point


def _fmt_m(d: float) -> str:
    return f"{d / 1000:.1f} km" if d >= 10_000 else f"{d:.0f} m"


def snap_text(src, dst) -> str:
    """'from 12 m, to 632 m (far from the road)' for two maps.points.resolve.ResolvedPoint (or
    None); node:ID points did not snap."""
    parts = []
    for name, p in (("from", src), ("to", dst)):
        if p is None:
            continue
        if p.snap is None:
            parts.append(f"{name}: node {p.node_id}")
            continue
        d = float(p.snap.distance_m)
        parts.append(f"{name}: {_fmt_m(d)}" + (" — far from any road" if d > FAR_SNAP_M else ""))
    return "; ".join(parts) or "—"


class Fragments:
    """Weakly connected parts of one network, found on first use (one O(n + m) pass)."""

    def __init__(self):
        self.labels: np.ndarray | None = None
        self.sizes: np.ndarray | None = None

    def compute(self, net: RoadNetwork) -> None:
        """Find the parts now (a worker does, after a map opens)."""
        self._compute(net)

    def _compute(self, net: RoadNetwork) -> tuple[np.ndarray, np.ndarray]:
        """(labels, sizes) of ``net``'s parts, found once."""
        if self.labels is None or self.sizes is None or self.labels.shape[0] != net.num_nodes:
            from app.jobs.nogil import weak_components

            self.labels = weak_components(net.indptr, net.indices)  # the GUI keeps running
            self.sizes = np.bincount(self.labels)
        return self.labels, self.sizes

    def size_of(self, net: RoadNetwork, node: int) -> int:
        labels, sizes = self._compute(net)
        return int(sizes[labels[node]])

    def describe(self, net: RoadNetwork | None, source: int | None, target: int | None) -> str:
        """The part of the network each point is on, when it is not the largest one."""
        if net is None or net.num_nodes == 0:
            return "—"
        biggest = int(self._compute(net)[1].max())
        parts = []
        for name, node in (("from", source), ("to", target)):
            if node is None:
                continue
            size = self.size_of(net, int(node))
            if size < biggest:
                parts.append(f"{name}: a fragment of {size:,} nodes, cut off from the main "
                             f"network ({biggest:,} nodes)")
            else:
                parts.append(f"{name}: main network ({size:,} nodes)")
        return "; ".join(parts) or "—"

    def unreachable_reason(self, net: RoadNetwork, source: int | None, target: int | None) -> str:
        """Why no route may exist: the points on different fragments (with their sizes)."""
        if source is None or target is None:
            return ""
        labels, sizes = self._compute(net)
        a, b = labels[int(source)], labels[int(target)]
        if a == b:
            return "one-way streets lead away from the destination"
        return (f"the points are on separate parts of the network ({int(sizes[a]):,} and "
                f"{int(sizes[b]):,} nodes)")


def swapped_hint(win, *texts: str) -> str:
    """' Did you mean LON,LAT = …?' when a typed LON,LAT point failed and the same numbers
    swapped land on the map's roads; '' otherwise."""
    if win.net is None or win.snapper is None:
        return ""
    for text in texts:
        try:
            p = parse_point(text.strip())
        except MapError:
            p = None
        if p is None or p.is_node or p.lon is None or p.lat is None:
            try:  # "60.17,24.93" may be refused as a latitude out of range: read it raw
                lon, lat = (float(v) for v in text.replace(";", ",").split(",")[:2])
            except ValueError:
                continue
        else:
            lon, lat = p.lon, p.lat
        if not (-90.0 <= lon <= 90.0 and -180.0 <= lat <= 180.0):
            continue
        try:
            win.snapper.snap_lonlat(lat, lon, max_distance_m=win.snap_max_m)
        except (MapError, ValueError):
            continue
        return (f" — the point {text.strip()!r} looks like LAT,LON: points are LON,LAT; "
                f"did you mean {lat},{lon}?")
    return ""
