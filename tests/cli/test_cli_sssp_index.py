"""``signpost sssp|route --index auto|on|off``: the search index changes no output byte
(costs, routes) and is built only when asked; an explicit strategy never uses it."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from maps.generate import generate
from maps.outputs.dimacs import write_dimacs


@pytest.fixture
def grid(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "g.gr"
    write_dimacs(generate("grid", n=900, seed=4, max_weight=3), str(path))
    return tmp_path, str(path)


def _sssp(root, path, name, *extra, capsys=None, via=False) -> bytes:
    out = root / f"{name}.csv"
    assert main(["sssp", path, "--source", "node:17", "--out", str(out), "--backend", "cpu",
                 *extra]) == 0
    if capsys is not None:
        assert ("through the search index" in capsys.readouterr().out) == via
    return out.read_bytes()


def _route(capsys, path, *extra) -> dict:
    capsys.readouterr()
    assert main(["route", path, "--from", "node:3", "--to", "node:880", "--json",
                 "--backend", "cpu", *extra]) == 0
    out = json.loads(capsys.readouterr().out)
    for k in ("search_ms", "phases", "timings"):
        out.pop(k)
    return out


def test_index_changes_no_output(grid, capsys):
    root, path = grid
    capsys.readouterr()
    off = _sssp(root, path, "off", "--index", "off", capsys=capsys)
    assert _sssp(root, path, "auto0", capsys=capsys) == off
    assert not list((root / "cache").glob("ch-*.npz"))
    assert _sssp(root, path, "on", "--index", "on", capsys=capsys, via=True) == off
    assert len(list((root / "cache").glob("ch-*.npz"))) == 1
    # auto: the index built before (a fresh load of the map finds it by its fingerprint)
    assert _sssp(root, path, "auto1", capsys=capsys, via=True) == off
    assert _sssp(root, path, "delta", "--strategy", "delta", capsys=capsys) == off
    plain = _route(capsys, path, "--index", "off")
    assert _route(capsys, path) == plain
    assert _route(capsys, path, "--index", "on") == plain
