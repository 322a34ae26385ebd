"""Issue 24 item 1: a weight column is exact integer costs or refused, never rounded.

The issue's map: A-B-C-D by three 0.4 s arcs, a 1.0 s direct link A-D and one 3e8 s arc
D-E. 0.4 needs a tenth of a second, and 3e8 tenths overflow int32: the CLI refuses it in
one line naming the column and its range (it used to route A->D through the three arcs
at "cost 0 s"). Without the 3e8 arc the same map routes exactly (networkx oracle)."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

from app.cli import main
from maps.errors import MapFormatError
from maps.model.weights import FLOAT_REL_TOL, MAX_DIGITS, exact_scale, scale_values, unit_scale

A, B, C, D, E = (24.940, 60.17), (24.941, 60.17), (24.942, 60.17), (24.943, 60.17), (24.944, 60.17)


def _issue_map(path, big: float | None = 3e8) -> str:
    arcs = [(A, B, 0.4), (B, C, 0.4), (C, D, 0.4), (A, D, 1.0)]
    if big is not None:
        arcs.append((D, E, big))
    feats = [{"type": "Feature", "properties": {"travel_time": t},
              "geometry": {"type": "LineString", "coordinates": [list(u), list(v)]}}
             for u, v, t in arcs]
    path.write_text(json.dumps({"type": "FeatureCollection", "features": feats}))
    return str(path)


def _one_line_error(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


@pytest.mark.parametrize("cmd", [["info"], ["route", "--from", "24.940,60.17",
                                            "--to", "24.943,60.17", "--backend", "cpu"]])
def test_issue_example_is_refused_naming_the_column_and_range(tmp_path, capsys, cmd) -> None:
    m = _issue_map(tmp_path / "m.geojson")
    err = _one_line_error([cmd[0], m, "--weight", "travel_time", "--no-cache", *cmd[1:]], capsys)
    assert "'travel_time'" in err and "0.4 to 3e+08" in err and "m.geojson" in err, err


def test_issue_map_without_the_huge_arc_routes_exactly(tmp_path, capsys) -> None:
    m = _issue_map(tmp_path / "m.geojson", big=None)
    assert main(["route", m, "--weight", "travel_time", "--no-cache", "--backend", "cpu",
                 "--from", "24.940,60.17", "--to", "24.943,60.17", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    g = nx.Graph()
    g.add_weighted_edges_from([("A", "B", 0.4), ("B", "C", 0.4), ("C", "D", 0.4), ("A", "D", 1.0)])
    want = nx.shortest_path_length(g, "A", "D", weight="weight")
    assert out["unit"] == "ds" and out["cost"] == round(want * 10) and out["arcs"] == 1


def test_pgrouting_float_costs_are_exact_or_refused() -> None:
    """The pgRouting conversion (``maps.postgis.edges``) directly: no PostgreSQL server here."""
    from types import SimpleNamespace

    from maps.postgis.edges import edges_to_network

    def edges(costs):
        n = len(costs)
        return {"id": np.arange(1, n + 1), "source": np.arange(1, n + 1),
                "target": np.arange(2, n + 2), "dir_f": np.asarray(costs, float),
                "dir_b": np.full(n, -1.0), "cost": np.asarray(costs, float),
                "rev": np.full(n, -1.0)}

    plan = SimpleNamespace(cost="cost", geom=None, xy=False)
    kw = {"shown": "postgresql://h/db?table=ways", "where": "ways", "plan": plan,
          "contract": False, "crs": None, "weight": None}
    net = edges_to_network(edges([0.4, 0.4]), **kw)
    assert net.unit == "1e-1 unit"
    assert net.weights.tolist() == [4, 4]  # pgr_dijkstra's 0.8 is 8 tenths, not 0
    with pytest.raises(MapFormatError, match=r"'cost' \(values 0\.4 to 3e\+08\)"):
        edges_to_network(edges([0.4, 0.4, 3e8]), **kw)


@pytest.mark.parametrize(("values", "needle"), [
    ([0.4, 1.0, 3e8], r"need x 10\*\*1,"), ([3e9, 1.0], "exceeds the largest cost"),
    ([1e-14, 1.0], "more than 12 decimals")])
def test_exact_scale_refusals_say_why(values, needle) -> None:
    with pytest.raises(MapFormatError, match=needle) as exc:
        exact_scale(np.array(values), "w", "f.geojson")
    assert str(exc.value).startswith("f.geojson: weight column 'w'")


def test_scale_values_keeps_every_value_or_refuses() -> None:
    """Decimals of up to 6 significant digits come back exactly; any column either comes
    back within 1e-6 of each value (float32 precision: 0.4 stored as a float32 is still
    4 tenths), or at the finest scale that fits within FLOAT_REL_TOL of each value (a
    full-precision float column), no value > 0 becoming 0, or is refused."""
    rng = np.random.default_rng(24)
    for _ in range(300):
        k = int(rng.integers(0, 7))
        ints = rng.integers(0, 10**6, size=5)
        got, unit = scale_values(ints / 10**k, "time", column="w")
        dim, k_got = unit_scale(unit)
        assert dim == "time" and k_got <= k
        assert np.array_equal(got * 10 ** (k - k_got), ints)
        vals = rng.choice([0.0, 1.0], 6) * 10 ** rng.uniform(-8, 9, 6)
        try:
            got, unit = scale_values(vals, "time", column="w")
        except MapFormatError as exc:
            assert "weight column 'w'" in str(exc)
            continue
        k = unit_scale(unit)[1]
        err = np.abs(got / 10**k - vals)
        assert np.array_equal(got > 0, vals > 0)
        if not np.all(err <= 1e-6 * vals):
            assert np.all(err <= FLOAT_REL_TOL * vals)
            assert k == MAX_DIGITS or vals.max() * 10 ** (k + 1) > 2**31 - 1
