"""PageRank of a map's nodes (networkx's definition; seed 003's vertex program)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

import numpy as np

from app.jobs.common import CancelCheck, Progress, report
from app.jobs.mst import SuperstepSink, superstep_reporter

if TYPE_CHECKING:
    from gpu_core.programs import PageRankResult as Ranks


@dataclass(frozen=True)
class PageRankOptions:
    damping: float = 0.85
    tol: float = 1e-6  # stop when the L1 change < tol × min(nodes, 1000): see stop_limit
    max_iter: int = 100
    backend: str = "auto"
    method: str = "framework"  # framework (the vertex program) | direct (CSR power iteration)


@dataclass
class PageRankResult:
    ranks: Ranks  # rank, iterations, delta, converged
    node_ids: np.ndarray  # source-file id of every node
    compile_s: float = 0.0  # kernels compiled / loaded before the (timed) run

    def top(self, k: int = 10) -> list[tuple[object, float]]:
        """The k highest-ranked nodes as (node id, rank), ties by node index."""
        rank = self.ranks.rank
        order = np.lexsort((np.arange(rank.shape[0]), -rank))[:k]
        ids = self.node_ids[order].tolist()
        return list(zip(ids, rank[order].tolist(), strict=True))


# networkx stops when the L1 change < tol × n. The ranks sum to 1, so their L1 change is at
# most 2: on the 1.43M-node map tol × n = 1.43 stopped after one iteration, returning the
# uniform start (issue 42). Past 1,000 nodes the limit stays tol × 1000 (identical to
# networkx's test up to 1,000 nodes; 1e-3 at the default, ~40 iterations on big maps).
STOP_NODES = 1000


def stop_limit(tol: float, nodes: int) -> float:
    """The L1 change below which PageRank stops: ``tol × min(nodes, 1000)``."""
    return tol * min(nodes, STOP_NODES)


def write_csv(fh: TextIO, node_ids: np.ndarray, rank: np.ndarray) -> None:
    """``node_id,rank`` with every float in full precision (`signpost pagerank --out`)."""
    fh.write("node_id,rank\n")
    fh.write("".join(f"{i},{r!r}\n" for i, r in zip(node_ids.tolist(), rank.tolist(),
                                                    strict=True)))


def run(net, opts: PageRankOptions, *, progress: Progress | None = None,
        cancel: CancelCheck | None = None,
        on_superstep: SuperstepSink | None = None) -> PageRankResult:
    from app.jobs.warm_up import warm
    from gpu_core.programs import pagerank

    report(progress, 0.0, "PageRank: loading the kernels")
    compile_s = warm("pagerank", opts.backend, opts.method)
    report(progress, 0.0, "PageRank")
    n = max(int(net.num_nodes), 1)
    res = pagerank(net, damping=opts.damping, tol=stop_limit(opts.tol, n) / n,
                   max_iter=opts.max_iter,
                   backend=opts.backend, method=opts.method,
                   on_superstep=superstep_reporter(progress, "PageRank", on_superstep),
                   cancel=cancel)
    report(progress, 1.0, f"{res.iterations} iterations")
    return PageRankResult(res, net.node_labels(), compile_s)
