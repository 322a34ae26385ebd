"""``signpost billboards``: JSON keys, site ids from the file, exit status 2 on bad input."""

from __future__ import annotations

import json

import pytest

from app.cli import main


@pytest.fixture(scope="module")
def small_map(tmp_path_factory):
    from maps.dimacs import write_dimacs
    from maps.generate import generate

    path = tmp_path_factory.mktemp("bb") / "g.gr"
    write_dimacs(generate("grid", n=144, seed=3), str(path))
    return str(path)


def test_json_output(small_map, capsys):
    from gpu_core.betweenness import place_billboards
    from maps.load import load_map

    rc = main(["billboards", small_map, "-k", "3", "--json", "--backend", "cpu", "--no-cache"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("sites", "gains", "group_betweenness", "coverage", "method", "mode",
                "backend", "lonlat"):
        assert key in out
    assert out["method"] == "exact" and out["mode"] == "weighted" and out["backend"] == "cpu"
    net = load_map(small_map, use_cache=False)
    ref = place_billboards(net, 3, mode="weighted", backend="cpu")
    assert out["sites"] == [int(net.node_ids[v]) for v in ref.sites]  # ids as in the file
    assert out["gains"] == pytest.approx(list(ref.gains))
    assert len(out["lonlat"]) == 3 and all(len(p) == 2 for p in out["lonlat"])


def test_sampled_and_hops(small_map, capsys):
    rc = main(["billboards", small_map, "-k", "2", "--json", "--backend", "cpu", "--mode",
               "hops", "--method", "sampled", "--epsilon", "0.5", "--no-cache"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "sampled" and out["error_bound"] > 0 and out["samples"] > 0


def test_bad_input_exit_2(small_map, tmp_path, capsys):
    assert main(["billboards", small_map, "-k", "500", "--backend", "cpu"]) == 2
    err = capsys.readouterr().err
    assert "500" in err and "144" in err
    assert main(["billboards", str(tmp_path / "missing.gr"), "-k", "2"]) == 2
    assert main(["billboards", small_map, "-k", "0"]) == 2
    assert main(["billboards", small_map, "-k", "2", "--method", "sampled", "--epsilon", "2",
                 "--backend", "cpu"]) == 2
