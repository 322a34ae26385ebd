"""Issue 14 item 5 (and issue 24: ``--dask``, ``bench``, ``gui``): every command, fuzzed
argument values, never a traceback.

A modest number of hypothesis-drawn argument sets per command (``SIGNPOST_CLI_FUZZ``,
default 25) run in-process; ``python scripts/fuzz_cli.py --examples 1000`` runs the full
count. Each run must end with exit status 0 or 2, no traceback, and a status 2 with one
``error:`` line (tests/cli/cli_fuzz.py says exactly what is checked).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from tests.cli.cli_fuzz import argv_for, commands, make_cache, make_files, run_cli

N = int(os.environ.get("SIGNPOST_CLI_FUZZ", "25"))
# commands that start a Dask cluster, a benchmark or the window: fewer examples each
HEAVY = {"dask": 4, "dask-billboards": 3, "bench-sssp": 5, "bench-matrix": 3, "bench-load": 3,
         "gui": 4}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return make_files(tmp_path_factory.mktemp("fuzz"))


@pytest.mark.parametrize("name", ["info", "route", "sssp", "billboards", "matrix", "mst",
                                  "pagerank", "generate", "cache", *HEAVY])
def test_cli_arguments_never_crash(name, files, tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SIGNPOST_MAX_INPUT_MB", "2")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")  # gui: --screenshot, no display
    monkeypatch.setenv("SIGNPOST_NO_DIALOGS", "1")
    for logger in ("DISTRIBUTED", "TORNADO", "BOKEH"):  # what -q sets for the workers
        monkeypatch.delenv(f"DASK_LOGGING__{logger}", raising=False)
    monkeypatch.chdir(tmp_path)
    cmd = commands(files)[name]

    @settings(max_examples=min(N, HEAVY.get(name, N)) if "SIGNPOST_CLI_FUZZ" not in os.environ
              else N, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=argv_for(cmd, files))
    def one(case) -> None:
        o = run_cli(*case)
        assert o.problem is None, f"{o.argv!r}: {o.problem}"

    one()


@pytest.mark.parametrize("name", ["info", "route", "sssp", "matrix", "cache"])
def test_cli_over_a_cache_folder_of_fifos_and_garbage(name, files, tmp_path, monkeypatch):
    """Issue 40: each command's first run meets its cache entries as FIFOs (and garbage
    beside them); every run ends, 0 or one line."""
    monkeypatch.setenv("SIGNPOST_MAX_INPUT_MB", "2")
    monkeypatch.chdir(tmp_path)
    cmd = commands(files)[name]

    @settings(max_examples=min(N, 6), deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=argv_for(cmd, files))
    def one(case) -> None:
        monkeypatch.setenv("SIGNPOST_CACHE_DIR", make_cache(tmp_path / "c"))
        o = run_cli(*case)
        assert o.problem is None and not o.slow, f"{o.argv!r}: {o.problem}"

    one()
