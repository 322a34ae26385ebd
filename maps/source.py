"""Reading input files within bounds: the one opener of the text readers.

* **Size.** A file (or what a ``.gz``/``.xz``/``.bz2`` file decompresses to, streamed in
  chunks, so a compression bomb stops at the limit instead of exhausting memory) may hold
  at most ``SIGNPOST_MAX_INPUT_MB`` megabytes (default 4096).
* **Lines.** Line-oriented formats (DIMACS, CSV points) accept lines of at most
  ``SIGNPOST_MAX_LINE_KB`` kilobytes (default 1024).
* **Binary content** (a NUL byte near the start of a text format) is refused in one line
  instead of being parsed as garbage.
* **JSON** documents are parsed by :func:`load_json`: a 5,000-digit integer, nesting too
  deep for the parser, or bad UTF-8 give one MapFormatError line.
* **Special files.** The size limit is counted while reading, never taken from ``stat``,
  so ``/dev/zero`` or ``/dev/urandom`` stop at it (a text format at its first NUL byte, at
  once); nothing seeks, so a FIFO or process substitution (``--from <(cat p.csv)``) is read
  into memory once, then parsed; a FIFO that no writer opens within :data:`FIFO_WAIT_S`
  is one error line, not a hang (:func:`open_input`). Readers that need a real file
  (SQLite, GDAL, a map read twice for its cache key) refuse anything else in one line
  (:func:`check_regular`).

Every limit raises MapFormatError naming the file and the variable to raise it.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import select
import stat
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO, cast

from .errors import MapError, MapFormatError

MAX_INPUT_ENV = "SIGNPOST_MAX_INPUT_MB"
MAX_LINE_ENV = "SIGNPOST_MAX_LINE_KB"
_DEFAULT_MB = 4096
_DEFAULT_LINE_KB = 1024
_CHUNK = 1 << 24
_SNIFF = 1 << 16  # bytes looked at for binary content
FIFO_WAIT_S = 10.0  # how long a FIFO may go without a writer before it is an error


def _env_limit(name: str, default: int, scale: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default * scale
    try:
        v = float(text)
    except ValueError:
        raise MapFormatError(f"{name}={text!r} is not a number") from None
    if not (v > 0 and v < 2**40):
        raise MapFormatError(f"{name}={text!r} must be a positive number")
    return int(v * scale)


def max_input_bytes() -> int:
    """The largest (decompressed) input in bytes: $SIGNPOST_MAX_INPUT_MB, default 4 GiB."""
    return _env_limit(MAX_INPUT_ENV, _DEFAULT_MB, 1 << 20)


def max_line_bytes() -> int:
    """The longest line of a line-oriented format: $SIGNPOST_MAX_LINE_KB, default 1 MiB."""
    return _env_limit(MAX_LINE_ENV, _DEFAULT_LINE_KB, 1 << 10)


def _too_big(path: str, limit: int, what: str) -> MapFormatError:
    return MapFormatError(
        f"{what} more than {limit // (1 << 20):,} MB (the limit; set {MAX_INPUT_ENV} to raise it)",
        path=path,
    )


def _decompressor(magic: bytes):
    """A function opening a binary file object as its decompressed stream, or None."""
    if magic[:2] == b"\x1f\x8b":
        return lambda fh: gzip.GzipFile(fileobj=fh, mode="rb")
    if magic[:6] == b"\xfd7zXZ\x00":
        return lzma.LZMAFile
    if magic[:3] == b"BZh":
        return bz2.BZ2File
    return None


def _kind(mode: int) -> str:
    """What a file that is not a regular one is, for a message."""
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def check_regular(path: str, why: str, error: type[MapError] = MapFormatError) -> None:
    """``error`` naming ``path`` unless it is (a link to) a regular file: for readers that
    need one (``why``: "a GeoPackage is an SQLite database file"). A missing file passes
    (its reader says so)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise error(f"{_kind(mode)}, not a regular file: {why}", path=path)


def open_input(path: str) -> BinaryIO:
    """``open(path, "rb")`` for an input that may be special (module doc): a folder is
    refused; a FIFO is opened without blocking and each of its reads waits at most
    :data:`FIFO_WAIT_S` (a writer that never comes or stalls). MapFormatError naming ``path`` for any failure."""
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise MapFormatError("a folder, not a file", path=path)
        if not stat.S_ISFIFO(mode):
            return open(path, "rb")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise MapFormatError(f"cannot read: {exc.strerror or exc}", path=path) from None
    try:
        return io.BufferedReader(_PolledFifo(fd, path), _CHUNK)
    except BaseException:
        os.close(fd)
        raise


class _PolledFifo(io.RawIOBase):
    """A FIFO read without blocking: every read waits at most :data:`FIFO_WAIT_S` for
    bytes, so neither a writer that never comes nor one that stalls mid-stream hangs a
    command (issue 40: the first byte alone was guarded)."""

    def __init__(self, fd: int, path: str):
        self._fd, self._path = fd, path
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN | select.POLLHUP)
        self._started = False

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def readinto(self, b) -> int:
        while True:
            if not self._poll.poll(int(FIFO_WAIT_S * 1000)):  # Linux: no POLLHUP before a writer
                what = ("whose writer stalled for more than" if self._started
                        else "that nothing wrote to within")
                raise MapFormatError(f"a FIFO (named pipe) {what} {FIFO_WAIT_S:g} s",
                                     path=self._path)
            try:
                n = os.readv(self._fd, [b])
            except BlockingIOError:
                continue
            self._started = True
            return n

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


def check_map_file(path: str, bounded: bool) -> None:
    """A map file before anything reads it: a regular file (a map is read more than once:
    its format sniffed, its bytes hashed for the cache key, GDAL's own opening), and with
    ``bounded`` (a format read through this module) one within :func:`max_input_bytes`,
    checked before the cache key hashes it. MapFormatError naming ``path`` otherwise."""
    check_regular(path, "a map is read more than once (its format, its cache key); save "
                  "it to a file first")
    limit = max_input_bytes()
    try:
        size = os.stat(path).st_size
    except OSError:
        return  # its reader reports it
    if bounded and size > limit:
        raise _too_big(path, limit, "the file holds")


def _inflater(magic: bytes):
    """An incremental decompressor for ``magic`` (``decompress(data, max_length)``), or None."""
    if magic[:2] == b"\x1f\x8b":
        return zlib.decompressobj(wbits=31)
    if magic[:6] == b"\xfd7zXZ\x00":
        return lzma.LZMADecompressor()
    if magic[:3] == b"BZh":
        return bz2.BZ2Decompressor()
    return None


def decompressed_size_estimate(path: str, *, sample: int = 1 << 22,
                               cap: int = 1 << 26) -> int:
    """About how many bytes ``path`` decompresses to (its size when it is not compressed):
    the ratio of its first ``sample`` compressed bytes (at most ``cap`` bytes inflated,
    so a bomb costs nothing), times its size. A rough figure for a memory bound, never a
    limit on what is read (that is :func:`read_stream`'s)."""
    from osutil.regular import open_regular

    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        head = fh.read(sample)
    d = _inflater(head)
    if d is None or not head:
        return size
    out = fed = 0
    try:
        for i in range(0, len(head), 1 << 16):
            piece = head[i:i + (1 << 16)]
            fed += len(piece)
            out += len(d.decompress(piece, max(1, cap - out)))
            if out >= cap or getattr(d, "eof", False):
                break
    except (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError):
        pass  # damage: the reader says what is wrong
    return int(size * (out / max(fed, 1))) if out else size


def check_memory(path: str, per_byte: float, what: str, advice: str) -> None:
    """Refuse ``path`` when loading it would need more memory than the host has free:
    ``per_byte`` bytes of memory per byte of ``what`` it holds, decompressed (estimated),
    not per byte on disk (issue 40: a .osm.bz2 under the 4 GB input cap needed ~50 GB).
    MapFormatError naming the file, the estimate and ``advice``."""
    from osutil.memory import available_memory

    try:
        held = decompressed_size_estimate(path)
    except OSError:
        return  # its reader says what is wrong
    need, free = int(held * per_byte), available_memory()
    if need > free:
        raise MapFormatError(
            f"holds about {held / 2**30:.1f} GB of {what}, whose load needs about "
            f"{need / 2**30:.1f} GB of memory ({free / 2**30:.1f} GB free): {advice} "
            "or cut it smaller", path=path)


class _Prefixed(io.RawIOBase):
    """A stream whose first bytes, read to sniff its format, are put back in front of the
    rest: nothing seeks, so pipes read like files."""

    def __init__(self, head: bytes, rest: BinaryIO):
        self._head, self._rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        if self._head:
            n = min(len(b), len(self._head))
            b[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        # BinaryIO's stub lacks readinto; every binary file object here has it
        return cast(io.BufferedIOBase, self._rest).readinto(b)


def _decompressed(fh: BinaryIO) -> tuple[BinaryIO, bool]:
    """(the decompressed stream of ``fh``, whether it was compressed), read forward only."""
    head = fh.read(6)
    src = io.BufferedReader(_Prefixed(head, fh), _CHUNK)
    opener = _decompressor(head)
    return (src, False) if opener is None else (opener(src), True)


def read_bounded(path: str, *, text: str | None = None) -> bytes:
    """The bytes of ``path``, decompressed by magic number (gzip, xz, bz2 or plain), at
    most :func:`max_input_bytes`; a UTF-8 BOM is dropped. ``text`` names the format of a
    text file ("DIMACS", "CSV"): binary content is then refused (module doc). ``path`` may
    be a FIFO or a device (:func:`open_input`)."""
    with open_input(path) as fh:
        return read_stream(fh, path, text=text)


def read_stream(fh: BinaryIO, path: str, *, text: str | None = None) -> bytes:
    """:func:`read_bounded` of an open binary file (``path`` names it in errors)."""
    limit = max_input_bytes()
    try:
        src, packed = _decompressed(fh)
        data = _stream(src, path, limit, "it decompresses to" if packed else "it holds", text)
    except MapFormatError:
        raise
    except (EOFError, OSError, lzma.LZMAError, zlib.error, ValueError) as exc:
        raise MapFormatError(f"truncated or corrupt compressed data ({exc})", path=path) from None
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data


def iter_chunks(path: str) -> Iterator[bytes]:
    """The decompressed bytes of ``path`` in chunks (at most :func:`max_input_bytes`)."""
    limit = max_input_bytes()
    total = 0
    try:
        with open_input(path) as fh:
            src, _ = _decompressed(fh)
            while chunk := src.read(_CHUNK):
                total += len(chunk)
                if total > limit:
                    raise _too_big(path, limit, "it holds")
                yield chunk
    except MapFormatError:
        raise
    except (EOFError, OSError, lzma.LZMAError, zlib.error, ValueError) as exc:
        raise MapFormatError(f"cannot read: {exc}", path=path) from None


def _stream(src, path: str, limit: int, what: str, text: str | None = None) -> bytes:
    """Every byte of ``src``, counting them as they come (MapFormatError past ``limit``);
    with ``text``, binary content is refused from the first chunk (so /dev/zero stops
    at once)."""
    parts: list[bytes] = []
    total = 0
    with src:
        while chunk := src.read(_CHUNK):
            if text is not None and total < _SNIFF:
                check_text(chunk, path, text, offset=total)
            total += len(chunk)
            if total > limit:
                raise _too_big(path, limit, what)
            parts.append(chunk)
    return b"".join(parts)


def check_text(data: bytes, path: str, fmt: str, offset: int = 0) -> None:
    """MapFormatError when ``data`` (found at ``offset`` of the file) starts like a binary
    file (a NUL byte in the file's first bytes)."""
    k = data.find(b"\0", 0, max(0, _SNIFF - offset))
    if k >= 0:
        raise MapFormatError(
            f"not a {fmt} text file (binary content: a NUL byte at offset {offset + k})",
            path=path,
        )


def check_line_lengths(data: bytes, path: str) -> None:
    """MapFormatError naming the first line longer than :func:`max_line_bytes`. Fast
    enough for every read of a large file (issue 40): blocks of the limit's size, two
    C-level searches each; only a line that crosses a block boundary can be too long."""
    limit = max_line_bytes()
    if len(data) <= limit:
        return
    prev = -1  # the last newline seen
    for start in range(0, len(data), limit):
        end = min(len(data), start + limit)
        first = data.find(b"\n", start, end)
        if first < 0:
            if end - prev - 1 > limit:  # no newline yet and already too long
                break
            continue
        if first - prev - 1 > limit:
            break
        prev = data.rfind(b"\n", start, end)
    else:
        if len(data) - prev - 1 <= limit:
            return
    raise MapFormatError(
        f"a line longer than {limit // 1024:,} KB (the limit; set {MAX_LINE_ENV} to "
        "raise it)", path=path, line=data.count(b"\n", 0, prev + 1) + 1,
    )  # fmt: skip


def load_json(data: bytes | str, path: str, what: str = "JSON") -> Any:
    """``json.loads`` whose every failure is one MapFormatError line naming ``path``."""
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
        return json.loads(text)
    except UnicodeDecodeError as exc:
        raise MapFormatError(f"not UTF-8 text (byte {exc.start})", path=path) from None
    except json.JSONDecodeError as exc:
        raise MapFormatError(f"invalid {what}: {exc.msg}", path=path, line=exc.lineno) from None
    except RecursionError:
        raise MapFormatError(f"{what} nested too deeply", path=path) from None
    except ValueError as exc:  # an integer of thousands of digits
        raise MapFormatError(f"invalid {what}: {str(exc).split(';')[0]}", path=path) from None
