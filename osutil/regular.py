"""Bounded reads of files that must be regular (issue 40, item 10).

``open(path)`` of a FIFO blocks until a writer comes, and a read of ``/dev/urandom`` never
ends: a cache file, an index or a shapefile companion is opened here instead, without
blocking (``O_NONBLOCK``), and refused unless ``fstat`` says it is a regular file (the
check is on the opened descriptor, so a swap after a ``stat`` cannot slip through), and
unless it holds at most ``max_bytes``. Both refusals are ``OSError`` subclasses, so code
that treats an unreadable cache file as a miss keeps doing so. Standard library only.
"""

from __future__ import annotations

import errno
import io
import os
import stat

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a folder"))


class NotRegularFileError(OSError):
    """The path is a FIFO, a device, a socket or a folder, not a regular file."""


class FileTooLargeError(OSError):
    """The file holds more bytes than the reader accepts."""


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, for a message."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str | os.PathLike, max_bytes: int | None = None) -> io.BufferedReader:
    """``open(path, "rb")`` of a regular file holding at most ``max_bytes`` (None: any
    size), never blocking on a FIFO: NotRegularFileError / FileTooLargeError (``strerror``
    says why, ``filename`` is ``path``), or the OSError of the open itself."""
    p = os.fspath(path)
    fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(errno.EINVAL, f"{kind_of(st.st_mode)}, not a regular file", p)
        if max_bytes is not None and st.st_size > max_bytes:
            raise FileTooLargeError(errno.EFBIG, f"holds {st.st_size:,} bytes, more than the "
                                    f"{max_bytes:,} it may", p)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` (also when it grows
    while read): :func:`open_regular`'s errors otherwise."""
    with open_regular(path, max_bytes) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileTooLargeError(errno.EFBIG, f"grew past the {max_bytes:,} bytes it may hold",
                                os.fspath(path))
    return data
