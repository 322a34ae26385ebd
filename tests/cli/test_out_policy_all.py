"""Every command's ``--out`` through one policy, every output format written whole or not
at all (issue 38).

The walk over the parser finds each command with ``--out``: it must have declared its
formats (``app.cli._atomic.out_formats``) and take the same ``--if-exists`` choices, and it
then refuses an existing file, a missing folder, an unknown extension and an unknown
``~user`` with the same line, and expands ``~``. Then each format: a write that fails at
the end (disk full when the temporary is flushed) or is cancelled there leaves the old
file byte for byte and no temporary beside it.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
from pathlib import Path

import pytest

from app.cli import COMMANDS, build_parser, main
from app.cli._atomic import IF_EXISTS_CHOICES
from app.cli._commands import HELP
from osutil.atomic import PREFIX
from tests.cli.out_checks import digest, one_line, private_cache  # noqa: F401  (the fixture)
from tests.conftest import FIXTURES

pytestmark = pytest.mark.usefixtures("private_cache")

TINY = str(FIXTURES / "dimacs" / "tiny.gr")
SMALL = str(FIXTURES / "osm" / "small.osm")
CPU = ["-q", "--no-cache", "--backend", "cpu"]


def _points(folder: Path) -> str:
    p = folder / "p.csv"
    if not p.exists():
        p.write_text("node\n1\n2\n3\n")
    return str(p)


# each command with --out: the arguments of a small run on a fixture (FOLDER: the test's)
ARGS = {
    "route": lambda d: [*CPU, "--from", "node:1", "--to", "node:5", TINY],
    "sssp": lambda d: [*CPU, "--source", "node:1", TINY],
    "isochrones": lambda d: [*CPU, "--from", "node:3", "--metres", "100,200", SMALL],
    "billboards": lambda d: [*CPU, "-k", "1", TINY],
    "matrix": lambda d: [*CPU, "--from", _points(d), "--to", _points(d), TINY],
    "mst": lambda d: [*CPU, TINY],
    "pagerank": lambda d: [*CPU, TINY],
    "generate": lambda d: ["-q", "--nodes", "16", "--seed", "3", "grid"],
}
# every format a command writes (the first of each command: the policy checks below)
FORMATS = [("route", ".csv"), ("sssp", ".csv"), ("sssp", ".npy"), ("isochrones", ".geojson"),
           ("isochrones", ".json"), ("isochrones", ".gpkg"), ("billboards", ".csv"), ("matrix", ".csv"),
           ("matrix", ".npy"), ("matrix", ".parquet"), ("mst", ".csv"), ("mst", ".geojson"),
           ("pagerank", ".csv"), ("generate", ".gr"), ("generate", ".gr.gz"),
           ("generate", ".spn")]


def _command_parsers() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _options(p: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {o: a for a in p._actions for o in a.option_strings}


def test_every_out_is_declared_and_takes_the_same_if_exists() -> None:
    parsers = _command_parsers()
    assert set(HELP) == set(COMMANDS) <= set(parsers)
    with_out = set()
    for name, p in parsers.items():
        opts = _options(p)
        if "--out" not in opts:
            continue
        with_out.add(name)
        exts = p.get_default("out_exts")
        assert exts and all(e.startswith(".") for e in exts), (name, exts)
        assert "--if-exists" in opts, name
        assert tuple(opts["--if-exists"].choices) == IF_EXISTS_CHOICES, name
        assert opts["--if-exists"].default is None, name  # each kind of output: its default
    assert with_out == set(ARGS), with_out ^ set(ARGS)
    # bench's --out is a folder of result tables, on each benchmark's own parser
    benches = next(a for a in parsers["bench"]._actions
                   if isinstance(a, argparse._SubParsersAction)).choices
    folders = [b for b, bp in benches.items() if "--out" in _options(bp)]
    assert folders and all(benches[b].get_default("out_folder") for b in folders), folders
    assert [e for c, e in FORMATS if c == "matrix"] == [".csv", ".npy", ".parquet"]
    for name in ARGS:
        assert {e for c, e in FORMATS if c == name} == set(parsers[name].get_default("out_exts"))


def _run(name: str, tmp_path: Path, out: str, *extra: str) -> list[str]:
    return [name, "--out", out, *extra, *ARGS[name](tmp_path)]


def _first_ext(name: str) -> str:
    return next(e for c, e in FORMATS if c == name)


@pytest.mark.parametrize("name", sorted(ARGS))
def test_an_existing_file_is_refused_alike(name, tmp_path, capsys) -> None:
    ext = _first_ext(name)
    out = tmp_path / f"old{ext}"
    out.write_bytes(b"old contents\n")
    err = one_line(capsys, *_run(name, tmp_path, str(out), "--if-exists", "fail"))
    left = "choose replace, append" if ext == ".csv" else "choose replace"
    assert err == (f"signpost {name}: error: --out {str(out)!r} exists (--if-exists fail); "
                   f"{left} or another file"), err
    assert out.read_bytes() == b"old contents\n"


@pytest.mark.parametrize("name", sorted(ARGS))
def test_folder_extension_and_user_refused_alike(name, tmp_path, capsys) -> None:
    ext = _first_ext(name)
    exts = _command_parsers()[name].get_default("out_exts")
    listed = exts[0] if len(exts) == 1 else f"{', '.join(exts[:-1])} or {exts[-1]}"
    cases = {str(tmp_path / "nope" / f"x{ext}"): f"folder {tmp_path / 'nope'} does not exist",
             str(tmp_path / "x.unknown"): f"unknown extension; write {listed}",
             f"~no_such_user_38/x{ext}": "no user 'no_such_user_38' (~ could not be expanded)"}
    for out, why in cases.items():
        err = one_line(capsys, *_run(name, tmp_path, out))
        assert err == f"signpost {name}: error: --out {out!r}: {why}", err
    assert os.listdir(tmp_path) == (["p.csv"] if name == "matrix" else [])  # nothing done


@pytest.mark.parametrize("name", sorted(ARGS))
def test_tilde_is_the_home_folder(name, tmp_path, capsys, monkeypatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    ext = _first_ext(name)
    (home / f"x{ext}").write_bytes(b"old\n")  # found there: refused as existing
    err = one_line(capsys, *_run(name, tmp_path, f"~/x{ext}", "--if-exists", "fail"))
    assert f"--out {str(home / f'x{ext}')!r} exists" in err, err


def _temps(folder: Path) -> list[str]:
    return [f for f in os.listdir(folder) if f.startswith(PREFIX) or ".tmp" in f]


def _fail_flush(monkeypatch, exc: BaseException) -> None:
    """``os.fsync`` of a writer's temporary raises ``exc`` (after every byte was written)."""
    real = os.fsync

    def fsync(fd: int) -> None:
        name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        if name.startswith(PREFIX):
            raise exc
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="names an fd through /proc")
@pytest.mark.parametrize("cancel", [False, True], ids=["disk-full", "cancelled"])
@pytest.mark.parametrize(("name", "ext"), FORMATS, ids=[f"{c}{e}" for c, e in FORMATS])
def test_a_failed_write_leaves_the_old_file_and_no_temporary(name, ext, cancel, tmp_path,
                                                             capsys, monkeypatch) -> None:
    if ext == ".parquet":
        pytest.importorskip("pyarrow")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / f"m{ext}"
    out.write_bytes(b"the old file\n")
    before = sorted(os.listdir(out_dir))
    _fail_flush(monkeypatch, KeyboardInterrupt() if cancel else OSError(errno.ENOSPC,
                                                                      "No space left on device"))
    rc = main(_run(name, tmp_path, str(out), "--if-exists", "replace"))
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    if cancel:
        assert rc == 130 and err.strip().endswith(f"signpost {name}: interrupted"), (rc, err)
    else:
        assert rc == 2, (rc, err)
        assert re.search(rf"error: .*{re.escape(str(out))}.*No space left on device", err), err
    assert out.read_bytes() == b"the old file\n"
    assert sorted(os.listdir(out_dir)) == before and not _temps(out_dir)
