"""Write an output file whole or not at all: a temporary file in the same folder, renamed
over the target once complete (no half-written file after an error or Ctrl-C)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import TextIO

from app.cli import CliError


def check_out(path: str, exts: tuple[str, ...], option: str = "--out") -> str:
    """The lower-cased extension of ``path`` among ``exts``; CliError otherwise or when its
    folder does not exist (checked before the work starts)."""
    low = path.lower()
    ext = next((e for e in exts if low.endswith(e)), None)
    if ext is None:
        raise CliError(f"{option} {path!r}: unknown extension; write {' or '.join(exts)}")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise CliError(f"{option} {path!r}: folder {parent} does not exist")
    return ext


def write_text_atomic(path: str, write: Callable[[TextIO], None]) -> None:
    """Call ``write(fh)`` on a temporary text file, then rename it to ``path``."""

    def to(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            write(fh)

    write_file_atomic(path, to)


def write_file_atomic(path: str, write: Callable[[str], None]) -> None:
    """Call ``write(tmp_path)`` (it creates or overwrites that file), then rename the file
    to ``path``; CliError for an OSError, the temporary file removed on any failure."""
    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=os.path.splitext(path)[1], dir=folder)
        os.close(fd)
        write(tmp)
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; an output is an ordinary file
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise CliError(f"cannot write {path!r}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
