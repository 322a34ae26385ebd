"""``app.bench`` is imported by ``signpost bench`` only (issue 38): every other command and
the window run without it (the benchmarks pull in peers, plotting and their own tables)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli._commands import HELP
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
TINY = str(FIXTURES / "dimacs" / "tiny.gr")
SMALL = str(FIXTURES / "osm" / "small.osm")

# each command once, in one process: the modules loaded by any of them are in the union
RUN = """
import contextlib, io, json, sys
from app.cli import main
codes = []
for argv in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            codes.append(main(argv))
        except SystemExit as exc:
            codes.append(exc.code)
print(json.dumps({"codes": codes,
                  "bench": sorted(m for m in sys.modules if m.split(".")[:2] == ["app", "bench"])}))
"""


def _modules(tmp_path: Path, argvs: list[list[str]]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
           "SIGNPOST_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(argvs)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=240, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _commands(tmp_path: Path) -> list[list[str]]:
    (tmp_path / "p.csv").write_text("node\n1\n2\n3\n")
    q = ["-q", "--no-cache", "--backend", "cpu"]
    p = str(tmp_path / "p.csv")
    return [["info", "-q", "--no-cache", TINY],
            ["route", *q, "--from", "node:1", "--to", "node:5", TINY],
            ["sssp", *q, "--source", "node:1", "--out", str(tmp_path / "s.npy"), TINY],
            ["isochrones", *q, "--from", "node:3", "--metres", "100", "--out",
             str(tmp_path / "i.geojson"), SMALL],
            ["billboards", *q, "-k", "1", TINY],
            ["matrix", *q, "--from", p, "--to", p, "--out", str(tmp_path / "m.npy"), TINY],
            ["mst", *q, TINY],
            ["pagerank", *q, "--out", str(tmp_path / "pr.csv"), TINY],
            ["generate", "-q", "--nodes", "16", "--out", str(tmp_path / "g.gr"), "grid"],
            ["cache"]]


@pytest.mark.slow
def test_no_command_but_bench_imports_the_benchmarks(tmp_path) -> None:
    argvs = _commands(tmp_path)
    assert {a[0] for a in argvs} == set(HELP) - {"bench", "gui"}  # every command, once
    got = _modules(tmp_path, argvs)
    assert got["codes"] == [0] * len(argvs), got
    assert got["bench"] == [], got


@pytest.mark.gui
@pytest.mark.slow
def test_the_window_does_not_import_the_benchmarks(tmp_path) -> None:
    shot = tmp_path / "w.png"
    got = _modules(tmp_path, [["gui", "--screenshot", str(shot), SMALL]])
    assert got["codes"] == [0] and shot.is_file(), got
    assert got["bench"] == [], got


def test_bench_itself_does(tmp_path) -> None:
    """The check above can see the benchmarks: ``signpost bench`` loads them."""
    got = _modules(tmp_path, [["bench", "--help"]])
    assert got["bench"], got
