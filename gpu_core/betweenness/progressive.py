"""Progressive sampling for the sampled greedy (issue 43): the fixed method's guarantee from
far fewer samples, stopping on a data-dependent bound (OPIM-C, Tang, Tang, Xiao, Yuan,
SIGMOD 2018; in the spirit of CentRA, Pellegrina KDD 2023).

The pairs are a prefix of one plan drawn for the cap (``draw_plan`` under ``seed``), each
path keyed by its sample number as in ``sampling``: the same seed gives the same samples,
sites and bounds on the CPU and the GPU. Round r uses the first L_r ≈ L_0·1.5^r samples
(L_0 = ``FIRST_SAMPLES``, ``GROWTH``); even sample numbers train, odd ones hold out
(n1, n2 samples).

Per round, with a = ln(3/δ_r) and δ_r = (δ/2)/R over the R progressive rounds (union bound):

* greedy on the training half gives S (K sites) and, at every prefix S_j (j = 0..K), the
  bound cov1(OPT) <= cov1(S_j) + (sum of the K largest marginal counts over S_j)
  (submodularity); Λ = the least of these;
* OPT is one fixed set (not chosen from the data), so the Chernoff-Hoeffding bound in
  relative-entropy form, P(p^ <= p - t) <= exp(-n1·KL(p - t || p)), gives w.p. >= 1 - δ_r/3
  f(OPT) <= f_up = the largest q >= Λ/n1 with n1·KL(Λ/n1 || q) <= a;
* S does not depend on the hold-out half; with X its covered hold-out samples, w.p.
  >= 1 - 2δ_r/3, f(S) lies in [f_lo, f_hi], the two KL inversions around X/n2 (variance-
  aware: about ±sqrt(2 f(1-f) a / n2), where Hoeffding's worst case gives ±sqrt(a/(2 n2))).

It stops when ε_r = max((1 - 1/e)·f_up - f_lo, f_hi - f_lo) <= ε: then SB(S) >= (1 - 1/e)·OPT
- ε·A·B and SB(S) lies within ε·A·B (the hold-out interval) of its estimate, as the fixed
bound promises (shares f are SB / (A·B); the endpoint slack is added as there). Failing
that, the last round is the fixed method on ``sample_size(K, n, ε, δ/2)`` samples (the cap,
2·ln 2/ε² more than the fixed bound at δ: the other δ/2 paid for the early rounds). The
failure probability over all rounds is at most δ/2 + δ/2 = δ. docs/perf/
billboards_progressive.md has the derivation and measurements.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Generator

import numpy as np

from ..errors import CancelledError
from ..graph import CSRGraph
from .common import BillboardProgress, BillboardResult
from .round_entries import RoundEntries
from .round_entries import warm as warm_cover
from .sampling import PathSampler, draw_plan, on, sample_size

log = logging.getLogger(__name__)

SAMPLINGS = ("progressive", "fixed")
FIRST_SAMPLES = 512  # samples of the first round (both halves)
# Growth per round, fixed in advance (the union bound counts the rounds): 1.5 stops nearer
# the size needed than doubling (measured: doubling stopped at epsilon_at_stop 0.035 for
# 0.05), for a slightly larger a = ln(3R/(delta/2)) over more rounds.
GROWTH = 1.5
ONE_MINUS_INV_E = 1.0 - 1.0 / math.e


def _kl(p: float, q: float) -> float:
    """Binary relative entropy KL(p || q)."""
    q = min(max(q, 1e-300), 1.0 - 1e-16)
    out = 0.0
    if p > 0:
        out += p * math.log(p / q)
    if p < 1:
        out += (1 - p) * math.log((1 - p) / (1 - q))
    return out


def lower_share(x: float, n: int, a: float) -> float:
    """Lower confidence bound (KL-Chernoff, failure e^-a) of a fixed set's share from ``x``
    covered of ``n`` samples: the least q <= x/n with n·KL(x/n || q) <= a."""
    return 0.0 if n <= 0 else _kl_edge(min(max(x / n, 0.0), 1.0), n, a, upper=False)


def upper_share(x: float, n: int, a: float) -> float:
    """Upper confidence bound (KL-Chernoff, failure e^-a) of a share whose sample count is
    at most ``x`` of ``n``: the largest q >= x/n with n·KL(x/n || q) <= a."""
    return 1.0 if n <= 0 else _kl_edge(min(max(x / n, 0.0), 1.0), n, a, upper=True)


def _kl_edge(p: float, n: int, a: float, *, upper: bool) -> float:
    """Bisection for the q on one side of ``p`` where n·KL(p || q) reaches ``a`` (the
    outer end of the bracket: a bound that stays valid)."""
    inside, outside = p, (1.0 if upper else 0.0)
    for _ in range(60):
        mid = 0.5 * (inside + outside)
        if n * _kl(p, mid) > a:
            outside = mid
        else:
            inside = mid
    return outside


def schedule(first: int, cap: int, growth: float = GROWTH) -> list[int]:
    """Sample counts of the rounds: first, then ×growth (even counts) below the cap, then
    the cap."""
    sizes = []
    L = max(2, first)
    while L < cap:
        sizes.append(L)
        L = max(L + 2, 2 * int(math.ceil(L * growth / 2)))
    return sizes + [cap]


def progressive_guarantee(epsilon: float, delta: float) -> str:
    return (f"with probability >= {1 - delta:g}: SB(sites) >= (1-1/e)·OPT - {epsilon:g}·A·B "
            f"and SB(sites) within {epsilon:g}·A·B of its hold-out estimate interval "
            "(A·B: all weighted pairs); epsilon_at_stop is the error certified")


def progressive_billboards(
    g: CSRGraph, k: int, *, w: np.ndarray, unit: bool, a: np.ndarray, b: np.ndarray,
    eligible: np.ndarray, in_r: np.ndarray, backend: str, epsilon: float, delta: float,
    seed: int, cancel: Callable[[], bool] | None, mode: str, hierarchy=None,
    first: int = FIRST_SAMPLES, draw=None, preview: int = 0,
) -> Generator[BillboardProgress, None, BillboardResult]:
    """The sampled greedy with progressive sampling (module doc). Cancel after a round
    returns that round's sites (``stopped_by="cancelled"``) instead of raising.
    ``draw``: a draw with a ``sampler`` (drawing the paths here, or a round's blocks on
    Dask workers: ``app.jobs.dask_draws.RoundsDraw``) and a ``fold`` (None, or each
    vertex the one it counts as: a path's entries folded, repeats dropped; the
    turn-restricted map's junctions, ``app.jobs.billboards_turns``). ``preview`` > 0: the
    first round's first ``preview`` samples are drawn as a block of their own and their
    sites yielded as a partial result (``stopped_by="preview"``: a first answer while the
    round goes on, its bounds said but never used to stop; the rounds, samples and result
    are those of the run without it)."""
    from .sampling import sampled_billboards

    t0 = time.perf_counter()
    n = g.num_nodes
    bound = sample_size(k, n, epsilon, delta)
    cap = sample_size(k, n, epsilon, delta / 2)
    sizes = schedule(first, cap)
    if len(sizes) == 1:  # the cap is below the first round: the fixed method
        res = yield from sampled_billboards(
            g, k, w=w, unit=unit, a=a, b=b, eligible=eligible, in_r=in_r, backend=backend,
            epsilon=epsilon, delta=delta, seed=seed, cancel=cancel, mode=mode,
            hierarchy=hierarchy, draw=draw)
        res.sampling = "progressive"
        return res
    plan = draw_plan(n, cap, a, b, seed)
    a_log = math.log(3.0 / (delta / 2.0 / (len(sizes) - 1)))
    sampler = PathSampler(g, w, unit, backend, hierarchy) if draw is None else draw.sampler
    # the rounds' greedy and bounds run on the host whatever draws the paths
    # (``cover_cpu``: NE's K=20 rounds 0.6 s on a 2-core CPU, where the GPU's array
    # greedy took 1.4 s on an H100 and, on a fresh machine, 13 s more compiling its generic
    # reductions): the same code, so the same sites and bounds, on the CPU and the GPU
    def here(arr):
        return on(np, arr)

    fold = None if draw is None or draw.fold is None else np.asarray(draw.fold, np.int64)
    A, B = float(a.sum()), float(b.sum())
    entries = RoundEntries(n, eligible, in_r)
    reached = [0, 0]  # training, hold-out
    drawn = 0
    best: BillboardResult | None = None
    t_sample = 0.0
    t_tied = 0.0  # of t_sample: the pairs the sampler deferred (several shortest paths)
    for r, L in enumerate(sizes):
        ts = time.perf_counter()
        chunk = sampler.chunk_size(L - drawn)
        starts = list(range(drawn, L, chunk))
        if r == 0 and 0 < preview < L:  # the preview's samples end a block
            starts = [*range(0, preview, chunk), *range(preview, L, chunk)]
        for i, lo in enumerate(starts):
            if cancel is not None and cancel():
                if best is not None:
                    best.stopped_by = "cancelled"
                    return best
                raise CancelledError("billboard sampling cancelled")
            hi = starts[i + 1] if i + 1 < len(starts) else L
            es, ev, rr = sampler.run(plan.srcs[lo:hi], plan.tgts[lo:hi], plan.hash_seed, lo)
            es, ev, rr = fold_entries(np, here(es), here(ev), fold, n) + (here(rr),)
            entries.add(es, ev)
            reached[0] += int(rr[lo % 2::2].sum())
            reached[1] += int(rr[1 - lo % 2::2].sum())
            if r == 0 and hi == preview < L:
                rest = sampler.flush(plan.hash_seed)  # (deferred pairs: in the preview too)
                if rest is not None:
                    entries.add(*fold_entries(np, here(rest[0]), here(rest[1]), fold, n))
                yield _preview(entries, sampler, hi, k, in_r, a, b, A, B,
                               reached, a_log, epsilon, backend, delta, bound, mode,
                               len(sizes), cap, t0)
            yield BillboardProgress(r + 1, len(sizes), hi, cap, phase="sample")
        tf = time.perf_counter()
        rest = sampler.flush(plan.hash_seed)
        if rest is not None:
            entries.add(*fold_entries(np, here(rest[0]), here(rest[1]), fold, n))
        drawn = L
        t_tied += time.perf_counter() - tf
        t_sample += time.perf_counter() - ts
        if L == cap:
            break
        tr = time.perf_counter()
        res = _round(entries, L, k, in_r, a, b, A, B, reached, a_log, epsilon)
        tr = time.perf_counter() - tr
        res.backend, res.kernel, res.delta = backend, sampler.kernel, delta
        res.sample_bound, res.mode = bound, mode
        res.guarantee = progressive_guarantee(epsilon, delta)
        res.phase_s = _phases(t0, t_sample, t_tied)
        res.notes = sampler.note() + res.notes
        res.rounds_time_s = [time.perf_counter() - t0]
        best = res
        log.info("round %d: %d samples, %s, greedy %.3f s, error %.4g, %.2f s so far "
                 "(sample %.2f s)", r + 1, L, entries.describe(), tr, res.epsilon_at_stop,
                 time.perf_counter() - t0, t_sample)
        done = res.epsilon_at_stop <= epsilon
        if done:
            res.stopped_by = "bound"
            return res
        yield BillboardProgress(r + 1, len(sizes), L, cap, phase="sample", partial=res,
                                message=f"{L:,} samples: error {res.epsilon_at_stop:.4g}")
    # the cap: the fixed method on all the cap's samples (its own guarantee at delta/2)
    sites, cov, base = entries.greedy_sites(cap, k)
    scale = A * B / cap
    cum = base + np.cumsum(cov)
    tot = reached[0] + reached[1]
    res = BillboardResult(
        sites=np.asarray(sites, np.int32), gains=scale * np.asarray(cov, np.float64),
        group_betweenness=scale * cum.astype(np.float64), coverage=cum / max(tot, 1),
        pairs=np.full(k, scale * tot), base_group_betweenness=scale * base,
        method="sampled", mode=mode, backend=backend, kernel=sampler.kernel,
        samples=cap, error_bound=0.5 * epsilon * A * B + _slack(in_r, sites, a, b, A, B),
        epsilon=epsilon, delta=delta, sampling="progressive", sample_bound=bound,
        epsilon_at_stop=epsilon, stopped_by="cap", guarantee=progressive_guarantee(
            epsilon, delta),
        notes=f"progressive: reached the cap ({cap} samples, the fixed bound at delta/2)",
        rounds_time_s=[time.perf_counter() - t0], phase_s=_phases(t0, t_sample, t_tied))
    res.notes = sampler.note() + res.notes
    return res


def _phases(t0: float, t_sample: float, t_tied: float) -> dict:
    """Seconds so far: drawing the paths (``sample``; ``tied``: of it, the pairs the
    sampler deferred), the rounds' greedy and bounds (``select``)."""
    return {"sample": t_sample, "tied": t_tied,
            "select": time.perf_counter() - t0 - t_sample}


def _preview(entries: RoundEntries, sampler, L: int, k: int, in_r, a, b, A: float,
             B: float, reached, a_log: float, epsilon: float, backend: str, delta: float,
             bound: int, mode: str, rounds: int, cap: int,
             t0: float) -> BillboardProgress:
    """The first round's first ``L`` samples (all the entries so far) as a partial
    result (``preview``)."""
    res = _round(entries, L, k, in_r, a, b, A, B, reached, a_log, epsilon)
    res.backend, res.kernel, res.delta = backend, sampler.kernel, delta
    res.sample_bound, res.mode = bound, mode
    res.guarantee = progressive_guarantee(epsilon, delta)
    res.stopped_by = "preview"
    res.notes = f"preview: the first {L} samples (the first round goes on); " + res.notes
    res.rounds_time_s = [time.perf_counter() - t0]
    res.phase_s = {"sample": res.rounds_time_s[0]}
    return BillboardProgress(1, rounds, L, cap, phase="sample", partial=res,
                             message=f"first answer from {L:,} samples: error "
                                     f"{res.epsilon_at_stop:.4g}")


def fold_entries(xp, es, ev, fold, n: int):
    """(sample, vertex) entries with each vertex replaced by ``fold[vertex]``, repeats in
    a sample dropped (sorted by sample); unchanged when ``fold`` is None."""
    if fold is None or not es.size:
        return es, ev
    key = xp.unique(es.astype(xp.int64) * n + fold[ev.astype(xp.int64)])
    return key // n, (key % n).astype(xp.int32)


def warm_host_ahead(indexed: bool) -> threading.Thread:
    """The host kernels of a GPU draw, compiled or loaded from numba's cache on a thread
    started now, beside the map's read and the index's load: the rounds' greedy
    (``cover_cpu``) and, with ``indexed``, the tied pairs' walk (``tied_columns``: 0.5 s
    of NE's first K=20 draw on an H100 host loading it, stop 55). A failure is only logged:
    the run reports it."""
    def work() -> None:
        try:
            warm_cover()
            if indexed:
                from .indexed_cpu import warm_tied

                warm_tied()
        except Exception as exc:  # noqa: BLE001 - the run itself reports it
            log.debug("warming the host kernels failed: %s", exc)

    th = threading.Thread(target=work, name="signpost-host-warm", daemon=True)
    th.start()
    return th


def _slack(in_r, sites, a, b, A: float, B: float) -> float:
    """Pairs with an endpoint among the sites, which the estimate counts and SB does not."""
    final = in_r.copy()
    final[list(sites)] = True
    return float(a[final].sum()) * B + A * float(b[final].sum())


def _round(entries: RoundEntries, L: int, k: int, in_r, a, b, A: float, B: float,
           reached: list[int], a_log: float, epsilon: float) -> BillboardResult:
    """Greedy on the training half, bounds from both halves: one round's result."""
    n1, n2 = (L + 1) // 2, L // 2
    sites, lam, hbase, cum = entries.round_cover(L, k)
    x = cum[-1]
    f_lo = lower_share(x, n2, a_log)
    f_hi = upper_share(x, n2, a_log)
    f_up = upper_share(lam, n1, a_log)
    eps_at = max(ONE_MINUS_INV_E * f_up - f_lo, f_hi - f_lo, 0.0)
    scale = A * B / n2
    cuma = np.asarray(cum, np.float64)
    err = max(x / n2 - f_lo, f_hi - x / n2) * A * B + _slack(in_r, sites, a, b, A, B)
    return BillboardResult(
        sites=np.asarray(sites, np.int32), gains=scale * np.diff(cuma, prepend=hbase),
        group_betweenness=scale * cuma, coverage=cuma / max(reached[1], 1),
        pairs=np.full(k, scale * reached[1]), base_group_betweenness=scale * hbase,
        method="sampled", mode="", backend="", kernel="", samples=L, error_bound=err,
        epsilon=epsilon, sampling="progressive", epsilon_at_stop=eps_at,
        notes=(f"progressive: {n1} training + {n2} hold-out samples; f(S) in [{f_lo:.6g}, "
               f"{f_hi:.6g}], f(OPT) <= {f_up:.6g}; ratio >= {f_lo / max(f_up, 1e-300):.4g}"))
