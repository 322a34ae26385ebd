"""Decoding PostgreSQL's binary COPY stream with numpy, not row by row.

The stream is an 11-byte signature, flags and a header extension, then per row an int16
field count and per field an int32 length (-1: NULL) and that many bytes, big-endian, and
an int16 -1 at the end. The reader asks only for fixed-width values that are never NULL
(``coalesce`` to sentinels), so every row has one layout and numpy reads all rows at once;
an optional last field of variable length (WKB) needs one pass to find where rows start.
"""

from __future__ import annotations

import struct

import numpy as np

from .conn import DatabaseError

SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
SIZES = {"i8": 8, "f8": 8, "i4": 4}


def decode(buf: bytes, fields: list[tuple[str, str]], blob: bool, *, where: str
           ) -> dict[str, np.ndarray]:
    """Arrays named as ``fields`` = [(name, "i8" | "f8" | "i4")] (+ ``"wkb"``: a list of
    bytes or None per row when ``blob``)."""
    if not buf.startswith(SIGNATURE) or len(buf) < 21:
        raise DatabaseError(f"{where}: not a binary COPY stream")
    (ext,) = struct.unpack_from(">i", buf, 15)
    start, end = 19 + ext, len(buf) - 2
    if buf[end:] != b"\xff\xff":
        raise DatabaseError(f"{where}: the COPY stream is truncated")
    nfields = len(fields) + int(blob)
    prefix = 2 + sum(4 + SIZES[t] for _, t in fields)
    u8 = np.frombuffer(buf, dtype=np.uint8)
    out: dict[str, np.ndarray] = {}
    if not blob:  # one layout: a structured view of every row at once
        if (end - start) % prefix:
            raise DatabaseError(f"{where}: unexpected row layout in the COPY stream")
        layout = [("n", ">i2")]
        for name, t in fields:
            layout += [(f"len_{name}", ">i4"), (name, ">" + t)]
        rows = np.frombuffer(buf, dtype=np.dtype(layout), count=(end - start) // prefix,
                             offset=start)
        if rows.size and np.any(rows["n"] != nfields):
            raise DatabaseError(f"{where}: unexpected field count in the COPY stream")
        for name, t in fields:
            if np.any(rows[f"len_{name}"] != SIZES[t]):
                raise DatabaseError(f"{where}: column {name} arrived with an unexpected width")
            out[name] = rows[name].astype("<" + t)
        return out
    else:
        starts_list, wkb = _walk(buf, start, end, prefix)
        starts = np.asarray(starts_list, dtype=np.int64)
        out["wkb"] = wkb  # type: ignore[assignment]
    if starts.size:  # rows of different lengths: gather each field's bytes
        counts = u8[starts[:, None] + np.arange(2)].copy().view(">i2").ravel()
        if np.any(counts != nfields):
            raise DatabaseError(f"{where}: unexpected field count in the COPY stream")
    off = 2
    for name, t in fields:
        size = SIZES[t]
        lens = u8[starts[:, None] + off + np.arange(4)].copy().view(">i4").ravel()
        if np.any(lens != size):
            raise DatabaseError(f"{where}: column {name} arrived with an unexpected width")
        raw = u8[starts[:, None] + off + 4 + np.arange(size)].copy()
        out[name] = raw.view(">" + t).ravel().astype("<" + t)
        off += 4 + size
    return out


def _walk(buf: bytes, pos: int, end: int, prefix: int) -> tuple[list[int], list[bytes | None]]:
    """Row starts and the trailing variable field of each row."""
    starts: list[int] = []
    blobs: list[bytes | None] = []
    unpack = struct.Struct(">i").unpack_from
    while pos < end:
        starts.append(pos)
        (n,) = unpack(buf, pos + prefix)
        body = pos + prefix + 4
        blobs.append(None if n < 0 else buf[body:body + n])
        pos = body + max(n, 0)
    return starts, blobs
