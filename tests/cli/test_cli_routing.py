"""The routing commands: signpost info, route, sssp."""

from __future__ import annotations

import json
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

from app.cli import main
from maps.formats.osm import load_osm
from maps.model.turns import fold, original_count
from maps.samples import SAMPLE_MAP
from tests.conftest import FIXTURES

OSM = FIXTURES / "osm"
SMALL = str(OSM / "small.osm")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def run_json(capsys, *argv: str) -> dict:
    rc, out, err = run(capsys, *argv, "--json")
    assert rc == 0, err
    return json.loads(out)


def fail(capsys, *argv: str) -> str:
    """Run a command that must fail with status 2 and one line on stderr."""
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    assert "Traceback" not in err and err.count("\n") == 1
    return err


# ---- info ---------------------------------------------------------------------------------


def test_info_json(capsys):
    d = run_json(capsys, "info", SMALL, "--profile", "drive", "--no-cache")
    net = load_osm(SMALL, profile="drive")
    assert d["nodes"] == net.num_nodes and d["arcs"] == net.num_arcs
    assert d["profile"] == "drive" and d["unit"] == "ds"
    assert d["components"] == net.components()[0]
    assert d["largest_component"] == np.bincount(net.components()[1]).max()
    assert d["weights"]["min"] == net.weights.min() and d["weights"]["max"] == net.weights.max()
    assert sum(d["kinds"].values()) == net.num_arcs
    assert sum(d["classes"].values()) == net.num_arcs


def test_info_text_and_default_profile(capsys):
    rc, out, _ = run(capsys, "info", SMALL)
    assert rc == 0
    assert "profile      length (unit: decimetres" in out and "components" in out
    d = run_json(capsys, "info", SMALL, "--profile", "multimodal")
    assert d["kinds"]["rail"] > 0 and d["kinds"]["transfer"] == 8


# ---- route --------------------------------------------------------------------------------


def nx_cost(net, s: int, t: int) -> int:
    g = nx.DiGraph()
    src = net.arc_sources()
    for u, v, w in zip(src.tolist(), net.indices.tolist(), net.weights.tolist(), strict=True):
        if not g.has_edge(u, v) or g[u][v]["weight"] > w:
            g.add_edge(u, v, weight=w)
    return nx.shortest_path_length(g, s, t, weight="weight")


@pytest.mark.parametrize("profile", ["length", "walk", "drive", "multimodal"])
def test_route_json_matches_networkx(capsys, profile):
    net = load_osm(SMALL, profile=profile)
    a, b = ("node:1", "node:7")
    d = run_json(capsys, "route", SMALL, "--from", a, "--to", b, "--profile", profile)
    for key in ("cost", "unit", "length_m", "nodes", "path", "from", "to", "time_s"):
        assert key in d
    s, t = net.index_of(1), net.index_of(7)
    assert d["cost"] == nx_cost(net, s, t)
    assert d["unit"] == net.unit and d["profile"] == profile
    assert d["time_s"] == (None if profile == "length" else d["cost"] / 10)
    assert d["node_ids"][0] == 1 and d["node_ids"][-1] == 7 and d["nodes"] == len(d["node_ids"])
    # the path follows arc geometry from node 1 to node 7
    assert d["path"][0] == [10.0, 50.0] and d["path"][-1] == [10.002, 50.001]
    assert len(d["path"]) >= d["nodes"]
    # length is the sum of the used arcs' lengths
    ids = d["node_ids"]
    pairs = zip(ids[:-1], ids[1:], strict=True)
    arcs = [net.arc_between(net.index_of(u), net.index_of(v)) for u, v in pairs]
    assert d["length_m"] == pytest.approx(float(net.edge_length[arcs].sum()), rel=1e-5)


def test_route_from_lonlat_reports_the_snap(capsys):
    d = run_json(capsys, "route", SMALL, "--from", "10.0012,50.00001", "--to", "node:5")
    assert d["from"]["snap"]["distance_m"] == pytest.approx(1.11, abs=0.05)
    assert d["from"]["node_id"] == 2 and d["to"]["snap"] is None
    assert d["cost"] == 715 + 1112  # 2-1-5 (street, footway) = 2-6-5 (tertiary, street), dm


def test_route_text(capsys):
    argv = ["route", SMALL, "--from", "node:1", "--to", "node:7", "--profile", "walk"]
    rc, out, _ = run(capsys, *argv)
    assert rc == 0
    assert "cost" in out and " ds" in out and "time" in out and "length" in out


def test_route_uses_rail_in_multimodal(capsys):
    d = run_json(
        capsys, "route", SMALL, "--from", "node:50", "--to", "node:52", "--profile", "multimodal"
    )
    assert d["node_ids"] == [50, 51, 52]


def test_unreachable(capsys):
    err = fail(capsys, "route", str(OSM / "two_islands.osm"), "--from", "node:1", "--to", "node:3")
    assert "unreachable" in err and "(different components)" in err
    err = fail(capsys, "route", SMALL, "--from", "node:7", "--to", "node:8", "--profile", "drive")
    assert "unreachable" in err and "one-way" in err


def test_dimacs_route_uses_file_weights(capsys, tmp_path):
    gr = tmp_path / "t.gr"
    gr.write_text("c tiny\np sp 4 4\na 1 2 5\na 2 3 7\na 1 3 20\na 3 4 1\n")
    d = run_json(capsys, "route", gr, "--from", "node:1", "--to", "node:4")
    assert d["cost"] == 13 and d["unit"] == "unit" and d["profile"] == "file"
    assert d["path"] == [] and d["node_ids"] == [1, 2, 3, 4] and d["length_m"] is None
    err = fail(capsys, "route", gr, "--from", "node:1", "--to", "node:4", "--profile", "walk")
    assert "'walk'" in err
    err = fail(capsys, "route", gr, "--from", "10,50", "--to", "node:4")
    assert "node:ID" in err


# ---- sssp ---------------------------------------------------------------------------------


def scipy_costs(net, s: int) -> np.ndarray:
    return dijkstra(net.to_scipy(), indices=s)


@pytest.mark.parametrize("path", [SMALL, str(SAMPLE_MAP)])
def test_sssp_csv_and_npy_match_scipy(capsys, tmp_path, path):
    net = load_osm(path, profile="drive")
    src = int(net.node_ids[net.arc_sources()[0]])
    ref = fold(net, scipy_costs(net, net.index_of(src)), np.inf)  # turn copies folded
    csv = tmp_path / "c.csv"
    rc, out, err = run(capsys, "sssp", path, "--profile", "drive", "--source", f"node:{src}",
                       "--out", csv)  # fmt: skip
    assert rc == 0, err
    lines = csv.read_text().splitlines()
    assert lines[0] == "node_id,cost" and len(lines) == original_count(net) + 1
    for line in lines[1:]:
        nid, cost = line.split(",")
        want = ref[net.index_of(int(nid))]
        assert (cost == "" and np.isinf(want)) or int(cost) == want
    npy = tmp_path / "c.npy"
    rc, _, err = run(capsys, "sssp", path, "--profile", "drive", "--source", f"node:{src}",
                     "--out", npy)  # fmt: skip
    assert rc == 0, err
    arr = np.load(npy, allow_pickle=False)
    assert arr.dtype.names == ("node_id", "cost") and arr["cost"].dtype == np.int64
    want = np.where(np.isinf(ref), -1, ref).astype(np.int64)
    got = np.empty_like(want)
    got[[net.index_of(i) for i in arr["node_id"].tolist()]] = arr["cost"]
    np.testing.assert_array_equal(got, want)
    assert (arr["cost"] == -1).any() == np.isinf(ref).any()


def test_sssp_bad_extension(capsys, tmp_path):
    err = fail(capsys, "sssp", SMALL, "--source", "node:1", "--out", tmp_path / "x.txt")
    assert ".csv or .npy" in err


# ---- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, match",
    [
        (["info", OSM / "truncated.osm.pbf"], "truncated.osm.pbf"),
        (["info", OSM / "garbage.osm"], "garbage.osm"),
        (["info", SMALL, "--profile", "bike"], "unknown profile 'bike'"),
        (["info", OSM / "no_roads.osm", "--profile", "walk"], "'walk' profile"),
        (["info", "nowhere.osm"], "no such file"),
        (["info", "map.txt"], "unknown map format"),
        (["route", SMALL, "--from", "node:999999", "--to", "node:1"], "node id 999999"),
        (["route", SMALL, "--from", "10.7,50.0", "--to", "node:1"], "km from the nearest road"),
        (["route", SMALL, "--from", "12,abc", "--to", "node:1"], "cannot read point '12,abc'"),
        (["route", SMALL, "--from", "10,91", "--to", "node:1"], "latitude 91.0"),
        (["sssp", SMALL, "--source", "node:1", "--out", "/no/such/dir/x.csv"], "does not exist"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, match):
    err = fail(capsys, *argv)
    assert match in err


def test_exit_status_from_a_real_process(tmp_path):
    env_code = (
        "import sys; from app.cli import main; "
        f"sys.exit(main(['route', {SMALL!r}, '--from', 'node:999999', '--to', 'node:1']))"
    )
    p = subprocess.run([sys.executable, "-c", env_code], capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stderr.startswith("signpost route: error:") and "Traceback" not in p.stderr


@pytest.mark.parametrize("profile", ["walk", "drive", "multimodal"])
def test_route_on_the_sample_map_matches_scipy(capsys, profile):
    net = load_osm(SAMPLE_MAP, profile=profile)
    _, label = net.components()
    members = np.flatnonzero(label[: original_count(net)] == np.bincount(label).argmax())
    s, t = int(members[len(members) // 3]), int(members[-1])
    ref = fold(net, dijkstra(net.to_scipy(), indices=s), np.inf)  # turn copies folded
    a, b = f"node:{net.node_ids[s]}", f"node:{net.node_ids[t]}"
    if np.isinf(ref[t]):  # one-way streets: the other direction then
        s, t, a, b = t, s, b, a
        ref = fold(net, dijkstra(net.to_scipy(), indices=s), np.inf)
    d = run_json(capsys, "route", SAMPLE_MAP, "--from", a, "--to", b, "--profile", profile)
    assert d["cost"] == int(ref[t])
    assert d["path"][0] == [round(net.lon[s], 7), round(net.lat[s], 7)]
    assert d["path"][-1] == [round(net.lon[t], 7), round(net.lat[t], 7)]
    assert d["length_m"] > 0


def test_western_longitudes_parse_as_points(capsys, tmp_path):
    gr, co = tmp_path / "w.gr", tmp_path / "w.co"
    gr.write_text("p sp 3 4\na 1 2 5\na 2 1 5\na 2 3 7\na 3 2 7\n")
    co.write_text("p aux sp co 3\nv 1 -73990000 40730000\nv 2 -73980000 40730000\n"
                  "v 3 -73980000 40740000\n")  # fmt: skip
    d = run_json(capsys, "route", gr, "--from", "-73.9899,40.7301", "--to", "-73.98,40.7399")
    assert d["cost"] == 12 and d["node_ids"] == [1, 2, 3]
    assert d["path"][0] == [-73.99, 40.73] and d["from"]["snap"]["distance_m"] < 20
    out = tmp_path / "w.csv"
    rc, _, err = run(capsys, "sssp", gr, "--source", "-73.98,40.74", "--out", out)
    assert rc == 0, err
    assert out.read_text().splitlines() == ["node_id,cost", "1,12", "2,7", "3,0"]
