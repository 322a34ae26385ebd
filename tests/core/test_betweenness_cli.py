"""``signpost billboards``: JSON keys, site ids from the file, exit status 2 on bad input."""

from __future__ import annotations

import json

import pytest

from app.cli import main


@pytest.fixture(scope="module")
def small_map(tmp_path_factory):
    from maps.generate import generate
    from maps.outputs.dimacs import write_dimacs

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


def test_fixed_candidates_and_demand_options(small_map, tmp_path, capsys):
    """The CLI exposes the core's fixed sites, candidate limits and OD demand weights."""
    import numpy as np

    from gpu_core.betweenness import place_billboards
    from maps.load import load_map

    net = load_map(small_map, use_cache=False)
    ids = [int(x) for x in net.node_ids]
    dem = tmp_path / "d.csv"
    dem.write_text("node,origin,destination\n" + "".join(
        f"{ids[v]},{1 + v % 3},{(v // 2) % 2}\n" for v in range(0, net.num_nodes, 2)))
    rc = main(["billboards", small_map, "-k", "2", "--json", "--backend", "cpu", "--no-cache",
               "--method", "exact", "--fixed", f"{ids[5]},{ids[77]}", "--demand", str(dem)])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    a, b = np.zeros(net.num_nodes), np.zeros(net.num_nodes)
    for v in range(0, net.num_nodes, 2):
        a[v], b[v] = 1 + v % 3, (v // 2) % 2
    ref = place_billboards(net, 2, mode="weighted", backend="cpu", method="exact",
                           fixed=[5, 77], sources=a, targets=b)
    assert out["sites"] == [ids[v] for v in ref.sites] and out["fixed"] == [ids[5], ids[77]]
    assert out["group_betweenness"] == pytest.approx(list(ref.group_betweenness))
    assert not set(out["sites"]) & {ids[5], ids[77]}
    # a map without arc kinds still takes "road" (DIMACS arcs are roads); bad values exit 2
    assert main(["billboards", small_map, "-k", "2", "--candidates", "road", "--backend",
                 "cpu", "--json"]) == 0
    capsys.readouterr()
    assert main(["billboards", small_map, "-k", "2", "--fixed", "999999"]) == 2
    assert "--fixed '999999'" in capsys.readouterr().err
    dem.write_text("node,weight\n1,abc\n")
    assert main(["billboards", small_map, "-k", "2", "--demand", str(dem)]) == 2
    assert "d.csv:2" in capsys.readouterr().err


def test_candidates_road_and_no_rail_on_a_road_rail_map(capsys):
    from maps.model.network import KIND_RAIL
    from maps.samples import SAMPLE_MAP

    rc = main(["billboards", str(SAMPLE_MAP), "-k", "2", "--profile", "multimodal", "--json",
               "--backend", "cpu", "--method", "sampled", "--epsilon", "0.5",
               "--candidates", "no-rail"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    from maps.load import load_map

    net = load_map(str(SAMPLE_MAP), profile="multimodal")
    rail = net.edge_kind == KIND_RAIL
    on_rail = set(net.arc_sources()[rail].tolist()) | set(net.indices[rail].tolist())
    assert not on_rail & set(out["site_index"])
