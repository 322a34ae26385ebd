"""``signpost bench first`` (issue 41): cold and warm rows per command and backend."""

from __future__ import annotations

import pytest

from app.bench import first
from app.cli import main
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "osm" / "small.osm")


def test_cold_and_warm_split_per_row():
    r = first.measure(("info", "info", ["{m}"]), "cpu", TINY)
    cold, warm = r["cold"], r["warm"]
    assert "error" not in cold and "error" not in warm, r
    for t in (cold, warm):
        assert set(t) >= {"import", "load", "command", "total", "rc"} and t["rc"] == 0
        assert 0 < t["import"] + t["load"] + t["command"] <= t["total"]
    assert r["compile"] >= 0
    assert "| info | cpu |" in first.table([r], "test", TINY)


def test_a_missing_backend_says_unavailable(monkeypatch, capsys, tmp_path):
    import gpu_core

    monkeypatch.setattr(gpu_core, "cupy_status", lambda: (False, "no CuPy here"))
    doc = tmp_path / "first.md"
    assert main(["bench", "first", "--map", TINY, "--backend", "cupy", "--doc", str(doc)]) == 0
    out = capsys.readouterr().out
    assert out.count("unavailable: no CuPy here") == len(first.COMMANDS)
    assert "unavailable: no CuPy here" in doc.read_text()


@pytest.mark.parametrize("row", [r[0] for r in first.COMMANDS])
def test_every_row_names_a_command(row):
    from app.cli import COMMANDS

    assert dict((r[0], r[1]) for r in first.COMMANDS)[row] in COMMANDS
