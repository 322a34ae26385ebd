"""Billboards on a turn-restricted map (issue 39): paths counted on legal routes, a junction
(its node and turn copies) one site in the file's node ids -- against a brute-force group
betweenness over the turn-expanded oracle graph (tests/turn_oracle.py's states)."""

from __future__ import annotations

import heapq
import re

import numpy as np
import pytest

from app.jobs import billboards
from maps.formats.osm import load_osm
from maps.formats.osm_turns import read_restrictions
from tests.maps.test_turns import grid_osm
from tests.turn_oracle import banned_sequences

K = 4


@pytest.fixture(scope="module")
def maps(tmp_path_factory):
    """A 6×6 grid with via-node bans at most junctions (via-way ones left out: the brute
    force below walks arc states, the oracle's L = 1)."""
    p = tmp_path_factory.mktemp("turn_bb") / "grid.osm"
    grid_osm(p, k=6, seed=5, share=0.8)
    text = p.read_text()
    p.write_text("\n".join(line for line in text.split("\n")
                           if not re.search(r'type="way" ref="\d+" role="via"', line)))
    path = str(p)
    net = load_osm(path, profile="drive")
    assert net.meta["turn_restrictions"]["applied"] > 5
    return net, load_osm(path, profile="drive", turn_restrictions=False), \
        read_restrictions(path).restrictions


class Brute:
    """Every legal shortest route of every pair, by arc states (no node splitting)."""

    def __init__(self, plain, rules):
        self.n = plain.num_nodes
        self.t = plain.arc_sources().astype(np.int64).tolist()
        self.h = plain.indices.tolist()
        self.w = plain.weights.tolist()
        banned, only, L = banned_sequences(plain, rules)
        assert L == 1
        self.out: dict[int, list[int]] = {}
        for e, u in enumerate(self.t):
            self.out.setdefault(u, []).append(e)
        self.ok = lambda e, f: ((e, f) not in banned and
                                ((e,) not in only or f in only[(e,)]))
        self.trees = [self._tree(s) for s in range(self.n)]

    def _tree(self, s: int):
        best: dict[int, int] = {}
        heap = [(self.w[e], e) for e in self.out.get(s, [])]
        for d, e in heap:
            best[e] = min(best.get(e, d), d)
        heapq.heapify(heap)
        while heap:
            d, e = heapq.heappop(heap)
            if d > best[e]:
                continue
            for f in self.out.get(self.h[e], []):
                if self.ok(e, f) and d + self.w[f] < best.get(f, 1 << 62):
                    best[f] = d + self.w[f]
                    heapq.heappush(heap, (d + self.w[f], f))
        return best

    def sb(self, group: set[int]) -> tuple[float, float]:
        """(SB(group), P(group)): over ordered pairs of nodes outside the group, the share
        of each pair's legal shortest routes passing a group node between its ends."""
        sb = pp = 0.0
        for s in range(self.n):
            if s in group:
                continue
            best = self.trees[s]
            order = sorted(best, key=best.get)
            sig = {e: 0.0 for e in order}
            avoid = {e: 0.0 for e in order}
            for e in order:
                if self.t[e] == s:
                    sig[e] += 1.0
                    avoid[e] += 1.0
                for f in self.out.get(self.h[e], []):
                    if f in best and self.ok(e, f) and best[e] + self.w[f] == best[f]:
                        sig[f] += sig[e]
                        if self.h[e] not in group:
                            avoid[f] += avoid[e]
            dist: dict[int, int] = {}
            for e, d in best.items():
                dist[self.h[e]] = min(dist.get(self.h[e], d), d)
            for t, d in dist.items():
                if t == s or t in group:
                    continue
                ends = [e for e, de in best.items() if self.h[e] == t and de == d]
                total = sum(sig[e] for e in ends)
                sb += (total - sum(avoid[e] for e in ends)) / total
                pp += 1.0
        return sb, pp


def test_billboards_count_legal_routes_per_junction(maps):
    net, plain, rules = maps
    brute = Brute(plain, rules)
    res = billboards.run(net, billboards.BillboardsOptions(K, backend="cpu",
                                                           method="exact")).billboards
    n0 = plain.num_nodes
    sites = res.sites.tolist()
    assert len(set(sites)) == K and all(0 <= v < n0 for v in sites)  # file nodes, no copies
    # every prefix's SB and pairs are the brute force's for those junctions
    for i in range(K):
        sb, pp = brute.sb(set(sites[: i + 1]))
        assert res.group_betweenness[i] == pytest.approx(sb, rel=1e-9)
        assert res.pairs[i] == pytest.approx(pp, rel=1e-9)
    # and each pick is a greedy best (the brute force's gain of the best junction)
    chosen: set[int] = set()
    prev = brute.sb(chosen)[0]
    for i, v in enumerate(sites):
        best = max(brute.sb(chosen | {u})[0] for u in range(n0) if u not in chosen)
        assert res.group_betweenness[i] == pytest.approx(best, rel=1e-9), i
        assert res.gains[i] == pytest.approx(best - prev, rel=1e-9, abs=1e-9)
        chosen.add(v)
        prev = best
    assert billboards.site_ids(net, sites) == [int(plain.node_ids[v]) for v in sites]


def test_copies_as_their_own_sites_would_differ(maps):
    """Counting on the split graph's vertices (the way before) gives other numbers: the test
    above has teeth."""
    from gpu_core.betweenness import place_billboards

    net, plain, rules = maps
    brute = Brute(plain, rules)
    raw = place_billboards(net, K, mode="weighted", backend="cpu", method="exact")
    folded = {int(v) if v < plain.num_nodes else int(net.meta["turn_copies"][v - plain.num_nodes])
              for v in raw.sites.tolist()}
    sb, _ = brute.sb(folded)
    assert len(folded) < K or abs(raw.group_betweenness[-1] - sb) > 1e-6 * sb


def test_fixed_site_is_a_junction(maps):
    """A fixed site (a copy given stands for its node) is in R with its copies: the next
    picks' SB is the brute force's with it."""
    net, plain, rules = maps
    v = int(net.meta["turn_copies"][0])
    copy = plain.num_nodes  # the first copy, of node v
    res = billboards.run(net, billboards.BillboardsOptions(
        2, backend="cpu", method="exact", fixed=(copy,))).billboards
    assert res.fixed.tolist() == [v] and v not in res.sites.tolist()
    brute = Brute(plain, rules)
    assert res.base_group_betweenness == pytest.approx(brute.sb({v})[0], rel=1e-9)
    assert res.group_betweenness[-1] == pytest.approx(
        brute.sb({v, *res.sites.tolist()})[0], rel=1e-9)


def test_sampled_method_folds_routes_onto_junctions(maps):
    """The sampled greedy's sites are junctions (file nodes, distinct) and its estimate of
    their SB is within its bound of the brute force's."""
    net, plain, rules = maps
    res = billboards.run(net, billboards.BillboardsOptions(3, backend="cpu", method="sampled",
                                                           epsilon=0.1)).billboards
    sites = res.sites.tolist()
    assert all(0 <= v < plain.num_nodes for v in sites) and len(set(sites)) == 3
    assert res.method == "sampled" and "one site per junction" in res.notes
    sb, _ = Brute(plain, rules).sb(set(sites))
    assert abs(res.group_betweenness[-1] - sb) <= res.error_bound


def test_cli_billboards_speaks_in_junctions(maps, capsys):
    import json

    from app.cli import main

    net, plain, _ = maps
    want = billboards.run(net, billboards.BillboardsOptions(2, backend="cpu",
                                                            method="exact")).billboards
    assert main(["billboards", net.source_path, "--profile", "drive", "-k", "2", "--json",
                 "--backend", "cpu", "--method", "exact"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["sites"] == billboards.site_ids(net, want.sites)
    assert got["group_betweenness"] == pytest.approx(want.group_betweenness.tolist())


def test_progressive_sampling_folds_every_round(maps):
    """The default progressive plan on a restricted map (the fixed plan ran before): sites
    are distinct junctions, the same seed gives the same sites, rounds report partial
    results, and the sites' SB (brute force) is within epsilon·A·B of the exact greedy's."""
    net, plain, rules = maps
    partial = []
    opts = billboards.BillboardsOptions(3, backend="cpu", method="sampled", seed=7,
                                        epsilon=0.05)
    res = billboards.run(net, opts, on_partial=partial.append).billboards
    again = billboards.run(net, opts).billboards
    assert res.sampling == "progressive" and "progressive plan" in res.notes
    sites = res.sites.tolist()
    assert all(0 <= v < plain.num_nodes for v in sites) and len(set(sites)) == 3
    assert sites == again.sites.tolist()
    assert np.array_equal(res.group_betweenness, again.group_betweenness)
    assert partial and all(p.sites.max() < plain.num_nodes for p in partial)
    brute = Brute(plain, rules)
    sb, _ = brute.sb(set(sites))
    exact = billboards.run(net, billboards.BillboardsOptions(3, backend="cpu",
                                                             method="exact")).billboards
    n = plain.num_nodes
    assert sb >= exact.group_betweenness[-1] - 0.05 * n * n
    assert abs(res.group_betweenness[-1] - sb) <= res.error_bound
    fixed = billboards.run(net, billboards.BillboardsOptions(
        3, backend="cpu", method="sampled", seed=7, epsilon=0.05, sampling="fixed")).billboards
    assert fixed.sampling == "fixed" and abs(fixed.group_betweenness[-1] - sb) <= \
        fixed.error_bound + res.error_bound


def test_dask_draws_fold_here(maps):
    """``--dask`` on a restricted map (refused before): the workers draw on the junction
    graph, the paths fold here: the sites and numbers of the fixed plan in one process."""
    distributed = pytest.importorskip("distributed")
    net, plain, _ = maps
    opts = billboards.BillboardsOptions(3, backend="cpu", method="sampled", seed=3,
                                        epsilon=0.1, sampling="fixed")
    one = billboards.run(net, opts).billboards
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as lc, distributed.Client(lc) as cl:
        out = billboards.run(net, opts, client=cl)
    two = out.billboards
    assert out.dask["workers"] == 2 and out.dask["paths"] == "paths shipped to the client"
    assert two.sites.tolist() == one.sites.tolist()
    assert np.array_equal(two.group_betweenness, one.group_betweenness)
    assert "on Dask" in two.notes


def test_dask_progressive_rounds_fold_here(maps):
    """The progressive plan with ``--dask`` on a restricted map: each round's paths drawn
    on the workers, folded onto junctions here: the one process's rounds and sites."""
    distributed = pytest.importorskip("distributed")
    net, _, _ = maps
    opts = billboards.BillboardsOptions(3, backend="cpu", method="sampled", seed=7,
                                        epsilon=0.05)
    one = billboards.run(net, opts).billboards
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as lc, distributed.Client(lc) as cl:
        out = billboards.run(net, opts, client=cl)
    two = out.billboards
    assert out.dask["paths"] == "progressive rounds, paths shipped to the client"
    assert two.sampling == one.sampling == "progressive" and "on Dask" in two.notes
    assert two.samples == one.samples and two.epsilon_at_stop == one.epsilon_at_stop
    assert two.sites.tolist() == one.sites.tolist()
    assert np.array_equal(two.group_betweenness, one.group_betweenness)
