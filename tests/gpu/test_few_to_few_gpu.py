"""The GPU's restricted GPHAST sweep (RPHAST, issue 26) equals scipy entry by entry."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import build_hierarchy
from gpu_core.multi_source import multi_source_sssp
from tests.core.families import FAMILIES, FAMILY_NAMES
from tests.core.test_few_to_few import oracle

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu

from gpu_core.hierarchy import cuda as hcuda  # noqa: E402  (needs CuPy)


def gpu_rows(g, h, src, tgt, query="rphast"):
    r = multi_source_sssp(g, src, targets=tgt, backend="cupy", variant="phast", hierarchy=h,
                          query=query)
    assert r.extra["query"] == query
    return r.dist


@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_families(name, make):
    g = make(seed=9)
    h = build_hierarchy(g)
    r = np.random.default_rng(2)
    src, tgt = r.integers(0, g.num_nodes, 40), r.integers(0, g.num_nodes, 17)
    np.testing.assert_array_equal(gpu_rows(g, h, src, tgt), oracle(g, src, tgt))


def test_grid_batches_duplicates_and_source_as_target(monkeypatch):
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 20000, seed=6))
    h = build_hierarchy(g)
    r = np.random.default_rng(8)
    src, tgt = r.integers(0, g.num_nodes, 150), r.integers(0, g.num_nodes, 30)
    src[4] = src[1]
    tgt[3] = tgt[9]
    tgt[0] = src[0]
    monkeypatch.setattr(hcuda, "K_MAX", 64)  # several restricted sweeps, a partial last one
    want = oracle(g, src, tgt)
    np.testing.assert_array_equal(gpu_rows(g, h, src, tgt), want)
    np.testing.assert_array_equal(gpu_rows(g, h, src, tgt, "phast"), want)


def test_wide_costs_sweep_again_in_64_bits():
    # weights near 2^29: paths of a few arcs pass 2^30, the 32-bit sweep's bound
    r = np.random.default_rng(4)
    n = 300
    t, hd = r.integers(0, n, 1200), r.integers(0, n, 1200)
    w = r.integers(1 << 28, 1 << 29, 1200)
    g = CSRGraph.from_edges(n, t, hd, w)
    h = build_hierarchy(g)
    src, tgt = r.integers(0, n, 50), r.integers(0, n, 12)
    np.testing.assert_array_equal(gpu_rows(g, h, src, tgt), oracle(g, src, tgt))


def test_kept_selection_serves_the_next_blocks_on_the_device():
    """A Dask worker's blocks: the same targets again and again. The second block reuses
    the restricted sweep and its device copy (``few.restrict`` keeps the last one), with
    the same rows; other targets get their own."""
    from gpu_core.hierarchy import few
    from maps.generate import generate

    g = CSRGraph.from_any(generate("kanto", 30_000, seed=3))
    h = build_hierarchy(g)
    r = np.random.default_rng(4)
    tgt = r.integers(0, g.num_nodes, 50)
    blocks = [r.integers(0, g.num_nodes, 40) for _ in range(3)]
    for src in blocks:
        np.testing.assert_array_equal(gpu_rows(g, h, src, tgt), oracle(g, src, tgt))
    kept = few.restrict(h, tgt)
    assert getattr(kept, "_device", None) is not None  # uploaded once, kept with it
    other = r.integers(0, g.num_nodes, 20)
    np.testing.assert_array_equal(gpu_rows(g, h, blocks[0], other), oracle(g, blocks[0], other))
    assert few.restrict(h, other) is not kept


def test_captured_levels_and_kept_sweeper_equal_level_by_level(monkeypatch):
    """The sweep's levels replayed as a CUDA graph, and a restricted sweeper kept for the
    next job with the same targets (other sources, a second and third job), give the rows
    that launching level by level in a new sweeper gives."""
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 20000, seed=3))
    h = build_hierarchy(g)
    assert len(h.level_ptr) - 1 >= hcuda.GRAPH_MIN_LEVELS  # the graph path is taken
    r = np.random.default_rng(5)
    tgt = r.integers(0, g.num_nodes, 25)
    runs = [r.integers(0, g.num_nodes, 70) for _ in range(3)]
    monkeypatch.setattr(hcuda, "SWEEP_GRAPH", True)
    got = [gpu_rows(g, h, src, tgt) for src in runs]
    r_kept = h._restricted[1]  # the selection the jobs made (their targets, deduplicated)
    kept = r_kept.__dict__.get("_sweeper")
    assert kept is not None and kept._graphs  # kept, its levels captured
    assert any(v is not False for v in kept._graphs.values())  # (captured, not refused)
    monkeypatch.setattr(hcuda, "SWEEP_GRAPH", False)
    for src, rows in zip(runs, got, strict=True):
        np.testing.assert_array_equal(rows, oracle(g, src, tgt))
        h._restricted[1].__dict__.pop("_sweeper", None)  # a new sweeper, level by level
        np.testing.assert_array_equal(gpu_rows(g, h, src, tgt), rows)
    # the full sweep (no targets' restriction) replayed too
    monkeypatch.setattr(hcuda, "SWEEP_GRAPH", True)
    np.testing.assert_array_equal(gpu_rows(g, h, runs[0], tgt, "phast"), got[0])


@pytest.mark.parametrize("query", ["phast", "rphast"])
def test_target_columns_folded_on_the_device(query):
    """Extra target columns min'd into theirs on the device (``phast_fold``) equal the
    host's fold of the unfolded rows; the sweep splits its dense levels' arcs
    (``levels.splits``) on this index."""
    from gpu_core.hierarchy.levels import splits
    from gpu_core.host.fold import fold_block
    from gpu_core.multi_source import iter_distance_rows
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", 20000, seed=4))
    h = build_hierarchy(g)
    assert any(c > 1 for c, _ in splits(h.down_ptr, [int(x) for x in h.level_ptr], 64))
    r = np.random.default_rng(6)
    src, tgt, extra = (r.integers(0, g.num_nodes, k) for k in (90, 20, 9))
    into = r.integers(0, 20, 9)
    cols = np.concatenate([tgt, extra])
    kw = dict(backend="cupy", variant="phast", hierarchy=h, query=query)
    wide = np.vstack([b for _, b in iter_distance_rows(g, src, targets=cols, **kw)])
    got = np.vstack([b for _, b in iter_distance_rows(g, src, targets=cols,
                                                      fold=(20, into), **kw)])
    np.testing.assert_array_equal(got, fold_block(wide, (20, into)))
    np.testing.assert_array_equal(wide, oracle(g, src, cols))
