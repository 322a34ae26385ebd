"""Benchmark-map generators and ``signpost generate``."""

from __future__ import annotations

import numpy as np
import pytest

from app.cli import main
from maps.errors import MapError
from maps.formats.dimacs import load_dimacs
from maps.generate import (
    KANTO_ARCS,
    KANTO_DEFAULT_NODES,
    KANTO_NODES,
    generate,
    kanto_weights,
)
from maps.load import load_map
from maps.model.network import KIND_RAIL


def symmetric(net) -> bool:
    a = net.to_scipy()
    return abs(a - a.T).max() == 0


def test_kanto_small_shape() -> None:
    net = generate("kanto", n=40_000, seed=3)
    net.validate()
    assert net.num_nodes == 40_000
    # Seed 001's mean out-degree 4,584,822 / 1,427,876 = 3.21.
    assert abs(net.num_arcs / net.num_nodes - KANTO_ARCS / KANTO_NODES) < 0.01
    assert net.components()[0] == 1  # the spanning tree keeps it connected
    assert symmetric(net)  # every link both ways with one weight
    assert net.weights.min() >= 10 and net.weights.max() <= 1_000_000
    assert net.has_coordinates
    assert 138.9 < net.lon.min() and net.lon.max() < 141.5
    assert 34.9 < net.lat.min() and net.lat.max() < 37.0
    # Road-like: arcs are short (a few grid steps at most, rails up to 24 steps).
    road = net.edge_kind != KIND_RAIL
    assert np.median(net.edge_length[road]) < 250
    assert net.edge_length[road].max() < 400


def test_kanto_with_rails_and_odd_size() -> None:
    net = generate("kanto", n=90_001, seed=1, rail_lines=3)
    assert net.num_nodes == 90_001
    assert net.components()[0] == 1
    assert (net.edge_kind == KIND_RAIL).sum() > 0
    assert net.class_names == ["road", "rail"]


def test_kanto_deterministic() -> None:
    a = generate("kanto", n=5_000, seed=7)
    b = generate("kanto", n=5_000, seed=7)
    c = generate("kanto", n=5_000, seed=8)
    for f in ("indptr", "indices", "weights", "lon", "lat"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert not np.array_equal(a.weights, c.weights)


def test_kanto_weight_distribution() -> None:
    w = kanto_weights(np.random.default_rng(0), 2_000_000)
    assert w.min() == 10 and w.max() == 1_000_000
    # Seed 001 Table 1: mean 83,666, standard deviation 184,384.
    assert abs(w.mean() / 83_666 - 1) < 0.02
    assert abs(w.std() / 184_384 - 1) < 0.03


@pytest.mark.slow
def test_kanto_default_size() -> None:
    net = generate("kanto")
    assert net.num_nodes == KANTO_DEFAULT_NODES == 1_428_025
    want = KANTO_ARCS / KANTO_NODES * KANTO_DEFAULT_NODES
    assert abs(net.num_arcs / want - 1) < 0.002
    assert abs(net.weights.mean() / 83_666 - 1) < 0.02


def test_random_graph() -> None:
    net = generate("random", n=1000, seed=2)
    assert net.num_nodes == 1000 and net.num_arcs == 4000
    assert net.weights.min() >= 1 and net.weights.max() <= 1000
    assert (net.arc_sources() != net.indices).all()  # no self-loops
    np.testing.assert_array_equal(net.indices, generate("random", n=1000, seed=2).indices)


def test_rmat_is_skewed() -> None:
    net = generate("rmat", n=4096, seed=1)
    assert net.num_nodes == 4096 and net.num_arcs == 4 * 4096
    assert (net.arc_sources() != net.indices).all()
    assert net.weights.min() >= 1 and net.weights.max() <= 4096
    deg = np.diff(net.indptr)
    rnd = np.diff(generate("random", n=4096, seed=1).indptr)
    # Skewed, unlike the random graph of the same size: a few heavy nodes, many empty ones
    # (with a+b = 0.6 per bit, node 0 expects 0.6^12 of the arcs: ~36).
    assert deg.max() > 2 * rnd.max()
    assert (deg == 0).mean() > 3 * (rnd == 0).mean()
    heavy = generate("rmat", n=4096, seed=1, abcd=(0.57, 0.19, 0.19, 0.05))
    assert np.diff(heavy.indptr).max() > 4 * deg.max()


def test_rmat_non_power_of_two() -> None:
    net = generate("rmat", n=4600, seed=1)
    assert net.num_nodes == 4600 and net.indices.max() < 4600


def test_ring_complete_grid() -> None:
    r = generate("ring", n=10)
    assert r.num_arcs == 20 and (r.weights == 1).all() and (np.diff(r.indptr) == 2).all()
    assert symmetric(r)
    c = generate("complete", n=20)
    assert c.num_arcs == 20 * 19 and (c.weights == 1).all()
    pairs = set(zip(c.arc_sources().tolist(), c.indices.tolist(), strict=True))
    assert len(pairs) == 380 and all(u != v for u, v in pairs)
    g = generate("grid", n=100, seed=4)
    assert g.num_nodes == 100 and g.num_arcs == 2 * 2 * 10 * 9
    assert symmetric(g) and g.has_coordinates
    assert g.weights.min() >= 1 and g.weights.max() <= 1000


@pytest.mark.parametrize(
    ("kind", "n"), [("nope", 10), ("ring", 2), ("complete", 100_000), ("kanto", 1)]
)
def test_bad_parameters(kind, n) -> None:
    with pytest.raises(MapError):
        generate(kind, n=n)


def test_cli_generate_gr_and_spn(tmp_path, capsys) -> None:
    out = tmp_path / "k.gr"
    assert main(["generate", "kanto", "--nodes", "2500", "--seed", "5", "--out", str(out)]) == 0
    assert (tmp_path / "k.co").exists()
    assert "2,500 nodes" in capsys.readouterr().out
    back = load_dimacs(out)
    ref = generate("kanto", n=2500, seed=5)
    np.testing.assert_array_equal(back.indptr, ref.indptr)
    np.testing.assert_array_equal(back.weights, ref.weights)
    np.testing.assert_allclose(back.lon, ref.lon, atol=1e-6)

    spn = tmp_path / "r.spn"
    assert main(["generate", "rmat", "-n", "512", "--out", str(spn), "--json"]) == 0
    net = load_map(spn)
    ref = generate("rmat", n=512)
    np.testing.assert_array_equal(net.indices, ref.indices)
    np.testing.assert_array_equal(net.weights, ref.weights)


def test_cli_generate_errors(tmp_path, capsys) -> None:
    assert main(["generate", "ring", "--out", str(tmp_path / "x.txt")]) == 2
    assert "x.txt" in capsys.readouterr().err
    assert main(["generate", "ring", "-n", "1", "--out", str(tmp_path / "x.gr")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("signpost generate: error:") and err.count("\n") == 1


def test_bench_load_smoke(tmp_path, capsys, monkeypatch) -> None:
    """`signpost bench load` on a tiny map: runs, prints the table, writes the Markdown."""
    from pathlib import Path

    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    tiny = Path(__file__).resolve().parents[1] / "fixtures" / "dimacs" / "tiny.gr"
    doc = tmp_path / "load.md"
    args = ["bench", "load", "--map", str(tiny), "--repeat", "1", "--sources", "2", "--doc",
            str(doc), "--kanto", "--kanto-nodes", "400"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "tiny.gr" in out and "kanto (generated)" in out
    text = doc.read_text()
    assert "| tiny.gr | 5 | 8 |" in text and "| kanto (generated) | 400 |" in text
