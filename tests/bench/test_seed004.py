"""``signpost bench seed004`` smoke test: tiny sizes on the CPU backend (GPU columns n/a)."""

from __future__ import annotations

import csv

from app.cli import main
from tests.conftest import FIXTURES


def test_seed004_smoke(tmp_path, capsys) -> None:
    gr = FIXTURES / "dimacs" / "tiny.gr"
    rc = main(["bench", "seed004", "--backend", "cpu", "--scale", "0.02", "--graphs", "0,1,4",
               "--maps-dir", str(tmp_path / "none"), "--map", str(gr), "--sources", "2",
               "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "NY, BAY and NW graphs are not available" in out
    assert "COL.gr.xz, FLA.gr.xz not found" in out
    assert "seeded uniform 1..1000" in out
    t52 = list(csv.DictReader(open(tmp_path / "seed004_table52.csv")))
    assert [r["graph"] for r in t52] == ["Simple-Graph-00", "Simple-Graph-01", "Simple-Graph-04"]
    assert [r["paper_speedup"] for r in t52] == ["0.09", "32.86", "354.72"]
    assert {r["ours_gpu_ms"] for r in t52} == {"n/a"}
    assert all(r["verify"] == "ok" and float(r["plain_bf_ms"]) > 0 for r in t52)
    assert int(t52[1]["nodes"]) == 20 and int(t52[1]["arcs"]) == 371
    f51 = list(csv.DictReader(open(tmp_path / "seed004_fig51.csv")))
    assert [r["map"] for r in f51] == ["tiny"] and f51[0]["verify"] == "ok"
    assert f51[0]["ours_gpu_eval_ms"] == "n/a" and float(f51[0]["ours_cpu_eval_ms"]) > 0


def test_seed004_negative_arcs(tmp_path, capsys) -> None:
    rc = main(["bench", "seed004", "--backend", "cpu", "--scale", "0.02", "--graphs", "1,2",
               "--negative", "--map", "none", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    t52 = list(csv.DictReader(open(tmp_path / "seed004_table52.csv")))
    assert all(int(r["min_arc"]) < 0 and r["scipy"] == "Bellman-Ford" for r in t52)
    assert all(r["verify"] == "ok" for r in t52)
    assert not (tmp_path / "seed004_fig51.csv").exists()
