"""A file of named arrays that a new process reads without copying them (issue 41).

``np.load`` of an ``.npz`` member reads it into fresh memory: on the 2-core machine the
kept metric (221 MB on NE) and the topology (135 MB) took 0.3-0.9 s to read, most of it
page faults of the new memory, and the arrays a closure needs besides them (the unpruned
hierarchy, its sort orders) another 0.5 s to make. Here every array lies at a 64-byte
boundary of one file and is read as a view of a private (copy-on-write) memory map: no
copy, the pages come from the page cache when touched, and a kernel that writes one (the
partial update writes the metric in place) gets a private page, the file unchanged. The
arrays are writable like any other, so numba sees the same types as before (a read-only
array is another type to it, compiled anew).

Layout: ``MAGIC``, the header's length (uint64, little-endian), the header (JSON: the
caller's ``meta``, and per array its name, dtype, shape, offset and checksum), the
header's CRC-32 (uint32), then the arrays. Every array is checked when the file is read,
so a damaged file raises ValueError instead of being trusted. The checksum is numpy's: the
wrapping 64-bit sums of the words of each ``PIECE``-byte piece, in order, hashed (blake2b)
with the length. It finds a flipped bit (it changes one sum by a power of two), a zeroed,
garbage or misplaced block and a truncation; it would miss words swapped within one piece,
which storage does not do. On NE's 572 MB it took 0.04 s where CRC-32 took 0.25 s (zlib
held the GIL: threads did not help) and blake2b more. Written through ``osutil.atomic``
(a temporary renamed into place): a reader sees the old file or the new one, never a part.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import struct
import zlib
from collections.abc import Collection
from typing import Any

import numpy as np

from osutil.atomic import atomic_open

MAGIC = b"SPARRAYS1\n"
ALIGN = 64
PIECE = 1 << 16  # bytes per summed piece
_LEN = struct.Struct("<Q")
_CRC = struct.Struct("<I")


def digest(buf: np.ndarray) -> str:
    """The checksum of the bytes ``buf`` (uint8, 1-d, contiguous): module doc."""
    k = buf.shape[0] // 8
    words = buf[:k * 8].view(np.uint64)
    sums = (np.add.reduceat(words, np.arange(0, k, PIECE // 8)) if k
            else np.zeros(0, np.uint64))
    h = hashlib.blake2b(digest_size=16)
    h.update(str(buf.shape[0]).encode())
    h.update(sums.astype("<u8").tobytes())
    h.update(buf[k * 8:].tobytes())
    return h.hexdigest()


def _bytes_of(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def write(path: str, arrays: dict[str, np.ndarray], meta: dict) -> None:
    """Write ``arrays`` (1-d or n-d, any fixed-size dtype) and ``meta`` (JSON-able) to
    ``path``, atomically. OSError when it cannot be written (nothing left behind)."""
    names = list(arrays)
    datas = [_bytes_of(arrays[k]) for k in names]
    entries: list[dict[str, Any]] = []
    offset = 0  # relative to the data start (rounded up after the header)
    for k, d in zip(names, datas, strict=True):
        a = arrays[k]
        entries.append({"name": k, "dtype": np.dtype(a.dtype).str, "shape": list(a.shape),
                        "offset": offset, "digest": digest(d)})
        offset += -(-d.shape[0] // ALIGN) * ALIGN
    header = json.dumps({"meta": meta, "arrays": entries}).encode()
    start = len(MAGIC) + _LEN.size + len(header) + _CRC.size
    start = -(-start // ALIGN) * ALIGN
    with atomic_open(path, "wb") as fh:
        fh.write(MAGIC)
        fh.write(_LEN.pack(len(header)))
        fh.write(header)
        fh.write(_CRC.pack(zlib.crc32(header)))
        fh.write(b"\0" * (start - len(MAGIC) - _LEN.size - len(header) - _CRC.size))
        at = 0
        for e, d in zip(entries, datas, strict=True):
            fh.write(b"\0" * (e["offset"] - at))
            fh.write(d.data)
            at = e["offset"] + d.shape[0]


def read(path: str, *, max_bytes: int | None = None,
         sparse: Collection[str] = ()) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, arrays) of a file ``write`` made: each array a writable view of a private
    memory map of the file (writes never reach it). OSError when it cannot be opened
    (absent, not a regular file); ValueError when it is damaged or of another layout.
    ``sparse``: arrays the caller will touch only here and there; the check mapped all
    their pages, which are unmapped again, so that only those it touches count in its
    memory (the others stay mapped: unmapping an array read whole next costs the page
    faults of mapping it again, 0.1-0.25 s for NE's 140 MB hierarchy)."""
    from osutil.regular import open_regular

    with open_regular(path, max_bytes=max_bytes) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size < len(MAGIC) + _LEN.size:
            raise ValueError(f"{path}: too short")
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
    meta, out, spans = _parse(path, mm, size)  # the map lives as long as an array of it
    if hasattr(mmap, "MADV_DONTNEED"):
        page = mmap.PAGESIZE
        for name in sparse:
            if name in spans:  # whole pages inside the array only (nothing is written yet)
                a0, a1 = -(-spans[name][0] // page) * page, spans[name][1] // page * page
                if a1 > a0:
                    mm.madvise(mmap.MADV_DONTNEED, a0, a1 - a0)
    return meta, out


def _parse(path: str, mm: mmap.mmap,
           size: int) -> tuple[dict, dict[str, np.ndarray], dict[str, tuple[int, int]]]:
    if mm[:len(MAGIC)] != MAGIC:
        raise ValueError(f"{path}: not an array file")
    (hlen,) = _LEN.unpack_from(mm, len(MAGIC))
    h0 = len(MAGIC) + _LEN.size
    if h0 + hlen + _CRC.size > size:
        raise ValueError(f"{path}: truncated header")
    header = mm[h0:h0 + hlen]
    if _CRC.unpack_from(mm, h0 + hlen)[0] != zlib.crc32(header):
        raise ValueError(f"{path}: damaged header")
    try:
        head = json.loads(header)
        meta, entries = head["meta"], head["arrays"]
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"{path}: unreadable header") from None
    start = -(-(h0 + hlen + _CRC.size) // ALIGN) * ALIGN
    out: dict[str, np.ndarray] = {}
    spans: dict[str, tuple[int, int]] = {}
    try:
        for e in entries:
            dtype = np.dtype(e["dtype"])
            shape = tuple(int(s) for s in e["shape"])
            at = start + int(e["offset"])
            nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            if dtype.hasobject or at < start or at + nbytes > size or at % ALIGN:
                raise ValueError(f"{path}: array {e['name']!r} outside the file")
            if digest(np.ndarray((nbytes,), np.uint8, buffer=mm, offset=at)) != e["digest"]:
                raise ValueError(f"{path}: array {e['name']!r} damaged (checksum)")
            out[str(e["name"])] = np.ndarray(shape, dtype, buffer=mm, offset=at)
            spans[str(e["name"])] = (at, at + nbytes)
    except (KeyError, TypeError):
        raise ValueError(f"{path}: unreadable header") from None
    return meta, out, spans
