"""``maps.model.turns.fold`` (issue 39): a node's answer is the least over itself and its
turn copies, for every dtype and "unreachable" value the searches use, vectorised (a loop
over the copies cost 0.3-0.7 s per one-to-all on the Kanto-sized map with bans)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from maps.model.turns import fold


def _net(n: int, copies: np.ndarray):
    return SimpleNamespace(meta={"turn_copies": copies.tolist()}, num_nodes=n + copies.size)


def _by_loop(v: np.ndarray, n: int, copies: np.ndarray, unreachable) -> np.ndarray:
    out = v[:n].copy()
    for node, val in zip(copies.tolist(), v[n:].tolist(), strict=True):
        if val != unreachable and (out[node] == unreachable or val < out[node]):
            out[node] = val
    return out


@pytest.mark.parametrize("dtype, unreachable", [(np.int64, -1), (np.float64, np.inf),
                                                (np.int32, np.iinfo(np.int32).max)])
def test_fold_is_the_least_over_copies(dtype, unreachable):
    rng = np.random.default_rng(4)
    n = 500
    copies = rng.integers(0, n, 300)  # several copies of some nodes
    v = rng.integers(0, 1000, n + copies.size).astype(dtype)
    v[rng.random(v.size) < 0.3] = unreachable
    want = _by_loop(v, n, copies, unreachable)
    got = fold(_net(n, copies), v, unreachable)
    assert got.dtype == v.dtype and np.array_equal(got, want)
    assert np.array_equal(v[n:], v[n:])  # the input is left alone
    assert (got != unreachable).sum() >= (v[:n] != unreachable).sum()


def test_fold_without_copies_is_the_input():
    v = np.arange(5)
    assert fold(SimpleNamespace(meta={}, num_nodes=5), v) is v



def test_copy_target_columns_are_every_copy_of_every_target_column():
    """``with_copy_targets`` against its definition written as loops (targets repeated,
    targets with several copies, targets without)."""
    from maps.model.turns import with_copy_targets

    class Net:
        num_nodes = 12
        meta = {"turn_copies": [3, 5, 3, 6, 0]}  # nodes 7..11 copy nodes 3, 5, 3, 6, 0

    n0 = 7
    for targets in ([3, 1, 3, 0], [1, 2], [6, 5, 5, 3], [0]):
        want_nodes, want_cols = list(targets), []
        for k, orig in enumerate(Net.meta["turn_copies"]):
            for j, v in enumerate(targets):
                if v == orig:
                    want_nodes.append(n0 + k)
                    want_cols.append(j)
        got = with_copy_targets(Net(), targets)
        if not want_cols:
            assert got is None
            continue
        assert got[0].tolist() == want_nodes and got[1].tolist() == want_cols, targets
