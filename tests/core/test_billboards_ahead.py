"""Round 1 of the exact CPU greedy searched ahead (issue 41, ``betweenness.cpu_lanes``):
every search first, its DAG kept, while the replay kernel compiles on a thread; then the
round's sums replayed from the kept DAGs. The same sites and the same floats as the
per-chunk path (search, then replay at once) and as the fused kernel before the split
(its numbers below, written by main at 180123b: ``float.hex`` of each)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpu_core.betweenness import api as bb_api
from gpu_core.betweenness import place_billboards
from tests.core import families as fam

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "maps" / "samples" / "helsinki.osm.pbf"

# place_billboards(g, 4, backend="cpu", method="exact", **kw) before the split (180123b)
BEFORE = {
    "dial": (dict(seed=7, wmax=40), dict(mode="weighted", fixed=[3]), [93, 228, 203, 285],
             ["0x1.3498ccccccccdp+13", "0x1.b424000000000p+12", "0x1.4945555555555p+12",
              "0x1.33b2aaaaaaaaap+12"],
             ["0x1.507e000000000p+16", "0x1.4e34000000000p+16", "0x1.4bec000000000p+16",
              "0x1.49a6000000000p+16"]),
    "heap": (dict(seed=8, wmax=100000), dict(mode="weighted"), [165, 154, 89, 231],
             ["0x1.eb40000000000p+12", "0x1.ab80000000000p+12", "0x1.7b50000000000p+12",
              "0x1.1900000000000p+12"],
             ["0x1.464d000000000p+16", "0x1.440c000000000p+16", "0x1.41cd000000000p+16",
              "0x1.3f90000000000p+16"]),
    "hops": (dict(seed=9, wmax=40), dict(mode="hops"), [186, 65, 68, 246],
             ["0x1.bf6a254ded340p+11", "0x1.886fef768622bp+11", "0x1.6c318886860e0p+11",
              "0x1.4d5e7337bac3dp+11"],
             ["0x1.4e3a000000000p+16", "0x1.4bf2000000000p+16", "0x1.49ac000000000p+16",
              "0x1.4768000000000p+16"]),
}


def _hex(xs) -> list[str]:
    return [float(x).hex() for x in xs]


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_searched_ahead_equals_per_chunk_and_the_fused_kernel(name, monkeypatch):
    graph_kw, kw, sites, gains, pairs = BEFORE[name]
    g = fam.random_sparse(n=300, avg_deg=4, **graph_kw)
    if name != "hops":  # (hops: a BFS)
        assert (bb_api._dial_buckets(g, g.weights.astype(np.int64)) > 0) == (name == "dial")
    searched: list[int] = []
    real_search = bb_api.CpuEngine.search
    monkeypatch.setattr(bb_api.CpuEngine, "search", lambda self, in_r, s: searched.append(
        s.size) or real_search(self, in_r, s))
    ahead = place_billboards(g, 4, backend="cpu", method="exact", **kw)
    assert sum(searched) == g.num_nodes - len(kw.get("fixed", []))  # round 1 searched ahead
    monkeypatch.setattr(bb_api.CpuEngine, "searches_ahead", lambda self: False)
    searched.clear()
    chunked = place_billboards(g, 4, backend="cpu", method="exact", **kw)
    assert not searched
    for r in (ahead, chunked):
        assert r.sites.tolist() == sites
        assert _hex(r.gains) == gains
        assert _hex(r.pairs) == pairs
    assert _hex(ahead.group_betweenness) == _hex(chunked.group_betweenness)
    assert _hex(ahead.coverage) == _hex(chunked.coverage)


@pytest.mark.parametrize("budget", [20_000, 26_000, 36_000])
def test_a_keep_budget_spent_during_the_searches_ahead(monkeypatch, budget):
    """Sources past the keep budget are not searched ahead: their round searches them, the
    same gains; the pools, sized for the budget, grow for the last chunk kept."""
    g = fam.random_sparse(seed=7, n=300, avg_deg=4, wmax=40)
    kw = dict(mode="weighted", backend="cpu", method="exact", fixed=[3])
    # (chunks of one size: a round sums its chunks in order)
    monkeypatch.setattr(bb_api.CpuEngine, "chunk_size", lambda self, total: 16)
    full = place_billboards(g, 4, **kw)
    monkeypatch.setattr(bb_api, "CPU_KEEP_BYTES", budget)
    grew: list[bool] = []
    real_room = bb_api.CpuEngine._room

    def room(self, nv, nh):
        had, hh = self.pools[0].size, self.pools[2].size
        real_room(self, nv, nh)
        grew.append(had > 0 and (self.pools[0].size > had or self.pools[2].size > hh))

    monkeypatch.setattr(bb_api.CpuEngine, "_room", room)
    kept: list[int] = []
    real_keep = bb_api.CpuEngine._keep
    monkeypatch.setattr(bb_api.CpuEngine, "_keep", lambda self, srcs, *rows: kept.append(
        int((rows[-1][:, 0] > 0).sum())) or real_keep(self, srcs, *rows))
    part = place_billboards(g, 4, **kw)
    assert 0 < sum(kept) < g.num_nodes - 1  # the budget ran out in round 1
    assert any(grew) == (budget == 26_000)  # (its second chunk passes the pools' size)
    assert part.sites.tolist() == full.sites.tolist()
    assert _hex(part.gains) == _hex(full.gains)
    assert _hex(part.group_betweenness) == _hex(full.group_betweenness)


_CHILD = """
import io, json, sys, threading, contextlib
from numba.core import event
where = {}
class Spy(event.Listener):
    def on_start(self, ev):
        name = ev.data["dispatcher"].py_func.__name__
        where.setdefault(name, threading.current_thread().name)
    def on_end(self, ev):
        pass
event.register("numba:compile", Spy())
import app.cli
from gpu_core.betweenness import api
seen = []
real = api.CpuEngine.search
def search(self, in_r, s):
    seen.append(int(s.size))
    return real(self, in_r, s)
api.CpuEngine.search = search
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    rc = app.cli.main(["-q", "billboards", sys.argv[2], "-k", "5", "--backend", "cpu",
                       "--json"])
out = json.loads(buf.getvalue())
out.update(rc=rc, where=where, searched=sum(seen))
json.dump(out, open(sys.argv[1], "w"))
"""


@pytest.mark.skipif(not SAMPLE.exists(), reason="the sample map is not in this checkout")
def test_the_sample_map_on_a_fresh_install_gives_the_sites_and_gains_before(tmp_path):
    """``signpost billboards -k 5`` on the sample map with empty numba and map caches: the
    replay kernel compiles on its thread while round 1's searches run, and the sites,
    gains, group betweenness and pairs are those before the split bit for bit (main at
    180123b printed these floats: JSON keeps them exactly)."""
    out = tmp_path / "r.json"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               SIGNPOST_CACHE_DIR=str(tmp_path / "maps"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", _CHILD, str(out), str(SAMPLE)], cwd=str(ROOT),
                       env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(out.read_text())
    assert got["rc"] == 0
    assert got["where"]["lane_search"] == "MainThread"  # the CLI's warm-up: search only
    assert got["where"]["lane_replay"] == "signpost-compile-replay"
    assert got["searched"] == got["nodes"]  # round 1 searched ahead
    assert got["site_index"] == [1533, 589, 2737, 2578, 4574]
    assert got["gains"] == [4921281.333333334, 3126502.807359308, 2631822.0, 1983001.0,
                            1418323.0714285714]
    assert got["group_betweenness"] == [4921281.333333334, 8047784.140692642,
                                        10679606.140692642, 12662607.140692642,
                                        14080930.212121213]
    assert got["pairs"] == [28887152.0, 28876404.0, 28865658.0, 28854914.0, 28844172.0]


@pytest.mark.skipif(not SAMPLE.exists(), reason="the sample map is not in this checkout")
def test_the_sample_map_searched_ahead_equals_per_chunk(monkeypatch):
    from gpu_core.graph import CSRGraph
    from maps.load import load_map

    g = CSRGraph.from_any(load_map(str(SAMPLE)))
    kw = dict(mode="weighted", backend="cpu", method="exact")
    ahead = place_billboards(g, 3, **kw)
    monkeypatch.setattr(bb_api.CpuEngine, "searches_ahead", lambda self: False)
    chunked = place_billboards(g, 3, **kw)
    assert ahead.sites.tolist() == chunked.sites.tolist() == [1533, 589, 2737]
    assert _hex(ahead.gains) == _hex(chunked.gains) == _hex(
        [4921281.333333334, 3126502.807359308, 2631822.0])
    assert _hex(ahead.group_betweenness) == _hex(chunked.group_betweenness)
