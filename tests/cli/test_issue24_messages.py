"""Issue 24 item 7, through the real CLI: each message that misled says what is wrong
(one line, exit 2), and what was refused for no reason works (PageRank and MST on maps
with negative arcs). The PostgreSQL cases are in ``tests/postgis/test_messages.py``."""

from __future__ import annotations

import csv
import json

import networkx as nx
import numpy as np
import pytest

from app import progress
from app.cli import main
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")
SMALL = str(FIXTURES / "vector" / "small.geojson")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    yield
    progress.configure(quiet=False, verbose=0)


def one_line(capsys, command: str) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"signpost {command}: error: "), err
    return err[0]


def test_gpkg_without_crs_says_so_without_a_pyproj_dump(tmp_path, capsys):
    """GDAL writes a layer without a CRS as srs_id 99999, LOCAL_CS["Undefined SRS"]."""
    raw = pytest.importorskip("pyogrio.raw")
    import shapely

    path = str(tmp_path / "nocrs.gpkg")
    lines = [[(385700, 6672126), (386255, 6672109)], [(386255, 6672109), (386255, 6672700)]]
    with pytest.warns(UserWarning):  # pyogrio: "'crs' was not provided"
        raw.write(path, geometry=np.array(shapely.to_wkb([shapely.LineString(c) for c in lines]),
                                          dtype=object),
                  field_data=[np.array([1, 2])], fields=["id"], geometry_type="LineString",
                  driver="GPKG")
    assert main(["info", path, "--no-cache"]) == 2
    line = one_line(capsys, "info")
    assert "no CRS; give it with --crs" in line and "(385700, 6.67213e+06)" in line
    assert "Warning" not in line and "ENGCRS" not in line
    assert main(["info", path, "--no-cache", "--crs", "EPSG:3067", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["crs"] == "EPSG:3067" and got["nodes"] == 3


def test_lonlat_geojson_with_a_projected_crs_says_they_are_degrees(capsys):
    assert main(["info", SMALL, "--crs", "EPSG:3067", "--no-cache"]) == 2
    line = one_line(capsys, "info")
    assert "--crs EPSG:3067" in line and "are lon/lat degrees" in line and "(139.7, 35.68)" in line


@pytest.mark.parametrize(("value", "needle"), [
    ("1e9", "1e9 is too large (cutoffs are below 1e+09)"),
    ("5,2e12", "2e12 is too large"),
    ("-5", "cutoffs must be numbers > 0"),
    ("nan", "cutoffs must be numbers > 0"),
])
def test_isochrone_cutoff_size(tmp_path, capsys, value, needle):
    assert main(["isochrones", SMALL, "--from", "139.7,35.68", "--metres", value, "--out",
                 str(tmp_path / "i.geojson"), "--no-cache"]) == 2
    assert needle in one_line(capsys, "isochrones")
    assert not (tmp_path / "i.geojson").exists()


@pytest.mark.parametrize(("tol", "needle"), [
    ("nan", "the tolerance must be a number"), ("inf", "the tolerance must be a number"),
    ("-1", "must not be negative"),
])
def test_pagerank_tol(tmp_path, capsys, tol, needle):
    assert main(["pagerank", TINY, "--out", str(tmp_path / "p.csv"), f"--tol={tol}",
                 "--backend", "cpu"]) == 2
    assert needle in one_line(capsys, "pagerank")


def _negative_map(tmp_path) -> tuple[str, list[tuple[int, int, int]]]:
    rng = np.random.default_rng(24)
    n = 30
    arcs = [(int(a), int(b), int(w)) for a, b, w in zip(rng.integers(1, n + 1, 90),
                                                        rng.integers(1, n + 1, 90),
                                                        rng.integers(-50, 50, 90), strict=True)]
    p = tmp_path / "neg.gr"
    p.write_text(f"p sp {n} {len(arcs)}\n" + "".join(f"a {a} {b} {w}\n" for a, b, w in arcs))
    return str(p), arcs


def test_pagerank_ignores_negative_weights_like_networkx(tmp_path, capsys):
    path, arcs = _negative_map(tmp_path)
    out = tmp_path / "pr.csv"
    assert main(["pagerank", path, "--out", str(out), "--backend", "cpu", "--tol", "1e-10",
                 "--max-iter", "1000"]) == 0
    g = nx.DiGraph()
    g.add_nodes_from(range(1, 31))
    g.add_edges_from((a, b) for a, b, _ in arcs)
    want = nx.pagerank(g, weight=None, tol=1e-12, max_iter=1000)
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    key = next(k for k in rows[0] if k != "rank" and "id" in k)
    got = {int(r[key]): float(r["rank"]) for r in rows}
    assert got == pytest.approx(want, abs=1e-8)


@pytest.mark.parametrize("method", ["direct", "framework"])
def test_mst_takes_negative_arcs_like_networkx(tmp_path, capsys, method):
    path, arcs = _negative_map(tmp_path)
    assert main(["mst", path, "--backend", "cpu", "--method", method, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    g = nx.Graph()  # the lightest arc either way between two nodes
    for a, b, w in arcs:
        if a != b and (not g.has_edge(a, b) or g[a][b]["w"] > w):
            g.add_edge(a, b, w=w)
    forest = list(nx.minimum_spanning_edges(g, weight="w", data=True))
    assert got["total_weight"] == sum(d["w"] for _, _, d in forest) < 0
    assert got["edges"] == len(forest)


def test_json_list_weight_is_refused(tmp_path, capsys):
    p = tmp_path / "w.geojson"
    p.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"cost": 3},
         "geometry": {"type": "LineString", "coordinates": [[24.9, 60.1], [24.91, 60.1]]}},
        {"type": "Feature", "properties": {"cost": [2]},
         "geometry": {"type": "LineString", "coordinates": [[24.91, 60.1], [24.92, 60.1]]}}]}))
    assert main(["info", str(p), "--weight", "cost", "--no-cache"]) == 2
    line = one_line(capsys, "info")
    assert "feature 1: cost [2] is a list, not a number" in line and "w.geojson" in line


@pytest.mark.parametrize(("argv", "needle"), [
    (["--close", "nodes:\u0661,\u0662"], "node '\u0661' is not a node id of this map"),
    (["--close", "arc:1,\u0663"], "node '\u0663' is not a node id of this map"),
])
def test_non_ascii_digits_in_nodes_are_refused(capsys, argv, needle):
    assert main(["route", TINY, "--from", "node:1", "--to", "node:3", "--backend", "cpu",
                 *argv]) == 2
    assert needle in one_line(capsys, "route")


@pytest.mark.parametrize("point", ["node:\u0661\u0665", "\u0661\u0663\u0669.7,35.68"])
def test_non_ascii_digits_in_points_are_refused(capsys, point):
    assert main(["route", SMALL, "--from", point, "--to", "139.702,35.68", "--backend",
                 "cpu"]) == 2
    assert point in one_line(capsys, "route")


def test_whole_world_scenario_polygon_closes_every_road(tmp_path, capsys):
    world = tmp_path / "world.geojson"
    world.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"action": "close"}, "geometry": {
            "type": "Polygon",
            "coordinates": [[[-180, -90], [180, -90], [180, 90], [-180, 90], [-180, -90]]]}}]}))
    assert main(["route", TINY, "--from", "node:1", "--to", "node:3", "--backend", "cpu",
                 "--scenario", str(world)]) == 2
    line = one_line(capsys, "route")
    assert "unreachable" in line and "Too few points" not in line
    bowtie = tmp_path / "bowtie.geojson"  # a polygon that is wrong as drawn still says why
    bowtie.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"action": "close"}, "geometry": {
            "type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]}}]}))
    assert main(["route", TINY, "--from", "node:1", "--to", "node:3", "--backend", "cpu",
                 "--scenario", str(bowtie)]) == 2
    assert "the polygon is not valid (Self-intersection" in one_line(capsys, "route")


def test_progress_line_after_ctrl_c_does_not_say_done(capsys, monkeypatch):
    """A step that printed plain progress lines and is then interrupted ends with
    'interrupted after', not 'done in' (the CLI's loading step, stopped by Ctrl-C)."""
    from app.cli import _common

    monkeypatch.setenv("SIGNPOST_PROGRESS_DELAY", "0")

    def interrupted(*a, progress=None, **kw):
        progress(0.5, "half")
        raise KeyboardInterrupt

    monkeypatch.setattr(_common, "load", interrupted)
    rc = main(["route", TINY, "--from", "node:1", "--to", "node:3", "--backend", "cpu",
               "--no-cache"])
    err = capsys.readouterr().err.splitlines()
    assert rc == 130 and err[-1] == "signpost route: interrupted"
    assert err[0].startswith("loading tiny.gr:  50% half")
    assert err[1].startswith("loading tiny.gr: interrupted after ")
    assert not any("done in" in ln for ln in err)


# ---- what the CLI fuzzer found once it ran bench and gui -------------------------------------
def test_bench_negative_seed_is_one_line(tmp_path, capsys):
    assert main(["bench", "sssp", "--map", TINY, "--seed=-125", "--no-figures", "--backend",
                 "cpu", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["signpost bench: error: --seed -125: give an integer >= 0"]


def test_gui_negative_max_snap_is_refused_like_route(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["gui", TINY, "--max-snap=-5e16", "--screenshot", "x.png"])
    assert exc.value.code == 2
    assert "--max-snap: '-5e16': give a distance of 0 metres or more" in capsys.readouterr().err


@pytest.mark.parametrize("spec", ["-19", "\x00", "adaptive,nope"])
def test_bench_unknown_strategy_is_one_line_exit_2(tmp_path, capsys, spec):
    """It was SystemExit(text): status 1 and no 'error:' prefix."""
    assert main(["bench", "sssp", "--map", TINY, f"--strategies={spec}", "--no-figures",
                 "--backend", "cpu", "--sources", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("signpost bench: error: --strategies ")
    assert "unknown strategy" in err[0]
