"""What a billboard run will cost, known before it runs (issue 40): the sampled method's
time and memory projected from a pilot, the exact method's time from one timed search.

Sampled: the plan's first :data:`PILOT_SAMPLES` pairs are drawn (and kept: the run goes
on from there, so no path is drawn twice); their time per sample and entries (interior
vertices of the drawn paths) per sample, times the plan's L samples, give the drawing time
and the entries' memory (:data:`BYTES_PER_ENTRY`); K greedy rounds each scan the entries
(:data:`SCAN_S_PER_ENTRY`). Memory is checked against the host's available memory (CPU)
or the device's free memory (CuPy: the entries live there), and a run that cannot fit is
refused with :class:`~gpu_core.errors.MemoryLimitError` before the long part starts.
Exact: K rounds of one search per source; the time of one search, measured, times them.
Both are logged (``-v`` shows them)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from ..errors import MemoryLimitError

log = logging.getLogger(__name__)

PILOT_SAMPLES = 64
# int64 sample number + int32 vertex per entry, drawn in parts then concatenated (twice
# the entries at the peak), then the Cover's masked copies in the first round: 3 x 12.
BYTES_PER_ENTRY = 36
# one greedy round scans every entry (mask, bincount): seconds per entry, by backend
SCAN_S_PER_ENTRY = {"cpu": 4e-9, "cupy": 5e-11}


@dataclass(frozen=True)
class SampledEstimate:
    """The projection of a sampled run of ``samples`` pairs and ``k`` rounds."""

    samples: int
    k: int
    backend: str
    pilot: int  # samples drawn to measure
    pilot_s: float
    pilot_entries: int

    @property
    def entries(self) -> int:
        return int(self.pilot_entries / max(self.pilot, 1) * self.samples)

    @property
    def memory_bytes(self) -> int:
        return self.entries * BYTES_PER_ENTRY

    @property
    def draw_s(self) -> float:
        return self.pilot_s / max(self.pilot, 1) * self.samples

    @property
    def select_s(self) -> float:
        return self.k * self.entries * SCAN_S_PER_ENTRY.get(self.backend, 4e-9)

    def describe(self) -> str:
        return (f"{self.samples:,} sampled searches (about {self.draw_s:.3g} s, from "
                f"{self.pilot} timed) and {self.k:,} greedy rounds over about "
                f"{self.entries:,} path entries (about {self.select_s:.3g} s); memory about "
                f"{_mib(self.memory_bytes)}")


def _mib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def pilot(run_chunk, samples: int, k: int, backend: str, pilot_samples: int | None = None):
    """Draw the first ``min(pilot_samples, samples)`` pairs with ``run_chunk(lo, hi)`` (it
    returns (sample numbers, vertices, reached flags)) and project the whole run. Returns
    (that chunk's result, :class:`SampledEstimate`); the caller keeps the chunk."""
    p = min(int(PILOT_SAMPLES if pilot_samples is None else pilot_samples), int(samples))
    t0 = time.perf_counter()
    es, ev, rr = run_chunk(0, p)
    t = time.perf_counter() - t0
    est = SampledEstimate(int(samples), int(k), backend, p, t, int(es.size))
    return (es, ev, rr), est


def available_for(backend: str) -> int:
    """Bytes the run's entries may take: the device's free memory on CuPy, else the
    host's available memory."""
    if backend == "cupy":
        from ..device.memory import free_memory

        return int(free_memory()[0])
    from osutil.memory import available_memory

    return int(available_memory())


def check_sampled(est: SampledEstimate) -> None:
    """Log ``est`` and refuse (MemoryLimitError, one line) a run whose entries would not
    fit in the memory :func:`available_for` its backend."""
    log.info("billboards: %s", est.describe())
    have = available_for(est.backend)
    if est.memory_bytes > have:
        where = "GPU" if est.backend == "cupy" else "host"
        raise MemoryLimitError(
            f"billboards with K={est.k:,} ({est.samples:,} sampled paths of about "
            f"{est.entries / max(est.samples, 1):.0f} vertices each, {where} memory)",
            est.memory_bytes, have,
            "give a smaller K or a larger --epsilon, or --method exact")


def log_exact(k: int, sources: int, search_s: float) -> float:
    """Log the exact method's projected time: K rounds of ``sources`` searches of
    ``search_s`` each (the first, measured); returns it."""
    total = float(k) * float(sources) * search_s
    log.info("billboards: exact method, %d rounds x %d searches of about %.3g ms: about "
             "%.3g s", k, sources, search_s * 1000, total)
    return total
