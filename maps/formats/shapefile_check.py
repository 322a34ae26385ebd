"""A truncated Shapefile is refused, not loaded as part of a map (issue 40 item 5).

GDAL reads a ``.shp`` cut short (a copy that stopped, a download that broke off) without
an error: the features past the cut come back with no geometry, and a map of what is left
loads. Before GDAL reads it, the ``.shp`` is measured against its own header (file length
in 16-bit words at byte 24) and its ``.shx`` index (one offset/length pair per feature):
when records lie past the end, MapFormatError names the file and how many features are
lost. Only the 100-byte headers and the ``.shx`` (8 bytes a feature) are read, and only
from regular files; in a zipped Shapefile, each ``.shp`` member's size (the zip's
directory) against its ``.shx`` member.
"""

from __future__ import annotations

import os
import stat
import struct

from ..errors import MapFormatError

_HEADER = 100
_MAGIC = 9994
_MAX_SHX = 1 << 30  # 134M features: more than any .shx GDAL writes (it caps .shp at 4 GB)


def _regular(path: str) -> int | None:
    """The size of ``path`` when it is a regular file, else None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _companion(shp: str, ext: str) -> str | None:
    stem = shp[:-4]
    for e in (ext, ext.upper()):
        if _regular(stem + e) is not None:
            return stem + e
    return None


def _declared(path: str) -> int | None:
    """The file length a Shapefile header declares (bytes), None when not a Shapefile."""
    with open(path, "rb") as fh:
        head = fh.read(_HEADER)
    if len(head) < _HEADER or struct.unpack(">i", head[:4])[0] != _MAGIC:
        return None
    return int(struct.unpack(">i", head[24:28])[0]) * 2


def lost_records(shp: str) -> tuple[int, int]:
    """(features whose record lies past the end of ``shp``, features the ``.shx`` lists);
    (0, 0) when there is nothing to compare."""
    shx = _companion(shp, ".shx")
    size = _regular(shp)
    if shx is None or size is None:
        return 0, 0
    shx_size = _regular(shx) or 0
    if shx_size < _HEADER or shx_size > _MAX_SHX or _declared(shx) is None:
        return 0, 0
    with open(shx, "rb") as fh:
        fh.seek(_HEADER)
        data = fh.read(shx_size - _HEADER)
    return _past(data, size)


def _past(data: bytes, size: int) -> tuple[int, int]:
    """(records of the .shx body ``data`` that end past ``size`` bytes, records)."""
    n = len(data) // 8
    if not n:
        return 0, 0
    import numpy as np

    rec = np.frombuffer(data[: n * 8], dtype=">i4").reshape(n, 2).astype(np.int64)
    ends = rec[:, 0] * 2 + 8 + rec[:, 1] * 2
    return int(np.count_nonzero(ends > size)), n


def _zip_lost(path: str) -> tuple[str, int, int, int] | None:
    """(member, lost, total, size) of the first truncated ``.shp`` in the zip ``path``
    (its size from the zip's directory, its ``.shx`` read when small)."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as zf:
            infos = {i.filename.lower(): i for i in zf.infolist()}
            for low, info in infos.items():
                shx = infos.get(low[:-4] + ".shx") if low.endswith(".shp") else None
                if shx is None or not (_HEADER < shx.file_size <= _MAX_SHX):
                    continue
                with zf.open(shx) as fh:
                    data = fh.read(shx.file_size + 1)[_HEADER:]
                lost, total = _past(data, info.file_size)
                if lost:
                    return info.filename, lost, total, info.file_size
    except (OSError, zipfile.BadZipFile, ValueError, RuntimeError, EOFError):
        return None  # GDAL says what is wrong with the zip
    return None


def check_shapefile(path: str) -> None:
    """MapFormatError naming ``path`` when its ``.shp`` is shorter than its header or
    ``.shx`` says (module doc); a zipped Shapefile by its members; nothing for others."""
    if path.lower().endswith(".zip") and _regular(path) is not None:
        found = _zip_lost(path)
        if found is not None:
            member, lost, total, zsize = found
            raise MapFormatError(
                f"truncated Shapefile {member!r} in the zip: {lost:,} of {total:,} features "
                f"lie past its end ({zsize:,} bytes); the map would be partial: restore the "
                "whole file", path=path)
        return
    if not path.lower().endswith(".shp"):
        return
    size = _regular(path)
    if size is None or size < _HEADER:
        return  # GDAL says what is wrong with it
    declared = _declared(path)
    if declared is None:
        return
    lost, total = lost_records(path)
    if lost:
        raise MapFormatError(
            f"truncated Shapefile: {lost:,} of {total:,} features lie past the end of the "
            f".shp ({size:,} bytes; its header says {declared:,}); their geometry is lost, "
            "so the map would be partial: restore the whole file", path=path)
    if size < declared:
        raise MapFormatError(
            f"truncated Shapefile: the .shp has {size:,} bytes but its header says "
            f"{declared:,}; the map would be partial: restore the whole file", path=path)
