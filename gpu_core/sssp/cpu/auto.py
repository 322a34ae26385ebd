"""``auto`` on the CPU: the near-far search with ``params.default_delta`` (the fastest
exact method measured here: about 2x scipy's Dijkstra on road maps, see
docs/perf/sssp_cpu.md; its phases carry mode ``delta``), or with
``SSSPOptions(cpu_auto="heap")`` the sequential binary-heap Dijkstra (settle rounds of
``params.CPU_ROUND_POPS`` pops, mode ``cpu``), kept for comparison."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...errors import InvalidArgumentError
from ...host.clock import _readcyclecounter
from ...host.csr import key_weight
from ...host.heap import sift_down, sift_up
from ...params import CPU_ROUND_POPS
from .delta import delta
from .phases import M_CPU, first_decrease, record
from .search import MODES, CpuSearch, zeros


@njit(cache=True, nogil=True)
def dijkstra_batch(indptr, indices, weights, hb, key, heap, heap_k, pos, stamp, st,
                   round_pops, target, budget, modes, out_f, out_e, out_t, out_m):
    """Sequential Dijkstra on composite keys with an indexed binary heap.

    Phases are "settle rounds" of ``round_pops`` pops (mode cpu). pos[v]: index in
    ``heap`` (>= 0), -1 never queued, -2 settled; heap_k[i] == key[heap[i]]. st: [0] heap
    size, [1] round counter, [3] done.
    """
    cap = out_f.shape[0]
    start = _readcyclecounter()
    k = 0
    size = st[0]
    while k < cap and st[3] == 0:
        t0 = _readcyclecounter()
        st[1] += 1
        ph = st[1]
        edges = 0
        cnt = 0
        pops = 0
        while pops < round_pops and size > 0:
            u = heap[0]
            pops += 1
            pos[u] = -2
            size -= 1
            if size > 0:  # the last element sifted down from the root
                sift_down(heap_k, heap, pos, True, size, heap_k[size], heap[size])
            if u == target:
                st[3] = 1
                break
            ku = key[u]
            a0 = indptr[u]
            a1 = indptr[u + 1]
            edges += a1 - a0
            for a in range(a0, a1):
                h = indices[a]
                p = pos[h]
                if p == -2:
                    continue
                nk = ku + key_weight(weights, a, hb)
                if nk < key[h]:
                    key[h] = nk
                    cnt += first_decrease(stamp, h, ph)
                    if p == -1:
                        p = size
                        size += 1
                    sift_up(heap_k, heap, pos, True, p, nk, h)
        if size == 0:
            st[3] = 1
        t1 = _readcyclecounter()
        k = record(out_f, out_e, out_t, out_m, k, cnt, edges, t1 - t0, modes[M_CPU])
        if t1 - start > budget:
            break
    st[0] = size
    return k


def heap_dijkstra(s: CpuSearch):
    n, src = s.n, s.src
    heap = zeros(n, np.int32)
    heap[: src.size] = src  # all keys 0: already a heap
    heap_k = zeros(n, np.int64)
    pos = np.full(n, -1, np.int32)
    pos[src] = np.arange(src.size, dtype=np.int32)
    stamp = zeros(n, np.int64)
    s.st[0] = src.size
    out_f, out_e, out_t, out_m = s.out

    def step() -> int:
        return dijkstra_batch(s.indptr, s.indices, s.weights, s.hb, s.key, heap, heap_k, pos,
                              stamp, s.st, CPU_ROUND_POPS, s.target, s.budget, MODES,
                              out_f, out_e, out_t, out_m)

    return step


def resolve(opts):
    """The search ``auto`` runs under ``opts`` (``driver.CpuPlan`` asks once per plan)."""
    method = opts.cpu_auto
    if method == "delta":
        return delta
    if method == "heap":
        return heap_dijkstra
    raise InvalidArgumentError(f"cpu_auto {method!r}: choose 'delta' or 'heap'")


def auto(s: CpuSearch):
    return resolve(s.opts)(s)


auto.resolve = resolve  # type: ignore[attr-defined]  # driver.CpuPlan: chosen once
