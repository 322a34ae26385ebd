"""Progressive sampling (issue 43): the stated guarantee against the exact greedy, fewer
samples than the fixed bound, the same sites from the same seed, cancel keeps the best."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gpu_core.betweenness import group_betweenness, place_billboards
from gpu_core.betweenness.progressive import lower_share, schedule, upper_share
from gpu_core.errors import InvalidArgumentError
from gpu_core.graph import CSRGraph
from tests.core import families as fam

ROOT = Path(__file__).resolve().parents[2]
E1 = 1 - 1 / math.e


def _check(g, k: int, eps: float):
    """Progressive on ``g``: within the stated epsilon of the exact greedy, fewer samples."""
    n = g.num_nodes
    r = place_billboards(g, k, mode="weighted", backend="cpu", method="sampled",
                         epsilon=eps, delta=0.1, seed=5, sampling="progressive")
    assert r.sampling == "progressive" and r.stopped_by == "bound"
    assert r.epsilon_at_stop <= eps
    assert r.samples < r.sample_bound
    own = group_betweenness(g, r.sites, mode="weighted")[0]
    ex = place_billboards(g, k, mode="weighted", backend="cpu", method="exact")
    best = ex.group_betweenness[-1]
    assert own >= E1 * best - eps * n * n  # the guarantee, OPT >= the exact greedy
    assert own >= best - eps * n * n  # and in practice within eps of the exact greedy
    assert abs(r.group_betweenness[-1] - own) <= r.error_bound
    return r


def test_grid_within_epsilon_and_fewer_samples():
    r = _check(fam.road_grid(30, 30, seed=7), 10, 0.05)
    assert r.samples * 4 <= r.sample_bound


def test_sample_map_within_epsilon():
    from maps.load import load_map

    g = CSRGraph.from_any(load_map(str(ROOT / "maps/samples/helsinki.osm.pbf")))
    _check(g, 5, 0.1)


def test_same_seed_same_sites_and_cancel_keeps_best():
    g = fam.road_grid(20, 20, seed=3)
    kw = dict(mode="weighted", backend="cpu", method="sampled", epsilon=0.02, delta=0.1,
              sampling="progressive")
    one = place_billboards(g, 3, seed=9, **kw)
    two = place_billboards(g, 3, seed=9, **kw)
    assert one.sites.tolist() == two.sites.tolist() and one.samples == two.samples
    assert one.epsilon_at_stop == two.epsilon_at_stop
    # cancel after the first round's partial answer: that answer comes back
    from gpu_core.betweenness import billboards

    seen = []
    gen = billboards(g, 3, seed=9, cancel=lambda: bool(seen), **kw)
    result = None
    for ev in gen:
        if getattr(ev, "partial", None) is not None:
            seen.append(ev.partial)
        result = ev
    assert seen and result.stopped_by == "cancelled"
    assert result.sites.tolist() == seen[0].sites.tolist()


def test_bounds_and_schedule():
    assert schedule(512, 3000) == [512, 768, 1152, 1728, 2592, 3000]
    assert schedule(512, 3000, 2.0) == [512, 1024, 2048, 3000]
    lo, hi = lower_share(300, 1000, 5.0), upper_share(300, 1000, 5.0)
    assert 0.24 < lo < 0.3 < hi < 0.36
    assert upper_share(0, 1000, 5.0) > 0 and lower_share(1000, 1000, 5.0) < 1
    with pytest.raises(InvalidArgumentError, match="unknown sampling 'x'"):
        place_billboards(fam.road_grid(5, 5, seed=1), 1, method="sampled", sampling="x")


def test_cli_sampling_keys(tmp_path, capsys):
    """``billboards --sampling``: the issue's JSON keys; progressive by default, fewer
    samples than the fixed bound, fixed draws exactly the bound."""
    import json

    from app.cli import main
    from maps.generate import generate
    from maps.outputs.dimacs import write_dimacs

    path = str(tmp_path / "g.gr")
    write_dimacs(generate("grid", n=400, seed=3), path)
    base = ["billboards", path, "-k", "3", "--json", "--backend", "cpu", "--method",
            "sampled", "--epsilon", "0.05", "--no-cache"]
    outs = {}
    for extra in ([], ["--sampling", "fixed"]):
        assert main(base + extra) == 0
        outs[extra[-1] if extra else "default"] = json.loads(capsys.readouterr().out)
    prog, fixed = outs["default"], outs["fixed"]
    for out in (prog, fixed):
        for key in ("sampling", "sample_bound", "samples", "epsilon_at_stop", "stopped_by",
                    "guarantee"):
            assert key in out
    assert prog["sampling"] == "progressive" and prog["stopped_by"] == "bound"
    assert prog["samples"] < prog["sample_bound"] == fixed["sample_bound"] == fixed["samples"]
    assert prog["epsilon_at_stop"] <= 0.05 and "probability >= 0.9" in prog["guarantee"]
    with pytest.raises(SystemExit) as bad:
        main(base + ["--sampling", "x"])
    assert bad.value.code == 2 and "invalid choice: 'x'" in capsys.readouterr().err


def test_bench_sampling_rows(capsys):
    """``signpost bench billboards --sampling``: a row per method, NetworKit's row says
    "not installed" where it is missing, an unknown method is refused."""
    from app.cli import main

    rc = main(["bench", "billboards", "--sampling", "progressive,fixed,networkit", "--map",
               "gen:grid:400", "--k-max", "2", "--epsilon", "0.2", "--backend", "cpu"])
    out = capsys.readouterr().out
    assert rc == 0, out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert int(rows["progressive"][1].replace(",", "")) <= int(rows["fixed"][1].replace(",", ""))
    assert rows["fixed"][3] == "fixed" and "networkit" in rows
    try:
        import networkit  # noqa: F401
    except ImportError:
        assert "not installed" in out
    assert main(["bench", "billboards", "--sampling", "nope", "--map", "gen:grid:100"]) == 2
