"""The chordal supergraph's kernels (``gpu_core.hierarchy.chordal``, ``elimination``)
against plain-Python references: the merged elimination equals the sort-based one it
replaced (bit for bit, the edge-limit stop included) on random graphs under random and
nested-dissection orders, whatever the bins of subtrees eliminated side by side; the
tree, the transpose and the heights equal their definitions."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy.chordal import downward, eliminate, heights
from gpu_core.hierarchy.elimination import etree, rank_rows
from gpu_core.hierarchy.order import undirected


def _reference_eliminate(n, ptr, adj, rank, max_edges):
    """The former ``eliminate``: each row the sorted set of the own upward neighbours and
    the children's rows (less the vertex). Returns (up_ptr, up_nb, progress[1])."""
    order = np.argsort(rank)
    rows: list[list[int]] = []
    children: list[list[int]] = [[] for _ in range(n)]
    up_ptr = np.zeros(n + 1, np.int64)
    up_nb: list[int] = []
    for r in range(n):
        v = order[r]
        vals = [int(rank[u]) for u in adj[ptr[v]:ptr[v + 1]] if rank[u] > r]
        for c in children[r]:
            vals += [x for x in rows[c] if x != r]
        row = sorted(set(vals))
        rows.append(row)
        up_nb += row
        up_ptr[r + 1] = len(up_nb)
        if len(up_nb) > max_edges:
            return up_ptr, np.array(up_nb, np.int32), 2
        if row:
            children[row[0]].append(r)
    return up_ptr, np.array(up_nb, np.int32), 0


def _random_graph(rng, n):
    """An undirected simple graph (ptr, adj) of one of several shapes: sparse random,
    road-like (a ring with chords), hubs (vertices of many children in the elimination
    tree: many runs to merge) or dense."""
    kind = rng.integers(4)
    if kind == 0:
        m = int(rng.integers(0, 3 * n + 1))
        t, h = rng.integers(0, n, m), rng.integers(0, n, m)
    elif kind == 1:
        ring = np.arange(n)
        extra = rng.integers(0, n, (n // 4 + 1, 2))
        t = np.concatenate([ring, extra[:, 0]])
        h = np.concatenate([(ring + 1) % n, extra[:, 1]])
    elif kind == 2:
        hubs = rng.integers(0, n, 1 + n // 20)
        m = 2 * n
        t = np.concatenate([rng.choice(hubs, m), rng.integers(0, n, n)])
        h = np.concatenate([rng.integers(0, n, m), rng.integers(0, n, n)])
    else:
        m = n * min(n, 12)
        t, h = rng.integers(0, n, m), rng.integers(0, n, m)
    g = CSRGraph.from_edges(n, t.tolist(), h.tolist(), [1] * len(t))
    return undirected(n, g.indptr, g.indices)


def _case(seed, lo=1, hi=300):
    """(rng, n, ptr, adj, rank): a random graph of lo <= n < hi vertices, a random order."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(lo, hi))
    ptr, adj = _random_graph(rng, n)
    return rng, n, ptr, adj, rng.permutation(n).astype(np.int32)


def _orders(rng, n, ptr, adj):
    """A random permutation, and METIS's nested dissection when pymetis is here."""
    yield rng.permutation(n).astype(np.int32)
    try:
        from gpu_core.hierarchy.order import nested_dissection_order

        yield nested_dissection_order(n, ptr, adj, seed=int(rng.integers(1, 100)))
    except ImportError:
        return


@pytest.mark.parametrize("seed", range(40))
def test_merged_elimination_equals_the_sort_based_one(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 260))
    ptr, adj = _random_graph(rng, n)
    for rank in _orders(rng, n, ptr, adj):
        want_ptr, want_nb, _ = _reference_eliminate(n, ptr, adj, rank, 1 << 40)
        for bins in (None, 1, 2, 5, 40):  # one pass in rank order, or bins side by side
            progress = np.zeros(2, np.int64)
            up_ptr, up_nb = eliminate(n, ptr, adj, rank, 1 << 40, progress, bins=bins)
            np.testing.assert_array_equal(up_ptr, want_ptr)
            np.testing.assert_array_equal(up_nb, want_nb)
            assert up_nb.dtype == np.int32 and up_ptr.dtype == np.int64
            assert progress[1] == 0 and progress[0] == n


@pytest.mark.parametrize("seed", range(10))
def test_edge_limit_stops_at_the_same_row(seed):
    rng, n, ptr, adj, rank = _case(100 + seed, 20, 200)
    full = _reference_eliminate(n, ptr, adj, rank, 1 << 40)[1].shape[0]
    limit = int(rng.integers(0, max(full, 1)))
    want_ptr, want_nb, want_flag = _reference_eliminate(n, ptr, adj, rank, limit)
    for bins in (1, 3, 16):
        progress = np.zeros(2, np.int64)
        up_ptr, up_nb = eliminate(n, ptr, adj, rank, limit, progress, bins=bins)
        np.testing.assert_array_equal(up_ptr, want_ptr)
        np.testing.assert_array_equal(up_nb, want_nb)
        assert progress[1] == want_flag


def test_a_stop_asked_ends_the_elimination():
    _, n, ptr, adj, rank = _case(7, 150, 200)
    for bins in (1, 4):
        progress = np.array([0, 1], np.int64)  # another thread's stop, already there
        eliminate(n, ptr, adj, rank, 1 << 40, progress, bins=bins)
        assert progress[1] == 1 and progress[0] < n


@pytest.mark.parametrize("seed", range(10))
def test_rank_rows_and_tree(seed):
    _, n, ptr, adj, rank = _case(200 + seed)
    optr, onb, lptr, lnb = rank_rows(n, ptr, adj, rank)
    up_ptr, up_nb = eliminate(n, ptr, adj, rank, 1 << 40, np.zeros(2, np.int64))
    kptr, kids, parent = etree(n, lptr, lnb)
    for r in range(n):  # the parent: the lowest higher neighbour in the chordal graph
        want_parent = up_nb[up_ptr[r]] if up_ptr[r + 1] > up_ptr[r] else -1
        assert parent[r] == want_parent
        assert kids[kptr[r]:kptr[r + 1]].tolist() == np.flatnonzero(parent == r).tolist()
    order = np.argsort(rank)
    for r in range(n):
        v = order[r]
        want = sorted(int(rank[u]) for u in adj[ptr[v]:ptr[v + 1]] if rank[u] > r)
        assert onb[optr[r]:optr[r + 1]].tolist() == want
        want = [int(rank[u]) for u in adj[ptr[v]:ptr[v + 1]] if rank[u] < r]
        assert lnb[lptr[r]:lptr[r + 1]].tolist() == want


@pytest.mark.parametrize("seed", range(10))
def test_downward_and_heights_match_their_definitions(seed):
    _, n, ptr, adj, rank = _case(300 + seed)
    up_ptr, up_nb = eliminate(n, ptr, adj, rank, 1 << 40, np.zeros(2, np.int64))
    dn_ptr, dn_src, dn_edge = downward(n, up_ptr, up_nb)
    for blocks in (2, 3, 7):  # the threads' blocks of rows: the same transpose
        for a, b in zip(downward(n, up_ptr, up_nb, blocks), (dn_ptr, dn_src, dn_edge),
                        strict=True):
            np.testing.assert_array_equal(a, b)
    lower: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for x in range(n):
        for e in range(up_ptr[x], up_ptr[x + 1]):
            lower[int(up_nb[e])].append((x, e))
    h = np.zeros(n, np.int64)
    for y in range(n):
        got = list(zip(dn_src[dn_ptr[y]:dn_ptr[y + 1]].tolist(),
                       dn_edge[dn_ptr[y]:dn_ptr[y + 1]].tolist(), strict=True))
        assert got == lower[y]  # ascending lower neighbour, with its edge id
        h[y] = 1 + max((h[x] for x, _ in lower[y]), default=-1)
    lvl_ptr, lvl_vert = heights(n, up_ptr, up_nb)
    want = np.argsort(h, kind="stable")  # by height, ascending vertex within one
    np.testing.assert_array_equal(lvl_vert, want)
    np.testing.assert_array_equal(lvl_ptr, np.concatenate(
        [[0], np.cumsum(np.bincount(h, minlength=int(h.max(initial=-1)) + 1))]))


@pytest.mark.parametrize("seed", range(10))
def test_undirected_simple_graph_whatever_the_blocks(seed):
    # self-loops, parallel and one-way arcs: each row the sorted set of the other ends
    rng = np.random.default_rng(400 + seed)
    n = int(rng.integers(1, 200))
    m = int(rng.integers(0, 4 * n + 1))
    t, h = rng.integers(0, n, m), rng.integers(0, n, m)
    g = CSRGraph.from_edges(n, t.tolist(), h.tolist(), [1] * m)
    nbrs: list[set[int]] = [set() for _ in range(n)]
    for a, b in zip(t.tolist(), h.tolist(), strict=True):
        if a != b:
            nbrs[a].add(b)
            nbrs[b].add(a)
    for blocks in (None, 1, 2, 7):
        ptr, adj = undirected(n, g.indptr, g.indices, blocks=blocks)
        assert ptr.dtype == np.int64 and adj.dtype == np.int32
        assert [adj[ptr[v]:ptr[v + 1]].tolist() for v in range(n)] == [sorted(x) for x in nbrs]
