"""`signpost gui` from the command line: --route prints `signpost route --json`'s object,
--screenshot writes the window and exits; `import app.cli` stays free of Qt."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from app.gui.main_window import sample_map_path

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
A, B = "24.9350,60.1680", "24.9500,60.1720"


def signpost(*args, tmp_path, timeout=120):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SIGNPOST_NO_DIALOGS="1")
    cmd = [sys.executable, "-c",
           "import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))", *args]
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)


def test_import_cli_does_not_import_qt():
    code = ("import sys, app, app.cli; app.cli.build_parser(); "
            "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=120)


def test_gui_route_screenshot_matches_route_json(tmp_path):
    sample = sample_map_path()
    if sample is None:
        pytest.skip("no sample map bundled")
    shot = tmp_path / "shot.png"
    gui = signpost("gui", sample, "--route", A, B, "--screenshot", str(shot),
                   "--settings", str(tmp_path / "s.ini"), "--strategy", "selection", tmp_path=tmp_path)
    assert gui.returncode == 0, gui.stderr
    assert shot.stat().st_size > 10_000
    route = signpost("route", sample, "--from", A, "--to", B, "--json", tmp_path=tmp_path)
    assert route.returncode == 0, route.stderr
    g, r = json.loads(gui.stdout.strip().splitlines()[-1]), json.loads(route.stdout)
    for key in ("map", "cost", "unit", "length_m", "nodes", "node_ids", "path", "from", "to"):
        assert g[key] == r[key], key
    assert g["strategy"] == "selection"


def test_gui_point_off_the_network_exits_2(tmp_path):
    sample = sample_map_path()
    if sample is None:
        pytest.skip("no sample map bundled")
    shot = tmp_path / "never.png"
    gui = signpost("gui", sample, "--route", A, "25.5,60.5", "--screenshot", str(shot),
                   "--settings", str(tmp_path / "s.ini"), tmp_path=tmp_path)
    assert gui.returncode == 2
    assert "from the nearest road" in gui.stderr
    assert not shot.exists()


def test_screenshot_run_leaves_the_user_settings_alone(tmp_path, monkeypatch):
    sample = sample_map_path()
    if sample is None:
        pytest.skip("no sample map bundled")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("SIGNPOST_SETTINGS", raising=False)
    shot = tmp_path / "map.png"
    gui = signpost("gui", sample, "--screenshot", str(shot), "--size", "800x600", tmp_path=tmp_path)
    assert gui.returncode == 0, gui.stderr
    assert shot.stat().st_size > 10_000
    written = [p for p in (home / ".config").rglob("*") if p.is_file()]
    assert written == [], written  # no settings (nor recent files) of the user's were touched
    # (the map cache under ~/.cache may be written: that is a cache, not a setting)


def test_gui_scenario_route_matches_route_json(tmp_path):
    """`gui --scenario F --route A B` prints what `route --scenario F --json` prints (the
    edits opened as the Edit tool's, the route on the edited map); an edit that does not
    fit the map exits 2 naming it."""
    sample = sample_map_path()
    if sample is None:
        pytest.skip("no sample map bundled")
    scen = os.path.join(REPO, "docs", "screenshots", "whatif-helsinki.geojson")
    a, b = "24.925,60.163", "24.955,60.175"
    shot = tmp_path / "shot.png"
    common = ("--profile", "walk", "--scenario", scen)
    gui = signpost("gui", sample, *common, "--route", a, b, "--screenshot", str(shot),
                   "--settings", str(tmp_path / "s.ini"), tmp_path=tmp_path)
    assert gui.returncode == 0, gui.stderr
    assert shot.stat().st_size > 10_000
    route = signpost("route", sample, *common, "--from", a, "--to", b, "--json", tmp_path=tmp_path)
    assert route.returncode == 0, route.stderr
    g, r = json.loads(gui.stdout.strip().splitlines()[-1]), json.loads(route.stdout)
    for key in ("edits", "cost", "unit", "length_m", "nodes", "node_ids", "path", "from", "to"):
        assert g[key] == r[key], key
    plain = signpost("route", sample, "--profile", "walk", "--from", a, "--to", b, "--json",
                     tmp_path=tmp_path)
    assert json.loads(plain.stdout)["cost"] < g["cost"]  # the closures made it longer
    bad = tmp_path / "bad.geojson"
    bad.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": None, "properties": {"action": "close", "nodes": [1, 2]}}]}))
    gui = signpost("gui", sample, "--scenario", str(bad), "--route", a, b, "--screenshot",
                   str(tmp_path / "never.png"), "--settings", str(tmp_path / "s.ini"), tmp_path=tmp_path)
    assert gui.returncode == 2 and "node 1" in gui.stderr, gui.stderr
