"""The sampled billboards' draw hooks on a Dask cluster (``gpu_core.betweenness.sampling``'s
``DrawPaths`` and ``KeptPaths``): the paths drawn in blocks of sample numbers on the workers
and kept there (:class:`KeptDraw`: each greedy round sums the workers' per-vertex counts
here) or shipped here (:class:`SampledDraw`). The cluster, the map's trip and the ordered
blocks are :mod:`app.jobs.distributed`'s; what a worker runs is :mod:`app.jobs.dask_worker`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import numpy as np

from .distributed import (
    RETRIES,
    DistributedError,
    busy_by_worker,
    ordered_results,
    require_dask,
    ship_map,
    split_rows,
    sweep_unit,
)


class _WorkerDraw:
    """What both draw hooks share: the map (and route index) shipped to the workers once,
    their sampling kernels warmed there."""

    def __init__(self, client, net, *, backend: str, mode: str, hierarchy=None,
                 index_path: str = "", block: int | None = None):
        self.client, self.mode, self.block = client, mode, block
        self.ship = ship_map(client, net, backend, hierarchy, index_path,
                             warm=("sample", mode))
        # the indexed GPU sampler draws a sweep's width of pairs at a time: whole sweeps a block
        self.width = (sweep_unit(client, self.ship, 0) if backend == "cupy"
                      and hierarchy is not None else 1)
        self.kernel = f"dask {backend}"
        self.blocks = 0
        self.busy: dict = {}  # worker -> seconds per kind of work (busy_by_worker)

    def blocks_of(self, srcs: np.ndarray, tgts: np.ndarray, hash_seed: int, base: int,
                  ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """Samples base..base+len(srcs) in blocks on the workers, in order: (end of the
        block relative to ``base``, sample numbers, vertices, reached flags)."""
        from .dask_worker import sample_block

        L = int(srcs.shape[0])
        workers = max(1, len(self.ship.workers))
        rows = self.block or split_rows(L, self.width, workers)
        count = -(-L // rows)
        self.blocks += count

        def submit(i: int, key: str):
            lo = i * rows
            return self.client.submit(sample_block, *self.ship.args(), self.mode,
                                      srcs[lo:lo + rows], tgts[lo:lo + rows],
                                      hash_seed, base + lo, key=key, retries=RETRIES)

        for i, (es, ev, reached, kernel) in ordered_results(self.client, submit, count,
                                                            window=count):
            self.kernel = f"dask {kernel}"
            yield min(L, (i + 1) * rows), es, ev, reached


class SampledDraw(_WorkerDraw):
    """The sampled billboards' ``draw`` hook (``gpu_core.betweenness.sampling.DrawPaths``):
    blocks of sample numbers on the workers, entries back in block order (the greedy runs
    on the client). :class:`KeptDraw` keeps them on the workers instead."""

    mode_name = "paths shipped to the client"


    def __call__(self, plan) -> Iterator[tuple[int, np.ndarray, np.ndarray, int]]:
        for hi, es, ev, rr in self.blocks_of(plan.srcs, plan.tgts, plan.hash_seed, 0):
            yield hi, es, ev, int(rr.sum())
        self.busy = busy_by_worker(self.client)


class RoundsDraw(SampledDraw):
    """The progressive rounds' sampler (``gpu_core.betweenness.progressive``, a draw with
    ``sampler`` and ``fold``): each round's new samples drawn in blocks on the workers
    at once, the entries shipped here, where the rounds' greedy and bounds run. A round
    is a few thousand samples where the fixed plan is hundreds of thousands, so its
    entries are small; the paths are keyed by sample number, so the sites, samples and
    bounds are those of one process. ``fold`` (the turn-restricted map's junctions,
    ``app.jobs.billboards_turns``): each vertex the one it counts as."""

    mode_name = "progressive rounds, paths shipped to the client"
    xp = np

    def __init__(self, client, net, *, backend: str, mode: str, hierarchy=None,
                 index_path: str = "", block: int | None = None,
                 fold: np.ndarray | None = None):
        super().__init__(client, net, backend=backend, mode=mode, hierarchy=hierarchy,
                         index_path=index_path, block=block)
        self.backend, self.fold = backend, fold
        self.n = int(net.num_nodes)
        self.sampler = self  # progressive draws through ``draw.sampler``

    def __call__(self, plan):
        """The fixed plan (a cap below the first round), folded as the rounds are."""
        from gpu_core.betweenness.progressive import fold_entries

        for hi, es, ev, reached in super().__call__(plan):
            yield (hi, *fold_entries(np, es, ev, self.fold, self.n), reached)

    def chunk_size(self, total: int) -> int:
        return max(1, total)  # a round at once: its blocks spread over the workers

    def run(self, srcs: np.ndarray, tgts: np.ndarray, hash_seed: int, base: int):
        """(sample numbers, vertices, reached flags) of samples base..base+len(srcs),
        drawn in blocks on the workers at once (``gpu_core.betweenness.PathSampler.run``'s
        answer; the rounds fold the entries)."""
        parts = list(self.blocks_of(srcs, tgts, hash_seed, base))
        self.busy = busy_by_worker(self.client)
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.uint8)
        return tuple(np.concatenate([p[k] for p in parts]) for k in (1, 2, 3))

    def flush(self, hash_seed: int):
        return None  # each block's deferred pairs are drawn in its task

    def note(self) -> str:
        return f"{self.blocks} Dask blocks; "


class KeptDraw(_WorkerDraw):
    """The sampled billboards' ``draw`` hook that keeps the paths on the workers
    (``gpu_core.betweenness.sampling.KeptPaths``): each worker draws blocks of sample
    numbers and keeps their entries (on its GPU when it has one); each greedy round sends
    every worker the sites chosen so far and gets back one per-vertex count vector (int32
    [n]) for the blocks it holds, summed here. Counts are integers, so the sum, and with
    it the sites and gains, are those of one process. A worker lost mid-run: its blocks
    are drawn again where the next round's task lands (the draws are keyed by sample
    number) and replay the chosen sites, so nothing else changes."""

    mode_name = "paths kept on workers"

    def __init__(self, client, net, *, backend: str, mode: str, hierarchy=None,
                 index_path: str = "", block: int | None = None):
        super().__init__(client, net, backend=backend, mode=mode, hierarchy=hierarchy,
                         index_path=index_path, block=block)
        self.redrawn = 0  # blocks drawn again after their worker was lost
        self.moved = 0  # blocks whose round task ran on another worker than their keeper
        self.round_s: list[float] = []  # each greedy round's seconds (counts summed here)
        self.run = uuid.uuid4().hex[:12]
        self.owner: dict[int, str] = {}  # block -> the worker that keeps it
        self.spans: list[tuple[int, int, int]] = []
        self._plan = self._in_r = None

    def draw_kept(self, plan, in_r: np.ndarray) -> Iterator[tuple[int, int, int, int]]:
        from .dask_worker import keep_block

        L = plan.size
        workers = max(1, len(self.ship.workers))
        rows = self.block or split_rows(L, self.width, workers)
        self.spans = [(i, lo, min(L, lo + rows)) for i, lo in enumerate(range(0, L, rows))]
        self.blocks = len(self.spans)
        client = self.client
        self._plan = client.scatter(plan, broadcast=True, hash=False)
        self._in_r = client.scatter(np.asarray(in_r, dtype=bool), broadcast=True, hash=False)

        def submit(i: int, key: str):
            return client.submit(keep_block, *self.ship.args(), self.mode, self.run,
                                 self.spans[i], self._plan, self._in_r, key=key,
                                 retries=RETRIES)

        for i, got in ordered_results(client, submit, self.blocks, window=self.blocks):
            self.owner[i] = got["worker"]
            self.kernel = f"dask {got['kernel']}"
            yield self.spans[i][2], got["reached"], got["entries"], got["base"]

    def counts(self, chosen: list[int]) -> np.ndarray:
        from .dask_worker import block_counts

        t0 = time.perf_counter()
        client = self.client
        by_worker: dict[str, list] = {}
        for span in self.spans:
            by_worker.setdefault(self.owner[span[0]], []).append(span)
        futs = [client.submit(block_counts, *self.ship.args(), self.mode, self.run, spans,
                              self._plan, self._in_r, list(chosen), workers=[w],
                              allow_other_workers=True, pure=False, retries=RETRIES)
                for w, spans in by_worker.items()]
        distributed = require_dask()
        try:
            got = client.gather(futs)
        except distributed.scheduler.KilledWorker as exc:
            client.cancel(futs, force=True)
            raise DistributedError(f"greedy round {len(chosen) + 1} killed the workers that "
                                   f"ran it: {exc}") from None
        except distributed.client.FutureCancelledError:
            raise DistributedError(f"greedy round {len(chosen) + 1} was cancelled by the "
                                   "cluster") from None
        except BaseException:
            client.cancel(futs, force=True)
            raise
        total = None
        for spans, (where, cnt, redrawn) in zip(by_worker.values(), got, strict=True):
            total = cnt.astype(np.int64) if total is None else total + cnt
            self.redrawn += redrawn
            for span in spans:  # a task that ran elsewhere (its worker lost) moved them
                self.moved += int(self.owner[span[0]] != where)
                self.owner[span[0]] = where
        self.round_s.append(time.perf_counter() - t0)
        assert total is not None  # a plan has one sample or more: one block or more
        return total

    def close(self) -> None:
        """Free the workers' blocks of this run."""
        from .dask_worker import drop_run

        self.busy = busy_by_worker(self.client)
        try:
            self.client.run(drop_run, self.run)
        except (OSError, RuntimeError, TimeoutError):  # a closed client or a lost worker
            pass
