"""Where GPU work keeps device copies on route-index objects, and how to give them back.

Sweeps keep their device lists on the Hierarchy (``cuda._device``: ``_device``, shared by
its copies through ``_device_box``; ``upward_cuda.walker``: ``_walk``) and on its kept
restricted sweep (``few.restrict``: ``_restricted``); a customization on the device keeps
the topology's arrays (``metric_cuda._device``) and, for partial updates, its kept
metrics' (``partial.Metric.device``), whose hierarchies sweep too. Plain attributes, so
this module needs no CuPy: the next GPU search or customization uploads them again.
"""

from __future__ import annotations

import sys

_ON_OBJECT = ("_device", "_walk")


def _drop(obj) -> None:
    for name in _ON_OBJECT:
        if getattr(obj, name, None) is not None:
            setattr(obj, name, None)
    box = getattr(obj, "_device_box", None)
    if box:
        box.clear()


def release(*held) -> None:
    """Drop the device copies that GPU work on each of ``held`` keeps, then give CuPy's
    pool its free blocks back (where CuPy is loaded). ``held``: Hierarchies (with their
    kept restricted sweep and their CCH topology) and CCH Topologies (with their kept
    metrics and those metrics' hierarchies). For a process that hands its GPU to another,
    a Dask client beside its local cluster's first worker: what the 24M-node map's index
    left there took 32 of that worker's 224 sources a sweep on an H100
    (docs/perf/dask.md)."""
    from .cch import Topology

    for x in held:
        if isinstance(x, Topology):
            _release_topology(x)
            continue
        _drop(x)
        kept = getattr(x, "_restricted", None)
        if kept is not None:
            _drop(kept[1])
        ref = getattr(x, "_topology", None)  # a CCH Hierarchy's topology, held weakly
        t = ref() if ref is not None else None
        if t is not None:
            _release_topology(t)
    cp = sys.modules.get("cupy")
    if cp is not None and held:
        cp.get_default_memory_pool().free_all_blocks()


def _release_topology(t) -> None:
    """The topology's arrays, and the metrics kept on it (one per weight family) with their
    hierarchies, under the lock its customizations take (one may be running in another
    thread: it keeps its own references, and the next one uploads again)."""
    from .partial import lock_for

    with lock_for(t):
        _drop(t)
        metrics = {id(m): m for m in (*getattr(t, "_metrics", {}).values(),
                                      getattr(t, "_metric", None)) if m is not None}
        for m in metrics.values():
            _drop(getattr(m, "hierarchy", None))
            _drop(getattr(m, "pruned", None))
            if getattr(m, "device", None) is not None:
                m.device = None
