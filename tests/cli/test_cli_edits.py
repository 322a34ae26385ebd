"""--close / --scenario on route, sssp, matrix and billboards: the same answers as the same
command on a map file edited by hand (arcs deleted from the DIMACS / GraphML / GeoJSON
text), on every map format; bad edits exit 2 naming the edit."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from app.cli import main
from app.jobs.edits import Edit, write_scenario
from maps.generate import generate
from maps.outputs.dimacs import write_dimacs
from tests.conftest import FIXTURES

GRAPHML = FIXTURES / "graphml" / "osmnx_small.graphml"
GEOJSON = FIXTURES / "vector" / "small.geojson"
SMALL_OSM = str(FIXTURES / "osm" / "small.osm")
SAMPLE = str(FIXTURES.parent.parent / "maps" / "samples" / "helsinki.osm.pbf")


def cli(capsys, *argv) -> tuple[int, str, str]:
    rc = main([*map(str, argv), "--no-cache"] if argv[0] != "gui" else list(map(str, argv)))
    out, err = capsys.readouterr()
    return rc, out, err


def route_json(capsys, *argv) -> dict:
    rc, out, err = cli(capsys, "route", *argv, "--json", "--backend", "cpu")
    assert rc == 0, err
    return json.loads(out)


SAME = ("cost", "length_m", "nodes", "arcs", "node_ids", "path", "unit", "profile")


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    """A 10x10 grid as DIMACS (.gr + .co), the link on its 1 -> 100 route to close, and
    the same file with that link's two arcs deleted and one arc's weight changed by hand."""
    root = tmp_path_factory.mktemp("edits")
    path = root / "g.gr"
    write_dimacs(generate("grid", n=100, seed=3), str(path))
    return root, path


def _hand_edit(root, path, name, drop=(), reweight=None):
    """A copy of the DIMACS pair with arcs ``drop`` ((u, v) pairs) deleted and
    ``reweight`` = ((u, v), w) set: what the --close / --scenario flags should mimic."""
    lines = path.read_text().splitlines()
    out, kept = [], 0
    for line in lines:
        f = line.split()
        if f and f[0] == "a":
            uv = (int(f[1]), int(f[2]))
            if uv in drop:
                continue
            if reweight is not None and uv == reweight[0]:
                line = f"a {uv[0]} {uv[1]} {reweight[1]}"
            kept += 1
        out.append(line)
    out = [re.sub(r"^p sp (\d+) \d+$", rf"p sp \g<1> {kept}", x) for x in out]
    gr = root / f"{name}.gr"
    gr.write_text("\n".join(out) + "\n")
    (root / f"{name}.co").write_text((root / "g.co").read_text())
    return gr


def test_close_equals_a_hand_edited_dimacs_file(grid, capsys, tmp_path):
    root, path = grid
    before = route_json(capsys, path, "--from", "node:1", "--to", "node:100")
    assert "edits" not in before
    a, b = before["node_ids"][3], before["node_ids"][4]
    hand = _hand_edit(root, path, "closed", drop={(a, b), (b, a)})
    spec = f"nodes:{a},{b}"
    edited = route_json(capsys, path, "--from", "node:1", "--to", "node:100", "--close", spec)
    oracle = route_json(capsys, hand, "--from", "node:1", "--to", "node:100")
    assert edited["edits"] == 2  # the two-way link between a and b: two arcs
    assert edited["cost"] > before["cost"]
    for key in SAME:
        assert edited[key] == oracle[key], key
    assert set(edited) - set(oracle) == {"edits"}
    # sssp: the same costs file, byte for byte
    notes = []
    for p, extra in ((path, ["--close", spec]), (hand, [])):
        rc, out, err = cli(capsys, "sssp", p, "--source", "node:7", "--out",
                           tmp_path / f"{p.stem}.csv", "--backend", "cpu", *extra)
        assert rc == 0, err
        notes.append("edits changed 2 arcs" in out)
    assert notes == [True, False]
    assert (tmp_path / "g.csv").read_bytes() == (tmp_path / "closed.csv").read_bytes()
    # matrix
    pts = tmp_path / "pts.csv"
    pts.write_text("node\n1\n45\n100\n")
    for p, extra in ((path, ["--close", spec]), (hand, [])):
        rc, out, err = cli(capsys, "matrix", p, "--from", pts, "--to", pts, "--out",
                           tmp_path / f"m_{p.stem}.csv", "--backend", "cpu", *extra)
        assert rc == 0, err
    assert (tmp_path / "m_g.csv").read_bytes() == (tmp_path / "m_closed.csv").read_bytes()
    # billboards
    got = []
    for p, extra in ((path, ["--close", spec]), (hand, [])):
        rc, out, err = cli(capsys, "billboards", p, "-k", "2", "--json", "--backend", "cpu",
                           "--method", "exact", *extra)
        assert rc == 0, err
        got.append(json.loads(out))
    for key in ("sites", "gains", "group_betweenness", "coverage", "pairs", "arcs"):
        assert got[0][key] == got[1][key], key
    assert got[0]["edits"] == 2 and "edits" not in got[1]


def test_scenario_equals_a_hand_edited_dimacs_file(grid, capsys, tmp_path):
    root, path = grid
    before = route_json(capsys, path, "--from", "node:1", "--to", "node:100")
    ids = before["node_ids"]
    a, b, c, d = ids[2], ids[3], ids[6], ids[7]
    scen = tmp_path / "s.geojson"
    write_scenario(scen, [Edit("close", nodes=(a, b), oneway=True),
                          Edit("set_cost", nodes=(c, d), oneway=True, value=5000),
                          Edit("close", nodes=(1, 2)), Edit("open", nodes=(1, 2))])
    hand = _hand_edit(root, path, "scen", drop={(a, b)}, reweight=((c, d), 5000))
    edited = route_json(capsys, path, "--from", "node:1", "--to", "node:100", "--scenario", scen)
    oracle = route_json(capsys, hand, "--from", "node:1", "--to", "node:100")
    assert edited["edits"] == 2
    for key in SAME:
        assert edited[key] == oracle[key], key
    for p, extra in ((path, ["--scenario", scen]), (hand, [])):
        rc, _, err = cli(capsys, "sssp", p, "--source", "node:100", "--out",
                         tmp_path / f"{p.stem}.csv", "--backend", "cpu", *extra)
        assert rc == 0, err
    assert (tmp_path / "g.csv").read_bytes() == (tmp_path / "scen.csv").read_bytes()


def test_graphml_way_closed_equals_the_file_without_it(capsys, tmp_path):
    from app.jobs.maps import open_map

    pts = ("--from", "node:102", "--to", "node:105")
    plain = route_json(capsys, GRAPHML, *pts)
    gm = open_map(str(GRAPHML), use_cache=False)
    way = int(gm.edge_source_id[gm.arc_between(gm.index_of(plain["node_ids"][0]),
                                                gm.index_of(plain["node_ids"][1]))])
    text = GRAPHML.read_text()
    # OSMnx writes each edge as <edge ...> ... <data key="d8">OSMID</data> ... </edge>
    blocks = re.findall(r"\s*<edge [^>]*>.*?</edge>", text, flags=re.S)
    gone = [bl for bl in blocks if f'<data key="d8">{way}</data>' in bl]
    assert gone
    for bl in gone:
        text = text.replace(bl, "")
    hand = tmp_path / "hand.graphml"
    hand.write_text(text)
    edited = route_json(capsys, GRAPHML, *pts, "--close", f"way:{way}")
    oracle = route_json(capsys, hand, *pts)
    assert edited["edits"] == int((gm.edge_source_id == way).sum())  # arcs, not file edges
    assert edited["node_ids"] != plain["node_ids"]
    for key in SAME:
        assert edited[key] == oracle[key], key


def test_geojson_feature_closed_equals_the_file_without_it(capsys, tmp_path):
    doc = json.loads(GEOJSON.read_text())
    doc["features"] = [f for f in doc["features"] if f.get("id") != 11]
    hand = tmp_path / "hand.geojson"
    hand.write_text(json.dumps(doc))
    pts = ("--from", "139.7001,35.6801", "--to", "139.7011,35.6819")
    plain = route_json(capsys, GEOJSON, *pts)
    edited = route_json(capsys, GEOJSON, *pts, "--close", "way:11")
    oracle = route_json(capsys, hand, *pts)
    assert edited["edits"] == 2  # feature 11: one line, walked both ways (length profile)
    assert edited["cost"] > plain["cost"]
    # without feature 11 the file's A-B-C is one arc (B is no junction), so compare the
    # route itself rather than its node ids
    for key in ("cost", "length_m", "path"):
        assert edited[key] == oracle[key], key


def test_sample_osm_map_close_and_point(capsys):
    pts = ("--from", "24.94,60.17", "--to", "24.95,60.175")
    plain = route_json(capsys, SAMPLE, *pts)
    a, b = plain["node_ids"][8], plain["node_ids"][9]
    closed = route_json(capsys, SAMPLE, *pts, "--close", f"nodes:{a},{b}")
    assert closed["edits"] == 2 and closed["cost"] > plain["cost"]
    assert [a, b] not in [closed["node_ids"][i:i + 2] for i in range(closed["nodes"] - 1)]
    # LON,LAT between the two nodes closes the same road
    lon, lat = np.mean([plain["path"][8], plain["path"][9]], axis=0)
    by_point = route_json(capsys, SAMPLE, *pts, "--close", f"{lon:.7f},{lat:.7f}")
    assert by_point["cost"] == closed["cost"] and by_point["edits"] == 2


def test_route_endpoints_snap_on_the_edited_map(capsys):
    # drive on small.osm: the start point lies on 2-3, which is closed: it snaps elsewhere
    rc, out, err = cli(capsys, "route", SMALL_OSM, "--profile", "drive", "--from",
                       "10.0015,50.00001", "--to", "node:4", "--json", "--backend", "cpu")
    assert rc == 0, err
    plain = json.loads(out)
    rc, out, err = cli(capsys, "route", SMALL_OSM, "--profile", "drive", "--from",
                       "10.0015,50.00001", "--to", "node:4", "--json", "--backend", "cpu",
                       "--close", "nodes:2,3")
    assert rc == 0, err
    edited = json.loads(out)
    assert plain["from"]["snap"]["distance_m"] < 2.0
    assert edited["from"]["snap"]["distance_m"] > 10.0  # on another road
    assert edited["edits"] == 2


@pytest.mark.parametrize("spec, why", [
    ("nodes:1,77", "--close nodes:1,77: node 77 is not on this map"),
    ("nodes:1,5", "--close nodes:1,5: nodes 1 and 5 share no arc"),
    ("way:4", "--close way:4: way ids address OSM ways"),
    ("bridge", "--close bridge: not one of nodes:A,B"),
    ("139.9,35.68", "--close 139.9,35.68: point 139.9,35.68 is 17.9 km from the nearest road"),
])
def test_bad_close_exits_2_naming_it(capsys, spec, why):
    tiny = FIXTURES / "dimacs" / "tiny.gr"
    rc, out, err = cli(capsys, "route", tiny, "--from", "node:1", "--to", "node:5",
                       "--close", spec)
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"signpost route: error: {why}")


def test_bad_scenario_feature_exits_2_naming_it(capsys, tmp_path):
    scen = tmp_path / "s.geojson"
    scen.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"action": "close", "nodes": [1, 2]}, "geometry": None},
        {"type": "Feature", "properties": {"action": "close", "way": 123}, "geometry": None}]}))
    for cmd in (["route", SMALL_OSM, "--from", "node:1", "--to", "node:4"],
                ["sssp", SMALL_OSM, "--source", "node:1", "--out", tmp_path / "o.csv"],
                ["billboards", SMALL_OSM, "-k", "1"]):
        rc, out, err = cli(capsys, *cmd, "--scenario", scen)
        assert rc == 2
        assert err.strip() == (f"signpost {cmd[0]}: error: {scen}: feature 2 (action close): "
                               "way 123 is not on this map")
    assert not (tmp_path / "o.csv").exists()


def test_scenario_with_every_geometry_on_the_sample_map(capsys, tmp_path):
    """Added links (ends on nodes, ends mid-street) and a closure polygon on the bundled
    OSM map: the route takes the shortcut, the new vertices are in sssp's output as -1
    and -2, the polygon closes the route's first street."""
    pts = ("--from", "24.94,60.17", "--to", "24.95,60.175")
    plain = route_json(capsys, SAMPLE, *pts)
    (lon0, lat0), (lon1, lat1) = plain["path"][0], plain["path"][-1]
    # a straight link from beside the start to beside the end, priced as a footway walk
    scen = tmp_path / "s.geojson"
    write_scenario(scen, [Edit("add", line=((lon0, lat0), (lon1, lat1)), road_class="footway")])
    short = route_json(capsys, SAMPLE, *pts, "--scenario", scen)
    assert short["cost"] < plain["cost"] and short["nodes"] == 2
    assert short["edits"] == 2  # both ends on nodes: two new arcs, nothing split
    # mid-street ends: the streets are split at new vertices
    mid0 = np.mean(plain["path"][1:3], axis=0).round(7).tolist()
    mid1 = np.mean(plain["path"][-3:-1], axis=0).round(7).tolist()
    write_scenario(scen, [Edit("add", line=(tuple(mid0), tuple(mid1)), value=1)])
    rc, out, err = cli(capsys, "sssp", SAMPLE, "--source", "24.94,60.17", "--out",
                       tmp_path / "c.csv", "--backend", "cpu", "--scenario", scen)
    assert rc == 0, err
    rows = (tmp_path / "c.csv").read_text().splitlines()
    assert rows[-2].startswith("-1,") and rows[-1].startswith("-2,")
    assert "edits changed" in out
    # a closure polygon around the first street of the route
    (x0, y0), (x1, y1) = plain["path"][0], plain["path"][1]
    box = ((min(x0, x1) - 1e-5, min(y0, y1) - 1e-5), (max(x0, x1) + 1e-5, min(y0, y1) - 1e-5),
           (max(x0, x1) + 1e-5, max(y0, y1) + 1e-5), (min(x0, x1) - 1e-5, max(y0, y1) + 1e-5))
    write_scenario(scen, [Edit("close", polygon=box)])
    boxed = route_json(capsys, SAMPLE, *pts, "--scenario", scen)
    assert boxed["edits"] >= 2 and boxed["node_ids"][:2] != plain["node_ids"][:2]
