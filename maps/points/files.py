"""Files of points, read into one table: CSV (by header name, any delimiter), GeoJSON
points (their properties as columns) and GeoPackage point layers, in any coordinate system
(transformed to WGS84 lon/lat through pyproj). :mod:`maps.points.resolve` turns the rows into
network nodes (snapped points, node ids, demand weights)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import MapFormatError, PointError
from ..geo.crs import is_wgs84_name

LON_NAMES = ("lon", "lng", "long", "longitude")
LAT_NAMES = ("lat", "latitude")
NODE_NAMES = ("node", "node_id", "nodeid")
POINT_NAMES = ("point",)
GEOJSON_EXT = (".geojson", ".json")
GPKG_EXT = (".gpkg",)


@dataclass(frozen=True)
class TableRow:
    """One data row of a points file: its line in the file and its cells."""

    line: int  # 1-based line number
    index: int  # 0-based data-row number (blank lines are not rows)
    cells: tuple[str, ...]


@dataclass(frozen=True)
class PointTable:
    """A points file split into a header and rows; ``header`` is None for an empty file."""

    path: str
    delimiter: str
    header: tuple[str, ...] | None
    header_line: int
    rows: tuple[TableRow, ...]

    @property
    def names(self) -> list[str]:
        """Header names stripped and lower-cased (column lookup ignores case and spaces)."""
        return [c.strip().lower() for c in self.header or ()]

    def column(self, names: tuple[str, ...]) -> int | None:
        """Index of the first header column named one of ``names`` (None: none is)."""
        return next((j for j, h in enumerate(self.names) if h in names), None)

    def both_note(self, used: str) -> str | None:
        """What a file with both 'node' and 'lon,lat' columns was read by (``used``:
        "lonlat" or "node"); None when it has one kind only."""
        if None in (self.column(NODE_NAMES), self.column(LON_NAMES), self.column(LAT_NAMES)):
            return None
        if used == "lonlat":
            return "both 'node' and 'lon,lat' columns: used lon,lat (every row's node agrees)"
        return "both 'node' and 'lon,lat' columns: used node (this map has no coordinates)"

    @property
    def header_text(self) -> str:
        return self.delimiter.join(self.header or ())


def read_table(path: str) -> PointTable:
    """Split a points file (CSV, GeoJSON or GeoPackage, see above) into header and rows.
    PointError names the file when it cannot be read or is not UTF-8 text."""
    import csv

    from ..source import check_line_lengths, open_input, read_stream

    if path.lower().endswith(GPKG_EXT):
        return _gpkg_table(path)
    try:
        fh = open_input(path)  # a FIFO or <(...) too: read once, bounded, then parsed
    except MapFormatError as exc:
        raise PointError(exc.detail, path=path) from None
    with fh:  # bounded; a spreadsheet's BOM is dropped; /dev/zero stops at its first NUL
        try:
            raw = read_stream(fh, path, text="UTF-8")
        except MapFormatError as exc:
            raise PointError(exc.detail, path=path) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PointError(f"not a UTF-8 text file ({exc.reason} at byte {exc.start})",
                         path=path) from None
    if path.lower().endswith(GEOJSON_EXT) or text.lstrip().startswith("{"):
        return _geojson_table(path, text)
    check_line_lengths(raw, path)
    lines = text.splitlines()
    k = next((i for i, ln in enumerate(lines) if ln.strip()), len(lines))
    if k == len(lines):
        return PointTable(path, ",", None, 0, ())
    delim = _delimiter(lines[k])
    try:
        parsed = list(csv.reader(lines, delimiter=delim))
    except csv.Error as exc:  # e.g. a field over the csv module's size limit
        raise PointError(f"unreadable CSV: {exc}", path=path) from None
    rows: list[TableRow] = []
    for lineno, row in enumerate(parsed[k + 1:], start=k + 2):
        if any(c.strip() for c in row):  # blank lines are not rows
            rows.append(TableRow(lineno, len(rows), tuple(row)))
    return PointTable(path, delim, tuple(parsed[k]), k + 1, tuple(rows))


def _delimiter(header_line: str) -> str:
    """',' unless the header has none and a ';' or a tab separates its names."""
    if "," in header_line:
        return ","
    for d in (";", "\t"):
        if d in header_line:
            return d
    return ","


def _geojson_table(path: str, text: str) -> PointTable:
    """GeoJSON Point/MultiPoint features as a ``lon,lat,PROPS...`` table (row = one point;
    the properties of every feature, in first-seen order, are the other columns). A
    feature of another kind is refused, never dropped (the rows after it would shift):
    the message names its index and how many there are (issue 40)."""
    from .areas import parse_geojson

    doc = parse_geojson(text, path)
    feats = doc.get("features") if doc.get("type") == "FeatureCollection" else [doc]
    found: list[tuple[float, float, dict]] = []
    others: list[tuple[int, str]] = []  # (feature index, its kind) of every non-point
    for i, f in enumerate(feats if isinstance(feats, list) else []):
        gj = f.get("geometry") if isinstance(f, dict) and f.get("type") == "Feature" else f
        props = f.get("properties") if isinstance(f, dict) else None
        props = props if isinstance(props, dict) else {}
        kind = gj.get("type") if isinstance(gj, dict) else None
        if kind not in ("Point", "MultiPoint"):
            others.append((i, str(kind) if kind else "without geometry"))
            continue
        coords = gj.get("coordinates") if isinstance(gj, dict) else None
        for c in ([coords] if kind == "Point" else coords or []):
            if not (isinstance(c, (list, tuple)) and len(c) >= 2 and _numbers(c[:2])):
                raise PointError(f"feature {i}: coordinates {_json_short(c)} are not two "
                                 "numbers [lon, lat]", path=path)
            found.append((c[0], c[1], props))
    if others:
        _refuse_non_points(path, others, len(feats) if isinstance(feats, list) else 1)
    return _point_table(path, found, geojson_crs(doc))


def _numbers(values) -> bool:
    """JSON numbers only: ``true`` is no coordinate (Python's bool is an int), nor "60.5"."""
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _json_short(value) -> str:
    import json

    try:
        shown = json.dumps(value)
    except (TypeError, ValueError):
        shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _refuse_non_points(path: str, others: list[tuple[int, str]], total: int) -> None:
    """PointError for a GeoJSON whose features are not all points: what it holds instead."""
    kinds = sorted({k for _, k in others})
    what = " and ".join(kinds[:3]) + (" ..." if len(kinds) > 3 else "")
    if len(others) == total:
        raise PointError(f"holds no points: its {total:,} feature(s) are {what} (a points "
                         "file holds Point or MultiPoint features)", path=path)
    first, kind = others[0]
    is_what = "has no geometry" if kind == "without geometry" else f"is a {kind}, not a point"
    raise PointError(f"feature {first} {is_what} ({len(others):,} of "
                     f"{total:,} features are not points: {what}); a points file holds "
                     "Point or MultiPoint features only", path=path)


def geojson_crs(doc: dict) -> str | None:
    """The legacy ``crs`` member's name of a GeoJSON document (RFC 7946 has none: WGS84)."""
    crs = doc.get("crs")
    if isinstance(crs, dict) and isinstance(crs.get("properties"), dict):
        name = crs["properties"].get("name")
        return str(name) if name is not None else None
    return None


def _gpkg_table(path: str) -> PointTable:
    """The point features of a GeoPackage's first point layer as a ``lon,lat,COLS...``
    table (the layer's SRS goes through :func:`to_wgs84`)."""
    import shapely

    from .gpkg_features import read_gpkg_features

    crs, feats = read_gpkg_features(path, ("POINT", "MULTIPOINT"), "point", keep_null=True)
    found, others = [], []
    for k, (geom, props) in enumerate(feats):  # never a feature dropped (rows would shift)
        parts = [] if geom is None else shapely.get_parts(geom).tolist()
        if geom is None or geom.geom_type not in ("Point", "MultiPoint") or not parts or any(
                pt.is_empty for pt in parts):
            others.append((k, "without geometry" if geom is None else
                           f"empty {geom.geom_type}" if geom.is_empty else geom.geom_type))
        found += [(pt.x, pt.y, props) for pt in parts]
    if others:
        _refuse_non_points(path, others, len(feats))
    return _point_table(path, found, crs)


def to_wgs84(xy: np.ndarray, crs: str | None, path: str) -> np.ndarray:
    """Point coordinates in a file's CRS as WGS84 lon/lat (pyproj through
    :func:`maps.geo.crs.to_lonlat`); PointError naming the file for a CRS it cannot read."""
    if is_wgs84_name(crs) or xy.size == 0:
        return xy
    from ..errors import MapFormatError
    from ..geo.crs import to_lonlat

    try:
        lon, lat, _ = to_lonlat(xy[:, 0], xy[:, 1], crs, path=path, where="points: ")
    except MapFormatError as exc:
        raise PointError(exc.detail, path=path) from None
    return np.column_stack([lon, lat])


def _point_table(path: str, found: list, crs: str | None) -> PointTable:
    """Rows ``lon, lat, property...`` of (x, y, properties) points."""
    cols = list(dict.fromkeys(k for _, _, p in found for k in p))
    cols = [c for c in cols if c.strip().lower() not in LON_NAMES + LAT_NAMES]
    try:
        xy = np.asarray([(float(x), float(y)) for x, y, _ in found], dtype=np.float64)
    except (TypeError, ValueError):
        raise PointError("a point's coordinates are not numbers", path=path) from None
    xy = to_wgs84(xy.reshape(-1, 2), crs, path)
    rows = tuple(
        TableRow(0, i, (repr(float(xy[i, 0])), repr(float(xy[i, 1])),
                        *("" if p.get(c) is None else str(p.get(c)) for c in cols)))
        for i, (_, _, p) in enumerate(found))
    return PointTable(path, ",", ("lon", "lat", *cols), 0, rows)
