"""The kept metric persists beside the index (issue 41): a closure in a new process (the
CLI's ``matrix --close``) re-customizes only the edges it reaches."""

from __future__ import annotations

import numpy as np
import pytest

from app.jobs import index, kept_metric, matrix
from maps.generate import generate


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(index, "_RECENT", type(index._RECENT)())
    return tmp_path


def _new_process():
    """What a new process has: no topology in memory (they are read from the files)."""
    index._RECENT.clear()


def _closed(net, seed: int):
    from app.jobs.edits import apply_edits, parse_close

    r = np.random.default_rng(seed)
    tails = np.repeat(np.arange(net.num_nodes), np.diff(net.indptr))
    arcs = r.integers(0, net.num_arcs, 3)
    specs = [f"nodes:{net.node_ids[tails[a]]},{net.node_ids[net.indices[a]]}" for a in arcs]
    edited, changed = apply_edits(net, [parse_close(s) for s in specs], backend="cpu")
    assert changed > 0
    return edited


def test_a_new_process_customizes_a_closure_partially(cache):
    pytest.importorskip("pymetis")
    net = generate("grid", 2500, seed=6)
    assert index.hierarchy_for(net, policy="on")[1].source == "built"
    assert len(list(cache.glob("cch-metric-*.npz"))) == 1
    src, tgt = (1, 50, 900, 2000), (3, 77, 1500)
    for seed in (1, 2):
        _new_process()
        edited = _closed(net, seed)
        got = matrix.run(edited, matrix.MatrixOptions(src, tgt, backend="cpu", index="on"))
        assert got.stats["index"] == "customized", got.stats
        assert got.stats["index_customized"].startswith("partial"), got.stats  # was "full"
        want = matrix.run(edited, matrix.MatrixOptions(src, tgt, backend="cpu", index="off"))
        np.testing.assert_array_equal(got.matrix, want.matrix)


@pytest.mark.parametrize("damage", ["truncate", "other_topology"])
def test_a_bad_metric_file_is_removed_and_customization_is_full(cache, damage):
    pytest.importorskip("pymetis")
    net = generate("grid", 900, seed=3)
    index.hierarchy_for(net, policy="on")
    (path,) = cache.glob("cch-metric-*.npz")
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    else:
        with np.load(path) as z:
            arrays = {k: z[k] for k in z.files}
        arrays["topology"] = np.array("someone-else")
        np.savez(path, **arrays)
    _new_process()
    edited = _closed(net, 4)
    got = matrix.run(edited, matrix.MatrixOptions((1, 2), (5, 9), backend="cpu", index="on"))
    assert got.stats["index_customized"] == "full", got.stats
    want = matrix.run(edited, matrix.MatrixOptions((1, 2), (5, 9), backend="cpu", index="off"))
    np.testing.assert_array_equal(got.matrix, want.matrix)
    assert kept_metric.metric_path("someone-else").endswith("cch-metric-someone-else.npz")
