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
    assert "query" not in off.stats
    assert on.stats["query"] == "rphast"  # the selection rule: 50 targets <= n / 20
    np.testing.assert_array_equal(on.matrix, off.matrix)
    many = tuple(int(x) for x in r.integers(0, net.num_nodes, net.num_nodes // 20 + 1))
    m_on = matrix.run(net, matrix.MatrixOptions(src[:5], many, backend="cpu", index="on"))
    assert m_on.stats["query"] == "phast"  # more targets: the full sweep
    m_off = matrix.run(net, matrix.MatrixOptions(src[:5], many, backend="cpu", index="off"))
    np.testing.assert_array_equal(m_on.matrix, m_off.matrix)
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
    # redone: re-customized over the cached topology (or built without pymetis)
    assert info2.source in ("built", "customized") and h2.summary()["nodes"] == net.num_nodes


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
    assert "(phast)" in text and "route index built" in text and "query rphast" in text
    np.testing.assert_array_equal(outs["on"], outs["off"])


def _fresh(net, src, tgt):
    return matrix.run(net, matrix.MatrixOptions(src, tgt, backend="cpu", index="off")).matrix


def test_closures_recustomize_the_cached_topology(cache):
    from app.jobs.edits import apply_edits, parse_close

    pytest.importorskip("pymetis")
    net = generate("grid", 2500, seed=6)
    h, info = index.hierarchy_for(net, policy="on")
    assert info.source == "built" and h.method == "cch"
    assert list(cache.glob("cch-topo-*.npz"))
    r = np.random.default_rng(4)
    src = tuple(int(x) for x in r.integers(0, net.num_nodes, 40))
    tgt = tuple(int(x) for x in r.integers(0, net.num_nodes, 30))
    tails = np.repeat(np.arange(net.num_nodes), np.diff(net.indptr))
    for round_ in range(3):  # a sequence of growing edit lists (closures, one-way closures)
        arcs = r.integers(0, net.num_arcs, 4 * (round_ + 1))
        specs = [f"{'arc' if k % 2 else 'nodes'}:{net.node_ids[tails[a]]},"
                 f"{net.node_ids[net.indices[a]]}" for k, a in enumerate(arcs)]
        edited, changed = apply_edits(net, [parse_close(s) for s in specs], backend="cpu")
        assert changed > 0
        got = matrix.run(edited, matrix.MatrixOptions(src, tgt, backend="cpu", index="on"))
        assert got.stats["index"] == "customized", got.stats
        assert got.stats["index_customize_s"] >= 0
        # the build's metric is kept with the topology: only the edges the edits reach
        assert got.stats["index_customized"].startswith("partial"), got.stats
        np.testing.assert_array_equal(got.matrix, _fresh(edited, src, tgt))
    # the unedited map still loads its own index
    assert index.hierarchy_for(net, policy="auto")[1].source == "cache"


def test_added_road_rebuilds_and_says_why(cache):
    from types import SimpleNamespace

    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import topology_key

    pytest.importorskip("pymetis")
    net = generate("grid", 900, seed=7)
    index.hierarchy_for(net, policy="on")
    g = CSRGraph.from_any(net)
    tails = np.concatenate([g.arc_sources(), [0]])
    heads = np.concatenate([g.indices, [net.num_nodes - 1]])
    g2 = CSRGraph.from_edges(net.num_nodes, tails, heads, np.concatenate([g.weights, [1]]))
    added = SimpleNamespace(indptr=g2.indptr, indices=g2.indices, weights=g2.weights,
                            meta={"index_topology": topology_key(g)})
    h, info = index.hierarchy_for(added, policy="on")
    assert info.source == "rebuilt" and "new road" in info.as_dict()["index_reason"]
    src = np.arange(0, net.num_nodes, 9)
    from gpu_core.multi_source import multi_source_sssp

    a = multi_source_sssp(g2, src, backend="cpu", variant="phast", hierarchy=h).dist
    np.testing.assert_array_equal(a, multi_source_sssp(g2, src, backend="cpu").dist)


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_damaged_files_are_rebuilt(cache, damage):
    pytest.importorskip("pymetis")
    net = generate("grid", 1600, seed=8)
    h, info = index.hierarchy_for(net, policy="on")
    for path in [info.path, *map(str, cache.glob("cch-topo-*.npz")),
                 *map(str, cache.glob("cch-kept-*.bin"))]:  # the kept file holds a topology
        raw = open(path, "rb").read()
        if damage == "truncate":
            raw = raw[: len(raw) * 2 // 3]
        else:
            b = bytearray(raw)
            for off in range(len(b) // 4, len(b) - 64, len(b) // 5):
                b[off] ^= 0xFF
            raw = bytes(b)
        with open(path, "wb") as fh:
            fh.write(raw)
    h2, info2 = index.hierarchy_for(net, policy="on")
    assert info2.source == "built"
    src = np.arange(0, net.num_nodes, 11)
    from gpu_core.multi_source import multi_source_sssp

    a = multi_source_sssp(net, src, backend="cpu", variant="phast", hierarchy=h2).dist
    np.testing.assert_array_equal(a, multi_source_sssp(net, src, backend="cpu").dist)


def test_cli_matrix_close_recustomizes(cache, tmp_path, capsys):
    from app.cli import main
    from maps.outputs.dimacs import write_dimacs

    pytest.importorskip("pymetis")
    net = generate("grid", 1500, seed=11)
    gr = tmp_path / "g.gr"
    write_dimacs(net, str(gr))
    pts = tmp_path / "p.csv"
    ids = np.random.default_rng(4).integers(1, net.num_nodes + 1, 70)
    pts.write_text("node\n" + "\n".join(map(str, ids)) + "\n")
    base = ["matrix", str(gr), "--from", str(pts), "--to", str(pts), "--backend", "cpu"]
    assert main(base + ["--out", str(tmp_path / "m0.npy"), "--index", "on"]) == 0
    tails = np.repeat(np.arange(net.num_nodes), np.diff(net.indptr))
    close = []
    for a in np.random.default_rng(5).integers(0, net.num_arcs, 10):
        close += ["--close", f"nodes:{tails[a] + 1},{net.indices[a] + 1}"]  # DIMACS ids
    capsys.readouterr()
    outs = {}
    for ix in ("on", "off"):
        out = tmp_path / f"m_{ix}.npy"
        assert main(base + close + ["--out", str(out), "--index", ix]) == 0
        outs[ix] = np.load(out)
        if ix == "on":
            assert "route index re-customized" in capsys.readouterr().out
    np.testing.assert_array_equal(outs["on"], outs["off"])
