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


def test_cold_rows_say_where_the_compile_time_went():
    r = first.measure(("info", "info", ["{m}"]), "cpu", TINY)
    cold = r["cold"]
    assert cold["compiled"] >= 0 and cold["compile_sum"] >= 0 and isinstance(cold["top"], list)
    text = first.table([r], "test", TINY)
    assert "| command | backend | functions | seconds summed |" in text
    assert f"| info | cpu | {cold['compiled']} |" in text


def test_the_in_command_index_row_turns_the_background_build_off(tmp_path, monkeypatch):
    name = "matrix 3x3 --index on, built in the command"
    assert name in [r[0] for r in first.COMMANDS]
    assert first.ROW_ENV[name] == {"SIGNPOST_INDEX_BACKGROUND": "0"}
    lock = tmp_path / "index-warm.lock"
    lock.write_text("1")
    monkeypatch.setattr(first, "BACKGROUND_WAIT_S", 0.2)  # a lock left behind: it gives up
    first._background_done(tmp_path)


def test_gpu_rows_say_where_the_nvrtc_time_went():
    """A cold GPU row's NVRTC compilations (counted by the child's hook on CuPy's
    compiler) get a table of their own: count, seconds, the largest by module or kernel."""
    cold = {"import": 1.0, "load": 0.1, "command": 9.0, "total": 10.5, "compiled": 0,
            "compile_sum": 0.0, "top": [], "nvrtc": 3, "nvrtc_sum": 6.5,
            "nvrtc_top": [["betweenness.cu", 4.0], ["cupy_sum", 1.5], ["phast.cu", 1.0]]}
    warm = dict(cold, command=2.0, total=3.0, nvrtc=0, nvrtc_sum=0.0, nvrtc_top=[])
    r = {"row": "billboards -k 5", "backend": "cupy", "cold": cold, "warm": warm,
         "compile": 7.0}
    text = first.table([r], "test", TINY)
    assert "| command | backend | NVRTC compilations | seconds summed | largest (s) |" in text
    assert "| billboards -k 5 | cupy | 3 | 6.5 | `betweenness.cu` 4.00, `cupy_sum` 1.50" in text
    cpu = first.table([dict(r, cold=dict(cold, nvrtc=0))], "test", TINY)
    assert "NVRTC compilations" not in cpu
