"""The exact greedy's CPU engine (``api.billboards``): one round's gains over chunks of
sources by the lane kernels (``cpu_lanes``), the tight-arc DAGs kept for later rounds.
The keep budget and the queue's probe stay in ``api``, which hands them to the engine it
makes (``api.cpu_engine``): this module imports nothing above it."""

from __future__ import annotations

import mmap

import numpy as np

from ..graph import CSRGraph
from .common import CPU_CHUNK_WORK


def plain_pages(size: int, dtype) -> np.ndarray:
    """An array of ``size`` ``dtype`` items in fresh anonymous memory (zeros, mapped as
    written) without numpy's huge-page advice: numpy advises huge pages for arrays of
    4 MB and more, and where the kernel then compacts memory for them (THP ``defrag``
    ``madvise``, as here) a process's first 160 MB cost 0.4-0.5 s of faults, 0.07 s in
    plain pages (issue 41: the kept DAGs of the sample map)."""
    dt = np.dtype(dtype)
    return np.frombuffer(mmap.mmap(-1, max(size * dt.itemsize, 1)), dtype=dt, count=size)


class CpuEngine:
    """One greedy round on the CPU (numba), over chunks of sources."""

    name = "cpu"
    kernel = "cpu"

    def __init__(self, g: CSRGraph, w: np.ndarray, unit: bool, a: np.ndarray, b: np.ndarray,
                 keep: bool = False, *, buckets: int, keep_bytes: int):
        # buckets: Dial's bucket count (0: a heap; api._dial_buckets); keep_bytes: the kept
        # DAGs' budget (api.CPU_KEEP_BYTES)
        self.keep_bytes = keep_bytes
        self.g, self.w, self.unit, self.a, self.b = g, w, unit, a, b
        n = g.num_nodes
        # kept DAGs store vertices as uint16 and tight out-degrees as uint8 where they fit;
        # a search's own DAG rows take the same dtypes (cpu_lanes), so the DAG
        # kernels compile once per map instead of twice (issue 41: ~3 s of a fresh
        # install's first billboards on 2 cores)
        deg_max = int(np.diff(g.indptr).max()) if n else 0
        small = n < (1 << 16) and deg_max < (1 << 8)
        self.dag_dtypes = (np.uint16, np.uint8, np.uint16) if small else (np.int32,) * 3
        self.keep = keep and small
        self.kept = np.zeros(n, dtype=np.bool_)
        self.off = np.zeros((n, 4), dtype=np.int64)  # order/deg offset, length; heads'
        self.kept_bytes = 0
        self._sizes = [0, 0]  # vertex entries and heads in the pools
        self._buf: tuple | None = None  # chunk buffers of the searched sources' DAGs
        # the kept DAGs (order, degrees, heads), packed straight into arrays sized at first
        # for every source's (only the pages written are memory), not into pieces joined
        # later: the join copied the ~160 MB of the sample map again (issue 41)
        self.pools: tuple[np.ndarray, np.ndarray, np.ndarray] = tuple(  # type: ignore[assignment]
            np.empty(0, x) for x in self.dag_dtypes)  # the rows' dtypes: one replay kernel
        self.buckets = 0 if unit else buckets

    def chunk_size(self, total: int) -> int:
        from .cpu_lanes import LANES

        by_work = int(CPU_CHUNK_WORK // max(self.g.num_arcs + self.g.num_nodes, 1))
        return max(LANES, min(max(64, -(-total // 20)), by_work))

    def searches_ahead(self) -> bool:
        """Whether a round's searches may all run before its sums (:meth:`search`: their
        DAGs kept; the sums then replay them): a K > 1 greedy on a small map."""
        return self.keep

    def compile_search(self) -> None:
        """Compile (or load) the search kernel this engine's rounds call, on a tiny graph."""
        from .cpu_lanes import compile_search

        compile_search((self.g.indptr.dtype, self.g.indices.dtype), self.dag_dtypes,
                       self.buckets > 0)

    def search(self, in_r: np.ndarray, sources: np.ndarray) -> None:
        """Search the sources not kept yet and keep their DAGs (while the keep budget
        lasts; :meth:`run` searches the others again). The first call starts compiling
        the replay kernel on a thread (``cpu_lanes.compile_replay_ahead``): on a fresh
        install it compiles while these searches run (issue 41)."""
        from .cpu_lanes import compile_replay_ahead

        if not self.keep or self.kept_bytes >= self.keep_bytes:
            return
        c_order, c_deg, c_heads, c_len = self._search(in_r, sources.astype(np.int32))
        compile_replay_ahead(self.dag_dtypes)
        if c_order.shape[0]:
            self._keep(sources.astype(np.int32), c_order, c_deg, c_heads, c_len)

    def run(self, in_r: np.ndarray, sources: np.ndarray):
        from .cpu_lanes import LANES, replay_rows

        srcs = sources.astype(np.int32)
        c_order, c_deg, c_heads, c_len = self._search(in_r, srcs)
        # (the last chunk kept may pass the budget by its own size)
        if c_order.shape[0] and self.keep and self.kept_bytes < self.keep_bytes:
            self._keep(srcs, c_order, c_deg, c_heads, c_len)  # rows still replayed below
        return replay_rows(in_r, self.a, self.b, srcs, LANES, *self.pools, self.off, c_order,
                           c_deg, c_heads, c_len)

    def _search(self, in_r: np.ndarray, srcs: np.ndarray) -> tuple:
        """The DAG rows (order, degrees, heads, lengths) of ``srcs`` not kept: row j is
        ``srcs[j]``'s (no rows of order, degrees and heads when every source is kept)."""
        from .cpu_lanes import LANES, search_rows

        g = self.g
        n, m = g.num_nodes, g.num_arcs
        rows = 0 if self.kept[srcs].all() else srcs.size
        if self._buf is None or self._buf[0].shape[0] < rows:  # reused: no page faults
            vo, dg, hd = self.dag_dtypes
            self._buf = (plain_pages(rows * n, vo).reshape(rows, n),
                         plain_pages(rows * n, dg).reshape(rows, n),
                         plain_pages(rows * m, hd).reshape(rows, m))
        c_order, c_deg, c_heads = (x[:rows] for x in self._buf)
        c_len = np.zeros((srcs.size, 2), np.int64)  # every source's: 0 where kept
        if rows:
            search_rows(g.indptr, g.indices, self.w, self.unit, in_r, self.a, srcs, LANES,
                        self.kept, c_order, c_deg, c_heads, c_len, self.buckets)
        return c_order, c_deg, c_heads, c_len

    def _keep(self, srcs, c_order, c_deg, c_heads, c_len) -> None:
        """Pack the searched sources' DAGs (rows of the chunk buffers) into the pools."""
        from .cpu import pack_rows

        got = c_len[:, 0] > 0
        if not got.any():
            return
        cnt, nh = c_len[got, 0], c_len[got, 1]
        v0, h0 = self._sizes
        tv, th = int(cnt.sum()), int(nh.sum())
        self._room(v0 + tv, h0 + th)
        order, deg, heads = self.pools
        pack_rows(c_order, c_deg, c_heads, c_len,
                  out=(order[v0:v0 + tv], deg[v0:v0 + tv], heads[h0:h0 + th]))
        self.kept_bytes += tv * (order.itemsize + deg.itemsize) + th * heads.itemsize
        s = srcs[got]
        vo = v0 + np.concatenate(([0], np.cumsum(cnt)[:-1]))
        ho = h0 + np.concatenate(([0], np.cumsum(nh)[:-1]))
        self.off[s] = np.stack([vo, cnt, ho, nh], axis=1)
        self.kept[s] = True
        self._sizes = [v0 + tv, h0 + th]

    def _room(self, nv: int, nh: int) -> None:
        """Pools of at least ``nv`` vertex entries and ``nh`` heads. First sized for every
        source's DAG (at most n entries and m heads each) within the keep budget; past it
        (the last chunk kept may pass the budget) grown twice, copying what they hold."""
        order, deg, heads = self.pools
        if nv <= order.size and nh <= heads.size:
            return
        n, m = self.g.num_nodes, self.g.num_arcs
        iv = order.itemsize + deg.itemsize
        cv = max(nv, 2 * order.size, min(n * n, self.keep_bytes // iv))
        ch = max(nh, 2 * heads.size, min(n * m, self.keep_bytes // heads.itemsize))
        grown = (plain_pages(cv, order.dtype), plain_pages(cv, deg.dtype),
                 plain_pages(ch, heads.dtype))
        v, h = self._sizes
        for x, y, k in zip(grown, self.pools, (v, v, h), strict=True):
            x[:k] = y[:k]
        self.pools = grown
