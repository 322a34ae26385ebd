"""Issue 24 items 5 and 6, through the real CLI: ``isochrones --minutes`` on maps weighted
in any time unit, and OSMnx GraphML projected with ``ox.project_graph`` (graph ``crs`` a
UTM CRS, node x/y and edge geometry in metres), written by networkx here."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest
import shapely
from pyproj import Transformer

from app.cli import main

UTM_PROJ = "+proj=utm +zone=35 +ellps=WGS84 +datum=WGS84 +units=m +no_defs +type=crs"
SQUARE = {1: (24.94, 60.17), 2: (24.95, 60.17), 3: (24.95, 60.175), 4: (24.94, 60.175)}


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def projected_graphml(path, crs: str) -> tuple[nx.MultiDiGraph, dict]:
    """A square of streets as OSMnx 1.x saves it after ``project_graph``: graph ``crs``,
    node x/y in metres (lon/lat kept as OSMnx keeps them), each edge's WKT ``geometry``
    bent 30 m east of its middle, in metres, with ``length``/``oneway``/``osmid``/
    ``highway``; returns the graph and each edge's bend point in lon/lat."""
    fwd = Transformer.from_crs("EPSG:4326", "EPSG:32635", always_xy=True)
    back = Transformer.from_crs("EPSG:32635", "EPSG:4326", always_xy=True)
    g = nx.MultiDiGraph(crs=crs)
    xy = {n: fwd.transform(lo, la) for n, (lo, la) in SQUARE.items()}
    for n, (lo, la) in SQUARE.items():
        g.add_node(n, x=xy[n][0], y=xy[n][1], lon=lo, lat=la, street_count=2)
    bends = {}
    for i, (a, b) in enumerate([(1, 2), (2, 3), (3, 4), (4, 1)]):
        (x0, y0), (x1, y1) = xy[a], xy[b]
        mx, my = (x0 + x1) / 2 + 30, (y0 + y1) / 2
        length = float(np.hypot(mx - x0, my - y0) + np.hypot(x1 - mx, y1 - my))
        bends[a, b] = bends[b, a] = back.transform(mx, my)
        for u, v, pts in ((a, b, [(x0, y0), (mx, my), (x1, y1)]),
                          (b, a, [(x1, y1), (mx, my), (x0, y0)])):
            wkt = "LINESTRING (" + ", ".join(f"{x!r} {y!r}" for x, y in pts) + ")"
            g.add_edge(u, v, osmid=100 + i, oneway=False, reversed=u != a,
                       length=round(length, 3), highway="residential", geometry=wkt)
    nx.write_graphml(g, path)
    return g, bends


@pytest.mark.parametrize("crs", [UTM_PROJ, "EPSG:32635", "epsg:32635"])
def test_projected_osmnx_graphml_routes_like_networkx(tmp_path, capsys, crs):
    path = tmp_path / "projected.graphml"
    g, bends = projected_graphml(path, crs)
    assert main(["info", str(path), "--json", "--no-cache"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["crs"] == "EPSG:32635" and info["nodes"] == 4 and info["arcs"] == 8
    lon, lat = zip(*SQUARE.values(), strict=True)
    assert info["bbox"] == pytest.approx([min(lon), min(lat), max(lon), max(lat)], abs=1e-7)
    for a, b in ((1, 3), (2, 4), (1, 2)):
        assert main(["route", str(path), "--from", f"node:{a}", "--to", f"node:{b}",
                     "--json", "--backend", "cpu", "--no-cache"]) == 0
        got = json.loads(capsys.readouterr().out)
        dm = nx.DiGraph()  # the oracle: lengths in whole decimetres, as the map keeps them
        for u, v, d in g.edges(data=True):
            dm.add_edge(u, v, w=round(d["length"] * 10))
        assert got["cost"] == nx.shortest_path_length(dm, a, b, weight="w")
        # the drawn path passes the bends, transformed from metres to lon/lat
        path_pts = np.array(got["path"])
        ids = got["node_ids"]
        for u, v in zip(ids, ids[1:], strict=False):
            d = np.abs(path_pts - np.array(bends[u, v])).max(axis=1).min()
            assert d < 1e-6


def test_projected_graphml_geometry_outside_its_crs_is_one_line(tmp_path, capsys):
    path = tmp_path / "bad.graphml"
    g, _ = projected_graphml(path, UTM_PROJ)
    u, v, k = next(iter(g.edges(keys=True)))
    g.edges[u, v, k]["geometry"] = "LINESTRING (1e30 0, 2 2)"
    nx.write_graphml(g, path)
    assert main(["info", str(path), "--no-cache"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.graphml" in err[0] and "1e+30" in err[0]


# ---- item 5: --minutes in any time unit ------------------------------------------------------
def chain_graphml(path, times: list[float]) -> None:
    """Five nodes 1 km apart along 60°N, ``travel_time`` (OSMnx's column) per edge."""
    g = nx.MultiDiGraph()
    for i in range(5):
        g.add_node(i + 1, x=24.9 + i * 0.018, y=60.0)
    for i, t in enumerate(times):
        for u, v in ((i + 1, i + 2), (i + 2, i + 1)):
            g.add_edge(u, v, osmid=10 + i, length=1000.0, travel_time=t, oneway=False,
                       highway="residential")
    nx.write_graphml(g, path)


@pytest.mark.parametrize(("unit", "seconds", "times", "minutes"), [
    (None, 1, [60, 120, 30, 90], 3),  # travel_time: whole seconds, OSMnx's own unit
    ("s", 1, [60, 120, 30, 90], 3.5),
    ("s", 1, [60.5, 119.5, 30, 90], 3),  # half seconds: a map in ds
    ("s", 1, [60.25, 119.75, 30, 90], 3),  # quarter seconds: cs
    ("min", 60, [1, 2, 1, 3], 3),
    ("min", 60, [1, 2, 1, 3], 4),
    ("h", 3600, [1, 2, 1, 3], 180),
    ("h", 3600, [0.5, 0.25, 1, 3], 45),
])
def test_isochrones_minutes_in_any_time_unit(tmp_path, capsys, unit, seconds, times,
                                             minutes):
    path = tmp_path / "chain.graphml"
    chain_graphml(path, times)
    out = tmp_path / "iso.geojson"
    opt = ["--weight", "travel_time"] + (["--weight-unit", unit] if unit else [])
    assert main(["isochrones", str(path), *opt, "--from", "node:1", "--minutes",
                 str(minutes), "--backend", "cpu", "--no-cache", "--json", "--out",
                 str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    (row,) = summary["isochrones"]
    from maps.model.weights import unit_scale

    dim, k = unit_scale(row["unit"])
    assert dim == "time" and row["minutes"] == minutes
    assert row["cost"] == minutes * 60 * 10**k  # the cutoff in the map's own unit, exact
    # the oracle: networkx's times from node 1, in seconds
    g = nx.Graph()
    for i, t in enumerate(times):
        g.add_edge(i + 1, i + 2, s=t * seconds)
    reach = nx.single_source_dijkstra_path_length(g, 1, weight="s")
    poly = shapely.geometry.shape(json.loads(out.read_text())["features"][0]["geometry"])
    for n in range(1, 6):
        inside = poly.contains(shapely.Point(24.9 + (n - 1) * 0.018, 60.0))
        assert inside == (reach[n] <= minutes * 60 + 1e-9), n


def test_minutes_on_a_map_in_metres_still_one_line(tmp_path, capsys):
    path = tmp_path / "chain.graphml"
    chain_graphml(path, [60, 60, 60, 60])
    assert main(["isochrones", str(path), "--weight", "length", "--from", "node:1",
                 "--minutes", "3", "--no-cache", "--out", str(tmp_path / "x.geojson")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "minutes need a time profile" in err[0] and "'m'" in err[0]


def test_minutes_to_cost_is_exact_for_every_time_unit():
    from app.jobs.isochrones import minutes_to_cost

    assert minutes_to_cost("ds", 5) == 3000 and minutes_to_cost("s", 0.1) == 6
    assert minutes_to_cost("cs", 1.5) == 9000 and minutes_to_cost("1e-4 s", 1) == 600000
    assert minutes_to_cost("min", 7) == 7 and minutes_to_cost("h", 150) == 2
    assert minutes_to_cost("h", 59.9) == 0  # 0 h is the largest cost within 59.9 minutes
    with pytest.raises(ValueError, match="'dm'"):
        minutes_to_cost("dm", 1)
