"""Plain-Python statements of the shared phase semantics (slow; for small test graphs).

Written straight from the spec in ``gpu_core.sssp`` / the task brief, with sets instead
of masks and lists, so that both backends' per-phase ``frontier``/``edges`` can be
checked against something independent of either implementation. Each function returns
``(key, frontier list, edges list)``.
"""

from __future__ import annotations

import numpy as np

from gpu_core.graph import CSRGraph
from gpu_core.keys import KEY_INF, KeySpace


def _arcs(g: CSRGraph, ks: KeySpace):
    kw = ks.key_weights(g.weights).tolist()
    ip = g.indptr.tolist()
    ix = g.indices.tolist()
    return [[(ix[a], kw[a]) for a in range(ip[u], ip[u + 1])] for u in range(g.num_nodes)]


def bellman_ford_phases(g: CSRGraph, sources, ks: KeySpace, target: int | None = None):
    arcs = _arcs(g, ks)
    inf = int(KEY_INF)
    C = [inf] * g.num_nodes
    for s in sources:
        C[s] = 0
    F = set(int(s) for s in sources)
    fr, ed = [], []
    while True:
        U = list(C)
        e = 0
        for u in F:
            e += len(arcs[u])
            for h, w in arcs[u]:
                U[h] = min(U[h], C[u] + w)
        nxt = {v for v in range(g.num_nodes) if U[v] < C[v]}
        for v in nxt:
            C[v] = U[v]
        fr.append(len(nxt))
        ed.append(e)
        F = nxt
        if not F:
            break
        if target is not None and min(C[v] for v in F) >= C[target]:
            break
    return np.array(C, dtype=np.int64), fr, ed


def eval_dijkstra_phases(g: CSRGraph, sources, ks: KeySpace, target: int | None = None):
    arcs = _arcs(g, ks)
    inf = int(KEY_INF)
    key = [inf] * g.num_nodes
    for s in sources:
        key[s] = 0
    open_ = set(int(s) for s in sources)
    settled: set[int] = set()
    fr, ed = [], []
    while open_:
        d = inf
        for u in open_:
            ws = [w for h, w in arcs[u] if h not in settled]
            if ws:
                d = min(d, key[u] + min(ws))
        S = {u for u in open_ if key[u] <= d}
        settled |= S
        open_ -= S
        dec = set()
        e = 0
        for u in S:
            for h, w in arcs[u]:
                if h in settled:
                    continue
                e += 1
                if key[u] + w < key[h]:
                    key[h] = key[u] + w
                    dec.add(h)
                    open_.add(h)
        fr.append(len(dec))
        ed.append(e)
        if target is not None and target in settled:
            break
    return np.array(key, dtype=np.int64), fr, ed


def delta_phases(g: CSRGraph, sources, ks: KeySpace, delta: int, target: int | None = None):
    arcs = _arcs(g, ks)
    inf = int(KEY_INF)
    dp = delta << ks.hop_bits
    C = [inf] * g.num_nodes
    for s in sources:
        C[s] = 0
    T = dp
    N = set(int(s) for s in sources)
    far: set[int] = set()
    fr, ed = [], []
    while N:
        U = list(C)
        e = 0
        for u in N:
            e += len(arcs[u])
            for h, w in arcs[u]:
                U[h] = min(U[h], C[u] + w)
        dec = {v for v in range(g.num_nodes) if U[v] < C[v]}
        nxt = set()
        for v in dec:
            C[v] = U[v]
            if C[v] < T:
                nxt.add(v)
                far.discard(v)
            else:
                far.add(v)
        if not nxt and far:
            T = (min(C[v] for v in far) // dp + 1) * dp
            nxt = {v for v in far if C[v] < T}
            far -= nxt
        fr.append(len(dec))
        ed.append(e)
        N = nxt
        if target is not None and C[target] != inf and N:
            if min(C[v] for v in N | far) >= C[target]:
                break
    return np.array(C, dtype=np.int64), fr, ed
