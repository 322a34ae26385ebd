"""What a new user met in the CLI (issue 14): one billboards default, unreachable routes
that say why (a far snap, a cut-off fragment, swapped LON,LAT), maps without coordinates
that do not claim "length 0.0 km", and PACE weights presented as generated."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import build_parser, main
from tests.conftest import FIXTURES

PACE = str(FIXTURES / "dimacs" / "tiny.gr.xz")
TINY_GR = (FIXTURES / "dimacs" / "tiny.gr").read_text()

# A main road of 5 nodes along lat 60.170 (~55 m apart) and a 2-node fragment ~556 m north.
MAIN = [(1, 24.940, 60.170), (2, 24.941, 60.170), (3, 24.942, 60.170), (4, 24.943, 60.170),
        (5, 24.944, 60.170)]
FRAGMENT = [(6, 24.940, 60.175), (7, 24.941, 60.175)]


@pytest.fixture
def fragmented(tmp_path):
    arcs = [(1, 2), (2, 3), (3, 4), (4, 5), (6, 7)]
    gr = tmp_path / "frag.gr"
    lines = [f"p sp 7 {2 * len(arcs)}"]
    lines += [f"a {u} {v} 10\na {v} {u} 10" for u, v in arcs]
    gr.write_text("\n".join(lines) + "\n")
    co = ["p aux sp co 7"] + [f"v {i} {round(lo * 1e6)} {round(la * 1e6)}"
                              for i, lo, la in MAIN + FRAGMENT]
    (tmp_path / "frag.co").write_text("\n".join(co) + "\n")
    return str(gr)


def _err(argv, capsys) -> str:
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1
    return lines[0]


def test_billboards_default_is_weighted_in_the_cli_and_the_jobs():
    from app.jobs.billboards import DEFAULT_MODE, BillboardsOptions

    assert DEFAULT_MODE == "weighted"
    assert BillboardsOptions(3).mode == DEFAULT_MODE
    args = build_parser().parse_args(["billboards", "m.osm", "-k", "2"])
    assert args.mode == DEFAULT_MODE


def test_unreachable_names_the_fragment_and_its_size(fragmented, capsys):
    err = _err(["route", fragmented, "--from", "24.9405,60.1751", "--to", "24.942,60.1701",
                "--backend", "cpu", "--no-cache"], capsys)
    assert "unreachable" in err and "different components" in err
    assert "the start lies on a fragment of 2 nodes cut off from the main network (5 nodes)" in err
    assert "the end lies" not in err  # the end is on the main network
    assert "snapped" not in err  # both points lie within a few metres of a road


def test_unreachable_names_a_far_snap(fragmented, capsys):
    # ~311 m south of the main road: it snaps (limit 1000 m), then finds no route to the fragment
    err = _err(["route", fragmented, "--from", "24.942,60.1672", "--to", "node:7",
                "--backend", "cpu", "--no-cache"], capsys)
    assert "the start 24.942,60.1672 was snapped 31" in err and " m to the nearest road" in err
    assert "the end lies on a fragment of 2 nodes" in err


def test_far_snap_distance_matches_the_snap(fragmented, capsys):
    assert main(["route", fragmented, "--from", "24.942,60.1672", "--to", "node:5", "--json",
                 "--backend", "cpu", "--no-cache"]) == 0
    out = json.loads(capsys.readouterr().out)
    d = out["from"]["snap"]["distance_m"]
    assert 300 < d < 320  # 0.0028 degrees of latitude


def test_swapped_lat_lon_gets_a_hint(fragmented, capsys):
    err = _err(["route", fragmented, "--from", "60.1701,24.942", "--to", "24.942,60.1701",
                "--backend", "cpu", "--no-cache"], capsys)
    assert "from the nearest road" in err
    assert "did you swap latitude and longitude? Points are LON,LAT; 24.942,60.1701 lies inside" in err


def test_no_swap_hint_for_a_point_that_is_simply_elsewhere(fragmented, capsys):
    err = _err(["route", fragmented, "--from", "2.35,48.85", "--to", "24.942,60.1701",
                "--backend", "cpu", "--no-cache"], capsys)
    assert "from the nearest road" in err and "did you swap" not in err


def test_swapped_point_with_latitude_out_of_range_gets_the_hint(capsys):
    # Tokyo typed LAT,LON: "latitude 139.701 is outside -90..90", and the hint
    err = _err(["route", str(FIXTURES / "dimacs" / "tiny.gr"), "--from", "35.681,139.701",
                "--to", "node:1", "--backend", "cpu", "--no-cache"], capsys)
    assert "outside -90..90" in err and "did you swap" in err and "139.701,35.681" in err


def test_swapped_hint_helper():
    from maps.load import load_map
    from maps.points.resolve import swapped_hint

    net = load_map(str(FIXTURES / "dimacs" / "tiny.gr"), use_cache=False)  # lon 139.7, lat 35.68
    assert "139.701,35.681 lies inside" in swapped_hint(net, "35.681,139.701")
    assert swapped_hint(net, "139.701,35.681") == ""  # already inside
    assert swapped_hint(net, "node:3") == "" and swapped_hint(net, "garbage") == ""


@pytest.fixture
def no_coordinates(tmp_path):
    gr = tmp_path / "plain.gr"
    gr.write_text(TINY_GR)  # no .co beside it
    return str(gr)


def test_info_without_coordinates_says_no_geometry(no_coordinates, capsys):
    assert main(["info", no_coordinates, "--json", "--no-cache"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["has_coordinates"] is False and info["length_km"] is None
    assert main(["info", no_coordinates, "--no-cache"]) == 0
    text = capsys.readouterr().out
    assert "no geometry" in text and "0.0 km" not in text


def test_route_without_coordinates_says_no_geometry(no_coordinates, capsys):
    argv = ["route", no_coordinates, "--from", "node:1", "--to", "node:3", "--backend", "cpu",
            "--no-cache"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "length    no geometry (the map has no coordinates)" in text and " km" not in text
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["length_m"] is None and out["path"] == [] and out["cost"] == 7


def test_pace_weights_are_presented_as_generated(capsys):
    from maps.formats.dimacs import pace_weights

    assert main(["info", PACE, "--json", "--no-cache"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert "generated" in info["unit_name"] and "file's own" not in info["unit_name"]
    assert "seed 1" in info["weights_generated"] and "no weights" in info["weights_generated"]
    w = pace_weights(4, 1)  # the fixture's 4 roads, both arcs of each
    assert (info["weights"]["min"], info["weights"]["max"]) == (int(w.min()), int(w.max()))
    assert main(["info", PACE, "--no-cache"]) == 0
    text = capsys.readouterr().out
    assert "generated: uniform random 1..1000 from seed 1" in text
    assert main(["route", PACE, "--from", "node:1", "--to", "node:3", "--backend", "cpu",
                 "--no-cache"]) == 0
    text = capsys.readouterr().out
    assert "unit generated integer weight" in text and "no geometry" in text
    assert main(["route", PACE, "--from", "node:1", "--to", "node:3", "--backend", "cpu",
                 "--no-cache", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["weights_generated"] == info["weights_generated"]


def test_file_weights_are_not_called_generated(capsys):
    assert main(["info", str(FIXTURES / "dimacs" / "tiny.gr"), "--json", "--no-cache"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert "weights_generated" not in info and info["unit_name"].endswith("own integer weight")
    assert np.isclose(info["length_km"], 0.87)


def test_route_warns_about_a_start_outside_the_map(fragmented, capsys):
    """Issue 27: a point snapped far from where it was given is warned about on stderr
    (one line per point, naming the distance the snap measured), the route still printed;
    a point on the map gives no warning."""
    from maps.geo.projection import to_xy
    from maps.load import load_map
    from maps.points.snap import Snapper

    # 24.942,60.1735: ~390 m north of the main road, ~170 m south of the fragment
    src, dst = "24.9420,60.1720", "24.944,60.1701"
    assert main(["route", fragmented, "--from", src, "--to", dst, "--backend", "cpu",
                 "--no-cache", "--json"]) == 0
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    warn = [ln for ln in cap.err.splitlines() if "warning" in ln]
    net = load_map(fragmented)
    x, y = to_xy(np.array([24.942]), np.array([60.172]), net.origin)
    d = Snapper(net).snap(float(x[0]), float(y[0]), max_distance_m=10_000).distance_m
    assert d > 150 and out["from"]["snap"]["distance_m"] == pytest.approx(d, abs=0.01)
    assert len(warn) == 1 and "the start point 24.9420,60.1720" in warn[0]
    assert f"{d:,.0f} m from the nearest road" in warn[0]
    assert main(["route", fragmented, "--from", "24.941,60.1701", "--to", dst, "--backend", "cpu",
                 "--no-cache"]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("cores,preset,want", [(2, None, "passive"), (4, None, "passive"),
                                               (16, None, None), (2, "active", "active")])
def test_idle_openmp_threads_sleep_on_few_cores(monkeypatch, cores, preset, want):
    import os

    import app.cli as cli

    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    monkeypatch.setenv("OMP_WAIT_POLICY", "recorded")  # so that the test's value is undone
    if preset is None:
        monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    else:
        monkeypatch.setenv("OMP_WAIT_POLICY", preset)
    cli.quiet_omp_waits()
    assert os.environ.get("OMP_WAIT_POLICY") == want
