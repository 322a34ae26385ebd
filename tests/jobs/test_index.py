"""The route index: built once per graph, cached beside the load cache, used by matrices."""

from __future__ import annotations

import numpy as np
import pytest

from app.jobs import index, matrix
from maps.generate import generate


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_matrix_with_index_equals_without(cache):
    net = generate("grid", 3000, seed=2)
    r = np.random.default_rng(1)
    src = tuple(int(x) for x in r.integers(0, net.num_nodes, 80))
    tgt = tuple(int(x) for x in r.integers(0, net.num_nodes, 50))
    off = matrix.run(net, matrix.MatrixOptions(src, tgt, backend="cpu", index="off"))
    assert off.stats["index"] == "none"
    on = matrix.run(net, matrix.MatrixOptions(src, tgt, backend="cpu", index="on"))
    assert on.stats["index"] == "built"
    np.testing.assert_array_equal(on.matrix, off.matrix)
    assert list(cache.glob("ch-*.npz"))
    again = matrix.run(net, matrix.MatrixOptions(src, tgt, backend="cpu"))  # auto: cached
    assert again.stats["index"] == "cache"
    np.testing.assert_array_equal(again.matrix, off.matrix)


def test_auto_policy_skips_small_jobs_and_random_graphs(cache):
    grid = generate("grid", 3000, seed=2)
    h, info = index.hierarchy_for(grid, policy="auto", sources=3)
    assert h is None and info.source == "none"
    rnd = generate("random", 3000, seed=2)
    h, info = index.hierarchy_for(rnd, policy="auto", sources=500)
    assert h is None and info.source == "none"
    h, info = index.hierarchy_for(grid, policy="auto", sources=500)
    assert h is not None and info.source == "built" and info.summary["nodes"] == grid.num_nodes


def test_corrupt_index_is_rebuilt(cache):
    net = generate("grid", 2000, seed=4)
    h, info = index.hierarchy_for(net, policy="on")
    with open(info.path, "wb") as fh:
        fh.write(b"not an index")
    h2, info2 = index.hierarchy_for(net, policy="on")
    assert info2.source == "built" and h2.summary()["nodes"] == net.num_nodes


def test_cli_matrix_index_on_equals_off(cache, tmp_path, capsys):
    from app.cli import main
    from maps.outputs.dimacs import write_dimacs

    net = generate("grid", 2000, seed=5)
    gr = tmp_path / "g.gr"
    write_dimacs(net, str(gr))
    pts = tmp_path / "p.csv"
    ids = np.random.default_rng(3).integers(1, net.num_nodes + 1, 70)
    pts.write_text("node\n" + "\n".join(map(str, ids)) + "\n")
    outs = {}
    for ix in ("off", "on"):
        out = tmp_path / f"m_{ix}.npy"
        assert main(["matrix", str(gr), "--from", str(pts), "--to", str(pts), "--out", str(out),
                     "--backend", "cpu", "--index", ix]) == 0
        outs[ix] = np.load(out)
    text = capsys.readouterr().out
    assert "(phast)" in text and "route index built" in text
    np.testing.assert_array_equal(outs["on"], outs["off"])
