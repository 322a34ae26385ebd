"""The compact binary map format ``.spn`` and the load cache built on it.

A ``.spn`` file is a fixed 32-byte preamble, a JSON header and the raw arrays::

    0   16 B  magic  b"SIGNPOST-SPN\\0\\0\\0\\0"
    16  u32   format version (CACHE_VERSION)
    20  u32   header length in bytes
    24  u32   CRC-32 of the payload (all array bytes, padding included)
    28  u32   CRC-32 of the header
    32  ...   header: UTF-8 JSON {"arrays": [{name, dtype, shape, offset, nbytes}], "unit",
              "profile", "class_names", "origin", "name", "source_path", "meta", "key"}
              padded with blanks to a multiple of 64
    ...       payload: every array little-endian, C order, each at a 64-byte-aligned offset

No pickle anywhere: dtypes are checked against an allow-list and shapes against the
lengths the network needs, and the whole payload is read with one ``readinto`` (the
1.43M-node Kanto map, ~170 MB, loads in a fraction of a second from the page cache).

:func:`cached` keys a cache entry by the BLAKE2b hash of the source file's bytes (and of
a DIMACS ``.co`` companion), the load options, CACHE_VERSION and a hash of the loader
modules' source code (so an edited loader never serves stale entries). Entries live in
``$SIGNPOST_CACHE_DIR`` or ``~/.cache/signpost``. A corrupt, truncated or old entry is
rebuilt silently; a cache directory that cannot be written is simply not used.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from osutil.atomic import atomic_open
from osutil.regular import open_regular

from .cache_folder import after_save, touch
from .errors import MapError, MapFormatError
from .formats.registry import companion_files, loader_modules
from .model.network import RoadNetwork

log = logging.getLogger(__name__)

MAGIC = b"SIGNPOST-SPN\0\0\0\0"
CACHE_VERSION = 1
_PRE = struct.Struct("<16sIIII")
_ALIGN = 64
# name -> allowed dtypes (first is the one written); per-node "n", per-arc "m", "n+1", "m+1"
_ARRAYS: dict[str, tuple[tuple[str, ...], str]] = {
    "indptr": (("<i4",), "n+1"),
    "indices": (("<i4",), "m"),
    "weights": (("<i4",), "m"),
    "x": (("<f8",), "n"),
    "y": (("<f8",), "n"),
    "lon": (("<f8",), "n"),
    "lat": (("<f8",), "n"),
    "node_ids": (("<i8",), "n"),
    "edge_kind": (("|u1",), "m"),
    "edge_class": (("|u1",), "m"),
    "edge_length": (("<f4",), "m"),
    "edge_source_id": (("<i8",), "m"),
    "geom_indptr": (("<i8",), "m+1"),
    "geom_xy": (("<f8",), "k2"),
}
_OPTIONAL = ("geom_indptr", "geom_xy")


def cache_dir() -> Path:
    """Where cache entries live: $SIGNPOST_CACHE_DIR (``~`` and ``~user`` expanded, as a
    shell would; an unknown user is an error, never a literal ``~x`` folder), else
    ~/.cache/signpost."""
    env = os.environ.get("SIGNPOST_CACHE_DIR")
    if not env:
        return Path.home() / ".cache" / "signpost"
    path = os.path.expanduser(env)
    if path.startswith("~"):
        raise MapError(f"SIGNPOST_CACHE_DIR {env!r}: no user {path[1:].split(os.sep)[0]!r} "
                       "to expand '~' to; write ~/... for a folder in your home, or a full path")
    return Path(path)


def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (set, tuple)):
        return list(o)
    return str(o)


def write_cache(net: RoadNetwork, path: str | os.PathLike, *, key: str = "") -> None:
    """Write ``net`` as a ``.spn`` file (atomically: a temporary file, then rename)."""
    path = os.fspath(path)
    arrays: list[tuple[str, np.ndarray]] = []
    for name, (dtypes, _) in _ARRAYS.items():
        arr = getattr(net, name)
        if arr is None:
            continue
        arrays.append((name, np.ascontiguousarray(arr, dtype=np.dtype(dtypes[0]))))
    descr = []
    off = 0
    for name, arr in arrays:
        descr.append(
            {"name": name, "dtype": arr.dtype.str, "shape": list(arr.shape), "offset": off,
             "nbytes": int(arr.nbytes)}
        )
        off += -(-arr.nbytes // _ALIGN) * _ALIGN
    header = {
        "arrays": descr,
        "payload": off,
        "unit": net.unit,
        "profile": net.profile,
        "class_names": list(net.class_names),
        "origin": [float(net.origin[0]), float(net.origin[1])],
        "name": net.name,
        "source_path": net.source_path,
        "meta": net.meta,
        "key": key,
    }
    hb = json.dumps(header, default=_json_default).encode("utf-8")
    hb += b" " * (-(len(hb) + _PRE.size) % _ALIGN)
    crc = 0
    chunks: list[bytes | memoryview] = []
    for _name, arr in arrays:
        mv = arr.data.cast("B") if arr.size else memoryview(b"")
        pad = b"\0" * (-arr.nbytes % _ALIGN)
        crc = zlib.crc32(pad, zlib.crc32(mv, crc))
        chunks += [mv, pad]
    pre = _PRE.pack(MAGIC, CACHE_VERSION, len(hb), crc, zlib.crc32(hb))
    with atomic_open(path, "wb") as fh:  # a temporary beside it, renamed when complete
        fh.write(pre)
        fh.write(hb)
        for c in chunks:
            fh.write(c)


def read_cache(path: str | os.PathLike, *, expect_key: str | None = None) -> RoadNetwork:
    """Read a ``.spn`` file; anything malformed raises MapFormatError naming the file."""
    path = os.fspath(path)

    def bad(msg: str) -> MapFormatError:
        return MapFormatError(f"not a valid Signpost .spn file: {msg}", path=path)

    try:  # never waits on a FIFO, never reads a device (issue 40)
        fh = open_regular(path)
    except OSError as exc:
        raise MapFormatError(f"cannot read: {exc.strerror or exc}", path=path) from None
    with fh:
        pre = fh.read(_PRE.size)
        if len(pre) != _PRE.size:
            raise bad("shorter than its preamble")
        magic, version, hlen, crc, hcrc = _PRE.unpack(pre)
        if magic != MAGIC:
            raise bad("wrong magic number")
        if version != CACHE_VERSION:
            raise bad(f"format version {version}, this Signpost reads {CACHE_VERSION}")
        if hlen > 1 << 26:
            raise bad("header length out of range")
        hb = fh.read(hlen)
        if len(hb) != hlen or zlib.crc32(hb) != hcrc:
            raise bad("header truncated or damaged")
        try:
            header = json.loads(hb.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise bad("header is not JSON") from None
        if not isinstance(header, dict):
            raise bad("header is not an object")
        if expect_key is not None and header.get("key") != expect_key:
            raise bad("cache key does not match")
        payload = header.get("payload")
        if not isinstance(payload, int) or payload < 0:
            raise bad("payload size missing")
        try:
            remaining = os.fstat(fh.fileno()).st_size - fh.tell()
        except OSError:
            remaining = -1
        if remaining != payload:
            raise bad(f"payload is {remaining} bytes, the header says {payload}")
        # np.empty, not bytearray(n): zeroing 200 MB held the GIL for ~80 ms (the app
        # reads maps on a worker thread); the pages fill in readinto, without the GIL
        buf = np.empty(payload, dtype=np.uint8)
        if fh.readinto(buf.data) != payload:
            raise bad("truncated payload")
    if zlib.crc32(buf.data) != crc:
        raise bad("payload checksum mismatch")
    arrays = _arrays_from(header, buf, bad)
    try:
        net = RoadNetwork(
            **arrays,
            unit=str(header["unit"]),
            profile=str(header["profile"]),
            class_names=[str(c) for c in header["class_names"]],
            origin=(float(header["origin"][0]), float(header["origin"][1])),
            name=str(header.get("name", "")),
            source_path=str(header.get("source_path", "")),
            meta=dict(header.get("meta") or {}),
        )
    except (KeyError, TypeError, ValueError, IndexError):
        raise bad("header fields missing or of the wrong type") from None
    try:
        net.validate()
    except MapError as exc:
        raise bad(exc.detail) from None
    net.meta["cache_file"] = path
    return net


def _arrays_from(header: dict, buf: np.ndarray, bad) -> dict[str, Any]:
    # Any: RoadNetwork's keyword arguments, arrays or None (optional ones), checked here
    descr = header.get("arrays")
    if not isinstance(descr, list):
        raise bad("array table missing")
    out: dict[str, Any] = {k: None for k in _OPTIONAL}
    for d in descr:
        try:
            name, dtype, shape = d["name"], np.dtype(d["dtype"]), tuple(int(s) for s in d["shape"])
            off, nbytes = int(d["offset"]), int(d["nbytes"])
        except (KeyError, TypeError, ValueError):
            raise bad("malformed array entry") from None
        if name not in _ARRAYS or dtype.str not in _ARRAYS[name][0]:
            raise bad(f"unexpected array {name!r} of dtype {dtype.str}")
        count = int(np.prod(shape)) if shape else 1
        if min(shape, default=0) < 0 or count * dtype.itemsize != nbytes:
            raise bad(f"array {name!r}: shape and size disagree")
        if off < 0 or off % _ALIGN or off + nbytes > len(buf):
            raise bad(f"array {name!r} lies outside the payload")
        out[name] = np.frombuffer(buf, dtype=dtype, count=count, offset=off).reshape(shape)
    for name in _ARRAYS:
        if name not in _OPTIONAL and out.get(name) is None:
            raise bad(f"array {name!r} missing")
    n = out["indptr"].shape[0] - 1
    m = out["indices"].shape[0]
    if n < 0:
        raise bad("empty indptr")
    want = {"n": (n,), "m": (m,), "n+1": (n + 1,), "m+1": (m + 1,)}
    for name, (_, size) in _ARRAYS.items():
        arr = out[name]
        if arr is None:
            continue
        if size == "k2":
            if arr.ndim != 2 or arr.shape[1] != 2:
                raise bad(f"array {name!r} must be k x 2")
        elif arr.shape != want[size]:
            raise bad(f"array {name!r} has shape {arr.shape}, expected {want[size]}")
    gi, gx = out["geom_indptr"], out["geom_xy"]
    if (gi is None) != (gx is None):
        raise bad("geometry arrays come in pairs")
    if gi is not None and (
        gi[0] != 0 or gi[-1] != gx.shape[0] or (gi.size > 1 and np.any(np.diff(gi) < 0))
    ):
        raise bad("geom_indptr is not a valid offset array")
    return out


# ---- the load cache ------------------------------------------------------------------------
def file_digest(path: str) -> str:
    """BLAKE2b (32 bytes) of the file's bytes, hex."""
    h = hashlib.blake2b(digest_size=32)
    with open_regular(path) as fh:  # a FIFO or device: OSError, never a hang
        while chunk := fh.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """BLAKE2b of the loader modules' source (read once per process). Any edit to them (a
    new road speed, a parser fix) must not be hidden by entries built by the old code."""
    h = hashlib.blake2b(digest_size=16)
    here = Path(__file__).resolve().parent  # maps/: loader_modules() names files below it
    for name in loader_modules():
        try:
            h.update(name.encode() + b"\0" + (here / name).read_bytes())
        except OSError:
            h.update(name.encode() + b"\0missing")
    return h.hexdigest()


def cache_key(path: str, options: dict) -> str:
    """The cache key of ``path`` loaded with ``options``: content hashes + options + version
    + the loader code's fingerprint."""
    h = hashlib.blake2b(digest_size=20)
    h.update(f"signpost-spn-v{CACHE_VERSION}\n{code_fingerprint()}\n".encode())
    h.update(file_digest(path).encode())
    for c in companion_files(path):
        h.update(b"\n+" + os.fsencode(os.path.basename(c)) + b":" + file_digest(c).encode())
    h.update(b"\n" + json.dumps(options, sort_keys=True, default=_json_default).encode())
    return h.hexdigest()


def cached(
    path: str | os.PathLike, options: dict, build_fn: Callable[[], RoadNetwork]
) -> RoadNetwork:
    """``build_fn()``'s network for ``path`` + ``options``, from the cache when it holds it.

    Never fails because of the cache: an unreadable source file is left to ``build_fn``
    (which reports it), a bad entry is rebuilt, an unwritable directory is skipped.
    """
    path = os.fspath(path)
    try:
        key = cache_key(path, options)
    except OSError:
        return build_fn()
    net = cached_entry(key, build_fn)
    if net.meta.get("cache_hit"):
        net.source_path = path
    return net


def source_key(fingerprint: str) -> str:
    """The cache key of a source that is not a file (a database table): its
    ``fingerprint`` (which must change whenever its content does) + version + loader code."""
    h = hashlib.blake2b(digest_size=20)
    h.update(f"signpost-spn-v{CACHE_VERSION}\n{code_fingerprint()}\n".encode())
    h.update(fingerprint.encode())
    return h.hexdigest()


def cached_entry(key: str, build_fn: Callable[[], RoadNetwork]) -> RoadNetwork:
    """``build_fn()``'s network, kept in the cache entry named ``key`` (see :func:`cached`)."""
    entry = cache_dir() / f"{key}.spn"
    if entry.exists():
        try:
            net = read_cache(entry, expect_key=key)
        except (MapError, OSError, MemoryError):
            net = None  # corrupt or stale: rebuild below
        if net is not None:
            touch(entry)  # used: last in line for eviction
            net.meta["cache_hit"] = True
            log.info("cache hit: %s (%s nodes, %s arcs)", entry, f"{net.num_nodes:,}",
                     f"{net.num_arcs:,}")
            return net
        log.info("cache entry %s unreadable: rebuilding", entry)
    else:
        log.info("cache miss: %s", entry)
    net = build_fn()
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        write_cache(net, entry, key=key)
        net.meta["cache_file"] = os.fspath(entry)  # as a hit says: where its arrays are
        log.info("cache written: %s", entry)
        after_save(entry)  # partial saves swept, the folder held to its cap (issue 40)
    except OSError as exc:
        log.info("cache not written (%s): %s", exc, entry)  # the cache is an optimisation only
    net.meta["cache_hit"] = False
    return net
