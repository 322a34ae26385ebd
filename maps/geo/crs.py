"""Coordinate reference systems, through pyproj: what a map file names, what ``--crs``
overrides, and the one vectorised transform of every vertex to WGS84 lon/lat on load.

Every reader hands its raw coordinates (x, y in the source CRS) to :func:`to_lonlat`
once; from then on the network is WGS84 lon/lat and lengths are metres on the ground
(haversine), whatever the file's CRS. A file that names no CRS is taken as WGS84 when
its coordinates are lon/lat; otherwise loading stops and suggests ``--crs``.
pyproj is imported only when a file's CRS needs it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..errors import MapFormatError

WGS84 = "EPSG:4326"


def parse_crs(text: Any, path: str | None = None, where: str = "") -> Any:
    """The ``pyproj.CRS`` of ``text`` (PROJ string, WKT, ``epsg:N``, PROJJSON dict, a
    CRS); MapFormatError naming it when pyproj cannot read it."""
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    try:
        return CRS.from_user_input(text)
    except (CRSError, TypeError, ValueError) as exc:
        shown = " ".join(str(text).split())
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise MapFormatError(
            f"{where}unknown coordinate reference system {shown!r} ({why})", path=path
        ) from None


def crs_label(crs: Any) -> str:
    """How ``info`` names a CRS: its authority code (``EPSG:3857``), else its PROJ
    string, else its WKT."""
    auth = crs.to_authority()  # pyproj: a match of 70 % confidence or more
    if auth:
        return f"{auth[0]}:{auth[1]}"
    try:
        with warnings.catch_warnings():  # pyproj warns that PROJ strings lose detail
            warnings.simplefilter("ignore", UserWarning)
            proj = crs.to_proj4()
    except Exception:  # noqa: BLE001 (pyproj raises its own types for inexpressible CRSs)
        proj = None
    return proj or crs.to_wkt()


def is_wgs84(crs: Any) -> bool:
    """True for WGS84 lon/lat in either axis order (EPSG:4326, OGC:CRS84)."""
    return bool(crs.equals(WGS84, ignore_axis_order=True))


_WGS84_NAMES = ("EPSG:4326", "OGC:1.3:CRS84", "OGC:CRS84", "CRS84", "WGS84",
          "+PROJ=LONGLAT +DATUM=WGS84 +NO_DEFS", "+PROJ=LONGLAT +ELLPS=WGS84 +DATUM=WGS84 +NO_DEFS")


def is_wgs84_name(crs: Any) -> bool:
    """True for no CRS (RFC 7946: WGS84), EPSG:4326, OGC CRS84 and the PROJ lon/lat
    string, however written: the CRS hook's test (pyproj replaces it with a transform)."""
    return crs is None or str(crs).strip().replace("urn:ogc:def:crs:", "").upper().replace(
        "::", ":") in _WGS84_NAMES


def is_undefined(crs: Any) -> bool:
    """True for a CRS that places nothing on the Earth: an engineering (local) CRS such as
    GDAL's ``LOCAL_CS["Undefined SRS"]``, what it writes for a layer without a CRS."""
    return "engineering" in str(getattr(crs, "type_name", "")).lower()


def _bad_range(x: np.ndarray, y: np.ndarray) -> int:
    """Index of the first point outside lon -180..180 / lat -90..90, else -1."""
    bad = np.flatnonzero((np.abs(x) > 180.0) | (np.abs(y) > 90.0))
    return int(bad[0]) if bad.size else -1


def to_lonlat(
    x: np.ndarray,
    y: np.ndarray,
    file_crs: Any = None,
    *,
    override: str | None = None,
    path: str | None = None,
    where: str = "",
) -> tuple[np.ndarray, np.ndarray, str]:
    """(lon, lat, CRS label) of the points (x, y) in ``override`` (``--crs``), else
    ``file_crs`` (anything :func:`parse_crs` reads; None: the file names none).

    MapFormatError (one line naming the file) for a non-finite coordinate, a CRS pyproj
    cannot read, points it cannot transform, or, without any CRS, points that are not
    lon/lat (the message suggests ``--crs``).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise MapFormatError(f"{where}a coordinate is not a finite number", path=path)
    given = override if override is not None else file_crs
    crs = None
    if given is not None:
        crs = parse_crs(given, path, "--crs: " if override is not None else where)
        if override is None and is_undefined(crs):
            given = None  # a file's "undefined" CRS is no CRS
        elif override is not None and is_undefined(crs):
            raise MapFormatError(f"--crs {override!r} is a local CRS that places nothing on "
                                 "the Earth; give a geographic or projected one", path=path)
    if given is None:
        i = _bad_range(x, y)
        if i >= 0:
            raise MapFormatError(
                f"{where}coordinates such as ({x[i]:.6g}, {y[i]:.6g}) are not lon/lat and the "
                "file has no CRS; give it with --crs (e.g. --crs EPSG:3857)",
                path=path,
            )
        return x, y, WGS84
    assert crs is not None  # parsed above: a CRS was given
    label = crs_label(crs)
    if override is not None and crs.is_projected and x.size and _bad_range(x, y) < 0:
        # every point within ±180/±90 "metres" of the projection's origin: degrees
        raise MapFormatError(
            f"--crs {override}: the coordinates, such as ({x[0]:.6g}, {y[0]:.6g}), are "
            f"lon/lat degrees, not positions in {label}; leave --crs out (or give "
            "--crs EPSG:4326)", path=path)
    if is_wgs84(crs):
        lon, lat = x, y
    else:
        from pyproj import Transformer

        try:
            tr = Transformer.from_crs(crs, WGS84, always_xy=True)
            lon, lat = tr.transform(x, y, errcheck=False)
        except Exception as exc:  # noqa: BLE001 (pyproj: ProjError and friends)
            raise MapFormatError(
                f"{where}cannot transform from {label} to WGS84 ({exc})", path=path
            ) from None
        lon, lat = np.asarray(lon, dtype=np.float64), np.asarray(lat, dtype=np.float64)
        bad = np.flatnonzero(~(np.isfinite(lon) & np.isfinite(lat)))
        if bad.size:
            i = int(bad[0])
            raise MapFormatError(
                f"{where}point ({x[i]:.6g}, {y[i]:.6g}) lies outside the area of {label}",
                path=path,
            )
    i = _bad_range(lon, lat)
    if i >= 0:
        raise MapFormatError(
            f"{where}point ({x[i]:.6g}, {y[i]:.6g}) is outside lon -180..180 / lat -90..90 "
            f"in {label}" + ("" if override is not None else "; give the right one with --crs"),
            path=path,
        )
    return lon, lat, label
