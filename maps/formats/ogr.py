"""Every other GIS vector source → :class:`RoadNetwork`: Shapefile (``.shp``, zipped
``.shp.zip``), FlatGeobuf, GML and File Geodatabase through pyogrio (GDAL), GeoParquet
through pyarrow. Both need the optional ``gis`` extra (``pip install signpost[gis]``).

* **Layers**: ``layer`` (``--layer``) names one, else the file's one line layer
  (``maps.geo.geometry.pick_layer``); a GeoParquet file is one layer named after the file.
* **CRS**: what GDAL reads (a Shapefile's ``.prj``, the GML ``srsName``, ...), or the
  GeoParquet ``geo`` metadata (PROJJSON; absent means OGC:CRS84); ``crs`` overrides.
* **Geometry**: WKB decoded by shapely (``maps.geo.geometry``); tags, nodes, lengths, one-ways
  and ``--weight`` as for GeoJSON (``maps.model.lines``).
* ``edge_source_id`` is the feature's fid (GDAL's), else its index.
* A truncated ``.shp`` (records past its end) is refused (``maps.formats.shapefile_check``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import MapFormatError
from ..geo.geometry import pick_layer, wkb_lines
from ..model import profiles as P
from ..model.lines import LineSet, Progress
from ..model.network import RoadNetwork
from ..model.weights import WeightSpec
from .shapefile_check import check_shapefile

_NEEDS_GIS = "reading this format needs the gis extra (pip install 'signpost[gis]'): {}"
_SHAPEFILE_PARTS = (".dbf", ".shx", ".prj", ".cpg")


def shapefile_parts(path: str) -> list[str]:
    """The files beside a ``.shp`` that change what it loads to (attributes, CRS)."""
    stem = path[:-4] if path.lower().endswith(".shp") else None
    return [stem + ext for ext in _SHAPEFILE_PARTS] if stem else []


def _gdal_path(path: str) -> str:
    """What GDAL opens for ``path`` (a zipped Shapefile through /vsizip/)."""
    return "/vsizip/" + os.path.abspath(path) if path.lower().endswith(".zip") else path


def _gdal_error(path: str, exc: BaseException) -> MapFormatError:
    why = " ".join(str(exc).split()) or type(exc).__name__
    return MapFormatError(f"cannot read: {why[:200]}", path=path)


def load_ogr(
    path: str | os.PathLike,
    profile: str = "length",
    contract: bool = False,
    progress: Progress | None = None,
    layer: str | None = None,
    crs: str | None = None,
    weight: WeightSpec | None = None,
    split_crossings: bool = False,
) -> RoadNetwork:
    """One line layer of a GDAL vector source, or a GeoParquet file, as a network."""
    path = os.fspath(path).rstrip("/\\")
    P.check_profile(profile)
    if progress:
        progress(0.0, "reading")
    parquet = path.lower().endswith((".parquet", ".geoparquet"))
    found, name = (_read_geoparquet if parquet else _read_gdal)(path, layer, weight)
    return found.network(
        profile=profile, contract=contract, progress=progress, crs=crs,
        split_crossings=split_crossings,
        meta={"format": "geoparquet" if parquet else "ogr", "layers": [name]},
    )  # fmt: skip


def _read_gdal(path: str, layer: str | None, weight: WeightSpec | None) -> tuple[LineSet, str]:
    try:
        import pyogrio
        from pyogrio.raw import read
    except ImportError as exc:
        raise MapFormatError(_NEEDS_GIS.format(exc), path=path) from None
    src = _gdal_path(path)
    check_shapefile(path)  # GDAL loads a truncated .shp as a partial map without a word
    try:
        listed = pyogrio.list_layers(src)
    except Exception as exc:  # noqa: BLE001 (pyogrio's DataSourceError and GDAL's own)
        raise _gdal_error(path, exc) from None
    kinds = [(str(n), _is_line_type(t), str(t)) for n, t in listed]
    name = pick_layer(kinds, layer, path)
    try:
        meta, fids, geometry, fields = read(src, layer=name, return_fids=True)
    except Exception as exc:  # noqa: BLE001
        raise _gdal_error(path, exc) from None
    columns = [str(c) for c in meta.get("fields", [])]
    ids = fids if fids is not None else np.arange(len(geometry))
    return _collect(path, name, weight, meta.get("crs"), geometry, ids, columns, fields), name


def _is_line_type(gtype: Any) -> bool:
    """A layer whose declared geometry type may hold lines (GDAL names it)."""
    t = str(gtype).lower()
    return "line" in t or "curve" in t or t in ("unknown", "geometry", "geometrycollection",
                                                 "unknown (any)")  # fmt: skip


def _collect(
    path: str,
    layer: str,
    weight: WeightSpec | None,
    file_crs: Any,
    geometry: Sequence[bytes | None],
    ids: Sequence[Any] | np.ndarray,
    columns: list[str],
    fields: Sequence[Sequence[Any]],
) -> LineSet:
    """The line features of one layer (WKB per feature, its id, its columns' values)."""
    fid_list = [int(f) if isinstance(f, (int, np.integer)) else i for i, f in enumerate(ids)]

    def where(i: int) -> str:
        return f"layer {layer!r} feature {fid_list[i]}"

    found = LineSet(path, weight, file_crs)
    nulls = sum(1 for g in geometry if g is None)
    if nulls:  # GDAL's reading of a damaged record too: said, not dropped silently
        found.notes.append(f"{path}: {nulls:,} of {len(geometry):,} features of layer "
                           f"{layer!r} have no geometry and are not part of the map")
    values = [np.asarray(col, dtype=object).tolist() for col in fields]
    for i, got in enumerate(wkb_lines(list(geometry), path=path, where=where)):
        if got is None:
            found.skipped += 1
            continue
        props = {c: _plain(v[i]) for c, v in zip(columns, values, strict=True)}
        found.add(got, props, fid_list[i], where(i))
    return found


def _plain(v: Any) -> Any:
    """A column value as a plain Python value (NaN and NaT: missing)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and v != v:
        return None
    return v


def _read_geoparquet(
    path: str, layer: str | None, weight: WeightSpec | None
) -> tuple[LineSet, str]:
    """A GeoParquet file (WKB geometry column, ``geo`` metadata): one layer."""
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MapFormatError(_NEEDS_GIS.format(exc), path=path) from None
    try:
        table = pq.read_table(path)
    except Exception as exc:  # noqa: BLE001 (pyarrow's ArrowInvalid, OSError, ...)
        raise _gdal_error(path, exc) from None
    name = os.path.basename(path).rsplit(".", 1)[0]
    geo_raw = (table.schema.metadata or {}).get(b"geo")
    if geo_raw is None:
        raise MapFormatError("not GeoParquet: no 'geo' metadata", path=path)
    try:
        geo = json.loads(geo_raw)
        column = str(geo["primary_column"])
        info = geo["columns"][column]
        if not isinstance(info, dict):
            raise TypeError(column)
    except (ValueError, KeyError, TypeError):
        raise MapFormatError("unreadable GeoParquet 'geo' metadata", path=path) from None
    pick_layer([(name, True, "GeoParquet")], layer, path)
    if str(info.get("encoding", "WKB")).upper() != "WKB":
        raise MapFormatError(
            f"geometry encoding {info.get('encoding')!r} is not supported (only WKB)", path=path
        )
    if column not in table.column_names:
        raise MapFormatError(f"no geometry column {column!r}", path=path)
    file_crs = info["crs"] if "crs" in info else "OGC:CRS84"  # the spec's default
    if isinstance(file_crs, dict):
        file_crs = json.dumps(file_crs)
    columns = [c for c in table.column_names if c != column]
    found = _collect(
        path, name, weight, file_crs, table.column(column).to_pylist(),
        range(table.num_rows), columns, [table.column(c).to_pylist() for c in columns],
    )  # fmt: skip
    return found, name
