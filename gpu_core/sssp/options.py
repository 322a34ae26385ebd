"""The knobs of a search: :class:`SSSPOptions` (with :class:`AutoTuning` for the CUDA
``auto`` schedule), frozen and passed to every call. Below both ``api`` and the backend
drivers, so a strategy module annotates with them without importing ``api`` (issue 38);
``gpu_core.sssp.api`` re-exports them."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class AutoTuning:
    """Knobs of the CUDA ``auto`` schedule (the benchmark sweeps them; defaults are the
    measured best, see docs/perf/sssp_gpu.md). blocks_per_sm is capped by the kernel's
    occupancy."""

    # "nearfar" (buckets), "bf" (unordered asynchronous worklist) or "by_weights": nearfar
    # when the arc weights are spread (coefficient of variation > WEIGHT_CV_NEARFAR, e.g.
    # seed 001's walking times), else bf (e.g. uniform 1..1000 on DIMACS NE)
    schedule: str = "by_weights"
    delta_factor: float = 16.0  # bucket width = this x mean arc weight
    buckets: int = 64  # ring of bucket lists (n int32 each) before the overflow list
    local_queue: int = 128  # entries of a block's shared-memory queue per round
    block: int = 256  # threads per block of the persistent kernels
    lanes: int = 4  # threads per work item (a vertex's arcs side by side)
    # read a head's key before its atomicMin (nearfar only; auto_bf always prechecks).
    # Off: one dependent L2 read less per hop, same relaxations (measured: docs/perf/tuning_defaults.md)
    precheck: bool = False
    stage: bool = True  # nearfar: stage far-bucket pushes in shared memory (sssp_auto.cu)
    blocks_per_sm: int = 2
    local_rounds: int = 64  # nearfar; bf uses bf_local_rounds
    bf_local_rounds: int = 32  # faster than 64 on road maps (docs/perf/tuning_defaults.md)
    launch_phases: int = 8192  # phases per persistent launch (cancel/on_phase between them)
    batch_phases: int = 64  # one-phase launches queued per read-back when not cooperative
    cooperative: bool = True


def _env_fused() -> bool:
    return os.environ.get("SIGNPOST_ADAPTIVE_FUSED", "0") == "1"


@dataclass(frozen=True)
class SSSPOptions:
    """Knobs of the strategies; defaults are what ``auto`` and the CLI use."""

    target: int | None = None  # stop once this vertex is settled
    delta: int | None = None  # bucket width in cost units for "delta" (None: chosen from the graph)
    switch_up_us: float = 350.0  # adaptive, seed 001: frontier -> full when mean phase time exceeds
    switch_down_us: float = 330.0  # adaptive, seed 001: full -> frontier when it falls below
    # "frontier" (our signal: the frontier size UPDATE counts anyway, no extra pass) won
    # (docs/perf/sssp_gpu.md); "time" is seed 001's host-measured phase time.
    adaptive_signal: str = "frontier"
    frontier_fraction: float = (
        0.02  # "frontier" signal: full launch when frontier > this share of |V|
    )
    auto: AutoTuning = AutoTuning()  # CUDA auto's schedule
    # CUDA adaptive (frontier signal, no target) runs on the device in launches of this many
    # phases (cancel / on_phase between launches)
    adaptive_launch_phases: int = 1024
    # adaptive_fused (one grid barrier per phase, no UPDATE pass) instead of adaptive_device
    # (two barriers): both exact and tested; fused measured slower (docs/perf/tuning_defaults.md: its full phases
    # pay a stamp atomic per improved head), so off unless SIGNPOST_ADAPTIVE_FUSED=1
    adaptive_fused: bool = field(default_factory=_env_fused)
    # what "auto" runs on the CPU: "delta" (near-far, default delta; the fastest measured,
    # docs/perf/sssp_cpu.md) or "heap" (sequential binary-heap Dijkstra, for comparison)
    cpu_auto: str = "delta"
    cpu_batch_phases: int = 4096  # CPU: phases per compiled batch at most (cancel/on_phase)
    # CPU "auto" on small work: scipy's Dijkstra, bit-identical and with no compilation
    # (cpu/small.py); the app sets it on small maps (app.jobs.common.small_work)
    small_work: bool = False
