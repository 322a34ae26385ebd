"""CUDA backend of many-source shortest paths (kernels in ``multi_source.cu``).

Variants (``VARIANT_P`` gives each one's tasks per launch):

* ``one_at_a_time``: Harish-Narayanan, one search per launch sequence (P = 1), the host
  reads the "changed" flag after every phase (seed 000's "existing method").
* ``task_parallel``: seed 000, P = 32 searches per launch, P·|V| threads, task-minor
  arrays, the CSR row of u staged in shared memory for its 32 tasks; host check per phase.
* ``task_parallel_noshared``: the same without shared memory.
* ``batched``: ours. One kernel per phase relaxing straight into the cost array with
  atomicMin, a device-side queue of changed vertices (a phase touches only those), and a
  fixed grid that reads the queue length from device memory: the host enqueues a group of
  phases and reads one counter per group instead of one flag per phase. P is any multiple
  of 32 (more searches per launch when memory allows).

Sources are processed in chunks whose [rows, cols] result fits the free device memory
(checked before allocating); GpuOutOfMemoryError only when even one batch cannot fit.
Imported only when CuPy is usable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cupy as cp
import numpy as np

from ..device import device_graph, get_module, memory
from ..errors import CancelledError, GpuOutOfMemoryError, InvalidArgumentError
from ..graph import CSRGraph

_SRC = Path(__file__).resolve().with_name("multi_source.cu")

VARIANT_P = {"one_at_a_time": 1, "task_parallel": 32, "task_parallel_noshared": 32, "batched": 128}
BLOCK = 256
GROUP = 8  # batched: phases enqueued per host check of the queue counter
DEVICE_CHUNK_BYTES = 1 << 30  # result rows kept on the device before one copy to the host


def module() -> Any:
    """The compiled kernels for the current device (``gpu_core.device`` loader)."""
    return get_module(_SRC)


def device_arrays(g: CSRGraph) -> tuple[Any, Any, Any]:
    """(Va, Ea, Wa) on the device: the cached ``gpu_core.device.device_graph`` copy."""
    dg = device_graph(g)
    return dg.indptr, dg.indices, dg.weights


def free_bytes() -> int:
    """Free device memory plus CuPy's pooled free blocks (tests monkeypatch this)."""
    free, _total = memory.free_memory()
    return int(free) + int(cp.get_default_memory_pool().free_bytes())


def workspace_bytes(variant: str, n: int, P: int) -> int:
    if variant == "batched":
        return 10 * n * P + 20 * n + 4 * (n + 2) + 4 * P
    return 17 * n * P + 8 + 4 * P


# batched: aim for about this many (vertex, task) slots per launch (P·|V|), so that small
# graphs get many searches per launch and the phases stay few; tuned on an H200 with
# `signpost bench apsp --sweep-P` (docs/perf/apsp.md).
SLOTS_PER_LAUNCH = 1 << 26
P_MIN, P_MAX = 128, 2048


def auto_P(n: int, total: int | None) -> int:
    """Searches per launch for ``batched``: P·|V| near SLOTS_PER_LAUNCH, a multiple of 32,
    no more than the sources asked for (rounded up to 32)."""
    p = max(P_MIN, min(P_MAX, SLOTS_PER_LAUNCH // max(n, 1)))
    p = 1 << (p.bit_length() - 1)  # a power of two (>= 128, so a multiple of 32)
    if total is not None:
        p = min(p, max(32, -(-int(total) // 32) * 32))
    return p


def _blocks(total: int, block: int = BLOCK) -> int:
    return max(1, (total + block - 1) // block)


class Runner:
    """Workspace for one variant on one graph; ``run_batch`` fills result rows."""

    def __init__(self, g: CSRGraph, variant: str, ncols: int, P: int | None = None,
                 total: int | None = None, group: int = GROUP):
        if variant not in VARIANT_P:
            raise InvalidArgumentError(f"unknown GPU variant {variant!r}")
        self.g = g
        self.n = n = g.num_nodes
        self.variant = variant
        self.mod = module()
        self.Va, self.Ea, self.Wa = device_arrays(g)
        if P is not None:
            want = int(P)
        elif variant == "batched":
            want = auto_P(n, total)
        else:
            want = VARIANT_P[variant]
        if variant == "batched":
            if want < 32 or want % 32:
                raise InvalidArgumentError(f"batched needs P a multiple of 32, got {want}")
        elif want != VARIANT_P[variant]:
            raise InvalidArgumentError(f"{variant} runs with P = {VARIANT_P[variant]}, got {want}")
        free = free_bytes()
        # Shrink P (batched) until one batch and its result rows fit; else refuse.
        while True:
            need = workspace_bytes(variant, n, want) + 2 * want * ncols * 8
            if need <= 0.85 * free:
                break
            if variant == "batched" and want > 32:
                want //= 2
                continue
            what = f"{variant} batch of {want} sources on {n} vertices"
            raise GpuOutOfMemoryError(need, free, what)
        self.P = P = want
        self.ncols = ncols
        if variant == "batched":
            self.D = cp.empty(n * P, dtype=cp.int64)
            self.Ma = cp.empty(n * P, dtype=cp.uint8)
            self.Mb = cp.empty(n * P, dtype=cp.uint8)
            self.Qa = cp.empty(max(n, 1), dtype=cp.int32)
            self.Qb = cp.empty(max(n, 1), dtype=cp.int32)
            self.Fa = cp.zeros(max(n, 1), dtype=cp.int32)
            self.Fb = cp.zeros(max(n, 1), dtype=cp.int32)
            self.counts = cp.zeros(n + 2 * max(GROUP, int(group)) + 4, dtype=cp.int32)
            sms = cp.cuda.Device().attributes["MultiProcessorCount"]
            self.grid = int(sms) * (2048 // BLOCK)
        else:
            self.C = cp.empty(n * P, dtype=cp.int64)
            self.U = cp.empty(n * P, dtype=cp.int64)
            self.M = cp.empty(n * P, dtype=cp.uint8)
            self.flag = cp.zeros(1, dtype=cp.int32)
        self.group = max(1, int(group))  # batched: phases per host check
        self.phases = 0
        self.launches = 0
        self.host_checks = 0

    # -- one batch of at most P distinct sources ------------------------------------------
    def run_batch(self, src: np.ndarray, cols: Any, out: Any) -> None:
        """Costs from the sources ``src`` (distinct, len <= P) into ``out`` ([len, ncols]
        device int64; -1 unreachable), at vertices ``cols`` (device int32, None = all)."""
        P = self.P
        cnt = int(src.shape[0])
        dsrc = cp.asarray(src, dtype=cp.int32)
        if self.variant == "batched":
            self._batched(dsrc, cnt)
            D = self.D
        else:
            self._seed_style(dsrc, cnt)
            D = self.C
        ncols = self.ncols
        grid = ((ncols + 31) // 32, (cnt + 31) // 32)
        cptr = cols if cols is not None else np.uint64(0)  # a null pointer: all vertices
        self.mod.get_function("ms_extract")(
            grid, (32, 32), (D, np.int32(P), np.int32(cnt), cptr, np.int32(ncols), out)
        )

    def _seed_style(self, dsrc: Any, cnt: int) -> None:
        n, P = self.n, self.P
        total = n * P
        f = self.mod.get_function
        f("ms_init")((_blocks(total),), (BLOCK,), (self.C, self.U, self.M, dsrc, np.int32(cnt),
                                                    np.int32(n), np.int32(P)))
        shared = self.variant == "task_parallel"
        relax = f("tp_relax_shared" if shared else "tp_relax_noshared")
        update = f("tp_update")
        args: tuple[Any, ...] = (self.Va, self.Ea, self.Wa, self.M, self.C, self.U, np.int32(n))
        if not shared:
            args = args + (np.int32(P),)
        flag_host = np.zeros(1, dtype=np.int32)
        for _ in range(n + 1):  # Bellman-Ford needs at most n-1 rounds (+1 to see none)
            self.flag.fill(0)
            relax((_blocks(total),), (BLOCK,), args)
            update((_blocks(total),), (BLOCK,),
                   (self.C, self.U, self.M, np.int64(total), self.flag))
            self.phases += 1
            self.launches += 2
            self.flag.get(out=flag_host)  # the seed's host round trip per phase
            self.host_checks += 1
            if flag_host[0] == 0:
                return
        raise RuntimeError("many-source search did not converge (kernel error)")

    def _batched(self, dsrc: Any, cnt: int) -> None:
        n, P = self.n, self.P
        f = self.mod.get_function
        self.counts.fill(0)
        f("bq_init")((_blocks(n * P),), (BLOCK,), (self.D, self.Ma, self.Mb, dsrc, np.int32(cnt),
                                                    np.int32(n), np.int32(P)))
        f("bq_seed")((_blocks(cnt),), (BLOCK,),
                     (dsrc, np.int32(cnt), self.Qa, self.Fa, self.counts))
        phase_fn = f("bq_phase")
        bufs = [(self.Ma, self.Mb, self.Qa, self.Qb, self.Fa, self.Fb),
                (self.Mb, self.Ma, self.Qb, self.Qa, self.Fb, self.Fa)]
        host = np.zeros(1, dtype=np.int32)
        k = 0
        while k <= n + 1:
            for _ in range(self.group):
                Min, Mout, Qin, Qout, Fin, Fout = bufs[k & 1]
                phase_fn((self.grid,), (BLOCK,),
                         (self.Va, self.Ea, self.Wa, self.D, Min, Mout, Qin, Qout, Fin, Fout,
                          self.counts, np.int32(k), np.int32(P)))
                k += 1
                self.launches += 1
            self.counts[k : k + 1].get(out=host)  # one host check per group of phases
            self.host_checks += 1
            if host[0] == 0:
                c = self.counts[: k + 1].get()
                self.phases += int(np.argmin(c > 0)) if (c == 0).any() else k
                return
        raise RuntimeError("many-source search did not converge (kernel error)")


def chunk_rows(variant: str, n: int, ncols: int, P: int, total: int, chunk: int | None) -> int:
    """Result rows kept on the device per copy to the host (a multiple of P)."""
    if chunk:
        rows = int(chunk)
    else:
        room = max(0.0, 0.5 * free_bytes() - workspace_bytes(variant, n, P))
        rows = int(min(room, DEVICE_CHUNK_BYTES) // max(1, ncols * 8))
    rows = max(P, rows // P * P)
    return min(rows, max(total, 1) + (-max(total, 1)) % P)


def iter_rows(
    g: CSRGraph,
    sources: np.ndarray,
    targets: np.ndarray | None,
    variant: str,
    chunk: int | None,
    P: int | None = None,
    cancel: Callable[[], bool] | None = None,
    stats: dict | None = None,
) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, int64 block [k, cols]) for consecutive chunks of ``sources``."""
    n = g.num_nodes
    ncols = n if targets is None else int(targets.shape[0])
    runner = Runner(g, variant, ncols, P, total=int(sources.shape[0]))
    cols = None if targets is None else cp.asarray(targets, dtype=cp.int32)
    S = int(sources.shape[0])
    rows = chunk_rows(variant, n, ncols, runner.P, S, chunk)
    buf = cp.empty((rows, ncols), dtype=cp.int64)
    try:
        for r0 in range(0, S, rows):
            # Duplicated sources are searched once per chunk and their rows repeated.
            uniq, inv = np.unique(sources[r0 : r0 + rows], return_inverse=True)
            k = int(uniq.shape[0])
            for b0 in range(0, k, runner.P):
                if cancel is not None and cancel():
                    raise CancelledError("many-source search cancelled")
                b1 = min(k, b0 + runner.P)
                runner.run_batch(uniq[b0:b1].astype(np.int32), cols, buf[b0:b1])
            block = cp.asnumpy(buf[:k])
            yield r0, block if k == inv.shape[0] and (inv == np.arange(k)).all() else block[inv]
    finally:
        if stats is not None:
            stats.update(P=runner.P, phases=runner.phases, launches=runner.launches,
                         host_checks=runner.host_checks, chunk_rows=rows)


def floyd_warshall(g: CSRGraph) -> Any:
    """All-pairs costs by blocked Floyd-Warshall on the device: cupy int64 [n, n], -1
    where unreachable. Memory (n rounded up to 32)^2 * 8 bytes, checked first."""
    n = g.num_nodes
    npad = max(32, (n + 31) // 32 * 32)
    need = npad * npad * 8 + g.num_arcs * 4
    free = free_bytes()
    if need > 0.9 * free:
        raise GpuOutOfMemoryError(need, free, f"Floyd-Warshall on {n} vertices")
    wmax = int(g.weights.max()) if g.num_arcs else 0
    if max(n - 1, 0) * wmax >= (1 << 61):
        raise InvalidArgumentError("costs may reach 2^61: too large for the Floyd-Warshall kernel")
    mod = module()
    D = cp.full((npad, npad), 1 << 61, dtype=cp.int64)
    D[cp.arange(npad), cp.arange(npad)] = 0
    if g.num_arcs:
        tails = cp.asarray(g.arc_sources())
        Va, Ea, Wa = device_arrays(g)
        mod.get_function("fw_arcs")((_blocks(g.num_arcs),), (BLOCK,),
                                    (tails, Ea, Wa, np.int32(g.num_arcs), D, np.int32(npad)))
    nt = npad // 32
    p1, p2, p3 = (mod.get_function(f"fw_phase{i}") for i in (1, 2, 3))
    for k in range(nt):
        p1((1,), (32, 32), (D, np.int32(npad), np.int32(k)))
        p2((nt, 2), (32, 32), (D, np.int32(npad), np.int32(k)))
        p3((nt, nt), (32, 32), (D, np.int32(npad), np.int32(k)))
    out = D[:n, :n]
    return cp.where(out >= (1 << 61), -1, out)
