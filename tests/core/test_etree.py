"""The elimination tree the GPU's upward searches walk (``hierarchy/etree``): every upward
arc ends at an ancestor, and one climb up the path, each vertex pushing its arcs, gives the
same costs as the upward Dijkstra, for both index builders and patched indexes."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.graph import CSRGraph
from gpu_core.hierarchy import build_hierarchy
from gpu_core.hierarchy.cpu import search_spaces, up_tree, upward_searches
from gpu_core.hierarchy.etree import elimination_tree
from tests.core.families import FAMILIES, FAMILY_NAMES, random_sparse

INF = 1 << 62


def climb(h, parent, depth, s: int) -> dict[int, int]:
    """The walk of upward.cu in Python: costs by depth along s's path."""
    sd = [INF] * (int(depth[s]) + 1)
    sd[depth[s]] = 0
    out = {}
    x = int(s)
    while x >= 0:
        dx = sd[depth[x]]
        if dx < INF:
            out[x] = dx
            for e in range(h.up_ptr[x], h.up_ptr[x + 1]):
                y = int(h.up_dst[e])
                sd[depth[y]] = min(sd[depth[y]], dx + int(h.up_w[e]))
        x = int(parent[x])
    return out


def check(h) -> None:
    parent, depth = elimination_tree(h)
    assert parent.dtype == depth.dtype == np.int32
    has = parent >= 0
    np.testing.assert_array_equal(depth[has], depth[parent[has]] + 1)
    assert np.all(depth[~has] == 0)
    # every upward arc of x ends on x's path to its root
    for x in range(h.n):
        anc = set()
        a = int(parent[x])
        while a >= 0:
            anc.add(a)
            a = int(parent[a])
        heads = set(h.up_dst[h.up_ptr[x]:h.up_ptr[x + 1]].tolist())
        assert heads <= anc, (x, heads - anc)
    srcs = np.arange(h.n, dtype=np.int32)
    counts, verts, dists = search_spaces(srcs, h.up_ptr, h.up_dst, h.up_w, h.n)  # Dijkstra
    off = np.concatenate([[0], np.cumsum(counts)])
    if h.method == "cch":
        assert up_tree(h) is not None  # made: upward_searches climbs it
    woff, wverts, wdists = upward_searches(h, srcs)
    for s in range(h.n):
        want = dict(zip(verts[off[s]:off[s + 1]].tolist(), dists[off[s]:off[s + 1]].tolist(),
                        strict=True))
        assert climb(h, parent, depth, s) == want
        assert dict(zip(wverts[woff[s]:woff[s + 1]].tolist(),
                        wdists[woff[s]:woff[s + 1]].tolist(), strict=True)) == want


@pytest.mark.parametrize("method", ["ch", "cch"])
@pytest.mark.parametrize("name,make", FAMILIES, ids=FAMILY_NAMES)
def test_families(name, make, method):
    check(build_hierarchy(make(seed=5), method=method))


@pytest.mark.parametrize("seed", range(4))
def test_random_graphs_both_builders(seed):
    g = random_sparse(seed=seed, n=150, avg_deg=3)
    for method in ("ch", "cch"):
        check(build_hierarchy(g, method=method))


def test_patched_index_after_closures():
    """Partial re-customizations (closures, reopenings, new weights: arcs appear and
    vanish) each get a tree of their own arrays."""
    from gpu_core.hierarchy.cch import build_topology, customize
    from maps.generate import generate
    from tests.core.test_cch_partial import _edit, arc_lists

    pytest.importorskip("pymetis")
    g = CSRGraph.from_any(generate("grid", 400, seed=3))
    t = build_topology(g)
    h = customize(t, g)
    check(h)
    rng = np.random.default_rng(2)
    tails, heads, w, live = arc_lists(g)
    seen: dict[int, np.ndarray] = {}
    held = []  # the Hierarchies stay alive: their ids stay theirs
    for _ in range(4):
        _edit(tails, heads, w, live, rng, 6)
        h2 = customize(t, CSRGraph.from_edges(g.num_nodes, tails[live], heads[live], w[live]))
        assert h2.customized.startswith("partial")
        check(h2)
        held.append(h2)
        # the topology's tree, made once per sweep numbering (partial updates share one)
        tree = seen.setdefault(id(h2.rank_of), elimination_tree(h2)[0])
        assert elimination_tree(h2)[0] is tree
    assert len(seen) < 4


@pytest.mark.parametrize("threads", [1, 3])
def test_the_climb_on_threads_and_its_use(threads):
    """``search_spaces`` with the tree, on one or several threads, equals the Dijkstra
    entry by entry (with the order of each source's entries free); a witness CH gets no
    tree (its tree may run far past its search spaces)."""
    from maps.generate import generate

    pytest.importorskip("pymetis")
    g = CSRGraph.from_any(generate("kanto", 3000, seed=4))
    h = build_hierarchy(g, method="cch")
    assert up_tree(h, build=False) is None  # none made yet
    tree = up_tree(h)
    assert tree is not None and up_tree(h, build=False)[2] is tree[2]  # kept
    srcs = np.random.default_rng(3).integers(0, h.n, 200).astype(np.int32)
    a = search_spaces(srcs, h.up_ptr, h.up_dst, h.up_w, h.n, threads)
    b = search_spaces(srcs, h.up_ptr, h.up_dst, h.up_w, h.n, threads, tree)
    np.testing.assert_array_equal(a[0], b[0])
    off = np.concatenate([[0], np.cumsum(a[0])])
    for i in range(srcs.shape[0]):
        sl = slice(off[i], off[i + 1])
        ia, ib = np.argsort(a[1][sl]), np.argsort(b[1][sl])
        np.testing.assert_array_equal(a[1][sl][ia], b[1][sl][ib])
        np.testing.assert_array_equal(a[2][sl][ia], b[2][sl][ib])
    assert up_tree(build_hierarchy(random_sparse(seed=2, n=80), method="ch")) is None


def test_kept_while_the_arrays_stay():
    h = build_hierarchy(random_sparse(seed=1, n=60), method="ch")
    a = elimination_tree(h)
    assert elimination_tree(h)[0] is a[0]
    h.up_dst = h.up_dst.copy()  # other arrays: made again
    assert elimination_tree(h)[0] is not a[0]


@pytest.mark.parametrize("method", ["ch", "cch"])
def test_saved_with_the_index_and_read_back(tmp_path, monkeypatch, method):
    """A CCH index's file holds its topology's tree (a Dask worker reads the index without
    the topology, and Liu's algorithm over the 24M-node map cost its warm-up seconds);
    the one read back is used as it is, and is a valid tree of the index's arcs. A CH's
    file holds Liu's tree when one was made before the save, none otherwise."""
    from gpu_core.hierarchy import etree
    from gpu_core.hierarchy.model import Hierarchy

    g = FAMILIES[0][1]()
    h = build_hierarchy(g, method=method)
    if method == "ch":
        h.save(tmp_path / "a.npz")
        assert Hierarchy.load(tmp_path / "a.npz").tree_parent.shape == (0,)
    want = elimination_tree(h)
    h.save(tmp_path / "h.npz")
    back = Hierarchy.load(tmp_path / "h.npz", g)

    def no_search(*a):
        raise AssertionError("Liu's algorithm ran for an index read with its tree")

    monkeypatch.setattr(etree, "_liu", no_search)
    got = elimination_tree(back)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    check(back)
