"""The graphs of seed 003's evaluation (Table 1) for ``signpost bench vertex-programs``.

* road graphs: the maps given with ``--map`` (a file, e.g. DIMACS NE as a RoadNet-CA-sized
  road graph, or ``gen:kanto`` for the Kanto-sized generated map);
* ``rmat`` / ``random``: R-MAT (GTgraph's a,b,c,d = .45,.15,.15,.25) and uniform random
  directed graphs, 1M vertices / 16M arcs by default (GTgraph made the paper's);
* ``wiki`` / ``revwiki``: the paper's WikiTalk (SNAP, 2,394,385 vertices, 5,021,410 arcs)
  is not available offline. A skewed R-MAT of the same size stands in for it: a,b,c,d =
  .6,.237,.117,.046 gives one vertex ~100K out-arcs and out/in-degree spreads close to
  Table 1's (max(o) 100,022, sigma(o) 99.9, max(i) 3,311, sigma(i) 12.2); its reverse,
  a few vertices with ~100K in-arcs, stands in for rev-WikiTalk (where the paper's
  randomised insertion gained 3.7x).
* scaling (Figure 8): random graphs of 2^k vertices with |E| = 16|V|.

Every graph gets arc weights uniform in 1..1000 as in the paper (``--weights map`` keeps
a map's own). Generators live in ``maps.generate`` (vectorised numpy, seeded).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpu_core.graph import CSRGraph

PAPER_MAX_WEIGHT = 1000
WIKITALK_NODES, WIKITALK_ARCS = 2_394_385, 5_021_410  # SNAP wiki-Talk
WIKITALK_ABCD = (0.6, 0.237, 0.117, 0.046)  # calibrated to Table 1's WikiTalk row
SYNTHETIC = ("rmat", "random", "wiki", "revwiki")
SYNTHETIC_NAMES = {"rmat": "R-MAT", "random": "Random", "wiki": "WikiTalk-like R-MAT",
                   "revwiki": "rev-WikiTalk-like"}
STAND_IN_NOTE = {
    "wiki": "stand-in: skewed R-MAT of WikiTalk's size (WikiTalk is not available offline)",
    "revwiki": "stand-in: reverse of the skewed R-MAT (rev-WikiTalk is not available "
               "offline)",
}


@dataclass
class BenchGraph:
    name: str  # short label (x axis of the figures, ``graph`` column of the CSV)
    kind: str  # road | rmat | random | wiki | revwiki | scaling
    graph: CSRGraph
    note: str = ""


def paper_weights(g: CSRGraph, seed: int) -> CSRGraph:
    """``g`` with arc weights uniform 1..1000 (seeded), rows re-sorted like from_edges."""
    w = np.random.default_rng(seed).integers(1, PAPER_MAX_WEIGHT + 1, g.num_arcs)
    return CSRGraph.from_edges(g.num_nodes, g.arc_sources(), g.indices, w)


def road_graph(spec: str, seed: int, weights: str = "paper") -> BenchGraph:
    """A map file or gen:KIND[:N] (``app.bench.sssp._load``), weights 1..1000 unless
    ``weights == "map"``."""
    from app.bench.sssp import _load

    net, label = _load(spec, seed)
    g = CSRGraph.from_any(net)
    name = spec if spec.startswith("gen:") else Path(spec).name.split(".")[0]
    if weights == "paper":
        g = paper_weights(g, seed)
        label += ", weights 1..1000"
    return BenchGraph(name, "road", g, label)


def synthetic_graph(kind: str, nodes: int, arcs_per_node: int, wiki_nodes: int,
                    wiki_arcs: int, seed: int) -> BenchGraph:
    """One of SYNTHETIC, weights 1..1000."""
    from maps.generate import random_graph, rmat

    w = PAPER_MAX_WEIGHT
    if kind == "rmat":
        net = rmat(nodes, seed, arcs_per_node=arcs_per_node, max_weight=w)
    elif kind == "random":
        net = random_graph(nodes, seed, arcs_per_node=arcs_per_node, max_weight=w)
    else:
        net = rmat(wiki_nodes, seed, arcs=wiki_arcs, abcd=WIKITALK_ABCD, max_weight=w)
    g = CSRGraph.from_any(net)
    if kind == "revwiki":
        g = g.reverse()
    return BenchGraph(SYNTHETIC_NAMES[kind], kind, g, STAND_IN_NOTE.get(kind, ""))


def scaling_graph(k: int, seed: int) -> BenchGraph:
    """Figure 8: a random graph of 2^k vertices and 16 * 2^k arcs, weights 1..1000."""
    from maps.generate import random_graph

    n = 2**k
    net = random_graph(n, seed, arcs_per_node=16, max_weight=PAPER_MAX_WEIGHT)
    return BenchGraph(f"random 2^{k}", "scaling", CSRGraph.from_any(net))


def degree_stats(bg: BenchGraph) -> dict:
    """Table 1's columns for one graph: |V|, |E|, max and standard deviation of the in-
    and out-degrees (the paper's sigma), and the Bellman-Ford source (largest out-degree)."""
    g = bg.graph
    n = g.num_nodes
    out = np.diff(g.indptr) if n else np.zeros(1, np.int64)
    inn = np.bincount(g.indices, minlength=n) if n else np.zeros(1, np.int64)
    return {"graph": bg.name, "kind": bg.kind, "nodes": n, "arcs": g.num_arcs,
            "max_in": int(inn.max()), "sd_in": round(float(inn.std()), 2),
            "max_out": int(out.max()), "sd_out": round(float(out.std()), 2),
            "bf_source": int(np.argmax(out)) if n else 0, "note": bg.note}
