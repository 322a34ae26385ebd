"""The argument parser builds only the command argv names (issue 41): ``signpost info``
imports neither the other commands nor the benchmarks, and ``--help`` lists the same."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import COMMANDS, build_parser
from app.cli._commands import command_named, help_of

ROOT = Path(__file__).resolve().parents[2]


def _listed(parser: argparse.ArgumentParser) -> dict[str, str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: a.help or "" for a in sub._choices_actions}


def test_every_command_listed_with_its_own_help():
    full = _listed(build_parser())  # every module imported: the help each registers
    assert list(full) == list(COMMANDS)
    assert {name: help_of(name) for name in COMMANDS} == full
    assert _listed(build_parser(["info", "m.osm"])) == full


@pytest.mark.parametrize("argv", [["--help"], [], ["-q", "-vv"], ["nosuch"]])
def test_top_help_is_unchanged(argv):
    assert build_parser(argv).format_help() == build_parser().format_help()


@pytest.mark.parametrize("argv, name", [
    (["info", "m"], "info"), (["-q", "-vv", "matrix", "m"], "matrix"), (["--verbose", "route"], "route"),
    (["--help"], None), (["nosuch", "info"], None), (["--", "info"], None), ([], None),
])  # fmt: skip
def test_command_named(argv, name):
    assert command_named(argv, COMMANDS) == name


def test_named_command_parses_as_before():
    argv = ["-v", "billboards", "map.osm.pbf", "-k", "3"]
    assert vars(build_parser(argv).parse_args(argv)) .keys() == vars(
        build_parser().parse_args(argv)).keys()


def test_info_parser_imports_no_other_command():
    code = ("import sys; from app.cli import build_parser; build_parser(['info', 'm.osm']); "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('app.'))))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True).stdout.split()
    assert "app.cli.info" in out
    others = [m for m in out if m.startswith(("app.bench", "app.cli.matrix", "app.cli.billboards",
                                              "app.jobs.matrix", "app.cli.bench"))]
    assert others == []
