"""Output files of the CLI: checked before the work starts, then written whole or not at
all through :mod:`osutil.atomic` (the one writer); a write error is one CliError line.

The ``--out`` policy of a run lives here, once (issue 24): :func:`command_outputs`, set
around every command by ``app.cli._dispatch``, refuses an ``--out`` that is one of the
command's inputs (the same file after resolving links) and applies ``--if-exists``
to the file: ``fail`` refuses an existing file (a GeoPackage: an existing layer of that
name), ``replace`` (the default for files) replaces it, ``append`` adds a CSV's rows under
the same header (no second header; another header is refused) or features to a
GeoPackage layer, and is refused for formats that cannot grow (.npy, .parquet, .geojson,
images). A GeoPackage output keeps the file's other layers: the file is copied beside
itself, its layer written into the copy, the copy renamed over it (:func:`write_file_atomic`).

Every command with ``--out`` declares what it writes once, in its ``register``
(:func:`out_formats`: the extensions, and database tables where ``app.cli.db_out`` adds
them); :func:`command_outputs` then checks each ``--out`` alike before the work (issue 38):
``~`` expanded, the extension among the declared ones, the folder present, a database URI
only where tables are written, the existing file under ``--if-exists``; each refusal one
line naming the file. ``tests/cli/test_out_policy_all.py`` walks every command's parser.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TextIO

from app.cli.errors import CliError
from osutil.atomic import atomic_paths

IF_EXISTS_FILE_DEFAULT = "replace"
IF_EXISTS_CHOICES = ("fail", "replace", "append")  # maps.postgis.write.IF_EXISTS's order
APPENDABLE = (".csv", ".gpkg")
# (option, attribute) of the files a command reads; the map also brings its companions
INPUT_OPTIONS = (("MAP", "map"), ("--from", "from_csv"), ("--to", "to_csv"),
                 ("--scenario", "scenario"), ("--within", "within"), ("--demand", "demand"),
                 ("--settings", "settings"))
OUTPUT_OPTIONS = (("--out", "out"), ("--screenshot", "screenshot"))


@dataclass(frozen=True)
class OutPolicy:
    """How the run's ``--out`` file is written: ``if_exists`` and the layer it must not
    replace (the GeoPackage map's ``--layer``)."""

    out: str
    if_exists: str
    map_layer: str | None = None
    map_layers: tuple[str, ...] = ()  # without --layer: every layer the map could be read from


_POLICY: ContextVar[OutPolicy | None] = ContextVar("signpost_out_policy", default=None)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _inputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(option, path) of every input file ``args`` names (database URIs left out)."""
    from maps.postgis.conn import is_db_uri

    found = []
    for option, name in INPUT_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value and not is_db_uri(value):
            found.append((option, value))
            if name == "map":
                with contextlib.suppress(Exception):
                    from maps.formats.registry import companion_files

                    found += [(f"{option}'s companion", c) for c in companion_files(value)]
    return found


def add_if_exists_argument(p: argparse.ArgumentParser, *, default: str = IF_EXISTS_FILE_DEFAULT,
                           what: str = "rows under a .csv's same header") -> None:
    """``--if-exists`` of a command whose ``--out`` is a file only (the commands that also
    write database tables take ``app.cli.db_out.add_arguments``): the same choices and
    meaning; ``default`` is this command's (``generate``: fail, it never replaces a map
    silently); ``what`` says what append adds."""
    p.add_argument("--if-exists", default=None, choices=IF_EXISTS_CHOICES,
                   help=f"when --out exists: fail, replace it or append ({what}); default "
                        f"{default}")
    p.set_defaults(if_exists_file_default=default)


def out_formats(p: argparse.ArgumentParser, exts: tuple[str, ...]) -> None:
    """Declare what ``p``'s ``--out`` writes: ``exts``, in the order a refusal lists them
    (module doc). The policy refuses to run a command whose ``--out`` declared nothing."""
    p.set_defaults(out_exts=tuple(exts))


def out_folder(p: argparse.ArgumentParser) -> None:
    """Declare that ``p``'s ``--out`` names a folder (a benchmark's result tables): the
    policy expands ``~`` and leaves the rest to the command."""
    p.set_defaults(out_folder=True)


def _listed(exts: Sequence[str]) -> str:
    """``.a``, ``.a or .b``, ``.a, .b or .c``."""
    return exts[0] if len(exts) == 1 else f"{', '.join(exts[:-1])} or {exts[-1]}"


def _expanded(path: str, option: str) -> str:
    """``path`` with a leading ``~`` or ``~user`` expanded; CliError for an unknown user."""
    if not path.startswith("~"):
        return path
    full = os.path.expanduser(path)
    if full == path:
        user = path[1:].split(os.sep, 1)[0]
        raise CliError(f"{option} {path!r}: no user {user!r} (~ could not be expanded)")
    return full


def _checked_path(path: str, exts: tuple[str, ...], option: str) -> str:
    """The lower-cased extension of ``path`` among ``exts``; CliError when it is none of
    them or the file's folder does not exist."""
    low = path.lower()
    ext = next((e for e in exts if low.endswith(e)), None)
    if ext is None:
        raise CliError(f"{option} {path!r}: unknown extension; write {_listed(exts)}")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise CliError(f"{option} {path!r}: folder {parent} does not exist")
    return ext


def _check_declared(args: argparse.Namespace, out: str, to_db: bool) -> None:
    """``--out`` against what the command declared (:func:`out_formats`)."""
    if getattr(args, "out_folder", False):
        return
    exts = getattr(args, "out_exts", None)
    if exts is None:  # a programming error: the command skipped the policy
        raise RuntimeError(f"signpost {getattr(args, 'command', '?')}: --out without "
                           "out_formats() in its register()")
    if to_db and not getattr(args, "out_tables", False):
        raise CliError(f"--out {out!r}: this command writes files only; write {_listed(exts)}")
    if not to_db:
        _checked_path(out, exts, "--out")


def file_mode(args: argparse.Namespace) -> str:
    """``--if-exists`` for a file output: as given, else the command's default (replace,
    today's behaviour, unless :func:`add_if_exists_argument` said otherwise)."""
    return (getattr(args, "if_exists", None) or getattr(args, "if_exists_file_default", None)
            or IF_EXISTS_FILE_DEFAULT)


def _choices_left(low: str) -> str:
    """What to suggest after ``--if-exists fail`` refused ``low``: only what works there."""
    return "choose replace, append" if low.endswith(APPENDABLE) else "choose replace"


@contextlib.contextmanager
def command_outputs(args: argparse.Namespace) -> Iterator[None]:
    """Check ``args``' outputs before the work (module doc) and hold the ``--out`` policy
    for the writers below while the command runs. CliError, one line, when an output is
    an input, ``--if-exists fail`` meets an existing file, or ``append`` a format that
    cannot grow."""
    from maps.postgis.conn import is_db_uri

    for out_opt, name in OUTPUT_OPTIONS:
        out = getattr(args, name, None)
        if isinstance(out, str) and out and not is_db_uri(out):
            setattr(args, name, _expanded(out, out_opt))
    out = getattr(args, "out", None)
    if isinstance(out, str) and out:
        _check_declared(args, out, is_db_uri(out))
    inputs = _inputs(args)
    for out_opt, name in OUTPUT_OPTIONS:
        out = getattr(args, name, None)
        if not isinstance(out, str) or not out or is_db_uri(out):
            continue
        for in_opt, path in inputs:
            if _same(out, path) and not _gpkg_beside(out, path, in_opt):
                raise CliError(f"{out_opt} {out!r} is the command's input ({in_opt} "
                               f"{path!r}): write the output to another file")
    out = getattr(args, "out", None)
    if not isinstance(out, str) or not out or is_db_uri(out):
        yield
        return
    if getattr(args, "out_folder", False):  # a folder: no file to check or replace
        yield
        return
    mode = file_mode(args)
    low = out.lower()
    if mode == "append" and not low.endswith(APPENDABLE):
        ext = os.path.splitext(low)[1] or "this kind of"
        raise CliError(f"--out {out!r}: --if-exists append does not apply to {ext} files "
                       "(only .csv rows and .gpkg layers can grow); choose fail or replace")
    if mode == "fail" and os.path.lexists(out) and not low.endswith(".gpkg"):
        given = "" if getattr(args, "if_exists", None) else ", this command's default"
        raise CliError(f"--out {out!r} exists (--if-exists fail{given}); "
                       f"{_choices_left(low)} or another file")
    token = _POLICY.set(OutPolicy(out, mode, getattr(args, "layer", None),
                                  _map_layers(args, out, inputs)))
    try:
        yield
    finally:
        _POLICY.reset(token)


def _map_layers(args: argparse.Namespace, out: str,
                inputs: list[tuple[str, str]]) -> tuple[str, ...]:
    """The line layers of the GeoPackage map when ``out`` is that file and no ``--layer``
    names the one read: any of them may be the map's roads, so none may be replaced."""
    if getattr(args, "layer", None) is not None or not out.lower().endswith(".gpkg"):
        return ()
    for option, path in inputs:
        if option == "MAP" and _same(out, path):
            from maps.outputs.vector import gpkg_line_layers

            return tuple(gpkg_line_layers(path))
    return ()


def _gpkg_beside(out: str, path: str, option: str) -> bool:
    """A GeoPackage map as its own output: allowed, since its own layer is added or
    replaced and the map's layers are kept (the layer read is checked by :func:`check_out`)."""
    return option == "MAP" and out.lower().endswith(".gpkg") and path.lower().endswith(".gpkg")


def _policy(path: str) -> OutPolicy | None:
    pol = _POLICY.get()
    return pol if pol is not None and pol.out == path else None


def out_mode(path: str) -> str:
    """The ``--if-exists`` of ``path`` in this run (replace for any other file)."""
    pol = _policy(path)
    return pol.if_exists if pol is not None else IF_EXISTS_FILE_DEFAULT


def check_out(path: str, exts: tuple[str, ...], option: str = "--out", *,
              layer: str | None = None) -> str:
    """The lower-cased extension of ``path`` among ``exts``; CliError otherwise or when its
    folder does not exist (checked before the work starts). ``layer``: the GeoPackage
    layer the command writes (refused when it is the map's layer, or exists under
    ``--if-exists fail``)."""
    ext = _checked_path(path, exts, option)
    pol = _policy(path)
    if ext == ".gpkg" and layer is not None and pol is not None and os.path.lexists(path):
        from maps.outputs.vector import gpkg_layers

        layers = gpkg_layers(path)
        if layers is None and pol.if_exists != "replace":
            raise CliError(f"{option} {path!r} exists and is not a GeoPackage (--if-exists "
                           f"{pol.if_exists}); choose replace or another file")
        if layers is not None and (layer == pol.map_layer or layer in pol.map_layers):
            raise CliError(f"{option} {path!r}: layer {layer!r} is the map's layer; "
                           "write the output to another file")
        if layers is not None and layer in layers and pol.if_exists == "fail":
            raise CliError(f"{option} {path!r} has a layer {layer!r} (--if-exists fail); "
                           "choose replace or append")
        if layers is not None and layer in layers and pol.if_exists == "append":
            from maps.outputs.vector import gpkg_geometry

            geom = gpkg_geometry(path, layer)
            if geom != ("geom", "MULTIPOLYGON"):
                raise CliError(f"{option} {path!r}: --if-exists append: its layer {layer!r} "
                               f"is not one of polygons in a 'geom' column ({geom}); choose "
                               "replace or another file")
    return ext


def _append_rows(path: str, tmp: str) -> None:
    """Make ``tmp`` (a new CSV, header first) the old ``path`` plus its rows without the
    header; CliError when the headers differ (``path`` untouched)."""
    with open(path, "rb") as fh:
        old_head = fh.readline()
    if not old_head.strip():  # an empty file: the new one as it is
        return
    with open(tmp, "rb") as fh:
        new_head = fh.readline()
    if old_head.rstrip(b"\r\n") != new_head.rstrip(b"\r\n"):
        shown = [h.rstrip(b"\r\n").decode("utf-8", "replace")[:80] for h in (old_head, new_head)]
        raise CliError(f"--out {path!r}: --if-exists append: its header {shown[0]!r} is not "
                       f"this command's {shown[1]!r}; choose replace or another file")
    rows = tmp + ".rows"  # a name of ours: swept like the temporary if a run dies
    os.replace(tmp, rows)
    try:
        with open(rows, "rb") as src, open(tmp, "wb") as dst:
            with open(path, "rb") as old:
                shutil.copyfileobj(old, dst, 1 << 20)
            if dst.tell() and not _ends_with_newline(path):
                dst.write(b"\n")
            src.readline()
            shutil.copyfileobj(src, dst, 1 << 20)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(rows)


def _ends_with_newline(path: str) -> bool:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() == 0:
            return True
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


@contextlib.contextmanager
def out_paths(paths: Sequence[str], shown: str | None = None) -> Iterator[list[str]]:
    """Temporary names for ``paths``, renamed onto them together at the end
    (:func:`osutil.atomic.atomic_paths`); OSError becomes CliError naming the file
    (``shown``, default its repr). The run's ``--out`` under ``--if-exists append`` (a
    CSV) gets the old rows, then the new ones, renamed over it in one step."""
    try:
        with atomic_paths(paths) as temps:
            yield temps
            for p, tmp in zip(paths, temps, strict=True):
                if (out_mode(p) == "append" and p.lower().endswith(".csv")
                        and os.path.isfile(p)):
                    _append_rows(p, tmp)
    except OSError as exc:
        raise CliError(f"cannot write {shown or repr(paths[0])}: {exc.strerror or exc}") from None


def write_text_atomic(path: str, write: Callable[[TextIO], object]) -> None:
    """Call ``write(fh)`` on a temporary UTF-8 text file, then rename it to ``path``."""
    with out_paths([path]) as (tmp,):
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            write(fh)


def write_file_atomic(path: str, write: Callable[[str], None]) -> None:
    """Call ``write(tmp_path)`` (it creates or overwrites that file), then rename the file
    to ``path``; CliError for an OSError (writers that want a file name: GeoPackage). An
    existing GeoPackage is copied to the temporary first, so the writer adds or replaces
    its own layer and the file's other layers stay (module doc)."""
    keep = False
    if path.lower().endswith(".gpkg") and os.path.isfile(path):
        from maps.outputs.vector import gpkg_layers

        keep = gpkg_layers(path) is not None
    with out_paths([path]) as (tmp,):
        if keep:
            shutil.copyfile(path, tmp)
        write(tmp)
