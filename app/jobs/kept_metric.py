"""The CCH topology's kept metric on disk, beside the index (issue 41).

A customization keeps its basic metric on the topology object (``gpu_core.hierarchy.
partial.Metric``: per edge the input and customized weights, and the graph they came
from), so the next one that changes a few arcs (a closure) updates only the edges they
reach. That object lived only in the process: ``signpost matrix --close`` in a new
process re-customized in full (4.1 s on a 1.2M-node map against <= 50 ms partial).

The map's own metric is written beside its topology as ``cch-kept-<topology key>.bin``
(``mapped_arrays``: one file, written atomically, every piece checksummed, read as
copy-on-write memory maps) with everything a new process needs to re-customize a closure
without making anything first: the topology's arrays (so its ``.npz`` is not read), the
metric and the graph it came from, the unpruned Hierarchy of that metric (what a partial
update patches; NE: 0.4-0.6 s to make from the metric), and the topology's sweep layout,
its inverse order, the edges' lower ends and the per-vertex work the update plans with.
A new process only checks, maps and patches: on NE a closure's re-customization went
from 1.7-2.9 s to 0.21-0.43 s on the shared 2-core machine (docs/perf/first_contact.md,
stop 53).

A file of another topology key, format or family, of inconsistent sizes, or damaged
(a checksum differs) is removed and ignored: the topology is read from its ``.npz`` and
the next customization is full, as before. The older ``cch-metric-<key>.npz`` (the
metric alone) is still read once, then written in the new form and removed.
"""

from __future__ import annotations

import os
import zipfile

import numpy as np

from maps.cache_folder import after_save, touch

from . import mapped_arrays

_ARRAYS = ("base_up", "base_down", "up", "down", "indptr", "indices", "weights")
FAMILY = "weights"  # the map's own weights (the search index's keys are not kept here)
KEPT_FORMAT = 1  # bump when what ``save`` writes changes: an older file is rebuilt
_TOPOLOGY = ("rank", "order", "up_ptr", "up_nb", "dn_ptr", "dn_src", "dn_edge", "lvl_ptr",
             "lvl_vert")
# what a closure's update touches here and there (the rest, read whole by the patch and
# the row comparison, stays mapped after the file's check): unmapped after the check
_SPARSE = ("t.order", "t.dn_ptr", "t.dn_src", "t.dn_edge", "t.lvl_ptr", "t.lvl_vert",
           "t.tails", "t.work", "m.base_up", "m.base_down", "m.up", "m.down")
_HIERARCHY = ("rank_of", "up_ptr", "up_dst", "up_w", "down_ptr", "down_src", "down_w",
              "level_ptr")


def kept_path(tkey: str) -> str:
    """Where the kept metric (and what a closure needs with it) of the topology with key
    ``tkey`` lives."""
    from maps.cache import cache_dir

    return os.fspath(cache_dir() / f"cch-kept-{tkey}.bin")


def metric_path(tkey: str) -> str:
    """The older file of the kept metric alone (read once, then replaced by
    :func:`kept_path`'s)."""
    from maps.cache import cache_dir

    return os.fspath(cache_dir() / f"cch-metric-{tkey}.npz")


def kept(t):
    """The metric of the map's weights kept on ``t`` with its graph (None if none)."""
    m = (t.__dict__.get("_metrics") or {}).get(FAMILY)
    return m if m is not None and m.inputs is not None else None


def _closure_ready(t, m) -> None:
    """Make what a partial update of ``m`` needs and a new process would otherwise make
    first: the unpruned Hierarchy, the sweep layout and its inverse, the edges' lower
    ends, the per-vertex work (kept on ``t``/``m``, as the update would keep them)."""
    from gpu_core.hierarchy.patch import unpruned
    from gpu_core.hierarchy.plan import TRIANGLES, vertex_work

    if m.hierarchy is None:
        m.hierarchy = unpruned(t, m.up, m.down)  # makes t._sweep too
    if getattr(t, "_sweep", None) is None:
        from gpu_core.hierarchy.metric import sweep_layout

        t._sweep = sweep_layout(t.n, t.up_ptr, t.up_nb)
    if getattr(t, "_by_sweep", None) is None:
        t._by_sweep = np.argsort(t._sweep[0]).astype(np.int32)
    if getattr(t, "_work", None) is None:
        t._work = vertex_work(TRIANGLES, t.n, t.up_ptr, t.dn_ptr, t.dn_src, t.dn_edge)
    t.tails()


def save(t) -> str:
    """Write ``t``'s kept metric of the map's weights (if any) beside the index, with the
    topology and what a closure's partial update needs; the path, or "" (none kept, or an
    unwritable folder: the next process customizes in full)."""
    from gpu_core.hierarchy.partial import lock_for

    if not getattr(t, "key", ""):
        return ""
    with lock_for(t):
        m = kept(t)
        if m is None:
            return ""
        _closure_ready(t, m)
        h, ki = m.hierarchy, m.inputs
        arrays = {f"t.{k}": getattr(t, k) for k in _TOPOLOGY}
        arrays.update({"t.tails": t.tails(), "t.sweep": t._sweep[0],
                       "t.sweep_levels": t._sweep[1], "t.by_sweep": t._by_sweep,
                       "t.work": t._work, "m.base_up": m.base_up, "m.base_down": m.base_down,
                       "m.up": m.up, "m.down": m.down, "m.indptr": ki.indptr,
                       "m.indices": ki.indices, "m.weights": ki.weights})
        arrays.update({f"h.{k}": getattr(h, k) for k in _HIERARCHY})
        meta = {"format": KEPT_FORMAT, "family": FAMILY, "key": t.key, "n": int(t.n),
                "edges": int(t.edges), "core": int(t.core), "fill": int(t.fill),
                "order_s": float(t.order_s), "topology_s": float(t.topology_s)}
        path = kept_path(t.key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            mapped_arrays.write(path, {k: np.asarray(v) for k, v in arrays.items()}, meta)
        except OSError:
            return ""
    after_save(path)  # the folder's cap, as after every save
    return path


def load_topology(tkey: str):
    """The topology ``tkey`` with its kept metric, read from :func:`kept_path` without
    copies (memory-mapped), ready for a partial update; None when there is no such file,
    or it does not fit (then it is removed)."""
    path = kept_path(tkey)
    if not tkey or not os.path.exists(path):
        return None
    try:
        meta, a = mapped_arrays.read(path, sparse=_SPARSE)
        t = _topology_of(path, tkey, meta, a)
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        _discard(path)  # damaged, or written by another layout: rebuilt, never trusted
        return None
    touch(path)  # used: last in line for the cache's eviction
    return t


def _topology_of(path: str, tkey: str, meta: dict, a: dict):
    from gpu_core.hierarchy import Topology
    from gpu_core.hierarchy.cch import _check_topology
    from gpu_core.hierarchy.inputs import KeptInputs
    from gpu_core.hierarchy.model import of_topology
    from gpu_core.hierarchy.partial import keep

    if (meta.get("format") != KEPT_FORMAT or meta.get("family") != FAMILY
            or meta.get("key") != tkey):
        raise ValueError(f"{path}: kept metric of another topology or format")
    n, e = int(meta["n"]), int(meta["edges"])
    t = Topology(n=n, **{k: a[f"t.{k}"] for k in _TOPOLOGY}, key=str(meta["key"]),
                 core=int(meta["core"]), fill=int(meta["fill"]),
                 order_s=float(meta["order_s"]), topology_s=float(meta["topology_s"]))
    _check_topology(t, path)
    h = of_topology(t, *(a[f"h.{k}"] for k in _HIERARCHY))
    ptr = a["m.indptr"]
    fits = (t.edges == e
            and all(a[f"m.{k}"].shape == (e,) and a[f"m.{k}"].dtype == np.int64
                    for k in ("base_up", "base_down", "up", "down"))
            and ptr.shape == (n + 1,) and a["m.indices"].shape == a["m.weights"].shape
            and int(ptr[-1]) == a["m.indices"].shape[0]
            and a["t.tails"].shape == (e,) and a["t.sweep"].shape == (n,)
            and a["t.by_sweep"].shape == (n,) and a["t.work"].shape == (n,)
            and int(a["t.sweep_levels"][-1]) == n
            and h.rank_of.shape == (n,) and h.up_ptr.shape == (n + 1,)
            and h.down_ptr.shape == (n + 1,)
            and int(h.up_ptr[-1]) == h.up_dst.shape[0] == h.up_w.shape[0]
            and int(h.down_ptr[-1]) == h.down_src.shape[0] == h.down_w.shape[0]
            and int(h.level_ptr[-1]) == n)
    if not fits:
        raise ValueError(f"{path}: inconsistent kept metric")
    # what the partial update and the patch would make first (not fields: never saved)
    t.__dict__.update(_tails=a["t.tails"], _sweep=(a["t.sweep"], a["t.sweep_levels"]),
                      _by_sweep=a["t.by_sweep"], _work=a["t.work"])
    keep(t, a["m.base_up"], a["m.base_down"], a["m.up"], a["m.down"], h)
    m = t.__dict__["_metric"]
    m.inputs = KeptInputs(ptr, a["m.indices"], a["m.weights"])
    t.__dict__.setdefault("_metrics", {})[FAMILY] = m
    return t


def load_into(t) -> bool:
    """Put the kept metric of the older file (:func:`metric_path`) written for ``t`` back
    on it (when it keeps none yet); False when there is none or it does not fit (then
    the file is removed)."""
    from gpu_core.hierarchy.inputs import KeptInputs
    from gpu_core.hierarchy.partial import keep

    if kept(t) is not None or not getattr(t, "key", ""):
        return False
    path = metric_path(t.key)
    if not os.path.exists(path):
        return False
    try:
        with np.load(path, allow_pickle=False) as z:
            got = {k: z[k] for k in _ARRAYS}
            tkey = str(z["topology"])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
        _discard(path)
        return False
    e = int(t.edges)
    n = got["indptr"].shape[0] - 1
    fits = (tkey == t.key and all(got[k].shape == (e,) and got[k].dtype == np.int64
                                  for k in ("base_up", "base_down", "up", "down"))
            and n >= 0 and got["indices"].shape == got["weights"].shape
            and int(got["indptr"][-1]) == got["indices"].shape[0])
    if not fits:
        _discard(path)
        return False
    keep(t, got["base_up"], got["base_down"], got["up"], got["down"], None)
    t._metric.inputs = KeptInputs(got["indptr"], got["indices"], got["weights"])
    t.__dict__.setdefault("_metrics", {})[FAMILY] = t._metric
    return True


def migrate(t) -> str:
    """After :func:`load_into` read the older file: write the new one, remove the old;
    the new file's path, or "" (not written: the old one stays)."""
    path = save(t)
    if path:
        _discard(metric_path(t.key))
    return path


def _discard(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
