"""``signpost bench postgis`` on the small grid table: it runs, and every cost it compares
with pgRouting's is equal (exit status 0)."""

from __future__ import annotations

from app.cli import main


def test_bench_postgis_compares_with_pgrouting(grid_table, tmp_path, capsys) -> None:
    uri, _ = grid_table
    doc = tmp_path / "postgis.md"
    rc = main(["bench", "postgis", "--dsn", uri, "--sizes", "4,12", "--sources", "2",
               "--doc", str(doc)])
    out = capsys.readouterr().out
    assert rc == 0, out
    text = doc.read_text()
    assert "pgr_drivingDistance; costs equal" in text
    assert text.count("pgr_dijkstraCostMatrix, costs equal") == 2
    assert "load from the database" in text and "12 x 12 matrix, cpu" in text
