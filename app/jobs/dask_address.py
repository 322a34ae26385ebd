"""``--dask`` values checked before anything connects: what the value may be
(:func:`parse_spec`), a bounded look at the peer (:func:`probe_scheduler`), and how many
local workers the machine takes (:func:`_capped`).

Only ``tcp://`` reaches a scheduler (``dask scheduler`` with no TLS): other schemes need
configuration the command line cannot give (``tls://`` certificates) or name nothing a
separate process can reach (``inproc://``). A user name or password in the address is
refused and never shown: every message prints :func:`shown` of the value.

``distributed.Client`` alone waits without limit for a peer that accepts and never
answers (its handshake read has no timeout), and reads a stranger's first 8 bytes (an
HTTP banner) as a frame length, then tries to allocate that much. So the peer is probed
first with a plain socket and a deadline: a Dask scheduler sends its handshake (an 8-byte
little-endian length, then a small msgpack map naming ``pickle-protocol``) as soon as it
accepts.
"""

from __future__ import annotations

import os
import re
import socket
import struct
import time
from urllib.parse import urlsplit

from osutil.secrets import redact

SCHEMES = ("tcp",)
HANDSHAKE_MAX = 1 << 16  # a scheduler's handshake is ~60 bytes; an HTTP banner reads as 5e18
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", re.DOTALL)


class AddressError(Exception):
    """A ``--dask`` value that names no usable cluster (a one-line message, no secret)."""


def shown(spec: str) -> str:
    """``spec`` as messages print it: any ``user:password@`` removed, and any other
    password form (``osutil.secrets.redact``: one after the host, ``?password=``)."""
    m = _SCHEME.match(spec)
    rest = m.group(2) if m else spec
    netloc, sep, tail = rest.partition("/")
    if "@" in netloc:
        rest = netloc.rpartition("@")[2] + sep + tail
    return redact(f"{m.group(1)}://{rest}" if m else rest)


def _ascii_count(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() else None


def parse_spec(spec: str) -> tuple[str, int | None]:
    """``local`` -> ("local", None); ``local:N`` -> ("local", N); ``tcp://HOST:PORT`` or
    ``HOST:PORT`` -> ("tcp://HOST:PORT", None). AddressError (one line) for anything else:
    an empty value, another scheme, a user or password, no port, a path."""
    s = spec.strip()
    show = shown(s)
    if not s:
        raise AddressError("--dask '': give local, local:N or tcp://HOST:PORT")
    if s == "local":
        return "local", None
    if s.startswith("local:"):
        n = _ascii_count(s[len("local:"):])
        if n is None or n < 1:
            raise AddressError(f"--dask {show!r}: local:N needs a worker count N >= 1")
        return "local", n
    m = _SCHEME.match(s)
    if m is None:  # HOST:PORT
        rest = s
    elif m.group(1).lower() in SCHEMES:
        rest = m.group(2)
    else:
        raise AddressError(f"--dask {show!r}: {m.group(1)}:// is not supported; give "
                           "tcp://HOST:PORT (a 'dask scheduler' without TLS), local or local:N")
    netloc, slash, tail = rest.partition("/")
    if "@" in netloc:
        raise AddressError(f"--dask {show!r}: a Dask address takes no user name or "
                           "password; give tcp://HOST:PORT")
    if tail or (slash and m is None) or any(c in netloc for c in "?#"):
        raise AddressError(f"--dask {show!r}: give tcp://HOST:PORT, with nothing after "
                           "the port")
    try:
        parts = urlsplit(f"tcp://{netloc}")
        host, port = parts.hostname, parts.port
    except ValueError:  # a port out of range or not a number, a bad IPv6 literal
        host = port = None
    if not host or port is None or port < 1 or not netloc.rsplit(":", 1)[-1].isascii():
        raise AddressError(f"--dask {show!r}: give local, local:N or tcp://HOST:PORT (a port "
                           "1-65535)")
    return f"tcp://{netloc}", None


def probe_scheduler(address: str, timeout: float) -> None:
    """Check that a Dask scheduler answers at ``address`` (``tcp://HOST:PORT``) within
    ``timeout`` seconds in all: AddressError saying what is there otherwise (nothing, a
    peer that stays silent or closes, another protocol)."""
    parts = urlsplit(address)
    host, port = parts.hostname, parts.port
    deadline = time.monotonic() + timeout

    def left() -> float:
        return max(0.01, deadline - time.monotonic())

    try:
        sock = socket.create_connection((host, port), timeout=left())
    except (OSError, UnicodeError) as exc:  # refused, unreachable, unknown host, timeout
        raise AddressError(f"cannot reach the Dask scheduler at {address} within "
                           f"{timeout:g} s ({type(exc).__name__})") from None
    with sock:
        head = _read(sock, 8, left, address, timeout)
        (size,) = struct.unpack("<Q", head)
        if not 8 <= size <= HANDSHAKE_MAX:
            raise AddressError(f"{address} does not speak the Dask protocol (it sent "
                               f"{_printable(head)}): is it a 'dask scheduler' port?")
        body = _read(sock, size, left, address, timeout)
    if b"pickle-protocol" not in body:
        raise AddressError(f"{address} does not speak the Dask protocol (its first message "
                           "is no Dask handshake): is it a 'dask scheduler' port?")


def _read(sock: socket.socket, n: int, left, address: str, timeout: float) -> bytes:
    data = b""
    while len(data) < n:
        sock.settimeout(left())
        try:
            got = sock.recv(n - len(data))
        except TimeoutError:
            raise AddressError(f"{address} accepted the connection but sent nothing a Dask "
                               f"scheduler sends within {timeout:g} s: is it a 'dask "
                               "scheduler' port?") from None
        except OSError as exc:
            got, why = b"", type(exc).__name__
        else:
            why = "closed"
        if not got:
            raise AddressError(f"{address} closed the connection before any Dask handshake "
                               f"({why}): is it a 'dask scheduler' port?")
        data += got
    return data


def _printable(data: bytes) -> str:
    return repr(data.decode("latin-1"))


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _capped(n: int | None, have: int, what: str, notes: list[str]) -> int:
    """Workers for ``local:n`` on a machine with ``have`` cores or GPUs (default: all)."""
    if n is None:
        return have
    if n > have:
        notes.append(f"--dask local:{n}: this machine has {have} {what}"
                     f"{'s' if have != 1 else ''}; starting {have} worker"
                     f"{'s' if have != 1 else ''}")
        return have
    return n
