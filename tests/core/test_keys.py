"""Composite keys (gpu_core.keys): key weights, split, hop_bits choice, the pred rule."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.errors import InvalidArgumentError
from gpu_core.graph import CSRGraph
from gpu_core.keys import KEY_INF, NO_PRED, UNREACHABLE, KeySpace, key_space_for
from gpu_core.reference import predecessors_from_keys, reference_sssp

from .families import FAMILIES, FAMILY_NAMES, make_graph


def test_key_weights_and_split_roundtrip() -> None:
    ks = KeySpace(5)
    w = np.array([0, 1, 7, 1000], np.int32)
    kw = ks.key_weights(w)
    assert kw.dtype == np.int64
    assert kw.tolist() == [1, 33, 225, 32001]  # (w << 5) | 1
    # a route of 3 arcs with weights 1, 7, 0: cost 8, 3 hops
    key = np.array([kw[1] + kw[2] + kw[0], 0, KEY_INF], np.int64)
    dist, hops = ks.split(key)
    assert dist.tolist() == [8, 0, UNREACHABLE]
    assert hops.tolist() == [3, 0, -1]


def test_hop_bits_zero_is_plain_cost() -> None:
    ks = KeySpace(0)
    w = np.array([3, 9], np.int32)
    assert ks.key_weights(w).tolist() == [3, 9]
    dist, hops = ks.split(np.array([12, KEY_INF], np.int64))
    assert dist.tolist() == [12, UNREACHABLE] and hops.tolist() == [-1, -1]


def test_key_space_for_widths() -> None:
    # enough bits for n-1 hops
    assert key_space_for(np.array([5], np.int32), 1000).hop_bits == (1000).bit_length()
    assert key_space_for(np.zeros(0, np.int32), 1).hop_bits == 1
    # huge cost bound: falls back to plain costs when every weight is positive...
    n = 1 << 30
    big = np.array([1, 2**31 - 1], np.int32)
    assert key_space_for(big, n).hop_bits == 0
    # ...and refuses zero-weight arcs there, naming the bound
    with pytest.raises(InvalidArgumentError, match="zero-weight"):
        key_space_for(np.array([0, 2**31 - 1], np.int32), n)


def test_cost_bound_is_exact() -> None:
    # the widest key a graph can produce still fits in int64 below KEY_INF
    for n, wmax in [(10, 100), (1_500_000, 1_000_000), (4_000_000, 2**31 - 1)]:
        ks = key_space_for(np.array([1, wmax], np.int32), n)
        worst = ((n - 1) * wmax << ks.hop_bits) | (n - 1 if ks.hop_bits else 0)
        assert worst < int(KEY_INF)
        if ks.hop_bits:
            assert (n - 1) < (1 << ks.hop_bits)


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_reference_pred_rule(name: str) -> None:
    """pred[v] is the smallest tight tail; following it gives the fewest-hop cheapest route."""
    g = make_graph(name, 4)
    key, dist, pred = reference_sssp(g, 0)
    ks = key_space_for(g.weights, g.num_nodes)
    _, hops = ks.split(key)
    tails = g.arc_sources()
    kw = ks.key_weights(g.weights)
    for v in range(g.num_nodes):
        if dist[v] < 0 or v == 0:
            assert pred[v] == NO_PRED
            continue
        tight = [int(u) for u, h, w in zip(tails, g.indices, kw, strict=True)
                 if h == v and key[u] != KEY_INF and key[u] + w == key[v]]
        assert pred[v] == min(tight)
        assert hops[v] == hops[pred[v]] + 1


def test_zero_weight_cycle_gets_a_tree() -> None:
    # 0 -> 1 -> 2 -> 0 all weight 0 plus 0 -> 2 weight 0: keys stop the cycle
    g = CSRGraph.from_edges(3, [0, 1, 2, 0], [1, 2, 0, 2], [0, 0, 0, 0])
    key, dist, pred = reference_sssp(g, 0)
    assert dist.tolist() == [0, 0, 0]
    assert pred.tolist() == [NO_PRED, 0, 0]  # 2 straight from 0 (1 hop), not via 1
    ks = key_space_for(g.weights, 3)
    np.testing.assert_array_equal(predecessors_from_keys(g, key, ks), pred)


def test_families_cover_the_brief() -> None:
    names = set(FAMILY_NAMES)
    for want in ("random_sparse", "rmat", "ring", "complete", "grid_road", "disconnected",
                 "zero_weights", "single_node", "isolated_source", "duplicate_arcs",
                 "self_loops"):
        assert want in names
    g = dict(FAMILIES)["zero_weights"](seed=0)
    assert (g.weights == 0).any()
    g = dict(FAMILIES)["self_loops"](seed=0)
    assert (g.arc_sources() == g.indices).any()
    g = dict(FAMILIES)["duplicate_arcs"](seed=0)
    pairs = g.arc_sources().astype(np.int64) * g.num_nodes + g.indices
    assert np.unique(pairs).size < pairs.size
    g = dict(FAMILIES)["isolated_source"](seed=0)
    assert g.indptr[1] == g.indptr[0]
    g = dict(FAMILIES)["random_sparse"](seed=0)
    pairs = g.arc_sources().astype(np.int64) * g.num_nodes + g.indices
    assert np.unique(pairs).size == pairs.size and not (g.arc_sources() == g.indices).any()
