"""``signpost bench sssp --index``: the auto+index row on a small generated map (CPU),
checked against scipy like the other rows, with its index built into a file and then
loaded from it."""

from __future__ import annotations

import csv

from app.cli import main


def _rows(out) -> dict:
    with open(out / "sssp_table.csv", encoding="utf-8") as fh:
        return {r["strategy"]: r for r in csv.DictReader(fh)}


def test_index_row_built_then_loaded(tmp_path, capsys):
    idx = tmp_path / "key.npz"
    argv = ["bench", "sssp", "--map", "gen:grid:1500", "--strategies", "auto", "--sources",
            "3", "--backend", "cpu", "--no-figures", "--index", str(idx), "--out",
            str(tmp_path / "a")]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "built in" in text and idx.exists() and "verify=ok" in text
    rows = _rows(tmp_path / "a")
    assert rows["auto+index"]["sources"] == "3" and "auto" in rows
    argv[-1] = str(tmp_path / "b")
    assert main(argv) == 0
    assert "loaded" in capsys.readouterr().out
    assert float(_rows(tmp_path / "b")["auto+index"]["median_ms"]) > 0
