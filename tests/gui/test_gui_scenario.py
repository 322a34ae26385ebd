"""``signpost gui MAP --scenario F --route A B --screenshot out.png`` prints the same JSON
as ``signpost route --json`` with the same edits (the map is edited before it is shown)."""

from __future__ import annotations

import json

import pytest

from app.gui.main_window import sample_map_path
from app.jobs.edits import Edit, write_scenario
from tests.gui.test_cli_gui import A, B, signpost


def test_gui_scenario_route_matches_route_json(tmp_path):
    sample = sample_map_path()
    if sample is None:
        pytest.skip("no sample map bundled")
    plain = signpost("route", sample, "--from", A, "--to", B, "--json", tmp_path=tmp_path)
    assert plain.returncode == 0, plain.stderr
    ids = json.loads(plain.stdout)["node_ids"]
    scen = tmp_path / "s.geojson"
    write_scenario(scen, [Edit("close", nodes=(ids[5], ids[6]))])
    shot = tmp_path / "shot.png"
    gui = signpost("gui", sample, "--scenario", str(scen), "--route", A, B, "--screenshot",
                   str(shot), "--settings", str(tmp_path / "s.ini"), tmp_path=tmp_path)
    assert gui.returncode == 0, gui.stderr
    assert shot.stat().st_size > 10_000
    route = signpost("route", sample, "--from", A, "--to", B, "--json", "--scenario", str(scen),
                     tmp_path=tmp_path)
    assert route.returncode == 0, route.stderr
    g, r = json.loads(gui.stdout.strip().splitlines()[-1]), json.loads(route.stdout)
    assert g["edits"] == r["edits"] == 2
    assert r["cost"] > json.loads(plain.stdout)["cost"]
    for key in ("map", "cost", "unit", "length_m", "nodes", "node_ids", "path", "from", "to"):
        assert g[key] == r[key], key


def test_gui_bad_scenario_exits_2(tmp_path):
    sample = sample_map_path()
    if sample is None:
        pytest.skip("no sample map bundled")
    scen = tmp_path / "s.geojson"
    write_scenario(scen, [Edit("close", way="1")])
    gui = signpost("gui", sample, "--scenario", str(scen), "--route", A, B, "--screenshot",
                   str(tmp_path / "never.png"), "--settings", str(tmp_path / "s.ini"),
                   tmp_path=tmp_path)
    assert gui.returncode == 2
    assert "feature 1 (action close): way 1 is not on this map" in gui.stderr
    assert not (tmp_path / "never.png").exists()
