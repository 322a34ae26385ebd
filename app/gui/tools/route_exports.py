"""What the Route tool exports (File → Export, run on the export worker): the route (GPX or
GeoJSON), the isochrone bands (a big map's bands, drawn from the raster's grid, are traced
here), the distance field and the search's phases."""

from __future__ import annotations

from typing import Any, Protocol

from gpu_core.errors import InvalidArgumentError
from maps.errors import UnreachableError

from .. import export


class RouteState(Protocol):
    """What the exports read of the Route tool (``route_tool.RouteTool``)."""

    route: Any  # app.jobs.route.Route or None
    result: Any  # the search result on screen or None
    isochrones: tuple | None  # (IsochroneResult, band labels)
    iso_opts: Any  # their IsochroneOptions

    def search_map(self) -> Any: ...
    def routes_result(self) -> Any: ...


def export_route_tool(tool: RouteState, what: str, path: str) -> None:
    """Write ``what`` ("route", "isochrones", "field" or "phases") of ``tool`` to ``path``."""
    low = path.lower()
    if what == "route":
        if tool.route is None:
            raise UnreachableError("no route to export: set a source and a destination first")
        (export.route_gpx if low.endswith(".gpx") else export.route_geojson)(
            tool.search_map(), tool.route, path)
    elif what == "isochrones":
        _isochrones(tool, path)
    elif what == "field":
        if tool.result is None:
            raise InvalidArgumentError("no distance field to export: click a source first")
        (export.field_csv if low.endswith(".csv") else export.field_geojson)(
            tool.search_map(), tool.routes_result().dist, path)
    else:
        if tool.result is None:
            raise InvalidArgumentError("no search telemetry to export yet")
        export.phases_csv(tool.result.phases, path)


def _isochrones(tool: RouteState, path: str) -> None:
    from dataclasses import replace

    from app.jobs import isochrones
    from maps.outputs.vector import write_features

    if tool.isochrones is None:
        raise InvalidArgumentError("no isochrone polygons to export: turn them on "
                                   "with isochrone bands and click a source")
    net = tool.search_map()
    res, labels = tool.isochrones
    if not res.polygons_xy and tool.iso_opts is not None:  # drawn from the band grid: traced now
        res = isochrones.run(net, replace(tool.iso_opts, trace=True), dist=res.dist)
    polys = res.polygons or [isochrones.to_lonlat_geometry(p, net.origin) for p in res.polygons_xy]
    props = [{"cost": c, "unit": res.unit, "label": t}
             for c, t in zip(res.cutoffs, labels, strict=True)]
    write_features(path, polys, props, layer="isochrones")
