"""Test maps written in any CRS and GIS format: one small street grid (lon/lat near
Zürich, so UTM 32N, Web Mercator and the Swiss grid EPSG:2056 all apply), written by
pyogrio/pyarrow/json in the CRS asked for."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

LON0, LAT0, STEP = 8.53, 47.37, 0.002  # a 4 × 4 grid of streets, ~150-220 m blocks


def grid_lines() -> tuple[list[np.ndarray], list[dict]]:
    """Rows and columns of a 4 × 4 grid as lines through every grid point (lon/lat), with
    properties: highway, a float travel time (s), an integer cost, oneway on one row."""
    lines, props = [], []
    for k in range(4):
        row = np.array([[LON0 + i * STEP, LAT0 + k * STEP] for i in range(4)])
        col = np.array([[LON0 + k * STEP, LAT0 + i * STEP] for i in range(4)])
        for j, ln in enumerate((row, col)):
            lines.append(ln)
            props.append({"highway": "residential", "time_s": 20.5 + k + 0.25 * j,
                          "cost": 3 + k, "oneway": "yes" if (k, j) == (1, 0) else "no"})
    return lines, props


def project(lines: list[np.ndarray], crs: str) -> list[np.ndarray]:
    """``lines`` (lon/lat) in ``crs``."""
    from pyproj import Transformer

    if crs in ("EPSG:4326", "OGC:CRS84"):
        return [ln.copy() for ln in lines]
    tr = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    return [np.column_stack(tr.transform(ln[:, 0], ln[:, 1])) for ln in lines]


def write_lines(path: str | os.PathLike, lines, props, *, crs: str | None, layer: str = "streets",
                driver: str | None = None, append: bool = False) -> Path:
    """``lines`` (already in ``crs``) with ``props`` as one layer of ``path`` (format by
    its suffix: GeoJSON with a legacy crs member, GeoParquet through pyarrow, the rest
    through pyogrio)."""
    path = Path(path)
    if not append:
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    name = path.name.lower()
    if name.endswith(".geojson"):
        doc = {"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": p,
             "geometry": {"type": "LineString", "coordinates": ln.tolist()}}
            for ln, p in zip(lines, props, strict=True)]}
        if crs is not None:
            doc["crs"] = {"type": "name", "properties": {"name": crs}}
        path.write_text(json.dumps(doc))
        return path
    import shapely

    wkb = shapely.to_wkb(shapely.linestrings([ln for ln in lines]))
    keys = sorted({k for p in props for k in p})
    if name.endswith(".parquet"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        cols = {k: [p.get(k) for p in props] for k in keys}
        cols["geometry"] = list(wkb)
        geo = {"version": "1.0.0", "primary_column": "geometry",
               "columns": {"geometry": {"encoding": "WKB", "geometry_types": ["LineString"]}}}
        if crs is not None:
            from pyproj import CRS

            geo["columns"]["geometry"]["crs"] = CRS.from_user_input(crs).to_json_dict()
        table = pa.table(cols).replace_schema_metadata({b"geo": json.dumps(geo).encode()})
        pq.write_table(table, path)
        return path
    from pyogrio.raw import write

    drivers = {".gpkg": "GPKG", ".shp": "ESRI Shapefile", ".fgb": "FlatGeobuf", ".gml": "GML",
               ".gdb": "OpenFileGDB"}
    driver = driver or drivers[path.suffix.lower()]
    data = [np.array([p.get(k) for p in props], dtype=object if any(
        isinstance(p.get(k), str) for p in props) else None) for k in keys]
    write(str(path), wkb, data, keys, layer=layer, driver=driver, geometry_type="LineString",
          crs=crs, append=append)
    return path


def write_graphml(path: str | os.PathLike, lines, props, *, crs: str | None,
                  projected: list[np.ndarray] | None = None) -> Path:
    """The grid as an undirected OSMnx-style GraphML: nodes at grid points (x/y in the
    ``projected`` coordinates when given), one edge per block with its length (m, from
    the lon/lat) and travel_time (s), the graph's ``crs`` attribute when given."""
    from maps.geo.projection import haversine_m

    pts = projected if projected is not None else lines
    ids: dict[tuple, int] = {}
    node_xy: list[tuple[float, float]] = []
    edges = []
    for ln, xy, p in zip(lines, pts, props, strict=True):
        for a in range(len(ln) - 1):
            uv = []
            for q in (a, a + 1):
                key = (round(ln[q, 0], 7), round(ln[q, 1], 7))
                if key not in ids:
                    ids[key] = len(ids) + 1
                    node_xy.append((float(xy[q, 0]), float(xy[q, 1])))
                uv.append(ids[key])
            length = float(haversine_m(ln[a, 0], ln[a, 1], ln[a + 1, 0], ln[a + 1, 1]))
            edges.append((uv[0], uv[1], length, p["time_s"] / (len(ln) - 1)))
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
           '<key id="d0" for="graph" attr.name="crs" attr.type="string"/>',
           '<key id="d1" for="node" attr.name="x" attr.type="double"/>',
           '<key id="d2" for="node" attr.name="y" attr.type="double"/>',
           '<key id="d3" for="edge" attr.name="length" attr.type="double"/>',
           '<key id="d4" for="edge" attr.name="travel_time" attr.type="double"/>',
           '<key id="d5" for="edge" attr.name="highway" attr.type="string"/>',
           '<graph edgedefault="undirected">']
    if crs is not None:
        out.append(f'<data key="d0">{crs}</data>')
    for i, (x, y) in enumerate(node_xy, start=1):
        out.append(f'<node id="{i}"><data key="d1">{x!r}</data><data key="d2">{y!r}</data></node>')
    for u, v, length, t in edges:
        out.append(f'<edge source="{u}" target="{v}"><data key="d3">{length!r}</data>'
                   f'<data key="d4">{t!r}</data><data key="d5">residential</data></edge>')
    out += ["</graph>", "</graphml>"]
    Path(path).write_text("\n".join(out))
    return Path(path)
