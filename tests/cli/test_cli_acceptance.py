"""Regressions found by running the CLI as an acceptance tester would."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import main


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


# Nodes 2 and 3 are inner points of way 10 (not junctions, not graph nodes); 7 lies on a
# railway only; 8 is in the file but on no way at all.
INNER_OSM = """<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
 <node id="1" lat="-33.900" lon="-70.600"/>
 <node id="2" lat="-33.901" lon="-70.600"/>
 <node id="3" lat="-33.907" lon="-70.600"/>
 <node id="4" lat="-33.909" lon="-70.600"/>
 <node id="5" lat="-33.909" lon="-70.610"/>
 <node id="6" lat="-33.900" lon="-70.590"/>
 <node id="7" lat="-33.905" lon="-70.590"/>
 <node id="8" lat="-33.950" lon="-70.650"/>
 <way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><tag k="highway" v="residential"/></way>
 <way id="11"><nd ref="4"/><nd ref="5"/><tag k="highway" v="residential"/></way>
 <way id="12"><nd ref="6"/><nd ref="7"/><nd ref="4"/><tag k="railway" v="rail"/></way>
</osm>
"""


def test_route_from_an_inner_osm_node(capsys, tmp_path):
    """node:ID of an OSM node inside a way (the common case) routes from exactly that node;
    with --contract, where it is merged away, from the arc it lies on (like a LON,LAT
    point on it) instead of failing with 'not in the map'."""
    osm = tmp_path / "inner.osm"
    osm.write_text(INNER_OSM)
    rc, out, err = run(capsys, "route", osm, "--from", "node:3", "--to", "node:5", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["node_ids"] == [3, 4, 5]
    rc, out, err = run(
        capsys, "route", osm, "--from", "node:3", "--to", "node:5", "--json", "--contract"
    )
    assert rc == 0, err
    d = json.loads(out)
    assert d["from"]["node_id"] in (1, 5)  # an end of the merged chain 1-2-3-4-5
    assert d["from"]["snap"]["distance_m"] < 0.01
    rc, out, err = run(capsys, "route", osm, "--from", "node:2", "--to", "node:5", "--json")
    assert rc == 0, err
    assert json.loads(out)["node_ids"] == [2, 3, 4, 5]
    rc, _, err = run(capsys, "sssp", osm, "--source", "node:2", "--out", tmp_path / "s.csv")
    assert rc == 0, err


@pytest.mark.parametrize(
    "node, match",
    [("7", "node id 7 is in the file but not on a road of the 'length' profile"),
     ("8", "node id 8 is in the file but not on a road"),
     ("99", "node id 99 is not in the map")],
)  # fmt: skip
def test_osm_node_not_on_a_usable_way(capsys, tmp_path, node, match):
    osm = tmp_path / "inner.osm"
    osm.write_text(INNER_OSM)
    rc, _, err = run(capsys, "route", osm, "--from", f"node:{node}", "--to", "node:5")
    assert rc == 2 and match in err and str(osm) in err
    assert "Traceback" not in err and err.count("\n") == 1


MIXED_GRAPHML = """<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="x" attr.type="string" />
  <key id="d1" for="node" attr.name="y" attr.type="string" />
  <key id="d2" for="edge" attr.name="highway" attr.type="string" />
  <key id="d3" for="edge" attr.name="length" attr.type="string" />
  <graph edgedefault="directed">
    <node id="5"><data key="d0">9.50</data><data key="d1">47.1</data></node>
    <node id="x"><data key="d0">9.51</data><data key="d1">47.1</data></node>
    <node id="1"><data key="d0">9.52</data><data key="d1">47.1</data></node>
    <edge source="5" target="x"><data key="d2">residential</data><data key="d3">100</data></edge>
    <edge source="x" target="1"><data key="d2">residential</data><data key="d3">200</data></edge>
  </graph>
</graphml>
"""


def test_graphml_node_ids_that_are_not_all_integers(capsys, tmp_path):
    """node:ID names the GraphML node id as written: node:1 is the node whose id is "1"
    (the last one here), not the first node of the file; node:x works too."""
    g = tmp_path / "mixed.graphml"
    g.write_text(MIXED_GRAPHML)
    rc, out, err = run(capsys, "route", g, "--from", "node:5", "--to", "node:1", "--json")
    assert rc == 0, err
    assert json.loads(out)["cost"] == 3000
    rc, out, err = run(capsys, "route", g, "--from", "node:x", "--to", "node:1", "--json")
    assert rc == 0, err
    assert json.loads(out)["cost"] == 2000
    rc, _, err = run(capsys, "route", g, "--from", "node:zz", "--to", "node:1")
    assert rc == 2 and "node id 'zz' is not in the map" in err


def test_graphml_names_are_what_the_outputs_print(capsys, tmp_path):
    """Outputs name nodes by the GraphML ids as written, not by internal numbers."""
    g = tmp_path / "mixed.graphml"
    g.write_text(MIXED_GRAPHML)
    rc, out, err = run(capsys, "route", g, "--from", "node:5", "--to", "node:1", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["node_ids"] == ["5", "x", "1"]
    assert d["from"]["node_id"] == "5" and d["to"]["node_id"] == "1"
    csv = tmp_path / "s.csv"
    rc, _, err = run(capsys, "sssp", g, "--source", "node:x", "--out", csv)
    assert rc == 0, err
    rows = dict(line.split(",") for line in csv.read_text().splitlines()[1:])
    assert rows == {"5": "", "x": "0", "1": "2000"}
    npy = tmp_path / "s.npy"
    rc, _, err = run(capsys, "sssp", g, "--source", "node:x", "--out", npy)
    assert rc == 0, err
    arr = np.load(npy)
    assert arr["node_id"].tolist() == ["5", "x", "1"] and arr["cost"].tolist() == [-1, 0, 2000]


@pytest.mark.parametrize(
    "gr, match",
    [("p sp 3 1\na 1 4 5\n", "head 4 is above 3, the largest allowed"),
     ("p sp 3 1\na 1 2 3000000000\n", "weight 3000000000 is above 2147483647")],
)  # fmt: skip
def test_dimacs_out_of_range_messages_name_the_real_limit(capsys, tmp_path, gr, match):
    p = tmp_path / "bad.gr"
    p.write_text(gr)
    rc, _, err = run(capsys, "info", p)
    assert rc == 2 and match in err and f"{p}:2:" in err


def test_matrix_node_rows_resolve_like_route(capsys, tmp_path):
    """A 'node' column takes what route's node:ID takes: OSM nodes inside a way, GraphML
    ids that are not integers."""
    osm = tmp_path / "inner.osm"
    osm.write_text(INNER_OSM)
    a, out = tmp_path / "a.csv", tmp_path / "m.csv"
    a.write_text("node\n2\n5\n")
    rc, _, err = run(capsys, "matrix", osm, "--from", a, "--to", a, "--out", out)
    assert rc == 0, err
    rc, o2, err = run(capsys, "route", osm, "--from", "node:2", "--to", "node:5", "--json")
    cost = json.loads(o2)["cost"]
    assert out.read_text().splitlines() == [
        "from,to,cost,from_id,to_id", "0,0,0,2,2", f"0,1,{cost},2,5", f"1,0,{cost},5,2",
        "1,1,0,5,5"]  # fmt: skip
    g = tmp_path / "mixed.graphml"
    g.write_text(MIXED_GRAPHML)
    a.write_text("node\n5\nx\n")
    rc, _, err = run(capsys, "matrix", g, "--from", a, "--to", a, "--out", out)
    assert rc == 0, err
    assert out.read_text().splitlines() == [
        "from,to,cost,from_id,to_id", "0,0,0,5,5", "0,1,1000,5,x", "1,0,,x,5",
        "1,1,0,x,x"]  # fmt: skip


def test_pace_content_under_dimacs_extensions(capsys, tmp_path):
    """The p line picks the reader: a decompressed PACE file (.gr) or a gzipped one
    (.gr.gz) reads as PACE with the same weights as the .gr.xz; an xz-compressed DIMACS
    'p sp' file named .gr.xz reads as DIMACS."""
    import gzip
    import lzma

    pace = b"c pace\np tw 3 2\n1 2\n2 3\n"
    sp = b"p sp 3 2\na 1 2 5\na 2 3 4\n"
    (tmp_path / "p.gr.xz").write_bytes(lzma.compress(pace))
    (tmp_path / "p.gr").write_bytes(pace)
    (tmp_path / "q.gr.gz").write_bytes(gzip.compress(pace))
    (tmp_path / "s.gr.xz").write_bytes(lzma.compress(sp))
    costs = []
    for name in ("p.gr.xz", "p.gr", "q.gr.gz", "s.gr.xz"):
        rc, out, err = run(
            capsys, "route", tmp_path / name, "--from", "node:1", "--to", "node:3", "--json"
        )
        assert rc == 0, err
        costs.append(json.loads(out)["cost"])
    assert costs[0] == costs[1] == costs[2] and costs[3] == 9


def test_node_merged_by_contract_says_so(capsys, tmp_path):
    g = tmp_path / "chain.graphml"
    text = MIXED_GRAPHML
    for attr in ("id", "source", "target"):
        text = text.replace(f'{attr}="x"', f'{attr}="7"').replace(f'{attr}="5"', f'{attr}="6"')
    assert 'attr.name="x"' in text
    g.write_text(text)
    rc, _, err = run(capsys, "route", g, "--from", "node:7", "--to", "node:1")
    assert rc == 0, err
    rc, _, err = run(capsys, "route", g, "--contract", "--from", "node:7", "--to", "node:1")
    assert rc == 2 and "node id 7 is not a node of the contracted map" in err


@pytest.mark.parametrize("cmd", ["route", "matrix"])
@pytest.mark.parametrize("value", ["-5", "nan", "abc"])
def test_max_snap_must_be_a_distance(capsys, tmp_path, cmd, value):
    """--max-snap nan used to switch the limit off and -5 gave '0 m ... more than -5 m'."""
    gr = tmp_path / "w.gr"
    gr.write_text("p sp 2 1\na 1 2 5\n")
    (tmp_path / "w.co").write_text("p aux sp co 2\nv 1 -73990000 40730000\nv 2 -73980000 40730000\n")
    pts = tmp_path / "p.csv"
    pts.write_text("lon,lat\n-73.99,40.73\n")
    if cmd == "route":
        argv = ["route", gr, "--from", "-73.99,40.73", "--to", "node:2"]
    else:
        argv = ["matrix", gr, "--from", pts, "--to", pts, "--out", tmp_path / "m.csv"]
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in [*argv, f"--max-snap={value}"]])
    assert exc.value.code == 2
    assert "--max-snap" in capsys.readouterr().err


def test_dimacs_with_a_byte_order_mark_and_crlf(capsys, tmp_path):
    """Files saved by Windows editors: a UTF-8 BOM and CRLF line ends (.gr, .co, PACE)."""
    bom = b"\xef\xbb\xbf"
    (tmp_path / "w.gr").write_bytes(bom + b"c w\r\np sp 2 1\r\na 1 2 5\r\n")
    (tmp_path / "w.co").write_bytes(bom + b"p aux sp co 2\r\nv 1 9500000 47100000\r\n"
                                    b"v 2 9510000 47100000\r\n")  # fmt: skip
    (tmp_path / "p.gr").write_bytes(bom + b"p tw 2 1\r\n1 2\r\n")
    rc, out, err = run(capsys, "route", tmp_path / "w.gr", "--from", "9.5,47.1", "--to",
                       "node:2", "--json")  # fmt: skip
    assert rc == 0, err
    assert json.loads(out)["cost"] == 5
    rc, out, err = run(capsys, "info", tmp_path / "p.gr", "--json")
    assert rc == 0, err
    assert json.loads(out)["arcs"] == 2


def test_sigterm_cleans_up_like_ctrl_c(monkeypatch, capsys, tmp_path):
    """SIGTERM (kill PID) is turned into the interrupt path: exit 143, one line, and the
    command's own clean-up runs (matrix removes its temporary output then)."""
    import os
    import signal
    import time

    import app.cli.matrix as matrix

    def killed(args):
        tmp = tmp_path / ".tmp-half.csv"
        tmp.write_text("from,to,cost\n")
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler interrupts this
        finally:
            tmp.unlink()
        return 0

    monkeypatch.setattr(matrix, "run", killed)
    previous = signal.getsignal(signal.SIGTERM)
    from app.cli import main

    rc = main(["matrix", "m.osm", "--from", "a.csv", "--to", "b.csv", "--out", "m.csv"])
    assert signal.getsignal(signal.SIGTERM) is previous  # restored after the command
    err = capsys.readouterr().err
    assert rc == 143 and err.strip() == "signpost matrix: terminated"
    assert not (tmp_path / ".tmp-half.csv").exists()
