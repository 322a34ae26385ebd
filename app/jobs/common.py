"""Types every job shares: progress and cancel callbacks."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# progress(fraction in [0, 1] or None when unknown, message)
Progress = Callable[[float | None, str], None]
# polled between steps; True asks the job to stop (it raises gpu_core.CancelledError)
CancelCheck = Callable[[], bool]


# ``SIGNPOST_COMPILE_AHEAD=0`` keeps the window's warm-up in its own threads
# (``app.jobs.compile_ahead``; the tests' default): here, where what-if and the index
# children ask it without importing the child's module
COMPILE_AHEAD_ENV = "SIGNPOST_COMPILE_AHEAD"


def compile_ahead_enabled() -> bool:
    """Whether the window's kernels compile in a child process (``app.jobs.compile_ahead``)."""
    return os.environ.get(COMPILE_AHEAD_ENV, "1") != "0"


def report(progress: Progress | None, fraction: float | None, message: str) -> None:
    """Call ``progress`` when one was given."""
    if progress is not None:
        progress(fraction, message)


def json_safe(obj: Any) -> Any:
    """Replace NaN/inf floats by None (JSON has no NaN), in nested dicts and lists."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def unit_info(net) -> dict[str, Any]:
    """``unit`` and its readable ``unit_name`` of a network's weights, and
    ``weights_generated`` (how) for a map whose weights Signpost made up (a PACE file
    carries none): such weights are never presented as the file's own."""
    from maps.model.network import WEIGHT_UNITS

    generated = generated_weights(net)
    if generated:
        return {"unit": net.unit, "unit_name": "generated integer weight (the PACE file has none)",
                "weights_generated": generated}
    return {"unit": net.unit, "unit_name": WEIGHT_UNITS.get(net.unit, net.unit)}


def generated_weights(net) -> str | None:
    """How the weights were generated when the file has none (PACE), else None."""
    meta = getattr(net, "meta", None) or {}
    if meta.get("format") != "pace":
        return None
    return (f"uniform random 1..1000 from seed {meta.get('weight_seed', 1)}; "
            "the PACE file has no weights")


def refuse_negative(net, what: str) -> None:
    """NegativeWeightsError (one line, exit 2 in the CLI) when ``net`` (a RoadNetwork or a
    CSRGraph) has negative arcs: ``what`` needs non-negative weights."""
    from gpu_core.errors import NegativeWeightsError

    w = net.weights
    if w.size and int(w.min()) < 0:
        raise NegativeWeightsError(
            f"this map has negative arc weights (the lowest is {int(w.min())}); {what} needs "
            "non-negative ones (single-source searches take them: signpost sssp/route "
            "--strategy bellman_ford_queue)"
        )


@contextmanager
def cycle_with_file_ids(net):
    """Re-raise gpu_core's NegativeCycleError naming the arc by the map's own node ids
    ("negative cycle through arc U->V" with the ids of the source file)."""
    from gpu_core.errors import NegativeCycleError

    try:
        yield
    except NegativeCycleError as exc:
        labels = getattr(net, "node_labels", None)
        if exc.arc is None or labels is None:
            raise
        ids = labels()
        u, v = exc.arc
        raise NegativeCycleError(exc.arc, exc.cycle, shown=(ids[u], ids[v])) from None


# Maps of at most this many nodes are "small work" (issue 41): a search on them takes
# milliseconds on numpy/scipy paths, where the first compiled one waits seconds for numba
# (a fresh install's first route on the sample map: 9.4 s, of which ~5 s compiling).
# Under 2**15, where dist_from_keys stays on numpy too.
SMALL_WORK_NODES = 30_000


def small_work(net) -> bool:
    """True when ``net`` (a RoadNetwork or CSRGraph) is small enough that ``auto``
    searches on the CPU take the paths that need no compilation (bit-identical)."""
    return int(net.num_nodes) <= SMALL_WORK_NODES


# A map of at most this many nodes clicked on a fresh install (the near-far kernel not yet
# compiled by app.jobs.compile_ahead's child) searches by scipy too: ~50 ms on a 60,000-node
# map on a 2-core CPU, where compiling the kernel holds the GIL for 5-10 s (issue 41).
NO_COMPILE_NODES = 100_000


def no_compile_work(net) -> bool:
    """True when ``auto`` searches of ``net`` on the CPU should take the path that needs no
    compilation while the kernel is not compiled (``SSSPOptions.small_work``): small maps
    always (:func:`small_work`), maps up to :data:`NO_COMPILE_NODES` on a fresh install."""
    return int(net.num_nodes) <= NO_COMPILE_NODES


@contextmanager
def compile_clock() -> Iterator[list[float]]:
    """``[seconds]`` numba spent compiling (or loading compiled code from its cache) inside
    the block, outermost compilations only (a function compiled for another is counted
    once): what a first run's search takes beyond the search itself (issue 42, item 13)."""
    from numba.core import event

    spent, depth, start = [0.0], [0], [0.0]

    class Clock(event.Listener):
        def on_start(self, ev) -> None:
            if depth[0] == 0:
                start[0] = time.perf_counter()
            depth[0] += 1

        def on_end(self, ev) -> None:
            depth[0] -= 1
            if depth[0] == 0:
                spent[0] += time.perf_counter() - start[0]

    with event.install_listener("numba:compile", Clock()):
        yield spent


def follow_placement(events, epsilon: float, progress: Progress | None, on_partial,
                     step_text: Callable[[Any], str]):
    """Run a billboards placement's events (``gpu_core.betweenness.billboards``) to its
    result: progress words for each step (``step_text(ev)``) and for each progressive
    partial result, which also goes to ``on_partial``."""
    from gpu_core.betweenness import BillboardResult

    result = None
    for ev in events:
        if isinstance(ev, BillboardResult):
            result = ev
        elif isinstance(ev.partial, BillboardResult):  # progressive: best sites, bound
            if on_partial is not None:
                on_partial(ev.partial)
            first = "first answer from " if ev.partial.stopped_by == "preview" else ""
            report(progress, ev.fraction, f"{first}{ev.sources_done:,} samples: error "
                   f"{ev.partial.epsilon_at_stop:.3g} (target {epsilon:g})")
        else:
            report(progress, ev.fraction, step_text(ev))
    assert result is not None
    return result
