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

Every limit raises MapFormatError naming the file and the variable to raise it.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO

from .errors import MapFormatError

MAX_INPUT_ENV = "SIGNPOST_MAX_INPUT_MB"
MAX_LINE_ENV = "SIGNPOST_MAX_LINE_KB"
_DEFAULT_MB = 4096
_DEFAULT_LINE_KB = 1024
_CHUNK = 1 << 24
_SNIFF = 1 << 16  # bytes looked at for binary content


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


def read_bounded(path: str, *, text: str | None = None) -> bytes:
    """The bytes of ``path``, decompressed by magic number (gzip, xz, bz2 or plain), at
    most :func:`max_input_bytes`; a UTF-8 BOM is dropped. ``text`` names the format of a
    text file ("DIMACS", "CSV"): binary content is then refused (module doc)."""
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise MapFormatError(f"cannot read: {exc.strerror or exc}", path=path) from None
    with fh:
        return read_stream(fh, path, text=text)


def read_stream(fh: BinaryIO, path: str, *, text: str | None = None) -> bytes:
    """:func:`read_bounded` of an open binary file (``path`` names it in errors)."""
    limit = max_input_bytes()
    try:
        opener = _decompressor(fh.read(6))
        fh.seek(0)
        if opener is None:
            if os.fstat(fh.fileno()).st_size > limit:
                raise _too_big(path, limit, "the file holds")
            data = fh.read()
        else:
            data = _stream(opener(fh), path, limit)
    except MapFormatError:
        raise
    except (EOFError, OSError, lzma.LZMAError, zlib.error, ValueError) as exc:
        raise MapFormatError(f"truncated or corrupt compressed data ({exc})", path=path) from None
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if text is not None:
        check_text(data, path, text)
    return data


def iter_chunks(path: str) -> Iterator[bytes]:
    """The decompressed bytes of ``path`` in chunks (at most :func:`max_input_bytes`)."""
    limit = max_input_bytes()
    total = 0
    try:
        with open(path, "rb") as fh:
            opener = _decompressor(fh.read(6))
            fh.seek(0)
            src = fh if opener is None else opener(fh)
            while chunk := src.read(_CHUNK):
                total += len(chunk)
                if total > limit:
                    raise _too_big(path, limit, "it holds")
                yield chunk
    except MapFormatError:
        raise
    except (EOFError, OSError, lzma.LZMAError, zlib.error, ValueError) as exc:
        raise MapFormatError(f"cannot read: {exc}", path=path) from None


def _stream(src, path: str, limit: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    with src:
        while chunk := src.read(_CHUNK):
            total += len(chunk)
            if total > limit:
                raise _too_big(path, limit, "it decompresses to")
            parts.append(chunk)
    return b"".join(parts)


def check_text(data: bytes, path: str, fmt: str) -> None:
    """MapFormatError when ``data`` starts like a binary file (a NUL byte)."""
    k = data.find(b"\0", 0, _SNIFF)
    if k >= 0:
        raise MapFormatError(
            f"binary content (a NUL byte at offset {k}): not a {fmt} text file", path=path
        )


def check_line_lengths(data: bytes, path: str) -> None:
    """MapFormatError naming the first line longer than :func:`max_line_bytes`."""
    limit = max_line_bytes()
    if len(data) <= limit:
        return
    pos = lineno = 0
    while pos < len(data):
        lineno += 1
        end = data.find(b"\n", pos, pos + limit + 1)
        if end < 0 and len(data) - pos > limit:
            raise MapFormatError(
                f"a line longer than {limit // 1024:,} KB (the limit; set {MAX_LINE_ENV} to "
                "raise it)", path=path, line=lineno,
            )  # fmt: skip
        if end < 0:
            return
        pos = end + 1


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
