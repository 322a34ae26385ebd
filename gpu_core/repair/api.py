"""Incremental repair of shortest-path trees after map edits (issue 15 part 2).

``repair(graph, previous, edits)`` takes a :class:`~gpu_core.dynamic.MutableGraph` after
``edits`` (the ``EditSummary`` of each applied batch, in order) and the ``SSSPResult`` of
the graph before them, and returns what ``gpu_core.sssp(graph, previous.sources)`` returns
on the edited graph -- dist and pred bit-identical, always -- by re-settling only the part
the edits touch, or by a fresh search when that part is large (``RepairResult.method``
and ``reason`` say which ran).

Why it is exact. Keys are shortest-path lengths under w' = w << hop_bits | 1 >= 1, so a
vertex's key is its distance in a graph with positive weights. (1) A vertex whose old tree
path uses no raised or closed arc still has that path: its old key is an upper bound of
its new one. The others lie in the pred-subtrees below the heads of raised/closed tree
arcs ("roots"); they are invalidated (key INF, also an upper bound). (2) Every live arc
(u, v) between kept keys that was not lowered satisfies key[v] <= key[u] + w' as before;
the arcs that may violate it end at an invalidated vertex (seeded with its best valid
in-neighbour) or were lowered/opened/inserted (seeded with key[u] + w'). (3) A search
from the seeds that accepts improvements only leaves every arc consistent: consistent
upper bounds with key 0 at the sources are the exact distances. (4) pred[v] depends on
key[v], its in-neighbours' keys and its in-arcs: it is recomputed for the invalidated and
lowered vertices, their out-neighbours and the heads of edited arcs; nowhere else can it
change (zero-weight arcs and ties included: the rule is a pure function of those).

``repair_rows`` applies the same test to many-source distance rows.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..backend import describe_backend, resolve_backend
from ..dynamic.api import EditSummary, MutableGraph
from ..errors import CancelledError, InvalidArgumentError
from ..sssp.api import SSSPResult, sssp
from ..telemetry import MODE_CODE, PhaseLog
from .plan import as_summaries, edited_key_space, make_plan, net_edits

PhaseCallback = Callable[[PhaseLog], None]
CancelCheck = Callable[[], bool]


@dataclass(frozen=True)
class RepairOptions:
    """When to give up and search afresh. On the GPU the device-time budget decides in
    practice (``budget_fraction``, measured with ``signpost bench edits``,
    docs/perf/edits.md: a repair's time follows the depth of what it re-settles). Both
    backends also stop once more than ``max_affected`` vertices are re-settled (None:
    ``max_affected_fraction`` of the graph, at least ``min_affected``): the CPU backend's
    only limit, and the size of the GPU's work lists; those defaults are a judgement (a
    CPU repair of 5% of a map is still well below a fresh search), not a sweep."""

    max_affected: int | None = None
    max_affected_fraction: float = 0.05
    min_affected: int = 4096
    # CUDA: device rounds of the settle at most (each a block-wide barrier) before a fresh
    # search is cheaper
    max_rounds: int = 4096
    # CUDA: the repair kernel gives up after this share of a fresh search's time (the
    # previous search's, carried along a chain of repairs as extra["fresh_s"]): a deep
    # subtree costs a round per level, and giving up early bounds what a fallback loses
    # (docs/perf/edits.md). None: no time budget.
    budget_fraction: float | None = 0.05
    fresh_strategy: str = "auto"  # what a fallback runs

    def limit(self, n: int) -> int:
        if self.max_affected is not None:
            return max(0, int(self.max_affected))
        return max(int(self.min_affected), int(self.max_affected_fraction * n))


@dataclass
class RepairResult(SSSPResult):
    """An SSSPResult plus how it was made: ``method`` "repair" or "fresh", the vertices
    re-settled (``affected``; the whole graph for "fresh") and why a fresh search ran
    (``reason``, "" otherwise). ``extra``: ``fresh_s`` (a fresh search's time on this
    graph, carried along a chain of repairs: the GPU's time budget), ``changed`` (vertices
    whose pred was recomputed); on the GPU also ``rounds`` (settle rounds) and ``gpu_ms``
    (CUDA events around the device part)."""

    method: str = "repair"
    affected: int = 0
    reason: str = ""


def _check(graph, previous) -> None:
    if not isinstance(graph, MutableGraph):
        raise InvalidArgumentError(
            f"repair needs the MutableGraph the edits were applied to, not "
            f"{type(graph).__name__}")
    if not isinstance(previous, SSSPResult):
        raise InvalidArgumentError(
            f"previous must be an SSSPResult (gpu_core.sssp's), not {type(previous).__name__}")


def _fresh(graph: MutableGraph, previous: SSSPResult, which: str, opts: RepairOptions,
           reason: str, t0: float, on_phase, cancel) -> RepairResult:
    t1 = time.perf_counter()
    res = sssp(graph, previous.sources, strategy=opts.fresh_strategy, backend=which,
               on_phase=on_phase, cancel=cancel)
    fields = {f.name: getattr(res, f.name) for f in dataclasses.fields(SSSPResult)}
    fields["elapsed_s"] = time.perf_counter() - t0
    fields["extra"] = {**res.extra, "fresh_s": time.perf_counter() - t1}
    return RepairResult(**fields, method="fresh", affected=int(graph.num_nodes),
                        reason=reason)


def kernels_ready(backend: str = "auto") -> bool:
    """True when a repair on ``backend`` needs no numba compilation (the CPU's kernels are
    compiled in this process or in numba's cache; other backends compile none): a caller
    that must not compile (a window, issue 41) searches afresh meanwhile."""
    if resolve_backend(backend) != "cpu":
        return True
    from .cpu import kernels_ready as cpu_ready

    return cpu_ready()


def compile_host_passes() -> None:
    """Compile (or load) the big-map pass that grows a result (a warm-up's: until it is
    compiled, numpy's copies run)."""
    from .cpu import compile_extend

    compile_extend()


def fresh_estimate(previous: SSSPResult) -> float | None:
    """Seconds a fresh search took on this graph, as far as ``previous`` knows: its own
    time when it is a search, else what the chain of repairs carried along."""
    got = previous.extra.get("fresh_s") if previous.extra else None
    if got:
        return float(got)
    if previous.strategy != "repair" and previous.elapsed_s > 0:
        return float(previous.elapsed_s)
    return None


def _why_fresh(graph: MutableGraph, previous: SSSPResult, summaries, ks) -> str:
    """Why the repair cannot start from ``previous`` ("" when it can)."""
    if previous.key is None or previous.key_space is None:
        return "the previous result carries no keys"
    if previous.target is not None:
        return "the previous result stopped at a target (a partial tree)"
    if previous.key_space.negative:
        return "negative arc weights"
    if ks != previous.key_space:
        return (f"the key space changed (hop bits {previous.key_space.hop_bits} -> "
                f"{ks.hop_bits}): every key differs")
    return ""


def repair(graph: MutableGraph, previous: SSSPResult,
           edits: EditSummary | Sequence[EditSummary], *, backend: str = "auto",
           options: RepairOptions | None = None, on_phase: PhaseCallback | None = None,
           cancel: CancelCheck | None = None) -> RepairResult:
    """``gpu_core.sssp(graph, previous.sources)`` on the edited ``graph``, repaired from
    ``previous`` (the result before ``edits``). ``backend`` "auto" follows the graph's
    (a cupy MutableGraph repairs on the GPU from its device copy). Raises
    InvalidArgumentError (a graph / result / edits that do not belong together),
    CancelledError, GpuOutOfMemoryError."""
    t0 = time.perf_counter()
    _check(graph, previous)
    summaries = as_summaries(edits)
    opts = options or RepairOptions()
    which = graph.backend if backend == "auto" else resolve_backend(backend)
    if which == "cupy" and graph.device is None:
        raise InvalidArgumentError(
            "the MutableGraph keeps no device copy (made with backend='cpu'): repair it "
            "with backend='cpu', or make the graph with backend='cupy'")
    n = graph.num_nodes
    n_old = int(previous.pred.shape[0])
    added = sum(int(s.added_vertices.size) for s in summaries)
    if n_old + added != n:
        raise InvalidArgumentError(
            f"the previous result has {n_old} vertices and the edits add {added}, but the "
            f"graph has {n}: pass the result from before exactly these edits")
    if cancel is not None and cancel():
        raise CancelledError("repair cancelled")
    ks = edited_key_space(graph, summaries)
    reason = _why_fresh(graph, previous, summaries, ks)
    if reason:
        return _fresh(graph, previous, which, opts, reason, t0, on_phase, cancel)
    assert previous.key is not None  # else _why_fresh gave a reason
    plan = make_plan(graph, summaries, ks, previous.key, previous.pred)
    limit = opts.limit(n)
    if which == "cupy":
        from .cuda import run
    else:
        from .cpu import run
    fresh_s = fresh_estimate(previous)
    budget = opts.budget_fraction * fresh_s if opts.budget_fraction and fresh_s else None
    got = run(graph, previous, plan, ks, limit, opts, budget)
    status, key, pred, dist, affected, rows, extra = got
    if fresh_s:
        extra["fresh_s"] = fresh_s
    if status != "ok":
        return _fresh(graph, previous, which, opts, status, t0, on_phase, cancel)
    phases = PhaseLog.from_columns([r[1] for r in rows], [r[2] for r in rows],
                                   [r[3] for r in rows], [MODE_CODE[r[0]] for r in rows])
    if on_phase is not None:
        on_phase(phases)
    return RepairResult(
        dist=dist, pred=pred, phases=phases, strategy="repair", backend=which,
        device=describe_backend("cpu" if which == "cpu" else "auto"),
        sources=previous.sources, elapsed_s=time.perf_counter() - t0, extra=extra, key=key,
        key_space=ks, method="repair", affected=int(affected), reason="")


def repair_rows(graph: MutableGraph, sources, dist: np.ndarray,
                edits: EditSummary | Sequence[EditSummary], *, backend: str = "auto"
                ) -> tuple[np.ndarray, np.ndarray]:
    """Many-source rows (``dist[i]`` = costs from ``sources[i]`` before ``edits``, -1
    unreachable) on the edited graph: (new k x n matrix, indices of the rows recomputed).
    A row is recomputed only if an edited arc was tight in it with its old weight (a
    closure or increase may lengthen it) or now improves it (a decrease, reopening or new
    arc); the others cannot change (the argument of the module doc, on plain costs)."""
    from ..multi_source import multi_source_sssp

    if not isinstance(graph, MutableGraph):
        raise InvalidArgumentError(
            f"repair_rows needs the MutableGraph the edits were applied to, not "
            f"{type(graph).__name__}")
    summaries = as_summaries(edits)
    dist = np.asarray(dist)
    src = np.atleast_1d(np.asarray(sources)).astype(np.int64)
    n = graph.num_nodes
    added = sum(int(s.added_vertices.size) for s in summaries)
    if dist.ndim != 2 or dist.shape[0] != src.size or dist.shape[1] + added != n:
        raise InvalidArgumentError(
            f"dist has shape {dist.shape}: expected ({src.size}, {n - added}) for "
            f"{src.size} sources on the graph before these edits")
    h = graph.host
    ids, st0, w0 = net_edits(graph, summaries)
    t, hd = h.tail[ids].astype(np.int64), h.head[ids].astype(np.int64)
    from ..dynamic.layout import ARC_LIVE

    old_live, new_live = st0 == ARC_LIVE, h.state[ids] == ARC_LIVE
    wo, wn = w0.astype(np.int64), h.weight[ids].astype(np.int64)
    inf = np.iinfo(np.int64).max // 4
    full = np.full((src.size, n), inf, np.int64)
    full[:, : dist.shape[1]] = np.where(dist < 0, inf, dist)
    du, dv = full[:, t], full[:, hd]
    raised = old_live & (~new_live | (wn > wo))
    lowered = new_live & (~old_live | (wn < wo))
    tight = raised[None, :] & (du < inf) & (du + wo[None, :] == dv)
    better = lowered[None, :] & (du < inf) & (du + wn[None, :] < dv)
    rows = np.flatnonzero((tight | better).any(axis=1))
    out = np.full((src.size, n), -1, np.int64)
    out[:, : dist.shape[1]] = dist
    if rows.size:
        which = graph.backend if backend == "auto" else backend
        out[rows] = multi_source_sssp(graph, src[rows], backend=which).dist
    return out, rows
