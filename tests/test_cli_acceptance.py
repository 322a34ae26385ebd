"""Regressions found by running the CLI as an acceptance tester would."""

from __future__ import annotations

import json

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
    """node:ID of an OSM node inside a way (the common case) routes from the arc it lies
    on, like a LON,LAT point on it, instead of failing with 'not in the map'."""
    osm = tmp_path / "inner.osm"
    osm.write_text(INNER_OSM)
    rc, out, err = run(capsys, "route", osm, "--from", "node:3", "--to", "node:5", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["from"]["node_id"] == 4  # node 3 is nearer to junction 4 than to end 1
    assert d["from"]["snap"]["distance_m"] < 0.01
    assert d["node_ids"] == [4, 5]
    rc, out, err = run(capsys, "route", osm, "--from", "node:2", "--to", "node:5", "--json")
    assert rc == 0, err
    assert json.loads(out)["node_ids"] == [1, 4, 5]
    rc, _, err = run(capsys, "sssp", osm, "--source", "node:2", "--out", tmp_path / "s.csv")
    assert rc == 0, err


@pytest.mark.parametrize(
    "node, match",
    [("7", "node id 7 is in the file but on no way the 'length' profile uses"),
     ("8", "node id 8 is in the file but on no way"),
     ("99", "node id 99 is not in the map")],
)  # fmt: skip
def test_osm_node_not_on_a_usable_way(capsys, tmp_path, node, match):
    osm = tmp_path / "inner.osm"
    osm.write_text(INNER_OSM)
    rc, _, err = run(capsys, "route", osm, "--from", f"node:{node}", "--to", "node:5")
    assert rc == 2 and match in err and str(osm) in err
    assert "Traceback" not in err and err.count("\n") == 1
