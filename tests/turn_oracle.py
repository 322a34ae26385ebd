"""An independent turn-aware oracle (issue 39): Dijkstra over a turn-expanded graph built
straight from the restriction list and the map *without* restrictions.

A state is the last L arcs driven (L = the longest via path + 1; L = 1 for via-node
restrictions: the classic edge-based graph, whose nodes are arcs and whose arcs are allowed
turns). A move is banned when the arcs driven end with a banned sequence: (from-arc,
via-path arcs..., to-arc) for ``no_*``, (from-arc, via-path arcs..., any arc not of the
to-way) for ``only_*``. The cost to a node is the least over states whose last arc enters it.
Nothing here imports ``maps.model.turns``.
"""

from __future__ import annotations

import heapq

import networkx as nx
import numpy as np


def _arcs(net):
    t = net.arc_sources().astype(np.int64).tolist()
    return t, net.indices.tolist(), net.weights.tolist(), net.edge_source_id.tolist()


def banned_sequences(net, restrictions) -> tuple[set[tuple[int, ...]], dict, int]:
    """(banned arc sequences for no_*, {prefix: allowed last arcs} for only_*, L)."""
    tails, heads, _, src = _arcs(net)
    index = {int(v): i for i, v in enumerate(net.node_ids.tolist())}
    out: dict[int, list[int]] = {}
    into: dict[int, list[int]] = {}
    for e, (u, v) in enumerate(zip(tails, heads, strict=True)):
        out.setdefault(u, []).append(e)
        into.setdefault(v, []).append(e)
    banned: set[tuple[int, ...]] = set()
    only: dict[tuple[int, ...], set[int]] = {}
    longest = 1
    for r in restrictions:
        froms, tos = set(r.from_ways), set(r.to_ways)
        prefixes = []  # (from arc, via arcs...)
        if r.via_node is not None:
            v = index.get(r.via_node)
            if v is None:
                continue
            prefixes = [((e,), v) for e in into.get(v, []) if src[e] in froms]
        else:
            g = nx.DiGraph()
            ways = set(r.via_ways)
            for e, (u, v) in enumerate(zip(tails, heads, strict=True)):
                if src[e] in ways:
                    g.add_edge(u, v, arc=e)
            for e in [e for e in range(len(src)) if src[e] in froms]:
                a = heads[e]
                if a not in g:
                    continue
                ends = [b for b in nx.single_source_shortest_path(g, a)
                        if b != a and any(src[f] in tos for f in out.get(b, []))]
                if not ends:
                    continue
                lens = nx.single_source_shortest_path_length(g, a)
                b = min(ends, key=lambda k: (lens[k], k))
                p = nx.shortest_path(g, a, b)
                path = tuple(g.edges[x, y]["arc"] for x, y in zip(p, p[1:], strict=False))
                prefixes.append(((e, *path), b))
        for pre, end in prefixes:
            longest = max(longest, len(pre))
            if not any(src[f] in tos for f in out.get(end, [])):
                continue
            if r.kind == "no":
                banned.update((*pre, f) for f in out.get(end, []) if src[f] in tos)
            else:
                allowed = {f for f in out.get(end, []) if src[f] in tos}
                only[pre] = only.get(pre, allowed) & allowed
    return banned, only, longest


def oracle_dist(net, restrictions, source: int) -> np.ndarray:
    """Least legal cost from node ``source`` to every node (-1: unreachable)."""
    return _search(net, restrictions, source)[0]


def oracle_arc_end(net, restrictions, source: int) -> np.ndarray:
    """Per arc of ``net``: the least legal cost at its head arriving by it (-1: the arc is
    never driven); minus the arc's weight, the cost at which it is entered."""
    best = _search(net, restrictions, source)[1]
    out = np.full(net.num_arcs, -1, dtype=np.int64)
    for s, d in best.items():
        if out[s[-1]] < 0 or d < out[s[-1]]:
            out[s[-1]] = d
    return out


def _search(net, restrictions, source: int) -> tuple[np.ndarray, dict]:
    """(least cost per node, least cost per state) of the turn-expanded Dijkstra."""
    tails, heads, w, _ = _arcs(net)
    banned, only, L = banned_sequences(net, restrictions)
    out: dict[int, list[int]] = {}
    for e, u in enumerate(tails):
        out.setdefault(u, []).append(e)
    dist = np.full(net.num_nodes, -1, dtype=np.int64)
    dist[source] = 0
    best: dict[tuple[int, ...], int] = {}
    heap: list[tuple[int, tuple[int, ...]]] = []
    for e in out.get(source, []):
        s = (e,)
        if w[e] < best.get(s, 1 << 62):
            best[s] = w[e]
            heapq.heappush(heap, (w[e], s))
    while heap:
        d, s = heapq.heappop(heap)
        if d > best.get(s, 1 << 62):
            continue
        v = heads[s[-1]]
        if dist[v] < 0 or d < dist[v]:
            dist[v] = d
        for f in out.get(v, []):
            seq = (*s, f)
            if any(seq[i:] in banned for i in range(len(seq) - 1)):
                continue
            if any(seq[i:-1] in only and f not in only[seq[i:-1]] for i in range(len(seq) - 1)):
                continue
            ns = seq[-L:]
            nd = d + w[f]
            if nd < best.get(ns, 1 << 62):
                best[ns] = nd
                heapq.heappush(heap, (nd, ns))
    return dist, best


def detour_pair(net, restrictions, sources):
    """The first (source, target, legal costs, unrestricted search) among ``sources`` whose
    legal cost to ``target`` is above the unrestricted one (a route a ban makes detour)."""
    from gpu_core.sssp import sssp

    for s in sources:
        want = oracle_dist(net, restrictions, s)
        free = sssp(net, s, backend="cpu")
        hit = np.flatnonzero(free.reached & (want > free.dist))
        if hit.size:
            return s, int(hit[0]), want, free
    raise AssertionError("no route detours around a ban from these sources")
