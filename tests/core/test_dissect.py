"""The split nested dissection (``gpu_core.hierarchy.dissect``): a permutation, the same
whatever the worker count, minimum separators (networkx's matching as the oracle), and a
CCH over it gives exactly scipy's costs."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import dissect
from gpu_core.hierarchy.order import undirected
from tests.core.families import FAMILIES, FAMILY_NAMES
from tests.core.test_cch import phast_rows, scipy_rows

pytest.importorskip("pymetis")


def _grid_core(n: int, seed: int):
    from maps.generate import generate

    g = CSRGraph.from_any(generate("grid", n, seed=seed))
    return undirected(g.num_nodes, g.indptr, g.indices)


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_order_is_a_permutation_and_independent_of_workers(depth):
    ptr, adj = _grid_core(3000, 1)
    k = ptr.shape[0] - 1
    one = dissect.order_core(ptr, adj, depth=depth, workers=1)
    two = dissect.order_core(ptr, adj, depth=depth, workers=2)
    np.testing.assert_array_equal(np.sort(one), np.arange(k))
    np.testing.assert_array_equal(one, two)


@pytest.mark.parametrize("seed", range(4))
def test_split_separator_is_a_minimum_cover_of_the_cut(seed):
    ptr, adj = _grid_core(1500, seed)
    sep, sides = dissect._split((ptr, adj, seed + 1))
    k = ptr.shape[0] - 1
    side = np.full(k, -1)
    rows = np.repeat(np.arange(k), np.diff(ptr))
    for s, (loc, p2, a2) in enumerate(sides):
        side[loc] = s
        # the induced subgraph: every edge with both ends on this side, in local ids
        inside = np.isin(rows, loc) & np.isin(adj, loc)
        want = sorted(zip(np.searchsorted(loc, rows[inside]).tolist(),
                          np.searchsorted(loc, adj[inside]).tolist(), strict=True))
        got = sorted(zip(np.repeat(np.arange(loc.shape[0]), np.diff(p2)).tolist(),
                         a2.tolist(), strict=True))
        assert got == want
    assert (side[sep] == -1).all() and ((side >= 0).sum() + sep.shape[0]) == k
    # no edge joins the two sides once the separator is gone
    assert not ((side[rows] == 0) & (side[adj] == 1)).any()
    # minimum: as large as a maximum matching of the cut METIS made (Koenig)
    import pymetis

    opts = pymetis.Options()
    opts.seed = seed + 1
    _, part = pymetis.part_graph(2, adjacency=pymetis.CSRAdjacency(ptr, adj), options=opts)
    part = np.asarray(part)
    cut = (part[rows] == 0) & (part[adj] == 1)
    bg = nx.Graph()
    bg.add_edges_from((("a", int(x)), ("b", int(y))) for x, y in zip(rows[cut], adj[cut],
                                                                      strict=True))
    top = {v for v in bg if v[0] == "a"}
    matching = nx.bipartite.maximum_matching(bg, top_nodes=top) if bg else {}
    assert sep.shape[0] == len(matching) // 2


def test_split_order_gives_exact_costs(monkeypatch):
    from gpu_core.hierarchy import build_hierarchy

    monkeypatch.setattr(dissect, "SPLIT_MIN", 16)  # split even these small cores
    for (_, make), name in zip(FAMILIES, FAMILY_NAMES, strict=True):
        g = make(seed=5)
        h = build_hierarchy(g, method="cch")
        src = np.arange(g.num_nodes)
        np.testing.assert_array_equal(phast_rows(g, h, src), scipy_rows(g, src), err_msg=name)


def test_split_depth_grows_with_the_core():
    assert dissect.split_depth(dissect.SPLIT_MIN - 1) == 0
    assert dissect.split_depth(dissect.SPLIT_MIN) == 1
    assert dissect.split_depth(10**9) == dissect.MAX_DEPTH


def test_order_from_a_worker_thread_after_numba_threads():
    """As in the GUI: the build runs in a worker thread of a process whose numba threads
    have run already; the forked workers give the same order."""
    import threading

    from gpu_core.hierarchy.chordal import arc_slots  # a parallel numba kernel

    ptr, adj = _grid_core(2000, 2)
    k = ptr.shape[0] - 1
    arc_slots(k, ptr, adj, np.arange(k, dtype=np.int32), ptr, adj)
    box = {}
    th = threading.Thread(target=lambda: box.update(v=dissect.order_core(
        ptr, adj, depth=2, workers=2)))
    th.start()
    th.join(120)
    assert not th.is_alive()
    np.testing.assert_array_equal(box["v"], dissect.order_core(ptr, adj, depth=2, workers=1))
