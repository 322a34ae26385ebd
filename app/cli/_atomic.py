"""Output files of the CLI: checked before the work starts, then written whole or not at
all through :mod:`osutil.atomic` (the one writer); a write error is one CliError line."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO

from app.cli.errors import CliError
from osutil.atomic import atomic_paths


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


@contextlib.contextmanager
def out_paths(paths: Sequence[str], shown: str | None = None) -> Iterator[list[str]]:
    """Temporary names for ``paths``, renamed onto them together at the end
    (:func:`osutil.atomic.atomic_paths`); OSError becomes CliError naming the file
    (``shown``, default its repr)."""
    try:
        with atomic_paths(paths) as temps:
            yield temps
    except OSError as exc:
        raise CliError(f"cannot write {shown or repr(paths[0])}: {exc.strerror or exc}") from None


def write_text_atomic(path: str, write: Callable[[TextIO], None]) -> None:
    """Call ``write(fh)`` on a temporary UTF-8 text file, then rename it to ``path``."""
    with out_paths([path]) as (tmp,), open(tmp, "w", encoding="utf-8", newline="") as fh:
        write(fh)


def write_file_atomic(path: str, write: Callable[[str], None]) -> None:
    """Call ``write(tmp_path)`` (it creates or overwrites that file), then rename the file
    to ``path``; CliError for an OSError (writers that want a file name: GeoPackage)."""
    with out_paths([path]) as (tmp,):
        write(tmp)
