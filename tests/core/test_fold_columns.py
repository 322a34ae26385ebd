"""A matrix's extra target columns folded into the asked-for ones
(``gpu_core.host.fold``): against a per-cell brute force, through every row path
of ``iter_distance_rows`` (scipy, the route index's sweep and its restricted sweep)."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import build_hierarchy
from gpu_core.host.fold import fold_block
from gpu_core.multi_source import iter_distance_rows


def brute(block: np.ndarray, ntargets: int, into: np.ndarray) -> np.ndarray:
    out = block[:, :ntargets].copy()
    for r in range(block.shape[0]):
        for k, c in enumerate(into):
            x = block[r, ntargets + k]
            if x >= 0 and (out[r, c] < 0 or x < out[r, c]):
                out[r, c] = x
    return out


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_fold_block_equals_brute_force(dtype):
    rng = np.random.default_rng(4)
    for _ in range(40):
        nt, ne = int(rng.integers(1, 12)), int(rng.integers(0, 10))
        b = rng.integers(-1, 30, (int(rng.integers(1, 6)), nt + ne)).astype(dtype)
        into = rng.integers(0, nt, ne)  # repeats: several extras into one column
        got = fold_block(b, (nt, into))
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, brute(b, nt, into))


@pytest.mark.parametrize("variant,query", [("batched", "auto"), ("phast", "phast"),
                                           ("phast", "rphast")])
def test_rows_folded_on_every_path(variant, query):
    from maps.generate import generate

    rng = np.random.default_rng(9)
    g = CSRGraph.from_any(generate("grid", 900, seed=2))  # road-shaped: an index fits
    n = g.num_nodes
    src = rng.integers(0, n, 30)
    tgt = rng.integers(0, n, 12)
    extra = rng.integers(0, n, 7)  # extra columns, folded into these targets' columns
    into = rng.integers(0, 12, 7)
    cols = np.concatenate([tgt, extra])
    hier = build_hierarchy(g) if variant == "phast" else None
    kw = dict(backend="cpu", variant=variant, hierarchy=hier,
              query=query if variant == "phast" else "auto")
    wide = np.vstack([b for _, b in iter_distance_rows(g, src, targets=cols, **kw)])
    got = np.vstack([b for _, b in iter_distance_rows(g, src, targets=cols, fold=(12, into),
                                                      **kw)])
    np.testing.assert_array_equal(got, brute(wide, 12, into))
