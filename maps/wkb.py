"""Well-known binary (WKB) line geometries, read and written (stdlib struct + numpy).

Reads LineString and MultiLineString (GeometryCollections searched) in 2D, Z, M and ZM,
ISO and EWKB type codes, either byte order; point and polygon types are not lines.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np


def wkb_lines(buf: bytes, off: int = 0) -> list[np.ndarray] | None:
    """The lines (k, 2) of the WKB geometry at ``buf[off:]``; None for a non-line geometry.

    ValueError (or struct.error) for malformed WKB (the caller names the feature).
    """
    lines, _ = _wkb(buf, off, 0)
    return lines


def _wkb(buf: bytes, off: int, depth: int) -> tuple[list[np.ndarray] | None, int]:
    """Parse one WKB geometry at ``off``: (lines or None, offset after it)."""
    if depth > 4:
        raise ValueError("WKB nested too deeply")
    if off + 5 > len(buf):
        raise ValueError("truncated WKB header")
    order = buf[off]
    if order not in (0, 1):
        raise ValueError(f"bad WKB byte order {order}")
    end = "<" if order == 1 else ">"
    (code,) = struct.unpack_from(end + "I", buf, off + 1)
    off += 5
    has_z = bool(code & 0x80000000)
    has_m = bool(code & 0x40000000)
    if code & 0x20000000:  # EWKB SRID
        off += 4
    base = code & 0x0FFFFFFF
    iso, gtype = divmod(base, 1000)
    if iso > 3:
        raise ValueError(f"unknown WKB geometry type {code}")
    has_z |= iso in (1, 3)
    has_m |= iso in (2, 3)
    dims = 2 + has_z + has_m
    if gtype == 2:  # LineString
        if off + 4 > len(buf):
            raise ValueError("truncated LineString")
        (npts,) = struct.unpack_from(end + "I", buf, off)
        off += 4
        nbytes = npts * dims * 8
        if off + nbytes > len(buf):
            raise ValueError(f"LineString of {npts} points overruns the blob")
        arr = np.frombuffer(buf, dtype=end + "f8", count=npts * dims, offset=off)
        xy = arr.reshape(npts, dims)[:, :2].astype(np.float64)
        return [xy], off + nbytes
    if gtype in (5, 7):  # MultiLineString, GeometryCollection
        if off + 4 > len(buf):
            raise ValueError("truncated collection")
        (count,) = struct.unpack_from(end + "I", buf, off)
        off += 4
        if count > len(buf):
            raise ValueError(f"collection of {count} parts overruns the blob")
        out: list[np.ndarray] = []
        for _ in range(count):
            part, off = _wkb(buf, off, depth + 1)
            if part:
                out += part
            elif gtype == 5:
                raise ValueError("a MultiLineString part is not a LineString")
        return out, off
    if gtype in (1, 3, 4, 6):  # point/polygon types: not lines
        return None, len(buf)
    raise ValueError(f"unknown WKB geometry type {code}")


def line_wkb(coords: Sequence[Sequence[float]], *, multi: bool = False, z: bool = False) -> bytes:
    """Little-endian ISO WKB of one line (a MultiLineString of it when ``multi``; a zero Z
    coordinate when ``z``)."""
    pts = np.asarray(coords, dtype="<f8").reshape(-1, 2)
    if z:
        pts = np.column_stack([pts, np.zeros(pts.shape[0])])
    line = struct.pack("<BII", 1, 1002 if z else 2, pts.shape[0]) + pts.astype("<f8").tobytes()
    return struct.pack("<BII", 1, 1005 if z else 5, 1) + line if multi else line
