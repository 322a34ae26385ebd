"""Every SSSP strategy, declared once: the CLI choices, validation, both backends' dispatch,
the benchmark lists and the docs table are all read from :data:`REGISTRY`.

Adding a strategy = its own files (a CPU ``setup`` in ``sssp/cpu/``, a CUDA ``search`` in
``sssp/cuda/`` with its ``.cu``) plus ONE line below. The entry points are
``"module:function"`` strings, imported on first use (so importing the registry imports
neither numba nor CuPy):

* ``cpu``: ``setup(s: CpuSearch) -> step`` where ``step() -> int`` runs one compiled batch
  of phases (see ``sssp/cpu/driver.py``);
* ``cuda``: ``search(g, sources, ks, opts, rec) -> (key, pred)`` on the current device
  (see ``sssp/cuda/driver.py``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InvalidArgumentError


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str  # one line (docs table, --help)
    seed: str  # where it comes from: "001", "004", or "ours"
    cpu: str  # "module:function" of the CPU setup
    cuda: str  # "module:function" of the CUDA search
    # its phases are the algorithm's own, identical on both backends (frontier, arcs);
    # False for auto, whose phases are each backend's own rounds
    phases: bool = True
    compare: bool = False  # one of the GUI's "compare strategies" overlay
    bench_variants: tuple[str, ...] = ()  # "name:variant" rows of `signpost bench sssp`
    # takes negative arc weights (label-correcting: no settled vertices, and a bound on the
    # phases detects a negative cycle); the others raise NegativeWeightsError on them
    negative_weights: bool = False

    def entry(self, backend: str) -> Callable:
        """The entry point of ``backend`` ("cpu" or "cupy"), imported on first use."""
        spec = self.cpu if backend == "cpu" else self.cuda
        module, _, func = spec.partition(":")
        return getattr(importlib.import_module(module), func)


_C, _G = "gpu_core.sssp.cpu.", "gpu_core.sssp.cuda."
REGISTRY: tuple[Strategy, ...] = (
    Strategy("conventional", "Harish-Narayanan: |V| threads per phase, RELAX + UPDATE", "001",
             _C + "bf:conventional", _G + "bf:conventional", compare=True,
             negative_weights=True),
    Strategy("selection", "threads only for the frontier list", "001",
             _C + "bf:selection", _G + "bf:selection", compare=True,
             negative_weights=True),
    Strategy("adaptive", "per-phase switch between the two, by phase time or frontier size",
             "001", _C + "bf:adaptive", _G + "adaptive:adaptive", compare=True,
             bench_variants=("time", "frontier"), negative_weights=True),
    Strategy("eval_dijkstra", "evaluation-value parallel Dijkstra", "004",
             _C + "eval:eval_dijkstra", _G + "eval:eval_dijkstra"),
    Strategy("bellman_ford_queue", "flag array compacted to changed vertices (SPFA-like)",
             "004", _C + "bf:bellman_ford_queue", _G + "bf:bellman_ford_queue",
             negative_weights=True),
    Strategy("delta", "delta-stepping / near-far buckets", "ours",
             _C + "delta:delta", _G + "delta:delta"),
    Strategy("auto", "the fastest: on the GPU a whole search without a host round trip",
             "ours", _C + "auto:auto", _G + "auto:auto", phases=False, compare=True),
)

BY_NAME: dict[str, Strategy] = {s.name: s for s in REGISTRY}
STRATEGIES: tuple[str, ...] = tuple(BY_NAME)
COMPARE_STRATEGIES: tuple[str, ...] = tuple(s.name for s in REGISTRY if s.compare)
NEGATIVE_STRATEGIES: tuple[str, ...] = tuple(s.name for s in REGISTRY if s.negative_weights)
# what a NegativeWeightsError suggests (seed 004's queue Bellman-Ford)
NEGATIVE_SUGGESTION = "bellman_ford_queue"
BENCH_STRATEGIES: tuple[str, ...] = tuple(
    spec for s in REGISTRY
    for spec in ([f"{s.name}:{v}" for v in s.bench_variants] or [s.name])
)


def get(name: str) -> Strategy:
    """The entry of ``name``; InvalidArgumentError naming the choices otherwise."""
    try:
        return BY_NAME[name]
    except (KeyError, TypeError):
        raise InvalidArgumentError(
            f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}"
        ) from None


def docs_table() -> str:
    """The strategies as an RST-style table (``gpu_core.sssp`` docstring, docs)."""
    w = max(len(s.name) for s in REGISTRY) + 4
    rule = "=" * w + "  " + "=" * 72
    rows = [f"{'``' + s.name + '``':<{w}}  {s.description} (seed {s.seed})" for s in REGISTRY]
    return "\n".join([rule, *rows, rule])
