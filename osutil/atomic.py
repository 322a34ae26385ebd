"""The one way Signpost writes a file: whole or not at all.

Every output (CSV, GeoJSON, NPY, PNG/SVG, the ``.spn`` cache, a generated ``.gr`` + ``.co``
pair) is written to a temporary file in the target's folder, flushed to disk (fsync) and
renamed over the target only when complete. So a failure, Ctrl-C or a full disk leaves
the earlier file as it was and no temporary behind; an output path that is a symbolic
link has the link itself replaced (rename never follows it), the file it pointed to is
left untouched; files get the user's umask (the temporary is created 0666 & ~umask, as
``open()`` would, not mkstemp's 0600).

Temporaries are named ``.signpost-tmp-<pid>-<random><ext>``; one left behind by a killed
run is swept the next time Signpost writes into that folder, once it is older than
:data:`STALE_AFTER_S`, owned by this user and its process is gone. It lives in
``resources`` (the lowest layer) so ``maps``, ``gpu_core`` and ``app`` can all use it.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any, BinaryIO, Literal, TextIO, overload

PREFIX = ".signpost-tmp-"
STALE_AFTER_S = 600.0  # a temporary this old, of a process that is gone, is swept
_OURS = re.compile(re.escape(PREFIX) + r"(\d+)-[0-9a-f]{12}")


def _extension(path: str) -> str:
    """The target's ending (``.csv``, ``.gr.gz``): some writers pick a format by it."""
    name = os.path.basename(path)
    dot = name.find(".", 1)
    ext = name[dot:] if dot > 0 else ""
    return ext if len(ext) <= 16 and "/" not in ext else ""


def _new_temp(path: str) -> tuple[int, str]:
    """An exclusive new file beside ``path`` (mode 0666 minus the umask) and its name."""
    folder = os.path.dirname(os.path.abspath(path))
    ext = _extension(path)
    for _ in range(100):
        tmp = os.path.join(folder, f"{PREFIX}{os.getpid()}-{secrets.token_hex(6)}{ext}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's process (or unknowable): leave its file alone
    return True


def sweep_stale(folder: str | os.PathLike, *, older_than_s: float = STALE_AFTER_S) -> int:
    """Remove this user's temporaries in ``folder`` left by runs that died; their count."""
    removed = 0
    now = time.time()
    try:
        entries = list(os.scandir(os.fspath(folder)))
    except OSError:
        return 0
    for e in entries:
        m = _OURS.match(e.name)
        if not m:
            continue
        try:
            st = e.stat(follow_symlinks=False)
            if (st.st_uid != os.getuid() or now - st.st_mtime < older_than_s
                    or _alive(int(m.group(1)))):
                continue
            os.unlink(e.path)
            removed += 1
        except OSError:
            continue
    return removed


def _discard(tmp: str | None) -> None:
    if tmp is not None:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _fsync_dir(folder: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_paths(paths: Sequence[str | os.PathLike]) -> Iterator[list[str]]:
    """Temporary names for ``paths``, renamed onto them together when the block ends without
    an exception (so a ``.gr`` never appears without its ``.co``); on any exception
    (KeyboardInterrupt included) every temporary is removed and the targets stay as they
    were. For writers that want a file name (``np.save``, ``QPixmap.save``)."""
    targets = [os.fspath(p) for p in paths]
    for folder in {os.path.dirname(os.path.abspath(p)) for p in targets}:
        sweep_stale(folder)
    temps: list[str] = []
    try:
        for p in targets:
            fd, tmp = _new_temp(p)
            os.close(fd)
            temps.append(tmp)
        yield temps
        for tmp in temps:
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        for tmp, p in zip(temps, targets, strict=True):
            os.replace(tmp, p)
        for folder in {os.path.dirname(os.path.abspath(p)) for p in targets}:
            _fsync_dir(folder)
    finally:
        for tmp in temps:
            if os.path.lexists(tmp):
                _discard(tmp)


@overload
def atomic_open(path: str | os.PathLike, mode: Literal["w"] = "w",
                **kw: Any) -> contextlib.AbstractContextManager[TextIO]: ...
@overload
def atomic_open(path: str | os.PathLike, mode: Literal["wb"],
                **kw: Any) -> contextlib.AbstractContextManager[BinaryIO]: ...
@overload
def atomic_open(path: str | os.PathLike, mode: str, **kw: Any) -> contextlib.AbstractContextManager[IO]: ...
def atomic_open(path: str | os.PathLike, mode: str = "w", **kw: Any) -> contextlib.AbstractContextManager[IO]:
    """``open(path, mode)`` for writing, atomically (module doc). ``mode`` is "w" or "wb";
    text defaults to UTF-8 with no newline translation."""
    return _atomic_open(path, mode, **kw)


@contextlib.contextmanager
def _atomic_open(path: str | os.PathLike, mode: str, **kw: Any) -> Iterator[IO]:
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes new files only (mode 'w' or 'wb'), not {mode!r}")
    if mode == "w":
        kw.setdefault("encoding", "utf-8")
        kw.setdefault("newline", "")
    with atomic_paths([path]) as (tmp,):
        with open(tmp, mode, **kw) as fh:
            yield fh
            fh.flush()


def write_atomic(path: str | os.PathLike, write: Callable[[IO], Any], *, binary: bool = False,
                 **kw: Any) -> None:
    """Call ``write(fh)`` on a temporary file, then rename it to ``path``."""
    with atomic_open(path, "wb" if binary else "w", **kw) as fh:
        write(fh)
